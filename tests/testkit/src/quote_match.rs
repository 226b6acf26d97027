//! Whether a quote is on a page, checked apart from Quire: the page's text
//! comes from poppler's `pdftotext` (not Quire's extraction), and the match
//! squeezes both sides to their letters and digits (not Quire's word fold),
//! so a bug in Quire's checker cannot pass its own output. A quote cut with
//! an ellipsis must have each piece on the page, in order, within a passage.

use std::path::Path;
use std::process::Command;

/// Most characters an ellipsis may stand for between two pieces.
const MAX_GAP: usize = 600;

/// Letters and digits only, lowercased, ligatures spelt out.
pub fn squeeze(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            'ﬁ' => out.push_str("fi"),
            'ﬂ' => out.push_str("fl"),
            'ﬀ' => out.push_str("ff"),
            'ﬃ' => out.push_str("ffi"),
            'ﬄ' => out.push_str("ffl"),
            'ﬅ' | 'ﬆ' => out.push_str("st"),
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => {}
        }
    }
    out
}

/// Whether `quote` lies in `page`: each piece between ellipses, squeezed,
/// found in order, each within [`MAX_GAP`] characters of the one before.
pub fn on_page(quote: &str, page: &str) -> bool {
    let page = squeeze(page);
    let pieces: Vec<String> = quote
        .split('…')
        .flat_map(|p| p.split("..."))
        .map(squeeze)
        .filter(|p| !p.is_empty())
        .collect();
    let Some(first) = pieces.first() else {
        return false;
    };
    page.match_indices(first.as_str()).any(|(start, _)| {
        let mut at = start + first.len();
        pieces[1..].iter().all(|piece| {
            let window_end = (at + MAX_GAP + piece.len()).min(page.len());
            let mut end = window_end;
            while !page.is_char_boundary(end) {
                end -= 1;
            }
            match page[at..end].find(piece.as_str()) {
                Some(i) => {
                    at += i + piece.len();
                    true
                }
                None => false,
            }
        })
    })
}

/// Page `n` (1-based) of `pdf` as poppler's `pdftotext` reads it, twice:
/// in its reading order and in the order the content stream draws it
/// (`-raw`). Neither is right on every page (the first can interleave two
/// columns' lines, the second a figure's labels), so a quote on the page
/// is found in one of them. Empty when poppler cannot read the page.
pub fn pdftotext_page(pdf: &Path, n: u32) -> Vec<String> {
    let page = n.to_string();
    [None, Some("-raw")]
        .into_iter()
        .filter_map(|mode| {
            let out = Command::new("pdftotext")
                .args(["-q", "-f", &page, "-l", &page])
                .args(mode)
                .arg(pdf)
                .arg("-")
                .output()
                .ok()?;
            out.status
                .success()
                .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
        })
        .collect()
}

/// Whether `quote` is on page `n` of `pdf`, as poppler reads it either way.
pub fn on_pdf_page(quote: &str, pdf: &Path, n: u32) -> bool {
    pdftotext_page(pdf, n)
        .iter()
        .any(|text| on_page(quote, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_matches_across_hyphenation_case_ligatures_and_ellipses() {
        let page = "The leader repli-\ncates each entry. It is ﬁrst written to disk; then\nfollowers acknowledge it.";
        assert!(on_page("the leader replicates each entry", page));
        assert!(on_page("It is first written to disk", page));
        assert!(on_page(
            "It is first written … followers acknowledge it",
            page
        ));
        assert!(!on_page("followers acknowledge … the leader", page));
        assert!(!on_page("the leader replicates every entry", page));
        assert!(!on_page("", page));
    }
}
