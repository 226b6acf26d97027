//! Which papers a question goes to: every readable paper in scope is
//! considered; they are ranked by how well their text matches the question
//! (BM25, the question expanded by feedback) with their review score as a
//! tie-breaker's weight; the best [`MAX_CANDIDATES`] are read, or all of
//! them when the researcher asks to read every paper.

use super::Scope;
use crate::blocking::on_every_core;
use crate::offline::Paper;
use crate::offline::passages::{Passages, passages};
use crate::review::verdicts::Verdicts;
use crate::review::verdicts::result_head_of;
use crate::review::{ReviewError, Verdict, paper_text};
use crate::workspace::{PaperRecord, Workspace};

/// Papers a model reads for a question unless every paper is asked for.
pub const MAX_CANDIDATES: usize = 12;
/// Passages kept per paper (offline results and candidate choice).
pub const PASSAGES_PER_PAPER: usize = 3;

/// A paper in scope, its text and its match with the question.
pub struct Candidate {
    pub paper: PaperRecord,
    pub pages: Vec<String>,
    pub passages: Passages,
    /// What ranks it: the text's match, raised by a high review score.
    pub rank: f64,
}

/// The papers in scope, best match first: `(considered, to read)`. Their
/// best passages are found only `with_passages` (offline, they are the
/// result; with a model, finding them in every paper would be wasted).
pub fn candidates(
    ws: &Workspace,
    question: &str,
    scope: &Scope,
    read_all: bool,
    with_passages: bool,
) -> Result<(usize, Vec<Candidate>), ReviewError> {
    let papers = papers_in_scope(ws, scope)?;
    // Passages come from a paper's content, never its title block, page
    // furniture or reference list.
    let texts = on_every_core(&papers, |paper| {
        paper_text::load_text(ws, &paper.id).map(|t| t.unwrap_or_default().content)
    })?;
    let views: Vec<Paper<'_>> = papers
        .iter()
        .zip(&texts)
        .map(|(p, pages)| Paper {
            title: p.title.as_deref(),
            pages,
        })
        .collect();
    let per_paper = if with_passages { PASSAGES_PER_PAPER } else { 0 };
    let found = passages(question, &views, per_paper);
    let best = found.iter().map(|p| p.relevance).fold(0.0, f64::max);
    let mut ranked: Vec<Candidate> = Vec::new();
    for ((paper, pages), passages) in papers.into_iter().zip(texts).zip(found) {
        let score = result_head_of(ws, &paper.id)?.map_or(0.0, |h| h.score);
        let text_match = if best > 0.0 {
            passages.relevance / best
        } else {
            0.0
        };
        ranked.push(Candidate {
            rank: text_match + 0.25 * score / 10.0,
            paper,
            pages,
            passages,
        });
    }
    let considered = ranked.len();
    ranked.sort_by(|a, b| b.rank.total_cmp(&a.rank).then(a.paper.id.cmp(&b.paper.id)));
    if !read_all {
        // A paper none of whose words match is not read: the question's
        // terms, expanded, are not in it.
        ranked.retain(|c| c.passages.relevance > 0.0);
        ranked.truncate(MAX_CANDIDATES);
    }
    Ok((considered, ranked))
}

/// Each paper once, at its first place: ids given twice (or a prefix and
/// the full id of one paper) are read once.
fn once_each(papers: Vec<PaperRecord>) -> Vec<PaperRecord> {
    let mut seen = std::collections::HashSet::new();
    papers
        .into_iter()
        .filter(|p| seen.insert(p.id.clone()))
        .collect()
}

/// The readable papers of the scope.
pub fn papers_in_scope(ws: &Workspace, scope: &Scope) -> Result<Vec<PaperRecord>, ReviewError> {
    let readable: Vec<PaperRecord> = ws
        .papers()?
        .into_iter()
        .filter(|p| p.status.is_readable())
        .collect();
    Ok(match scope {
        Scope::All => readable,
        Scope::Papers(ids) => {
            let mut chosen = Vec::new();
            for id in ids {
                let matches: Vec<&PaperRecord> = readable
                    .iter()
                    .filter(|p| p.id.0.starts_with(id.trim()))
                    .collect();
                match matches.as_slice() {
                    [one] => chosen.push((*one).clone()),
                    [] => return Err(ReviewError::NoSuchPaper { id: id.clone() }),
                    _ => return Err(ReviewError::AmbiguousPaper { id: id.clone() }),
                }
            }
            once_each(chosen)
        }
        Scope::Included => {
            let verdicts = Verdicts::load(ws)?;
            let mut kept = Vec::new();
            let mut reviewed = false;
            for paper in &readable {
                let Some(verdict) = verdicts.of_paper(ws, &paper.id)? else {
                    continue;
                };
                reviewed = true;
                if verdict != Verdict::Exclude {
                    kept.push(paper.clone());
                }
            }
            if reviewed { kept } else { readable }
        }
    })
}
