//! A free question over papers, with no model: each paper's match with the
//! question (BM25 over its head and body, the question expanded by
//! pseudo-relevance feedback as in a review) and its sentences that best
//! match it, with their pages. What Ask shows offline, labelled as passages,
//! not an answer; and how it chooses which papers a model reads.

use std::collections::HashMap;
use std::convert::Infallible;

use super::{HEAD_WORDS, Paper, best_passages, bm25, expand_query, sentences, terms, weighted};
use crate::blocking::on_every_core;
use crate::review_model::Quote;

/// One paper's match with a question.
#[derive(Clone, Debug, PartialEq)]
pub struct Passages {
    /// BM25 of the paper against the expanded question; 0 when no term of
    /// it occurs.
    pub relevance: f64,
    /// Its best-matching sentences, in reading order.
    pub quotes: Vec<Quote>,
}

/// Each of `papers`' match with `question`, in their order, with at most
/// `per_paper` passages each (none looked for at 0).
pub fn passages(question: &str, papers: &[Paper<'_>], per_paper: usize) -> Vec<Passages> {
    // The terms of hundreds of papers are most of the work: on every core.
    let bodies: Vec<Vec<String>> =
        on_every_core(papers, |p| Ok::<_, Infallible>(terms(&p.pages.join("\n"))))
            .unwrap_or_else(|never| match never {});
    let heads: Vec<Vec<String>> = papers
        .iter()
        .zip(&bodies)
        .map(|(p, body)| {
            let mut head = terms(p.title.unwrap_or(""));
            head.extend(body.iter().take(HEAD_WORDS).cloned());
            head
        })
        .collect();
    let index = bm25::Index::new(&heads, &bodies);
    let query = expand_query(&index, &weighted(&terms(question)));
    let query_terms: HashMap<&str, f64> = query.iter().map(|(t, w)| (t.as_str(), *w)).collect();
    let idf = |t: &str| index.idf(t);
    papers
        .iter()
        .enumerate()
        .map(|(d, paper)| Passages {
            relevance: index.score(d, &query).0,
            quotes: if per_paper == 0 {
                Vec::new()
            } else {
                best_passages(&sentences(paper.pages), &query_terms, &idf, per_paper)
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paper_on_the_question_ranks_first_and_gives_its_sentences_with_pages() {
        let raft = vec![
            "Raft is a consensus algorithm for managing a replicated log.".to_owned(),
            "Leader election in Raft uses randomized timeouts to avoid split votes. The leader replicates log entries to followers.".to_owned(),
        ];
        let vision = vec![
            "We detect faces in images with a cascade of boosted classifiers.".to_owned(),
            "The detector runs at fifteen frames per second on a desktop.".to_owned(),
        ];
        let found = passages(
            "How do replicated systems elect a leader?",
            &[
                Paper {
                    title: Some("Vision"),
                    pages: &vision,
                },
                Paper {
                    title: Some("Raft"),
                    pages: &raft,
                },
            ],
            2,
        );
        assert!(found[1].relevance > found[0].relevance);
        assert_eq!(found[0].relevance, 0.0, "nothing of the question in it");
        assert!(found[0].quotes.is_empty());
        let leader = found[1]
            .quotes
            .iter()
            .find(|q| q.text.contains("Leader election"))
            .expect("the election sentence");
        assert_eq!(leader.page, 2);
    }
}
