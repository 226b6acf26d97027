//! Text handling for the offline engine: terms (lowercased, stop words out, a
//! light stemmer so "transactions" meets "transaction"), and sentences with the
//! page they are on.

use std::collections::HashSet;
use std::sync::OnceLock;

const STOP_WORDS: &str = "a about above after again against all almost also although am among an and another any are \
    as at be because been before being below between both but by can could did do does doing done down during each \
    either else etc even ever every few for from further had has have having he her here hers him his how however i \
    if in into is it its itself just less let like made make makes many may me might more most much must my no nor \
    not now of off often on once one only or other others otherwise our ours out over own per rather same several \
    shall she should since so some such than that the their theirs them then there these they this those though \
    through thus to too two under until up upon us use used uses using very via was we well were what when where \
    whether which while who whom whose why will with within without would yet you your also based new paper papers \
    approach approaches method methods propose proposed present presented show shown work works result results \
    section figure table et al e g i e fig";

fn stop_words() -> &'static HashSet<&'static str> {
    static WORDS: OnceLock<HashSet<&'static str>> = OnceLock::new();
    WORDS.get_or_init(|| STOP_WORDS.split_whitespace().collect())
}

/// A light stemmer: plural and common verb endings only, so stems stay readable
/// in rationales ("replicat" would not be).
pub fn stem(word: &str) -> String {
    let w = word;
    if w.len() > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..w.len() - 3]);
    }
    if w.len() > 4 && (w.ends_with("sses") || w.ends_with("xes") || w.ends_with("ches")) {
        return w[..w.len() - 2].to_owned();
    }
    if w.len() > 3
        && w.ends_with('s')
        && !w.ends_with("ss")
        && !w.ends_with("us")
        && !w.ends_with("is")
    {
        return w[..w.len() - 1].to_owned();
    }
    if w.len() > 6 && w.ends_with("ing") {
        return w[..w.len() - 3].to_owned();
    }
    if w.len() > 5 && w.ends_with("ed") && !w.ends_with("eed") {
        return w[..w.len() - 2].to_owned();
    }
    w.to_owned()
}

/// The terms of a text, in order.
pub fn terms(text: &str) -> Vec<String> {
    let stops = stop_words();
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| t.len() >= 2 && t.len() <= 30)
        .map(str::to_lowercase)
        .filter(|t| !stops.contains(t.as_str()) && !t.chars().all(|c| c.is_ascii_digit()))
        .map(|t| stem(&t))
        .collect()
}

/// A sentence and the page it is on (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Sentence {
    pub text: String,
    pub page: usize,
    /// Position in the document, for keeping summaries in reading order.
    pub index: usize,
}

/// Split pages into sentences, joining lines; drops fragments that are not prose
/// (too short, too long, mostly digits or symbols).
pub fn sentences(pages: &[String]) -> Vec<Sentence> {
    let mut out = Vec::new();
    for (page_index, page) in pages.iter().enumerate() {
        let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut start = 0;
        let chars: Vec<(usize, char)> = flat.char_indices().collect();
        for (i, &(byte, c)) in chars.iter().enumerate() {
            let end_of_sentence = matches!(c, '.' | '?' | '!')
                && chars.get(i + 1).is_some_and(|&(_, n)| n == ' ')
                && chars.get(i + 2).is_some_and(|&(_, n)| n.is_uppercase())
                && !ends_with_abbreviation(&flat[start..byte]);
            if end_of_sentence || i + 1 == chars.len() {
                let end = byte + c.len_utf8();
                push_sentence(&mut out, flat[start..end].trim(), page_index + 1);
                start = end;
            }
        }
    }
    out
}

fn ends_with_abbreviation(text: &str) -> bool {
    let last = text.rsplit(' ').next().unwrap_or("");
    matches!(
        last,
        "e.g"
            | "i.e"
            | "et al"
            | "al"
            | "Fig"
            | "fig"
            | "Eq"
            | "vs"
            | "cf"
            | "Sec"
            | "resp"
            | "approx"
    ) || last.len() == 1
}

fn push_sentence(out: &mut Vec<Sentence>, text: &str, page: usize) {
    let words = text.split_whitespace().count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if (6..=80).contains(&words) && letters * 10 >= text.len() * 7 {
        let index = out.len();
        out.push(Sentence {
            text: text.to_owned(),
            page,
            index,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_drop_stop_words_and_stem_plurals() {
        assert_eq!(
            terms("How do Databases process Transactions?"),
            vec!["database", "process", "transaction"]
        );
        assert_eq!(terms("queries and indexes"), vec!["query", "index"]);
    }

    #[test]
    fn sentences_keep_their_pages_and_skip_abbreviations() {
        let pages = vec![
            "We study consensus in detail, e.g. Paxos and Raft here. It tolerates failures of many machines.".into(),
            "Replication keeps the state of every node consistent over time.".into(),
        ];
        let s = sentences(&pages);
        assert_eq!(s.len(), 3, "{s:?}");
        assert!(s[0].text.contains("e.g. Paxos"));
        assert_eq!((s[1].page, s[2].page), (1, 2));
    }
}
