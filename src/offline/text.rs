//! Text handling for the offline engine: terms (lowercased, stop words out, a
//! light stemmer so "transactions" meets "transaction"), and sentences with the
//! page they are on.

use std::collections::HashSet;
use std::sync::OnceLock;

use crate::pdf::zones::is_heading;

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
    /// The heading of the section it is in, as printed ("" before the first).
    pub section: String,
}

/// Split pages into sentences, joining lines; drops fragments that are not prose
/// (too short, too long, mostly digits or symbols). A heading ends the
/// sentence before it and names the section of those after it. A sentence
/// the page turn broke (the next page opens in lower case) is joined with
/// its end and cited by the page it starts on.
pub fn sentences(pages: &[String]) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut run = Run::default();
    for (page_index, page) in pages.iter().enumerate() {
        let page_no = page_index + 1;
        let opening = page.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        if !continues_a_sentence(opening) {
            run.flush(&mut out);
        }
        for line in page.lines() {
            if is_heading(line) {
                run.flush(&mut out);
                run.section = line.split_whitespace().collect::<Vec<_>>().join(" ");
            } else {
                run.push(line, page_no);
            }
        }
    }
    run.flush(&mut out);
    out
}

/// Running text between two boundaries (a heading, a page that starts
/// afresh), with the page each of its parts is on.
#[derive(Default)]
struct Run {
    text: String,
    /// (byte offset in `text`, page) where each page's part begins.
    pages: Vec<(usize, usize)>,
    section: String,
}

impl Run {
    fn push(&mut self, line: &str, page: usize) {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        if self.pages.last().is_none_or(|&(_, p)| p != page) {
            self.pages.push((self.text.len(), page));
        }
        self.text.push_str(&words.join(" "));
    }

    fn page_at(&self, byte: usize) -> usize {
        self.pages
            .iter()
            .rev()
            .find(|&&(at, _)| at <= byte)
            .or(self.pages.first())
            .map_or(1, |&(_, p)| p)
    }

    /// Cut the run into sentences and start a new one.
    fn flush(&mut self, out: &mut Vec<Sentence>) {
        let flat = std::mem::take(&mut self.text);
        let mut start = 0;
        let chars: Vec<(usize, char)> = flat.char_indices().collect();
        let mut i = 0;
        while i < chars.len() {
            let (byte, c) = chars[i];
            // A footnote's mark after the stop ("distance.1 We show") ends
            // the sentence too, and belongs to neither.
            let mark = chars[i + 1..]
                .iter()
                .take(2)
                .take_while(|&&(_, n)| n.is_ascii_digit())
                .count();
            let next = i + 1 + mark;
            let end_of_sentence = matches!(c, '.' | '?' | '!')
                && chars.get(next).is_some_and(|&(_, n)| n == ' ')
                && chars.get(next + 1).is_some_and(|&(_, n)| n.is_uppercase())
                && !ends_with_abbreviation(&flat[start..byte]);
            if end_of_sentence || i + 1 == chars.len() {
                let end = byte + c.len_utf8();
                let text = flat[start..end].trim();
                let first = start + (flat[start..end].len() - flat[start..end].trim_start().len());
                push_sentence(out, text, self.page_at(first), &self.section);
                start = if end_of_sentence {
                    chars.get(next).map_or(flat.len(), |&(b, _)| b)
                } else {
                    end
                };
                i = if end_of_sentence { next } else { i + 1 };
                continue;
            }
            i += 1;
        }
        self.pages.clear();
    }
}

/// Whether a page opens in the middle of a sentence: with a lower-case word.
fn continues_a_sentence(line: &str) -> bool {
    line.trim_start()
        .chars()
        .next()
        .is_some_and(char::is_lowercase)
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

fn push_sentence(out: &mut Vec<Sentence>, text: &str, page: usize, section: &str) {
    let words = text.split_whitespace().count();
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    if (6..=80).contains(&words) && letters * 10 >= text.len() * 7 {
        let index = out.len();
        out.push(Sentence {
            text: text.to_owned(),
            page,
            index,
            section: section.to_owned(),
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

    #[test]
    fn a_sentence_the_page_turn_broke_is_whole_and_cited_by_its_first_page() {
        let pages = vec![
            "We show that no deterministic protocol can".into(),
            "solve consensus in an asynchronous system with one faulty process. The proof follows."
                .into(),
            "A table of figures".into(),
            "Results are given in the next section of the paper here.".into(),
        ];
        let s = sentences(&pages);
        assert_eq!(
            s[0].text,
            "We show that no deterministic protocol can solve consensus in an asynchronous system with one faulty process."
        );
        assert_eq!(s[0].page, 1);
        // A page that opens with a capital starts a sentence of its own.
        assert_eq!(s.last().unwrap().page, 4, "{s:?}");
    }

    #[test]
    fn a_footnote_mark_after_the_stop_ends_the_sentence_and_joins_neither() {
        let pages = vec!["In this paper, we develop a notion of n-gram similarity and distance.1 We show that edit distance is a special case of it.".into()];
        let s = sentences(&pages);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(
            s[0].text,
            "In this paper, we develop a notion of n-gram similarity and distance."
        );
        assert_eq!(
            s[1].text,
            "We show that edit distance is a special case of it."
        );
    }

    #[test]
    fn a_heading_ends_the_sentence_before_it_and_names_the_section_after() {
        let pages = vec![
            "the work on many replicas is done in the same way\n7 Conclusions\nWe have presented a protocol for replicas that tolerates faults.".into(),
        ];
        let s = sentences(&pages);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!(
            s[0].text,
            "the work on many replicas is done in the same way"
        );
        assert_eq!(s[1].section, "7 Conclusions");
        assert!(s[1].text.starts_with("We have presented"));
    }
}
