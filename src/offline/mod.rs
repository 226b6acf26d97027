//! The offline engine: a review with no language model, by classical IR, and
//! labelled as such everywhere it shows.
//!
//! A paper's score is its coverage of the question (`coverage`): the share of
//! the question's terms it uses, in its title and abstract or, less strongly,
//! in its body. It depends on the question and the paper alone, so a score
//! means the same in every folder, and a folder with nothing on the question
//! gets no "include". Evidence is the paper's sentences that best match the
//! question under BM25 with one round of pseudo-relevance feedback (the
//! best-matching papers lend their characteristic terms, which bridges the
//! question's words and the papers' vocabulary). Summaries are extractive
//! (`summary`). It knows nothing of files or workspaces: papers in, results out.

mod bm25;
mod coverage;
pub mod passages;
mod summary;
mod text;

use std::collections::HashMap;

use crate::review_model::{CriterionOutcome, CriterionVerdict, Quote, Verdict};

use coverage::{Coverage, TermMatch, coverage};
pub use text::{Sentence, sentences, terms};

/// Words of the head field: title plus the opening of the paper (its abstract).
const HEAD_WORDS: usize = 300;
/// Papers that lend terms to the expanded query, and how many terms they lend:
/// the customary RM3 defaults (as in Lucene/Anserini), not fitted to any corpus.
const FEEDBACK_DOCS: usize = 10;
/// Terms added by feedback, and their weight against the question's own terms.
const FEEDBACK_TERMS: usize = 50;
const FEEDBACK_WEIGHT: f64 = 0.5;
const EVIDENCE_QUOTES: usize = 3;

/// One paper as the engine sees it.
pub struct Paper<'a> {
    pub title: Option<&'a str>,
    pub pages: &'a [String],
}

/// The engine's findings for one paper (provenance is added by the caller).
#[derive(Clone, Debug, PartialEq)]
pub struct Findings {
    pub score: f64,
    pub verdict: Verdict,
    pub summary: Vec<Quote>,
    pub key_points: Vec<String>,
    pub rationale: String,
    pub evidence: Vec<Quote>,
    pub criteria: Vec<CriterionVerdict>,
}

/// Review every paper against the question and criteria.
pub fn review(question: &str, criteria: &[String], papers: &[Paper<'_>]) -> Vec<Findings> {
    if papers.is_empty() {
        return Vec::new();
    }
    let heads: Vec<Vec<String>> = papers.iter().map(head_terms).collect();
    let bodies: Vec<Vec<String>> = papers.iter().map(|p| terms(&p.pages.join("\n"))).collect();
    let index = bm25::Index::new(&heads, &bodies);

    let mut query_text = question.to_owned();
    for c in criteria {
        query_text.push(' ');
        query_text.push_str(c);
    }
    let query = expand_query(&index, &weighted(&terms(&query_text)));
    let question_terms = terms(question);
    let question_words = coverage::words_by_key(question);
    let criteria_terms: Vec<Vec<String>> = criteria.iter().map(|c| terms(c)).collect();

    papers
        .iter()
        .enumerate()
        .map(|(d, paper)| {
            let all_sentences = sentences(paper.pages);
            let idf = |t: &str| index.idf(t);
            let centroid = centroid(&index.weighted_tf(d), &idf);
            let summary_sentences = summary::summarize(&all_sentences, &centroid, &idf);
            let key_points = summary::key_points(&all_sentences, &summary_sentences);
            let query_terms: HashMap<&str, f64> =
                query.iter().map(|(t, w)| (t.as_str(), *w)).collect();
            let evidence = best_passages(&all_sentences, &query_terms, &idf, EVIDENCE_QUOTES);
            let covered = coverage(&question_terms, &heads[d], &bodies[d]);
            let score = covered.score;
            let criteria = criteria
                .iter()
                .zip(&criteria_terms)
                .map(|(c, t)| {
                    let met = coverage(t, &heads[d], &bodies[d]).score;
                    judge_criterion(c, met, &all_sentences, &idf)
                })
                .collect();
            Findings {
                score,
                verdict: Verdict::from_score(score),
                summary: summary_sentences
                    .iter()
                    .map(|s| Quote {
                        text: s.text.clone(),
                        page: s.page,
                    })
                    .collect(),
                key_points,
                rationale: rationale(&covered, &question_words, &evidence),
                evidence,
                criteria,
            }
        })
        .collect()
}

fn head_terms(paper: &Paper<'_>) -> Vec<String> {
    let opening: String = paper
        .pages
        .first()
        .map(|p| {
            p.split_whitespace()
                .take(HEAD_WORDS)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    let mut head = terms(paper.title.unwrap_or(""));
    head.extend(terms(&opening));
    head
}

fn weighted(terms: &[String]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for t in terms {
        if !out.iter().any(|(x, _)| x == t) {
            out.push((t.clone(), 1.0));
        }
    }
    out
}

/// Pseudo-relevance feedback: add the terms that characterise the top papers.
fn expand_query(index: &bm25::Index, query: &[(String, f64)]) -> Vec<(String, f64)> {
    let mut ranked: Vec<(usize, f64)> = (0..index.doc_count())
        .map(|d| (d, index.score(d, query).0))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    // RM3 with idf: a term's weight is its share of each feedback paper times its
    // rarity, weighted by that paper's match with the query. Terms must recur in at least two feedback
    // papers, so one paper's names ("Walter", "PSI") do not steer the ranking.
    let mut pooled: HashMap<String, (f64, usize)> = HashMap::new();
    // In a small collection the top ten would be most of it; feedback should come
    // from the clearly best matches only.
    let feedback_docs = FEEDBACK_DOCS.min((index.doc_count() / 4).max(1));
    let top_score = ranked.first().map(|r| r.1).unwrap_or(0.0);
    for &(d, score) in ranked.iter().take(feedback_docs) {
        if score <= 0.0 {
            continue;
        }
        let tf = index.weighted_tf(d);
        let length: f64 = tf.values().sum::<f64>().max(1.0);
        for (term, count) in tf {
            let idf = index.idf(&term);
            let entry = pooled.entry(term).or_insert((0.0, 0));
            entry.0 += count / length * idf * score / top_score;
            entry.1 += 1;
        }
    }
    let min_docs = if feedback_docs >= 4 { 2 } else { 1 };
    let mut extra: Vec<(String, f64)> = pooled
        .into_iter()
        .filter(|(t, (_, docs))| *docs >= min_docs && !query.iter().any(|(q, _)| q == t))
        .map(|(t, (w, _))| (t, w))
        .collect();
    extra.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = query.to_vec();
    out.extend(
        extra
            .into_iter()
            .take(FEEDBACK_TERMS)
            .map(|(t, _)| (t, FEEDBACK_WEIGHT)),
    );
    out
}

fn centroid(tf: &HashMap<String, f64>, idf: &dyn Fn(&str) -> f64) -> HashMap<String, f64> {
    let mut weighted: Vec<(String, f64)> =
        tf.iter().map(|(t, c)| (t.clone(), c * idf(t))).collect();
    weighted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    weighted.into_iter().take(40).collect()
}

fn best_passages(
    sentences: &[Sentence],
    query: &HashMap<&str, f64>,
    idf: &dyn Fn(&str) -> f64,
    count: usize,
) -> Vec<Quote> {
    let mut scored: Vec<(f64, &Sentence)> = sentences
        .iter()
        .map(|s| {
            let mut seen: Vec<String> = terms(&s.text);
            seen.sort_unstable();
            seen.dedup();
            let score: f64 = seen
                .iter()
                .filter_map(|t| query.get(t.as_str()).map(|w| w * idf(t)))
                .sum();
            (score, s)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.index.cmp(&b.1.index)));
    let mut chosen: Vec<&Sentence> = Vec::new();
    for (_, s) in scored {
        if chosen.len() == count {
            break;
        }
        if !chosen.iter().any(|c| c.text == s.text) {
            chosen.push(s);
        }
    }
    chosen.sort_by_key(|s| s.index);
    chosen
        .into_iter()
        .map(|s| Quote {
            text: s.text.clone(),
            page: s.page,
        })
        .collect()
}

/// Why the paper scored what it did: which of the question's terms its title
/// and abstract use, which only its body, and which it never uses.
fn rationale(covered: &Coverage, words: &HashMap<String, String>, evidence: &[Quote]) -> String {
    let listed = |pick: &dyn Fn(&TermMatch) -> bool| -> Vec<String> {
        covered
            .matches
            .iter()
            .filter(|m| pick(m))
            .map(|m| {
                let word = words.get(coverage::key(&m.term)).unwrap_or(&m.term);
                format!("\"{word}\"")
            })
            .collect()
    };
    let head = listed(&|m| m.in_head);
    let body = listed(&|m| !m.in_head && m.strength > 0.0);
    let absent = listed(&|m| m.strength == 0.0);
    if head.is_empty() && body.is_empty() {
        return "None of the question's terms occur in this paper.".to_owned();
    }
    let mut out = format!(
        "Uses {:.0}% of the question's terms (weighted: in the title or abstract fully, in the body by how often).",
        100.0 * covered.share
    );
    if !head.is_empty() {
        out.push_str(&format!(" Title and abstract: {}.", head.join(", ")));
    }
    if !body.is_empty() {
        out.push_str(&format!(" Body only: {}.", body.join(", ")));
    }
    if !absent.is_empty() {
        out.push_str(&format!(" Not used: {}.", absent.join(", ")));
    }
    let mut pages: Vec<usize> = evidence.iter().map(|q| q.page).collect();
    pages.sort_unstable();
    pages.dedup();
    // All on page 1 (a search record's one page, or a paper's first) says
    // nothing the quotes do not.
    if pages.iter().any(|&p| p != 1) {
        let pages: Vec<String> = pages.iter().map(usize::to_string).collect();
        out.push_str(&format!(
            " Best-matching passages are on {} {}.",
            if pages.len() == 1 { "page" } else { "pages" },
            pages.join(", ")
        ));
    }
    out
}

fn judge_criterion(
    criterion: &str,
    score: f64,
    sentences: &[Sentence],
    idf: &dyn Fn(&str) -> f64,
) -> CriterionVerdict {
    let criterion_terms = weighted(&terms(criterion));
    let query: HashMap<&str, f64> = criterion_terms
        .iter()
        .map(|(t, w)| (t.as_str(), *w))
        .collect();
    let evidence = best_passages(sentences, &query, idf, 1).into_iter().next();
    let outcome = if score >= 6.0 {
        CriterionOutcome::Met
    } else if score >= 3.5 {
        CriterionOutcome::Unclear
    } else {
        CriterionOutcome::NotMet
    };
    let note = match (&evidence, outcome) {
        (None, _) => "none of the criterion's terms occur in the paper".to_owned(),
        (Some(q), _) => format!(
            "criterion match {score:.1}/10; closest passage on page {}",
            q.page
        ),
    };
    CriterionVerdict {
        criterion: criterion.to_owned(),
        outcome,
        note,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(text: &str) -> Vec<String> {
        vec![text.to_owned()]
    }

    #[test]
    fn the_paper_about_the_question_ranks_first_with_quotes_from_its_pages() {
        let consensus = vec![
            "Consensus in the presence of failures. We present a consensus protocol that replicates state across machines and tolerates crashes of a minority of replicas.".to_owned(),
            "The leader replicates log entries to followers. When the leader fails, the replicas elect a new leader.".to_owned(),
        ];
        let vision = page(
            "Image classification with deep convolutional networks. We train a network on labelled images and evaluate it on benchmark datasets.",
        );
        let sql = page(
            "Query optimisation for relational databases. The optimiser chooses join orders for SQL queries using cost estimates.",
        );
        let papers = [
            Paper {
                title: Some("Image classification"),
                pages: &vision,
            },
            Paper {
                title: Some("Replicated consensus"),
                pages: &consensus,
            },
            Paper {
                title: Some("Query optimisation"),
                pages: &sql,
            },
        ];
        let found = review(
            "How do distributed systems reach consensus and replicate state when machines fail?",
            &[],
            &papers,
        );
        assert!(
            found[1].score > found[0].score && found[1].score > found[2].score,
            "{found:?}"
        );
        assert_eq!(found[1].verdict, Verdict::Include);
        assert!(
            found[1].evidence.iter().any(|q| q.page == 2),
            "{:?}",
            found[1].evidence
        );
        assert!(
            found[1].rationale.contains("consensus") || found[1].rationale.contains("replicat")
        );
        assert!(!found[1].summary.is_empty());
    }

    #[test]
    fn criteria_get_a_verdict_each() {
        let a = page(
            "We evaluate on the ImageNet benchmark with noisy labels and report accuracy for every model we train.",
        );
        let b = page(
            "A garbage collector for a functional language runtime that reclaims memory without pauses in the mutator.",
        );
        let papers = [
            Paper {
                title: None,
                pages: &a,
            },
            Paper {
                title: None,
                pages: &b,
            },
        ];
        let criteria = vec!["evaluated on a public benchmark".to_owned()];
        let found = review("learning from noisy labels", &criteria, &papers);
        assert_eq!(found[0].criteria.len(), 1);
        assert_eq!(found[0].criteria[0].outcome, CriterionOutcome::Met);
        assert_eq!(found[1].criteria[0].outcome, CriterionOutcome::NotMet);
    }
}
