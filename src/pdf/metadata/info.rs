//! When to trust the document information dictionary and XMP: producers fill
//! them with file names, placeholders and stale drafts' titles.

/// Producers fill Title with file names and placeholders; only a real title counts.
pub fn plausible_info_title(title: &str) -> bool {
    let t = title.trim();
    let lower = t.to_lowercase();
    let words = t.split_whitespace().count();
    let junk = [
        "untitled",
        "microsoft word",
        ".dvi",
        ".doc",
        ".tex",
        ".pdf",
        "no title",
        "title",
        "paper",
    ];
    (2..=40).contains(&words)
        && t.len() >= 8
        && !junk.iter().any(|j| {
            lower == *j
                || lower.contains(&format!("{j} -"))
                || lower.ends_with(j) && j.starts_with('.')
        })
        && !lower.starts_with("microsoft word")
        && t.chars().filter(|c| c.is_alphabetic()).count() * 2 > t.len()
}

/// Producers also copy section names or old drafts' titles into Info; a real
/// title is printed on the first page.
pub fn appears_on_page(title: &str, page: &str) -> bool {
    let page = page.to_lowercase();
    let words: Vec<String> = title
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let found = words
        .iter()
        .filter(|w| page.contains(w.trim_matches(|c: char| !c.is_alphanumeric())))
        .count();
    page.is_empty() || found * 4 >= words.len() * 3
}
