//! Page furniture: the lines near a title that are not it (journal and
//! conference headers, dates, links, copyright and stamp lines), and whole
//! pages that are not the paper's (a repository's cover sheet).

/// Lines that are not a title: journal headers, dates, URLs, page furniture.
pub fn is_furniture(line: &str) -> bool {
    let lower = line.to_lowercase();
    let markers = [
        "proceedings",
        "journal",
        "conference",
        "vol.",
        "volume",
        "arxiv",
        "doi",
        "http",
        "www.",
        "copyright",
        "©",
        "issn",
        "isbn",
        "permission to",
        "preprint",
        "submitted",
        "accepted",
        "published",
        "page ",
        "pp.",
        "acm ",
        "ieee",
        "usenix",
        "@",
        "technical report",
        "university",
        "institute",
        "department",
    ];
    markers.iter().any(|m| lower.contains(m))
        || line.chars().filter(|c| c.is_ascii_digit()).count() * 3 > line.len()
        || is_abbreviated_venue(line)
}

/// A journal's name as running headers abbreviate it ("SIAM J. COMPUT.",
/// "Theor. Comput. Sci."): at least half its words, and two or more, cut
/// short with a period. A title's words are whole.
fn is_abbreviated_venue(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let cut = words
        .iter()
        .filter(|w| {
            let letters = w.chars().filter(|c| c.is_alphabetic()).count();
            w.ends_with('.') && (1..=7).contains(&letters)
        })
        .count();
    (2..=8).contains(&words.len()) && cut >= 2 && cut * 2 >= words.len()
}

/// Phrases of the cover sheets that repositories and archives put in front
/// of a paper (an institutional repository's "Citable Link" and "Terms of
/// Use", JSTOR's "Stable URL").
const COVER_SHEET_MARKERS: [&str; 9] = [
    "citable link",
    "terms of use",
    "openly available",
    "as published",
    "stable url",
    "jstor",
    "your use of this",
    "persistent link",
    "this content downloaded",
];

/// A page that is a repository's cover sheet, not the paper's first page:
/// two or more of the phrases such sheets print.
pub fn is_cover_sheet(page: &str) -> bool {
    let lower = page.to_lowercase();
    COVER_SHEET_MARKERS
        .iter()
        .filter(|m| lower.contains(*m))
        .count()
        >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journals_abbreviated_running_header_is_furniture_a_title_is_not() {
        for header in [
            "SIAM J. COMPUT.",
            "Theor. Comput. Sci.",
            "J. Funct. Program.",
        ] {
            assert!(is_furniture(header), "{header}");
        }
        for title in [
            "Paxos Made Simple",
            "A Note on Distributed Computing",
            "Time, Clocks, and the Ordering of Events in a Distributed System",
            "Why Functional Programming Matters.",
            "The Byzantine Generals Problem",
        ] {
            assert!(!is_furniture(title), "{title}");
        }
    }
}
