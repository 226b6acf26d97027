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
        // Workshop, proceedings and society lines, and licence lines.
        "workshop on",
        "symposium on",
        "transactions on",
        "society of",
        "society for",
        "association for",
        "annual meeting",
        "in proc",
        "all rights reserved",
        "creative commons",
        "licensed under",
    ];
    markers.iter().any(|m| lower.contains(m))
        || line.chars().filter(|c| c.is_ascii_digit()).count() * 3 > line.len()
        || is_abbreviated_venue(line)
        || is_section_label(line)
}

/// A line that is a banner of its own wherever it stands: a link, an
/// identifier, a copyright or licence, a proceedings or journal line by its
/// opening, mostly digits. Narrower than [`is_furniture`]: a title may name
/// a conference or a journal, it never is one of these.
pub fn is_banner(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    let markers = [
        "http",
        "www.",
        "doi",
        "@",
        "©",
        "copyright",
        "issn",
        "isbn",
        "arxiv:",
        "licensed",
    ];
    let openers = ["proceedings", "in proc", "journal of", "vol.", "volume"];
    markers.iter().any(|m| lower.contains(m))
        || openers.iter().any(|o| lower.starts_with(o))
        || line.chars().filter(|c| c.is_ascii_digit()).count() * 3 > line.len()
        || is_abbreviated_venue(line)
}

/// Labels journals set above or before a title for the kind of article.
/// Those of two words are never a title's opening; those of one are, in
/// capitals, only when set apart from it ("REVIEW Deep learning...").
const SECTION_LABELS: [&str; 19] = [
    "research article",
    "original article",
    "review article",
    "original research",
    "research paper",
    "full paper",
    "short paper",
    "regular paper",
    "brief report",
    "brief communication",
    "short communication",
    "case report",
    "technical note",
    "invited paper",
    "article",
    "letter",
    "review",
    "perspective",
    "commentary",
];

/// A line that is only an article-kind label ("RESEARCH ARTICLE", "Review").
fn is_section_label(line: &str) -> bool {
    let core = line
        .trim()
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let core = core.split_whitespace().collect::<Vec<_>>().join(" ");
    SECTION_LABELS.contains(&core.as_str())
}

/// `title` without an article-kind label glued in front of it ("RESEARCH
/// ARTICLE Deep Learning for X" -> "Deep Learning for X"); a title that
/// merely begins with such a word ("Review of Deep Learning") stays whole.
pub fn without_section_label(title: &str) -> &str {
    let lower = title.to_lowercase();
    for label in SECTION_LABELS {
        let Some(rest) = lower.strip_prefix(label) else {
            continue;
        };
        let Some(next) = rest.chars().next() else {
            continue;
        };
        if next.is_alphanumeric() {
            continue;
        }
        let head = &title[..label.len()];
        let remainder = title[label.len()..]
            .trim_start_matches(|c: char| !c.is_alphanumeric())
            .trim_start();
        let two_words = label.contains(' ');
        let set_apart =
            head.chars().all(|c| !c.is_lowercase()) && remainder.chars().any(char::is_lowercase);
        if (two_words || set_apart) && remainder.split_whitespace().count() >= 3 {
            return remainder;
        }
    }
    title
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

/// Phrases of the cover sheets that repositories, archives and proceedings
/// put in front of a paper (an institutional repository's "Citable Link"
/// and "Terms of Use", JSTOR's "Stable URL", HAL's "To cite this version",
/// USENIX's "This paper is included in the Proceedings").
const COVER_SHEET_MARKERS: [&str; 15] = [
    "citable link",
    "terms of use",
    "openly available",
    "as published",
    "stable url",
    "jstor",
    "your use of this",
    "persistent link",
    "this content downloaded",
    "hal id",
    "to cite this version",
    "archive ouverte",
    "this paper is included in the proceedings",
    "open access to the proceedings",
    "is sponsored by",
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
    fn archive_and_proceedings_covers_are_cover_sheets() {
        assert!(is_cover_sheet(
            "Conflict-free Replicated Data Types\nTo cite this version:\nMarc Shapiro.\nHAL Id: inria-00609399\nHAL is a multi-disciplinary open access archive"
        ));
        assert!(is_cover_sheet(
            "This paper is included in the Proceedings of the 2018 USENIX Annual Technical Conference\nOpen access to the Proceedings of the 2018 USENIX Annual Technical Conference is sponsored by USENIX."
        ));
        assert!(!is_cover_sheet(
            "Paxos Made Simple\nLeslie Lamport\nAbstract\nThe Paxos algorithm, when presented in plain English, is very simple."
        ));
    }

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
            "Review of Deep Learning for Protein Folding",
        ] {
            assert!(!is_furniture(title), "{title}");
        }
    }

    #[test]
    fn workshop_society_and_licence_lines_are_furniture() {
        for line in [
            "Proceedings of the 3rd Workshop on Noisy User-generated Text",
            "Presented at the Symposium on Operating Systems Principles",
            "Journal of the American Society for Information Science",
            "Association for Computational Linguistics",
            "© 2021 The Authors. All rights reserved.",
            "This work is licensed under a Creative Commons Attribution 4.0 License",
            "RESEARCH ARTICLE",
            "Original Article",
        ] {
            assert!(is_furniture(line), "{line}");
        }
    }

    #[test]
    fn an_article_kind_label_glued_before_a_title_is_taken_off() {
        assert_eq!(
            without_section_label("RESEARCH ARTICLE Deep learning predicts protein folding"),
            "Deep learning predicts protein folding"
        );
        assert_eq!(
            without_section_label("Original Article: Sleep and memory in older adults"),
            "Sleep and memory in older adults"
        );
        assert_eq!(
            without_section_label("REVIEW Gut microbiota and the immune system"),
            "Gut microbiota and the immune system"
        );
        // A title that begins with such a word keeps it.
        for title in [
            "Review of Deep Learning for Protein Folding",
            "Letter Recognition with Neural Networks",
            "REVIEW OF SCHEDULING ALGORITHMS",
            "Article Spinning and Plagiarism Detection",
        ] {
            assert_eq!(without_section_label(title), title);
        }
    }
}
