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
