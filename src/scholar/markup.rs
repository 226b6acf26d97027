//! The indexes' text made plain, and the check that a record is the paper at
//! hand: Crossref titles and abstracts carry JATS or HTML markup
//! (`<jats:p>`, `<i>`, `&amp;`), and a DOI printed on a paper's first pages
//! can be a cited work's, so a record is taken only when its title is printed
//! there.

use std::collections::HashSet;

use crate::pdf::metadata::normalise_for_match;

/// `markup` without tags or entities, on one line.
pub fn plain(markup: &str) -> String {
    let mut out = String::with_capacity(markup.len());
    let mut rest = markup;
    while let Some(at) = rest.find(['<', '&']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with('<') {
            match rest.find('>') {
                Some(end) => {
                    // A block tag ends a word; an inline one (<i>) does not.
                    let tag = rest[1..end].trim_start_matches('/').to_ascii_lowercase();
                    if [
                        "p",
                        "jats:p",
                        "br",
                        "div",
                        "jats:title",
                        "title",
                        "jats:sec",
                    ]
                    .iter()
                    .any(|b| tag == *b || tag.starts_with(&format!("{b} ")))
                    {
                        out.push(' ');
                    }
                    rest = &rest[end + 1..];
                }
                None => {
                    rest = "";
                }
            }
        } else {
            let (text, used) = entity(rest);
            out.push_str(&text);
            rest = &rest[used..];
        }
    }
    out.push_str(rest);
    one_line(&out)
}

/// `text` (already free of markup) on one line, without control characters.
pub fn one_line(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .filter(|c| !c.is_control())
        .collect()
}

/// The text of the entity `text` starts with, and the bytes it took.
fn entity(text: &str) -> (String, usize) {
    // An entity is short; look for its `;` in the first dozen bytes, cut at
    // a character boundary (the text after `&` may be any Unicode).
    let mut window = text.len().min(12);
    while !text.is_char_boundary(window) {
        window -= 1;
    }
    let Some(end) = text[..window].find(';') else {
        return ("&".into(), 1);
    };
    let name = &text[1..end];
    let decoded = match name {
        "amp" => Some('&'),
        "lt" => Some('<'),
        "gt" => Some('>'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        "nbsp" => Some(' '),
        _ => name
            .strip_prefix("#x")
            .or_else(|| name.strip_prefix("#X"))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok())
            .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
            .and_then(char::from_u32),
    };
    match decoded {
        Some(c) => (c.to_string(), end + 1),
        None => ("&".into(), 1),
    }
}

/// A record is the paper's, not a cited work's, when its title is the one
/// read from the paper, or is printed on its first pages. A record found by
/// an identifier the paper prints may differ a little (a subtitle, a
/// misread word); one found by searching a title must be that title.
pub fn is_this_paper(
    record_title: &str,
    read_title: Option<&str>,
    front_text: &str,
    by_identifier: bool,
) -> bool {
    let printed = title_is_printed(record_title, front_text);
    let same = read_title.is_some_and(|read| squeeze(read) == squeeze(record_title));
    if !by_identifier {
        return printed || same;
    }
    printed
        || same
        || read_title.is_some_and(|read| similar(read, record_title))
        || mostly_printed(record_title, front_text)
}

/// Fewer words than this on the first pages is no text layer to check
/// names against (a scan without OCR): the names are then not held against
/// the record.
const MIN_WORDS_TO_CHECK_NAMES: usize = 40;

/// Whether the record's authors are this paper's: one of their family
/// names is printed on its first pages. A record of another work that shares
/// the title (a thesis, a talk, a review of the same name) names other
/// people; taking it would put a wrong author over a right page.
pub fn authors_are_printed(families: &[&str], front_text: &str) -> bool {
    let page = normalise_for_match(front_text);
    if families.is_empty() || page.split(' ').count() < MIN_WORDS_TO_CHECK_NAMES {
        return true;
    }
    let words: HashSet<&str> = page.split(' ').collect();
    families.iter().any(|family| {
        let name = normalise_for_match(family);
        // Every word of the name ("van der Steen"), so a particle alone
        // does not match; a short name is matched whole only.
        !name.is_empty() && name.split(' ').all(|w| words.contains(w))
    })
}

/// Whether `title` is printed in `front_text` word for word. Spaces are
/// ignored, so a title broken across lines or hyphenated at a line's end
/// matches; a longer or different title ("…, Revisited") does not.
pub fn title_is_printed(title: &str, front_text: &str) -> bool {
    let title = squeeze(title);
    if title.chars().count() < 6 {
        return false;
    }
    // The page squeezed the same way, remembering where its words begin and
    // end, so a match inside a longer word ("Inattention") does not count.
    let mut page = String::new();
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    for word in normalise_for_match(front_text).split(' ') {
        starts.push(page.len());
        page.push_str(word);
        ends.push(page.len());
    }
    page.match_indices(&title).any(|(at, _)| {
        starts.binary_search(&at).is_ok() && ends.binary_search(&(at + title.len())).is_ok()
    })
}

/// Nearly every word of a title of four words or more is on the page (a
/// two-column head can put the author lines inside the title's lines).
fn mostly_printed(title: &str, front_text: &str) -> bool {
    let title = normalise_for_match(title);
    let page = normalise_for_match(front_text);
    let words: Vec<&str> = title.split(' ').filter(|w| !w.is_empty()).collect();
    if words.len() < 4 {
        return false;
    }
    let on_page: HashSet<&str> = page.split(' ').collect();
    let found = words.iter().filter(|w| on_page.contains(*w)).count();
    found * 10 >= words.len() * 8
}

/// Two titles share most of their words.
fn similar(a: &str, b: &str) -> bool {
    let (a, b) = (normalise_for_match(a), normalise_for_match(b));
    let a: HashSet<&str> = a.split(' ').collect();
    let b: HashSet<&str> = b.split(' ').collect();
    a.intersection(&b).count() * 10 >= a.union(&b).count() * 6
}

fn squeeze(text: &str) -> String {
    normalise_for_match(text)
        .chars()
        .filter(|c| *c != ' ')
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_record_whose_authors_the_page_never_names_is_another_works() {
        let page = "Paxos Made Simple\nLeslie Lamport\n01 Nov 2001\nAbstract\nThe Paxos algorithm, when presented in plain English, is very simple. \
                    It is among the simplest and most obvious of distributed algorithms, and the heart of it is a consensus \
                    algorithm, the synod algorithm. We show that it follows almost unavoidably from the properties we want it to satisfy.";
        assert!(authors_are_printed(&["Lamport"], page));
        assert!(authors_are_printed(&["Smith", "Lamport"], page));
        assert!(!authors_are_printed(&["Smith", "Jones"], page));
        assert!(
            !authors_are_printed(&["van Lamport"], page),
            "every word of the name"
        );
        assert!(authors_are_printed(&[], page), "a record without authors");
        assert!(
            authors_are_printed(&["Smith"], "Paxos Made Simple"),
            "no text to check"
        );
    }

    proptest! {
        /// What the indexes send is any Unicode; none of it panics.
        #[test]
        fn any_text_is_made_plain_and_compared_without_panicking(
            markup in "\\PC{0,80}",
            entityish in "&[\\PC]{0,14};?[\\PC]{0,4}",
            page in "\\PC{0,120}",
        ) {
            let plain_text = plain(&markup);
            prop_assert!(!plain_text.contains('\n'));
            let _ = plain(&entityish);
            let _ = title_is_printed(&plain_text, &page);
            let _ = title_is_printed(&entityish, &format!("{page} {entityish}"));
        }
    }

    #[test]
    fn an_ampersand_before_wide_characters_is_kept_not_cut_in_half() {
        assert_eq!(plain("R&ééééééé; D"), "R&ééééééé; D");
        assert_eq!(plain("&é"), "&é");
    }

    #[test]
    fn markup_becomes_plain_text() {
        assert_eq!(
            plain(
                "<jats:title>Abstract</jats:title><jats:p>We show <i>X</i>&amp;Y &lt; Z.</jats:p>"
            ),
            "Abstract We show X&Y < Z."
        );
        assert_eq!(
            plain("Caf&#233; &#x2014; A &bogus; B"),
            "Café — A &bogus; B"
        );
        assert_eq!(plain("unclosed <b"), "unclosed");
    }

    #[test]
    fn a_title_counts_as_printed_only_when_it_is_there_word_for_word() {
        let page = "Attention Is All\nYou Need\nAshish Vaswani∗ Google Brain";
        assert!(title_is_printed("Attention is all you need", page));
        assert!(!title_is_printed("Attention", "Inattention blindness"));
        assert!(!title_is_printed(
            "Attention Is All You Need, Revisited",
            page
        ));
        assert!(!title_is_printed(
            "Deep Residual Learning for Image Recognition",
            page
        ));
        let hyphenated = "Deep Resid-\nual Learning for Image Recognition\nKaiming He";
        assert!(title_is_printed(
            "Deep Residual Learning for Image Recognition",
            hyphenated
        ));
    }

    #[test]
    fn a_record_found_by_title_must_be_that_title() {
        // The plain text of a two-column head: the author line inside the title.
        let head = "Graph-of-word and TW-IDF:\nFrançois Rousseau\nNew Approach to Ad Hoc IR";
        let title = "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR";
        assert!(is_this_paper(title, Some(title), head, false));
        assert!(is_this_paper(title, None, head, true));
        assert!(!is_this_paper(title, None, head, false));
        let revisited = "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR, Revisited";
        assert!(!is_this_paper(revisited, Some(title), head, false));
        // A DOI of a cited work: its title is nowhere on the paper.
        assert!(!is_this_paper("Okapi at TREC-3", Some(title), head, true));
    }
}
