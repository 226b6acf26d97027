//! Extractive summaries: the sentences of the abstract, introduction and
//! conclusion closest to the paper's centroid (its most characteristic terms,
//! weighted by how rare they are in the collection), without repeats, in reading
//! order.

use std::collections::{HashMap, HashSet};

use super::text::{Sentence, terms};

const SUMMARY_SENTENCES: usize = 4;
const KEY_POINTS: usize = 4;
/// Phrases with which papers state what they contribute.
const CONTRIBUTION_CUES: &[&str] = &[
    "we propose",
    "we present",
    "we introduce",
    "we show",
    "we describe",
    "we demonstrate",
    "we develop",
    "this paper",
    "our results",
    "our approach",
    "we find",
    "we evaluate",
    "our contribution",
];

/// Sentences eligible for the summary: the first two pages the paper's text
/// is on (the abstract and introduction, after any cover) and any
/// conclusion.
fn candidates(sentences: &[Sentence]) -> Vec<&Sentence> {
    let opening = sentences.first().map_or(1, |s| s.page);
    let in_conclusion = |s: &Sentence| {
        s.section.to_lowercase().contains("conclusion")
            || s.text.to_lowercase().contains("conclusion")
    };
    let conclusion = sentences
        .iter()
        .position(|s| s.page > opening + 1 && in_conclusion(s));
    // The conclusion runs to the next heading: an appendix after it is not
    // what the paper concludes.
    let in_range = |s: &Sentence| {
        conclusion.is_some_and(|c| s.index >= c && s.section == sentences[c].section)
    };
    sentences
        .iter()
        .filter(|s| s.page <= opening + 1 || in_range(s))
        .collect()
}

fn vector(text: &str, idf: &dyn Fn(&str) -> f64) -> HashMap<String, f64> {
    let mut v = HashMap::new();
    for t in terms(text) {
        *v.entry(t.clone()).or_insert(0.0) += idf(&t);
    }
    v
}

fn cosine(a: &HashMap<String, f64>, b: &HashMap<String, f64>) -> f64 {
    let dot: f64 = a.iter().filter_map(|(k, x)| b.get(k).map(|y| x * y)).sum();
    let na = a.values().map(|x| x * x).sum::<f64>().sqrt();
    let nb = b.values().map(|x| x * x).sum::<f64>().sqrt();
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na * nb)
    }
}

fn jaccard(a: &str, b: &str) -> f64 {
    let a: HashSet<String> = terms(a).into_iter().collect();
    let b: HashSet<String> = terms(b).into_iter().collect();
    let union = a.union(&b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(&b).count() as f64 / union as f64
    }
}

/// The summary sentences, in reading order.
pub fn summarize<'a>(
    sentences: &'a [Sentence],
    centroid: &HashMap<String, f64>,
    idf: &dyn Fn(&str) -> f64,
) -> Vec<&'a Sentence> {
    let mut scored: Vec<(f64, &Sentence)> = candidates(sentences)
        .into_iter()
        .map(|s| {
            // Earlier sentences (the abstract) state the topic most plainly.
            let position = 1.0 / (1.0 + s.index as f64 / 20.0);
            (
                cosine(&vector(&s.text, idf), centroid) * (0.7 + 0.3 * position),
                s,
            )
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut chosen: Vec<&Sentence> = Vec::new();
    for (_, s) in scored {
        if chosen.len() == SUMMARY_SENTENCES {
            break;
        }
        if chosen.iter().all(|c| jaccard(&c.text, &s.text) < 0.4) {
            chosen.push(s);
        }
    }
    chosen.sort_by_key(|s| s.index);
    chosen
}

/// Contribution statements not already in the summary, each with its page
/// when the text has more than one (a search record's one "page" is its
/// title and abstract: no page to cite).
pub fn key_points(sentences: &[Sentence], summary: &[&Sentence]) -> Vec<String> {
    let paged = sentences.iter().any(|s| s.page != 1);
    let mut points: Vec<String> = Vec::new();
    for s in sentences {
        if points.len() == KEY_POINTS {
            break;
        }
        let lower = s.text.to_lowercase();
        let in_summary = summary.iter().any(|x| x.index == s.index);
        if !in_summary
            && CONTRIBUTION_CUES.iter().any(|cue| lower.contains(cue))
            && points.iter().all(|p| jaccard(p, &s.text) < 0.4)
        {
            points.push(if paged {
                format!("{} (p. {})", s.text, s.page)
            } else {
                s.text.clone()
            });
        }
    }
    points
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::sentences;

    #[test]
    fn candidates_are_the_opening_pages_after_a_cover_and_the_conclusion_alone() {
        let pages: Vec<String> = vec![
            String::new(),
            "We present a protocol for replicas that tolerates many faults.".into(),
            "The protocol keeps every replica of the log in the same order.".into(),
            "Its proof of safety is given in the section that follows here.".into(),
            "6 Conclusions\nWe have shown that the protocol is safe and fast enough.\nA Proofs\nThe lemma follows from the invariant of the log by induction.".into(),
        ];
        let all = sentences(&pages);
        let texts: Vec<&str> = candidates(&all).iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "We present a protocol for replicas that tolerates many faults.",
                "The protocol keeps every replica of the log in the same order.",
                "We have shown that the protocol is safe and fast enough.",
            ]
        );
    }
}
