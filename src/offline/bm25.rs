//! BM25 over two fields: the head of a paper (title and abstract, where its topic
//! is stated most densely) weighted above its body.

use std::collections::HashMap;

/// Okapi parameters; the usual defaults.
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// How much a match in the head counts against one in the body.
pub const HEAD_WEIGHT: f64 = 2.0;

struct Field {
    tf: Vec<HashMap<String, f64>>,
    lengths: Vec<f64>,
    mean_length: f64,
}

impl Field {
    fn new(docs: &[Vec<String>]) -> Self {
        let tf: Vec<HashMap<String, f64>> = docs
            .iter()
            .map(|terms| {
                let mut counts = HashMap::new();
                for t in terms {
                    *counts.entry(t.clone()).or_insert(0.0) += 1.0;
                }
                counts
            })
            .collect();
        let lengths: Vec<f64> = docs.iter().map(|d| d.len() as f64).collect();
        let mean_length = (lengths.iter().sum::<f64>() / lengths.len().max(1) as f64).max(1.0);
        Self {
            tf,
            lengths,
            mean_length,
        }
    }

    fn term_score(&self, doc: usize, term: &str, idf: f64) -> f64 {
        let tf = self.tf[doc].get(term).copied().unwrap_or(0.0);
        if tf == 0.0 {
            return 0.0;
        }
        let norm = K1 * (1.0 - B + B * self.lengths[doc] / self.mean_length);
        idf * tf * (K1 + 1.0) / (tf + norm)
    }
}

/// A BM25 index over a fixed set of documents.
pub struct Index {
    head: Field,
    body: Field,
    doc_freq: HashMap<String, usize>,
    docs: usize,
}

impl Index {
    /// `heads[i]` and `bodies[i]` are the terms of document `i`.
    pub fn new(heads: &[Vec<String>], bodies: &[Vec<String>]) -> Self {
        let mut doc_freq: HashMap<String, usize> = HashMap::new();
        for (head, body) in heads.iter().zip(bodies) {
            let mut seen: Vec<&String> = head.iter().chain(body).collect();
            seen.sort_unstable();
            seen.dedup();
            for term in seen {
                *doc_freq.entry(term.clone()).or_insert(0) += 1;
            }
        }
        Self {
            head: Field::new(heads),
            body: Field::new(bodies),
            doc_freq,
            docs: heads.len(),
        }
    }

    pub fn doc_count(&self) -> usize {
        self.docs
    }

    /// Inverse document frequency (BM25+ style, never negative).
    pub fn idf(&self, term: &str) -> f64 {
        let df = self.doc_freq.get(term).copied().unwrap_or(0) as f64;
        ((self.docs as f64 - df + 0.5) / (df + 0.5) + 1.0).ln()
    }

    /// Score of document `doc` for weighted query terms, and each term's share.
    pub fn score(&self, doc: usize, query: &[(String, f64)]) -> (f64, Vec<(String, f64)>) {
        let mut total = 0.0;
        let mut parts = Vec::new();
        for (term, weight) in query {
            let idf = self.idf(term);
            let s = weight
                * (HEAD_WEIGHT * self.head.term_score(doc, term, idf)
                    + self.body.term_score(doc, term, idf));
            if s > 0.0 {
                parts.push((term.clone(), s));
                total += s;
            }
        }
        parts.sort_by(|a, b| b.1.total_cmp(&a.1));
        (total, parts)
    }

    /// Term frequencies of a document over both fields, head weighted.
    pub fn weighted_tf(&self, doc: usize) -> HashMap<String, f64> {
        let mut out: HashMap<String, f64> = self.body.tf[doc].clone();
        for (term, tf) in &self.head.tf[doc] {
            *out.entry(term.clone()).or_insert(0.0) += HEAD_WEIGHT * tf;
        }
        out
    }
}
