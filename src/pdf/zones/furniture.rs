//! Page furniture found across a paper's pages: running heads and feet (a
//! line repeated at the top or bottom of many pages, with or without its page
//! number), page numbers, journal banners and licence lines, line numbers and
//! footnote marks. Found from the whole paper, not guessed from one page: a
//! line is a running head because the paper repeats it, whatever it says.

use std::collections::{HashMap, HashSet};

/// Lines at each end of a page where heads, feet and page numbers sit.
const EDGE_LINES: usize = 3;

/// Phrases of banners, licences and publication notes that are never part
/// of a paper's argument: furniture at a page's edge and anywhere on page one.
const BANNER_PHRASES: &[&str] = &[
    "under consideration for publication",
    "preprint submitted to",
    "this is a preprint",
    "this is an preprint",
    "accepted manuscript",
    "author manuscript",
    "creative commons",
    "licensed under",
    "all rights reserved",
    "permission to make digital",
    "copyright",
    "©",
    "typeset using",
    "draft version",
    "manuscript received",
    "doi.org/",
    "doi:",
    "issn",
    "isbn",
    "this version was compiled",
    "cc-by",
    "cc by ",
    "cc0",
];

/// Phrases of journal and proceedings banners that a sentence may also use
/// ("published in the Journal of ..."): furniture only as a short line at
/// the very top or bottom of a page.
const EDGE_BANNER_PHRASES: &[&str] = &[
    "downloaded from",
    "proceedings of",
    "journal of",
    "transactions on",
    "vol.",
    "volume ",
    "pp.",
    "http://",
    "https://",
    "www.",
    "arxiv:",
    "published by",
    "printed in",
    "available online",
];

/// Lines at each end of a page where a banner sits.
const BANNER_EDGE: usize = 2;

/// An edge banner is a short line.
const EDGE_BANNER_MAX_WORDS: usize = 15;

/// Banner phrases that open a paragraph of their own on page one (ACM's
/// permission block, a licence notice): the lines after them up to the next
/// blank line belong to it.
const BLOCK_OPENERS: &[&str] = &[
    "permission to make digital",
    "this work is licensed",
    "licensed under",
    "creative commons",
    "copyright",
    "©",
    "manuscript received",
    "this is a preprint",
    "this is an preprint",
];

/// A banner line is short: a sentence of the paper that cites a journal
/// is not a banner.
const BANNER_MAX_WORDS: usize = 25;

/// The furniture lines of each page: `marks[page][line]`. Page one (the
/// first page given: the caller leaves a cover sheet out) keeps the lines
/// that later pages repeat as their head.
pub fn furniture(lines: &[Vec<&str>]) -> Vec<Vec<bool>> {
    let repeated = repeated_edge_keys(lines);
    let repeated_anywhere = repeated_keys_anywhere(lines);
    lines
        .iter()
        .enumerate()
        .map(|(page, page_lines)| {
            let edges = edge_lines(page_lines, EDGE_LINES);
            let banner_edges = edge_lines(page_lines, BANNER_EDGE);
            let mut marks: Vec<bool> = page_lines
                .iter()
                .enumerate()
                .map(|(i, line)| {
                    let at_edge = edges.contains(&i);
                    is_mark_or_number(line)
                        || (at_edge && is_page_number(line))
                        // Page one prints the title the other pages repeat
                        // as their head: there it is the title.
                        || (page > 0
                            && ((at_edge && repeated.contains(&key(line)))
                                || repeated_anywhere.contains(&key(line))))
                        || ((at_edge || page == 0) && is_banner(line))
                        || (banner_edges.contains(&i) && is_edge_banner(line))
                })
                .collect();
            if page == 0 {
                extend_blocks(page_lines, &mut marks);
            }
            mark_footnotes(page_lines, &mut marks);
            marks
        })
        .collect()
}

/// Indices of the first and last `depth` non-blank lines of a page.
fn edge_lines(lines: &[&str], depth: usize) -> HashSet<usize> {
    let filled: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    filled
        .iter()
        .take(depth)
        .chain(filled.iter().rev().take(depth))
        .copied()
        .collect()
}

/// A line's identity as a running head: its letters, case folded, with its
/// numbers (the page number, a volume) left out.
fn key(line: &str) -> String {
    line.split_whitespace()
        .map(|w| {
            w.chars()
                .filter(|c| c.is_alphabetic())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Keys of the lines that sit at a page's edge on enough pages to be a
/// running head or foot: a fifth of the pages and at least two (journals
/// alternate heads between even and odd pages, so each is on half).
fn repeated_edge_keys(lines: &[Vec<&str>]) -> HashSet<String> {
    let mut pages_with: HashMap<String, usize> = HashMap::new();
    for page_lines in lines {
        let keys: HashSet<String> = edge_lines(page_lines, EDGE_LINES)
            .into_iter()
            .map(|i| key(page_lines[i]))
            .filter(|k| k.chars().filter(|c| c.is_alphabetic()).count() >= 3)
            .collect();
        for k in keys {
            *pages_with.entry(k).or_default() += 1;
        }
    }
    let needed = (lines.len() / 5).max(2);
    pages_with
        .into_iter()
        .filter(|(_, n)| *n >= needed)
        .map(|(k, _)| k)
        .collect()
}

/// Keys of whole lines of three words or more that a quarter of the pages
/// (three at least) print somewhere, or of any line that half of them do:
/// a running head or a journal's foot ("July 1978", "Volume 21") that the
/// column order put mid-page. Prose does not repeat a whole line so often.
fn repeated_keys_anywhere(lines: &[Vec<&str>]) -> HashSet<String> {
    let mut pages_with: HashMap<String, usize> = HashMap::new();
    for page_lines in lines {
        let keys: HashSet<String> = page_lines
            .iter()
            .map(|l| key(l))
            .filter(|k| k.chars().filter(|c| c.is_alphabetic()).count() >= 3)
            .collect();
        for k in keys {
            *pages_with.entry(k).or_default() += 1;
        }
    }
    let quarter = (lines.len() / 4).max(3);
    let half = (lines.len() / 2).max(3);
    pages_with
        .into_iter()
        .filter(|(k, n)| {
            let words = k.split_whitespace().count();
            let letters = k.chars().filter(|c| c.is_alphabetic()).count();
            (words >= 3 && letters >= 6 && *n >= quarter) || *n >= half
        })
        .map(|(k, _)| k)
        .collect()
}

/// A page number as printed: "12", "- 12 -", "Page 3 of 10", "xiv", "3/10".
pub fn is_page_number(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    let core = lower
        .trim_matches(|c: char| !c.is_alphanumeric())
        .trim_start_matches("page")
        .trim();
    let mut parts = core.split(|c: char| c == '/' || c.is_whitespace());
    let first = parts.next().unwrap_or("");
    let rest: Vec<&str> = parts.filter(|p| !p.is_empty() && *p != "of").collect();
    let number = |w: &str| {
        (!w.is_empty() && w.len() <= 4 && w.chars().all(|c| c.is_ascii_digit()))
            || (!w.is_empty() && w.len() <= 6 && w.chars().all(|c| "ivxlc".contains(c)))
    };
    number(first) && rest.len() <= 1 && rest.iter().all(|w| number(w))
}

/// A line with no word on it: a footnote or affiliation mark ("1", "∗",
/// "a"), a line number, a lone symbol. It is never prose, and left in it
/// glues itself into the sentence around it.
fn is_mark_or_number(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() {
        return false;
    }
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    letters == 0 && t.chars().count() <= 6 || t.chars().count() <= 2
}

/// A banner, licence or publication line.
fn is_banner(line: &str) -> bool {
    let lower = line.to_lowercase();
    line.split_whitespace().count() <= BANNER_MAX_WORDS
        && BANNER_PHRASES.iter().any(|p| lower.contains(p))
}

/// A journal or proceedings banner, as a page's top or bottom line prints it.
fn is_edge_banner(line: &str) -> bool {
    let lower = line.to_lowercase();
    line.split_whitespace().count() <= EDGE_BANNER_MAX_WORDS
        && EDGE_BANNER_PHRASES.iter().any(|p| lower.contains(p))
}

/// The most lines a page's footnotes take at its foot.
const MAX_FOOTNOTE_LINES: usize = 8;

/// Footnotes at a page's foot: from a footnote mark (a line of its own, "1",
/// or glued to the note, "1This is...", "∗Work done at...") to the end of
/// the page, within its last lines and its lower half. Left in, a note runs into the sentence
/// that the page turn broke.
fn mark_footnotes(lines: &[&str], marks: &mut [bool]) {
    let filled: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    // The foot: the page's last lines, in its lower half, below its head.
    let foot = filled
        .len()
        .saturating_sub(MAX_FOOTNOTE_LINES)
        .max(filled.len() / 2)
        .max(EDGE_LINES);
    for (k, &i) in filled.iter().enumerate().skip(foot) {
        let next = filled.get(k + 1).map(|&j| lines[j]);
        let lone_mark = is_footnote_mark(lines[i])
            && next.is_some_and(|n| {
                n.trim_start()
                    .chars()
                    .next()
                    .is_some_and(char::is_uppercase)
            });
        if lone_mark || opens_with_glued_mark(lines[i]) {
            for &j in &filled[k..] {
                marks[j] = true;
            }
            return;
        }
    }
}

/// A footnote's mark on a line of its own: one or two digits, or a symbol.
fn is_footnote_mark(line: &str) -> bool {
    let t = line.trim();
    (1..=2).contains(&t.len()) && t.chars().all(|c| c.is_ascii_digit())
        || matches!(t, "∗" | "*" | "†" | "‡" | "§" | "¶")
}

/// "1This is a different concept": a digit glued to the capital that
/// opens a note (a sentence never starts so).
fn opens_with_glued_mark(line: &str) -> bool {
    let t = line.trim_start();
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    (1..=2).contains(&digits)
        && t[digits..].chars().next().is_some_and(char::is_uppercase)
        && t[digits..].chars().nth(1).is_some_and(char::is_lowercase)
}

/// On page one, a licence or permission paragraph runs on from its first
/// line to the next blank line.
fn extend_blocks(lines: &[&str], marks: &mut [bool]) {
    let mut i = 0;
    while i < lines.len() {
        let lower = lines[i].to_lowercase();
        if marks[i] && BLOCK_OPENERS.iter().any(|p| lower.contains(p)) {
            let mut j = i + 1;
            while j < lines.len() && !lines[j].trim().is_empty() && j - i <= 12 {
                marks[j] = true;
                j += 1;
            }
            i = j;
        } else {
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks_of(pages: &[&str]) -> Vec<Vec<bool>> {
        let lines: Vec<Vec<&str>> = pages.iter().map(|p| p.lines().collect()).collect();
        furniture(&lines)
    }

    #[test]
    fn a_running_head_with_its_page_number_is_found_on_every_page_it_repeats() {
        let pages = [
            "A Paper\nBody one begins here and goes on.\nMore body.",
            "2\nA Study of Things\nBody two goes on.\nStill body.",
            "Jane Doe, Rahul Mehta 3\nBody three.\nMore.",
            "4 A Study of Things\nBody four.\nMore.",
            "Jane Doe, Rahul Mehta\n5\nBody five.",
        ];
        let marks = marks_of(&pages);
        assert!(marks[1][0] && marks[1][1], "{marks:?}");
        assert!(marks[2][0] && marks[3][0] && marks[4][0] && marks[4][1]);
        assert!(!marks[1][2] && !marks[2][1] && !marks[3][1]);
    }

    #[test]
    fn a_running_head_the_column_order_put_mid_page_is_found_too() {
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
        let pages: Vec<String> = (1..=6)
            .map(|n| {
                let w = words[n - 1];
                format!("Peter F. Brown et al.\nThe {w} column goes on.\nA Statistical Approach to Machine Translation\nMore about {w} here.\n{n}")
            })
            .collect();
        let lines: Vec<Vec<&str>> = pages.iter().map(|p| p.lines().collect()).collect();
        let marks = furniture(&lines);
        for page in &marks[1..] {
            assert_eq!(page, &vec![true, false, true, false, true], "{marks:?}");
        }
    }

    #[test]
    fn a_footnote_at_the_foot_of_a_page_is_furniture_the_text_above_is_not() {
        let body = "Strings are compared in many ways.\nEdit distance is one of them.\nThe longest common subsequence is another.\nBoth have been studied for decades.\n";
        let page = format!(
            "{body}In this paper, we develop a notion of n-gram similarity and distance.1 We\nshow that edit distance is a special case of n-gram\n1\nThis is a different concept from the q-gram distance [12], which is simply\nthe number of common q-grams between two strings."
        );
        let marks = marks_of(&[&page]);
        let unmarked = [false; 6];
        assert_eq!(marks[0][..6], unmarked, "{marks:?}");
        assert_eq!(marks[0][6..], [true, true, true]);
        let glued = format!(
            "{body}Body text of the page goes on here.\nMore body text.\n2Work done while at Google."
        );
        assert_eq!(marks_of(&[&glued])[0][4..], [false, false, true]);
        let table =
            format!("{body}Results for the 12 runs.\n2018 results\n3D meshes are shown next.");
        assert!(marks_of(&[&table])[0].iter().all(|m| !m));
        let head = "2\nA Study of Things\nBody two goes on.\nStill body.";
        assert_eq!(
            marks_of(&[head])[0][2..],
            [false, false],
            "a page number is no footnote"
        );
    }

    #[test]
    fn page_numbers_and_marks_are_furniture_words_are_not() {
        for n in ["12", "- 12 -", "Page 3 of 10", "xiv", "3/10", "375"] {
            assert!(is_page_number(n), "{n}");
        }
        for w in ["Introduction", "12 Angry Men", "In 2019 we", "ivy"] {
            assert!(!is_page_number(w), "{w}");
        }
        assert!(is_mark_or_number("∗"));
        assert!(is_mark_or_number("1"));
        assert!(!is_mark_or_number("We begin."));
    }

    #[test]
    fn a_banner_on_page_one_and_its_licence_paragraph_are_furniture() {
        let pages = [
            "Under consideration for publication in J. Functional Programming\nMaking a Fast Curry\nSimon Marlow\nAbstract\nWe show how.\n\nPermission to make digital or hard copies of all or part\nof this work for personal use is granted without fee\n\nThe body starts here and says something worth reading.",
        ];
        let marks = marks_of(&pages);
        assert!(marks[0][0], "{marks:?}");
        assert!(!marks[0][1] && !marks[0][4]);
        assert!(marks[0][6] && marks[0][7]);
        assert!(!marks[0][9]);
    }
}
