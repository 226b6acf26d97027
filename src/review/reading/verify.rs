//! Checking a quote against the page it cites. Both sides get the cleaning
//! extraction applies (NFKC, joined hyphenation, squeezed whitespace) and then
//! a fold of what models change when they copy (case, curly quotes, dashes, line
//! breaks). A quote with an ellipsis must have each of its pieces on the page,
//! in order. A paraphrase (a summary's sentence) is checked by its terms: its
//! page is one that holds most of them.

use std::collections::HashSet;

use crate::offline::terms;
use crate::pdf::quality::clean_page;

/// Text folded for comparison.
pub fn fold(text: &str) -> String {
    let cleaned = clean_page(text);
    let mut out = String::with_capacity(cleaned.len());
    for c in cleaned.chars() {
        let c = match c {
            '\u{2018}' | '\u{2019}' | '\u{201B}' | '`' | '\u{00B4}' => '\'',
            '\u{201C}' | '\u{201D}' | '\u{201F}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2010}'..='\u{2015}' | '\u{2212}' => '-',
            c if c.is_whitespace() => ' ',
            c => c,
        };
        out.extend(c.to_lowercase());
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Each piece of a quote cut at an ellipsis is at least this many words: a
/// word or two ("does … improve") is found almost anywhere.
const MIN_PIECE_WORDS: usize = 3;

/// A whole quote is at least this many words: a phrase proves nothing.
const MIN_QUOTE_WORDS: usize = 4;

/// Words an ellipsis may not leave out: without them the passage says the
/// opposite ("does … improve" of "does not improve", "a … of evidence" of
/// "a lack of evidence", "… linear" of "non-linear").
const NEGATIONS: &[&str] = &[
    "not", "no", "never", "none", "nor", "neither", "cannot", "without", "nothing", "nobody",
    "fail", "fails", "failed", "lack", "lacks", "lacked", "lacking", "unable", "absence", "absent",
    "hardly", "barely", "scarcely", "seldom", "rarely", "rather", "instead", "except", "non", "un",
];

/// Most words an ellipsis may stand for: the pieces of one quote lie in one
/// passage, not anywhere later on the page.
const MAX_ELIDED_WORDS: usize = 40;

/// Share of a paraphrase's terms a page must hold to be the one it retells.
const PARAPHRASE_SHARE: f64 = 0.5;

/// The page (1-based) a paraphrased sentence retells: `cited` when that page
/// holds at least half of the sentence's distinct terms, else the page
/// holding most of them if that is half or more; `None` when no page does,
/// so the sentence is shown without a page rather than with a wrong one.
pub fn paraphrase_page(sentence: &str, cited: usize, pages: &[String]) -> Option<usize> {
    let wanted: HashSet<String> = terms(sentence).into_iter().collect();
    if wanted.is_empty() {
        return None;
    }
    let share = |page: &String| {
        let held: HashSet<String> = terms(page).into_iter().collect();
        wanted.intersection(&held).count() as f64 / wanted.len() as f64
    };
    if let Some(page) = cited.checked_sub(1).and_then(|i| pages.get(i))
        && share(page) >= PARAPHRASE_SHARE
    {
        return Some(cited);
    }
    pages
        .iter()
        .enumerate()
        .map(|(i, page)| (i + 1, share(page)))
        .filter(|(_, s)| *s >= PARAPHRASE_SHARE)
        .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
        .map(|(n, _)| n)
}

/// Whether `quote` is on `page` (1-based) of `pages`: its pieces (cut at
/// `…` or `...`) each at least `MIN_PIECE_WORDS` words, found in order at word
/// boundaries, with no negation in what an ellipsis leaves out.
pub fn quote_on_page(quote: &str, page: usize, pages: &[String]) -> bool {
    let Some(text) = page.checked_sub(1).and_then(|i| pages.get(i)) else {
        return false;
    };
    let quote = fold(quote);
    let quote = quote.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    let pieces: Vec<&str> = quote
        .split(['…'])
        .flat_map(|p| p.split("..."))
        .map(|p| p.trim_matches(|c: char| c == '.' || c.is_whitespace()))
        .filter(|p| !p.is_empty())
        .collect();
    let words = |p: &str| p.split(' ').count();
    if pieces.iter().map(|p| words(p)).sum::<usize>() < MIN_QUOTE_WORDS
        || (pieces.len() > 1 && pieces.iter().any(|p| words(p) < MIN_PIECE_WORDS))
    {
        return false;
    }
    let haystack = fold(text);
    if found_from(&haystack, &pieces, haystack.len()) {
        return true;
    }
    // A passage the page turn broke is cited by the page it starts on and
    // runs on into the next.
    match pages.get(page) {
        Some(next) => {
            let joined = format!("{haystack} {}", fold(next));
            found_from(&joined, &pieces, haystack.len())
        }
        None => false,
    }
}

/// Whether the pieces are in `haystack` in order, the first starting before
/// byte `starts_before`.
fn found_from(haystack: &str, pieces: &[&str], starts_before: usize) -> bool {
    // Every place the first piece starts is tried: the nearest match of
    // the next piece must lie within one passage of it.
    let mut start = 0;
    while let Some(first) = find_words(haystack, pieces[0], start) {
        if first >= starts_before {
            return false;
        }
        if !cuts_a_negative_prefix(&haystack[..first]) && rest_follows(haystack, pieces, first) {
            return true;
        }
        start = first + pieces[0].chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// Whether the pieces after the first follow it in order, each within
/// [`MAX_ELIDED_WORDS`] of the one before, with no negation left out.
fn rest_follows(haystack: &str, pieces: &[&str], first: usize) -> bool {
    let mut from = first + pieces[0].len();
    for piece in &pieces[1..] {
        let Some(at) = find_words(haystack, piece, from) else {
            return false;
        };
        let elided = &haystack[from..at];
        if leaves_out_a_negation(elided) || elided.split_whitespace().count() > MAX_ELIDED_WORDS {
            return false;
        }
        from = at + piece.len();
    }
    true
}

/// Whether a quote starting here drops a negative prefix glued to its first
/// word ("significant" of "non-significant", "able to" of "un-able to").
fn cuts_a_negative_prefix(before: &str) -> bool {
    let Some(stem) = before.strip_suffix('-') else {
        return false;
    };
    let word: String = stem
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    matches!(
        word.as_str(),
        "non" | "un" | "in" | "dis" | "im" | "ir" | "il"
    )
}

/// Where `needle` first occurs in `haystack` at or after `from`, starting
/// and ending at word boundaries ("does" is not the start of "doesn't").
fn find_words(haystack: &str, needle: &str, from: usize) -> Option<usize> {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '\'');
    let mut start = from;
    while let Some(found) = haystack.get(start..)?.find(needle) {
        let at = start + found;
        let end = at + needle.len();
        let edge_before =
            !is_word(haystack[..at].chars().next_back()) || !is_word(needle.chars().next());
        let edge_after =
            !is_word(haystack[end..].chars().next()) || !is_word(needle.chars().next_back());
        if edge_before && edge_after {
            return Some(at);
        }
        start = at + needle.chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// Whether the text an ellipsis stands for holds a negation.
fn leaves_out_a_negation(elided: &str) -> bool {
    elided
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NEGATIONS.contains(&w) || w.ends_with("n't"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_sentence_gets_the_page_that_retells_it_or_none() {
        let pages = vec![
            "We present a consensus algorithm for managing a replicated log.".to_owned(),
            "Leader election uses randomized timeouts to split votes rarely.".to_owned(),
            "The evaluation measures throughput on five servers.".to_owned(),
        ];
        // Cited right.
        let election = "The leader is elected with randomized timeouts.";
        assert_eq!(paraphrase_page(election, 2, &pages), Some(2));
        // Cited one page off, or past the end: the page that retells it.
        assert_eq!(paraphrase_page(election, 3, &pages), Some(2));
        assert_eq!(paraphrase_page(election, 9, &pages), Some(2));
        // Retold by no page: no page, never the first quote's.
        assert_eq!(
            paraphrase_page("Byzantine faults are tolerated with signatures.", 1, &pages),
            None
        );
    }

    fn pages() -> Vec<String> {
        vec![
            "Intro page.".into(),
            "We show that learned in-\ndexes beat B-trees on “real” data—by far.\nSecond line here.".into(),
        ]
    }

    #[test]
    fn a_quote_copied_with_the_usual_changes_is_found_on_its_page_only() {
        let p = pages();
        assert!(quote_on_page(
            "we show that learned indexes beat B-trees on \"real\" data-by far",
            2,
            &p
        ));
        assert!(quote_on_page(
            "We show that learned … on “real” data",
            2,
            &p
        ));
        assert!(!quote_on_page(
            "We show that learned indexes beat B-trees",
            1,
            &p
        ));
        assert!(!quote_on_page("We show that hashing beats B-trees", 2, &p));
        assert!(!quote_on_page("Second line", 2, &p), "too short to count");
        assert!(!quote_on_page("We show that learned indexes", 9, &p));
    }

    #[test]
    fn a_quote_the_page_turn_broke_is_found_from_the_page_it_starts_on() {
        let p = vec![
            "Intro page. We show that no deterministic protocol can".to_owned(),
            "solve consensus with one faulty process. More text.".to_owned(),
        ];
        let quote = "no deterministic protocol can solve consensus with one faulty process";
        assert!(quote_on_page(quote, 1, &p));
        assert!(!quote_on_page(quote, 2, &p), "it starts on page 1");
        assert!(!quote_on_page(
            "solve consensus with one faulty process",
            1,
            &p
        ));
    }

    #[test]
    fn an_ellipsis_never_leaves_out_a_negation_or_stands_between_scraps() {
        let p = vec![
            "Our results show that the new scheduler does not improve tail latency under load, \
             although it doesn't hurt throughput."
                .to_owned(),
        ];
        assert!(
            !quote_on_page("does … improve", 1, &p),
            "scraps prove nothing"
        );
        assert!(!quote_on_page(
            "the new scheduler does … improve tail latency under load",
            1,
            &p
        ));
        assert!(!quote_on_page(
            "show that the new scheduler … improve tail latency",
            1,
            &p
        ));
        let q = vec!["The cache is never flushed before the write completes.".to_owned()];
        assert!(!quote_on_page(
            "The cache is … flushed before the write completes",
            1,
            &q
        ));
        // Words match whole: a quote cut inside a word is not the page's.
        assert!(!quote_on_page("it doesn't hurt thr", 1, &p));
        assert!(quote_on_page("it doesn't hurt throughput", 1, &p));
        // An ellipsis over words that change nothing is fine.
        assert!(quote_on_page(
            "Our results show that … does not improve tail latency",
            1,
            &p
        ));
        assert!(quote_on_page("the new scheduler does not improve", 1, &p));
    }

    #[test]
    fn an_ellipsis_or_a_cut_never_drops_a_lack_a_prefix_or_a_rather_than() {
        let p = vec![
            "The trial found a lack of evidence that the drug reduces mortality in adults. \
             The effect was non-significant in every subgroup we examined. Patients were \
             unable to tolerate the full dose, and the benefit, if any, was hardly measurable."
                .to_owned(),
        ];
        for dropped in [
            "The trial found a … evidence that the drug reduces mortality",
            "significant in every subgroup we examined",
            "The effect was … significant in every subgroup",
            "Patients were … to tolerate the full dose",
            "the benefit, if any, was … measurable",
        ] {
            assert!(!quote_on_page(dropped, 1, &p), "{dropped}");
        }
        // Whole, they are the page's.
        assert!(quote_on_page(
            "The effect was non-significant in every subgroup",
            1,
            &p
        ));
        assert!(quote_on_page(
            "a lack of evidence that the drug reduces mortality",
            1,
            &p
        ));
        let q =
            vec!["We chose a log-structured store rather than a B-tree for the index.".to_owned()];
        assert!(!quote_on_page(
            "We chose a log-structured store … a B-tree for the index",
            1,
            &q
        ));
    }

    #[test]
    fn the_pieces_of_a_quote_lie_in_one_passage() {
        let filler = "Unrelated words fill this part of the page at length. ".repeat(8);
        let p = vec![format!(
            "The system recovers from crashes quickly. {filler}Its log is replayed on every start."
        )];
        // Forty-odd words apart: not one passage.
        assert!(!quote_on_page(
            "The system recovers from crashes … replayed on every start",
            1,
            &p
        ));
        let near = vec![
            "The system recovers from crashes quickly because its log is replayed on every start."
                .to_owned(),
        ];
        assert!(quote_on_page(
            "The system recovers from crashes … replayed on every start",
            1,
            &near
        ));
        // A first piece found twice: the later place, where the rest follows, counts.
        let twice = vec![format!(
            "The system recovers from crashes. {filler}The system recovers from crashes because the log is replayed."
        )];
        assert!(quote_on_page(
            "The system recovers from crashes … the log is replayed",
            1,
            &twice
        ));
    }
}
