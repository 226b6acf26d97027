//! How much of the question a paper is about, on a scale that means the same in
//! every folder: the share of the question's terms the paper uses, in its title
//! and abstract or, less strongly, in its body. Nothing here depends on the
//! other papers of the collection, so a folder with nothing on the question
//! scores low throughout instead of grading its best paper "include".

use std::collections::HashMap;

/// Terms longer than this are compared by their first `KEY_CHARS` characters,
/// so "replicate", "replication" and "replicas" meet (truncation stemming).
const KEY_CHARS: usize = 6;
/// Body occurrences per 1,000 words at which a term counts half.
const HALF_DENSITY: f64 = 2.0;
/// The most a term used only in the body can count: a topic a paper names in
/// its title or abstract is its topic; one it mentions in passing is not.
const BODY_CEILING: f64 = 0.8;

/// The comparison key of a term.
pub fn key(term: &str) -> &str {
    match term.char_indices().nth(KEY_CHARS) {
        Some((at, _)) => &term[..at],
        None => term,
    }
}

/// Stems of words every field's papers use whatever their topic (the general
/// academic vocabulary): in a question they carry less of its topic.
const GENERIC: &[&str] = &[
    "system", "data", "model", "proces", "contro", "state", "design", "implem", "method", "proble",
    "perfor", "time", "set", "struct", "analys", "evalua", "inform", "applic", "functi", "value",
    "number", "level", "case", "order", "effect", "provid", "suppor", "develo", "techni", "tool",
    "study", "large", "small", "high", "low", "differ", "improv",
];
/// The weight of a generic term against a topical one.
const GENERIC_WEIGHT: f64 = 0.4;

/// How much a question term says about the question's topic.
pub fn weight(term: &str) -> f64 {
    if GENERIC.contains(&key(term)) {
        GENERIC_WEIGHT
    } else {
        1.0
    }
}

/// The question's own words by the key of their term, to name terms in words
/// a reader knows ("replicate", not "replic").
pub fn words_by_key(question: &str) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for word in question.split(|c: char| !c.is_alphanumeric()) {
        for term in crate::offline::terms(word) {
            out.entry(key(&term).to_owned())
                .or_insert_with(|| word.to_lowercase());
        }
    }
    out
}

/// One question term and how strongly the paper uses it (0-1).
#[derive(Clone, Debug, PartialEq)]
pub struct TermMatch {
    pub term: String,
    pub in_head: bool,
    pub strength: f64,
}

/// How strongly a paper uses each of the question's terms: 1 when its head
/// (title and abstract) uses the term, else by how often its body does.
pub fn matches(question: &[String], head: &[String], body: &[String]) -> Vec<TermMatch> {
    let mut head_keys: HashMap<&str, usize> = HashMap::new();
    for t in head {
        *head_keys.entry(key(t)).or_insert(0) += 1;
    }
    let mut body_keys: HashMap<&str, usize> = HashMap::new();
    for t in body {
        *body_keys.entry(key(t)).or_insert(0) += 1;
    }
    let body_words = body.len().max(1) as f64;
    let mut seen: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for term in question {
        let k = key(term);
        if seen.contains(&k) {
            continue;
        }
        seen.push(k);
        let in_head = head_keys.contains_key(k);
        let density = *body_keys.get(k).unwrap_or(&0) as f64 * 1000.0 / body_words;
        let body = BODY_CEILING * density / (density + HALF_DENSITY);
        out.push(TermMatch {
            term: term.clone(),
            in_head,
            strength: if in_head { 1.0 } else { body },
        });
    }
    out
}

/// A paper's coverage of a question: each term's match, and the 0-10 score.
#[derive(Clone, Debug, PartialEq)]
pub struct Coverage {
    pub matches: Vec<TermMatch>,
    /// The weighted share of the question's terms the paper uses, 0-1.
    pub share: f64,
    /// `10 √share`, to one decimal: using half of the question's terms in its
    /// title and abstract scores 7 ("include"), a sixth of them 4 ("maybe").
    pub score: f64,
}

/// How much of the question (its terms) a paper with this head (title and
/// abstract) and body is about.
pub fn coverage(question: &[String], head: &[String], body: &[String]) -> Coverage {
    let matches = matches(question, head, body);
    let total: f64 = matches.iter().map(|m| weight(&m.term)).sum();
    let share = if total > 0.0 {
        matches
            .iter()
            .map(|m| weight(&m.term) * m.strength)
            .sum::<f64>()
            / total
    } else {
        0.0
    };
    Coverage {
        score: (100.0 * share.sqrt()).round() / 10.0,
        share,
        matches,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        crate::offline::terms(text)
    }

    #[test]
    fn word_forms_meet_by_their_first_six_letters() {
        assert_eq!(key("replication"), key("replicas"));
        assert_eq!(key("consensus"), "consen");
        assert_eq!(key("type"), "type");
    }

    #[test]
    fn a_term_in_the_abstract_counts_fully_and_one_in_passing_little() {
        let question = words("consensus protocols");
        let head = words("Raft: a consensus protocol for replicated logs");
        let body = words(&"the leader sends entries to followers ".repeat(50));
        let found = coverage(&question, &head, &body);
        assert_eq!(found.share, 1.0, "{found:?}");
        assert_eq!(found.score, 10.0);

        // One mention in a paper-length body (about 5,000 words).
        let passing = words(&format!(
            "{} consensus",
            "images are labelled by annotators ".repeat(1200)
        ));
        let found = coverage(&question, &words("Learning from noisy labels"), &passing);
        assert!(found.share < 0.1 && found.score < 4.0, "{found:?}");
    }

    #[test]
    fn generic_terms_weigh_less_than_the_topic() {
        let question = words("consensus in distributed systems");
        // Uses only the generic "system" and scores below one using only the topic.
        let generic = coverage(&question, &words("An operating system kernel"), &[]);
        let topical = coverage(&question, &words("Consensus without a leader"), &[]);
        assert!(generic.score < topical.score, "{generic:?} {topical:?}");
    }

    #[test]
    fn no_terms_no_score() {
        assert_eq!(coverage(&[], &words("anything"), &[]).score, 0.0);
    }
}
