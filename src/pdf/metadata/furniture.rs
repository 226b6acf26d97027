//! Page furniture: the lines near a title that are not it (journal and
//! conference headers, dates, links, copyright and stamp lines).

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
