//! What a reader sees that is not a paper's own words: checks of a summary
//! sentence, key point or quote for title-block, page-furniture and
//! reference-list text, made from the printed pages alone (never from the
//! zones they judge), for the first-summary test and `eval reading`.
//!
//! Title block: on the first two pages, an e-mail address or an
//! institution's name; anywhere, the paper's hand-checked title followed by
//! two capitalised words (its authors). Furniture: a line of four words or
//! more that sits at the top or bottom of three pages or more (a running
//! head or foot), the title next to a bare number, or a number printed at
//! its page's edge glued between a capitalised word and a lower-case one.
//! References: a sentence printed after the last line reading "References"
//! (or "Bibliography"), or one shaped as an entry (two or more "Surname, I."
//! names, or a year with a venue's marks).

use std::collections::{HashMap, HashSet};

/// Text as compared for a match: lower case, letters and digits only, one
/// space between words (the texts compared are already NFKC-folded).
fn normalise_for_match(text: &str) -> String {
    let folded: String = text
        .chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a piece of output carries that is not the paper's own words.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub title_block: bool,
    pub furniture: bool,
    pub references: bool,
}

impl Flags {
    pub fn any(self) -> bool {
        self.title_block || self.furniture || self.references
    }
}

/// A paper as printed, with what the checks need to know of it.
pub struct PrintedPaper {
    title: String,
    /// Lines (folded) at a page's top or bottom on three pages or more.
    running: Vec<String>,
    /// Folded text printed after the last "References" line.
    after_references: String,
    /// The bare numbers at each page's top and bottom two lines.
    edge_numbers: Vec<HashSet<String>>,
}

impl PrintedPaper {
    /// `title` is the hand-checked title; `pages` the text as printed.
    pub fn new(title: &str, pages: &[String]) -> Self {
        Self {
            title: title.to_owned(),
            running: running_lines(pages),
            after_references: after_references(pages),
            edge_numbers: edge_numbers(pages),
        }
    }

    /// What `text`, shown as from `page` (1-based), carries that is not the
    /// paper's own words.
    pub fn flags(&self, text: &str, page: usize) -> Flags {
        flags(self, text, page)
    }
}

/// Whitespace squeezed to single spaces.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Lines of four words or more at the top or bottom two of three pages or
/// more, numbers left out (a shorter head, "The Strucplot Framework", is
/// also how the paper names its subject in a sentence). Their case is kept:
/// a head glued into a sentence keeps the capitals it is printed with, where
/// a sentence naming the paper's subject ("our conflict-free replicated data
/// types") does not.
fn running_lines(pages: &[String]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
        let edges: HashSet<String> = lines
            .iter()
            .take(2)
            .chain(lines.iter().rev().take(2))
            .map(|l| {
                squeeze(
                    &l.chars()
                        .filter(|c| !c.is_ascii_digit())
                        .collect::<String>(),
                )
            })
            .filter(|l| l.split_whitespace().count() >= 4)
            .collect();
        for e in edges {
            *seen.entry(e).or_default() += 1;
        }
    }
    seen.into_iter()
        .filter(|(_, n)| *n >= 3)
        .map(|(l, _)| l)
        .collect()
}

/// The text after the last line that reads "References" or "Bibliography",
/// to an appendix's heading.
fn after_references(pages: &[String]) -> String {
    let all = pages.join("\n");
    let lines: Vec<&str> = all.lines().collect();
    let last = lines.iter().rposition(|l| {
        let t = l
            .trim()
            .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
            .to_lowercase();
        t == "references" || t == "bibliography"
    });
    let Some(last) = last else {
        return String::new();
    };
    // The list ends where an appendix begins ("Appendix B", "A Proofs").
    let list: Vec<&str> = lines[last + 1..]
        .iter()
        .take_while(|l| !opens_an_appendix(l))
        .copied()
        .collect();
    fold(&list.join(" "))
}

/// "Appendix B: Proofs", "APPENDIX", "B Experiments", "A. Reference card".
fn opens_an_appendix(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    let lettered = first.trim_end_matches('.').len() == 1
        && first.chars().all(|c| c.is_ascii_uppercase() || c == '.')
        && (2..=6).contains(&words.len())
        && words[1].chars().next().is_some_and(char::is_uppercase)
        && !line.contains(',');
    ["appendix", "appendices", "supplementary"]
        .contains(&first.to_lowercase().trim_end_matches(':'))
        || lettered
}

const INSTITUTIONS: &[&str] = &[
    "university",
    "universität",
    "universidad",
    "université",
    "universitat",
    "institute",
    "institut ",
    "department",
    "laborator",
    "college",
    "gmbh",
    " inc.",
    "school of",
    "faculty of",
];

fn flags(paper: &PrintedPaper, text: &str, page: usize) -> Flags {
    let folded = fold(text);
    let digitless = squeeze(
        &text
            .chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>(),
    );
    let normal = normalise_for_match(text);
    let title = normalise_for_match(&paper.title);
    let title_words = title.split_whitespace().count();
    let title_at = (title_words >= 3).then(|| normal.find(&title)).flatten();
    let after_title: Vec<&str> = title_at
        .map(|at| {
            normal[at + title.len()..]
                .split_whitespace()
                .take(2)
                .collect()
        })
        .unwrap_or_default();
    let authors_follow = title_at == Some(0) && {
        // The title as printed, then two capitalised words: its authors.
        let printed_after = text
            .split_whitespace()
            .skip(title_words)
            .take(2)
            .collect::<Vec<_>>();
        printed_after.len() == 2
            && printed_after
                .iter()
                .all(|w| w.chars().next().is_some_and(char::is_uppercase))
    };
    let number_beside_title = title_at.is_some_and(|at| {
        let before = normal[..at].split_whitespace().last();
        let bare = |w: Option<&&str>| w.is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
        bare(after_title.first()) || bare(before.as_ref())
    });
    let title_block = (page <= 2
        && (folded.contains('@') || INSTITUTIONS.iter().any(|i| folded.contains(i))))
        || authors_follow;
    let furniture = paper.running.iter().any(|r| digitless.contains(r.as_str()))
        || number_beside_title
        || glued_page_number(text, paper, page);
    let references = (folded.split_whitespace().count() >= 6
        && !paper.after_references.is_empty()
        && paper.after_references.contains(&folded))
        || looks_like_reference_entry(text);
    Flags {
        title_block,
        furniture,
        references,
    }
}

/// The bare numbers on each page's top and bottom two lines: its printed
/// page number among them.
fn edge_numbers(pages: &[String]) -> Vec<HashSet<String>> {
    pages
        .iter()
        .map(|page| {
            let lines: Vec<&str> = page.lines().filter(|l| !l.trim().is_empty()).collect();
            lines
                .iter()
                .take(2)
                .chain(lines.iter().rev().take(2))
                .flat_map(|l| l.split_whitespace())
                .filter(|w| w.chars().all(|c| c.is_ascii_digit()))
                .map(str::to_owned)
                .collect()
        })
        .collect()
}

/// Words that a sentence numbers ("Section 2 outlines", "Proposition 9
/// suggests"): a number after them is the sentence's own.
const NUMBERED_NOUNS: &[&str] = &[
    "section",
    "sections",
    "figure",
    "fig",
    "table",
    "chapter",
    "appendix",
    "theorem",
    "lemma",
    "proposition",
    "corollary",
    "definition",
    "example",
    "equation",
    "eq",
    "step",
    "algorithm",
    "part",
    "phase",
    "version",
    "level",
    "round",
    "case",
    "class",
    "type",
    "property",
    "rule",
    "remark",
    "claim",
    "model",
    "experiment",
    "exercise",
    "problem",
    "question",
    "query",
    "listing",
    "line",
    "stage",
    "page",
    "note",
    "figures",
    "tables",
    "scheme",
];

/// A number that its page (or the next, for a sentence the page turn
/// broke) prints at its top or bottom, standing bare between a capitalised
/// word (a running head's last) and a lower-case word ("with One Faulty
/// Process 375 algorithms for"): a page number glued in. A year is not one.
fn glued_page_number(text: &str, paper: &PrintedPaper, page: usize) -> bool {
    let printed: HashSet<&String> = [page.saturating_sub(1), page]
        .iter()
        .filter_map(|&i| paper.edge_numbers.get(i))
        .flatten()
        .collect();
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(3).any(|w| {
        let head_word = |s: &str| {
            s.chars().all(char::is_alphabetic)
                && s.chars().next().is_some_and(char::is_uppercase)
                && !NUMBERED_NOUNS.contains(&s.to_lowercase().as_str())
        };
        let lower_word = |s: &str| s.chars().all(char::is_lowercase) && s.len() >= 3;
        let year = w[1].len() == 4 && (w[1].starts_with("19") || w[1].starts_with("20"));
        head_word(w[0]) && lower_word(w[2]) && !year && printed.contains(&w[1].to_owned())
    })
}

/// "Lamport, L." / "FISCHER, M." names, twice or more; or a year with the
/// marks of a venue ("pp.", "Proc.", "vol.", "In Proceedings").
fn looks_like_reference_entry(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let names = words
        .windows(2)
        .filter(|w| {
            let surname = w[0].ends_with(',')
                && w[0].chars().next().is_some_and(char::is_uppercase)
                && w[0].trim_end_matches(',').chars().all(char::is_alphabetic)
                && w[0].len() > 2;
            let initial = w[1].len() <= 4
                && w[1].ends_with(['.', ','])
                && w[1].chars().next().is_some_and(char::is_uppercase);
            surname && initial
        })
        .count();
    let lower = text.to_lowercase();
    let year = words.iter().any(|w| {
        let d: String = w.chars().filter(|c| c.is_ascii_digit()).collect();
        d.len() == 4 && (d.starts_with("19") || d.starts_with("20"))
    });
    let venue = [
        "pp.",
        "proc.",
        "vol.",
        "in proceedings",
        "journal of",
        "eds.",
        "(eds)",
    ]
    .iter()
    .any(|m| lower.contains(m));
    names >= 2 || (year && venue && names >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checks_see_a_title_block_a_running_head_and_a_reference_entry() {
        let pages: Vec<String> = (1..=4)
            .map(|n| {
                format!("{n} A Study of Things\nBody text on page {n} goes on here.\nJane Doe")
            })
            .collect();
        let mut paper = PrintedPaper::new("A Study of Things", &pages);
        paper.after_references = fold("LAMPORT, L. Time, clocks, and the ordering of events.");
        let f = flags(&paper, "A Study of Things Jane Doe We study.", 1);
        assert!(f.title_block);
        let f = flags(&paper, "Jane Doe, Yale University, jane@yale.edu", 1);
        assert!(f.title_block);
        let f = flags(
            &paper,
            "the proof of Process 3 algorithms for data processing are given",
            3,
        );
        assert!(f.furniture && !f.title_block);
        let f = flags(
            &paper,
            "the proof of Process 375 algorithms for data processing are given",
            3,
        );
        assert!(!f.furniture, "a number the page does not print at its edge");
        let f = flags(
            &paper,
            "We show this, and A Study of Things 4 continues the proof here.",
            4,
        );
        assert!(f.furniture, "a running head inside a sentence");
        let f = flags(&paper, "Our study of things is a method.", 4);
        assert!(!f.any(), "a sentence may name the paper's subject");
        let f = flags(
            &paper,
            "FISCHER, M., LYNCH, N., AND PATERSON, M. Impossibility of consensus.",
            5,
        );
        assert!(f.references);
        let f = flags(
            &paper,
            "We prove that consensus is impossible with one faulty process.",
            2,
        );
        assert!(!f.any());
        let listed = after_references(&[
            "Text.\nReferences\nLAMPORT, L. Time.\nAppendix B\nFigure B.2 shows it.".to_owned(),
        ]);
        assert!(
            listed.contains("lamport") && !listed.contains("figure"),
            "{listed}"
        );
    }
}
