//! Checking a quote against the page it cites. Both sides get the cleaning
//! extraction applies (NFKC, joined hyphenation, squeezed whitespace) and then
//! a fold of what models change when they copy (case, curly quotes, dashes, line
//! breaks). A quote with an ellipsis must have each of its pieces on the page,
//! in order.

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

/// Whether `quote` is on `page` (1-based) of `pages`.
pub fn quote_on_page(quote: &str, page: usize, pages: &[String]) -> bool {
    let Some(text) = page.checked_sub(1).and_then(|i| pages.get(i)) else {
        return false;
    };
    let haystack = fold(text);
    let quote = fold(quote);
    let quote = quote.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    let pieces: Vec<&str> = quote
        .split(['…'])
        .flat_map(|p| p.split("..."))
        .map(|p| p.trim_matches(|c: char| c == '.' || c.is_whitespace()))
        .filter(|p| !p.is_empty())
        .collect();
    // A quote of a word or two proves nothing.
    if pieces.iter().map(|p| p.split(' ').count()).sum::<usize>() < 4 {
        return false;
    }
    let mut from = 0;
    for piece in pieces {
        match haystack[from..].find(piece) {
            Some(at) => from += at + piece.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
