//! The paper's title and authors as the reader read them on page one, kept
//! only where page one bears them out: a model that sees the printed page
//! mends what layout rules miss (a running header taken for the title, a
//! ligature lost, a footnote mark glued to a name), but it may also invent,
//! so nothing it says about the front matter stands unchecked.

use std::collections::BTreeSet;

use crate::pdf::metadata::{is_furniture, is_person};
use crate::review::FrontMatter;

/// Share of a title's words that page one must print. Below one, so that a
/// word the text layer garbled ("simpli#ed") does not lose the mended title.
const TITLE_WORDS_ON_PAGE: f64 = 0.8;

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// What of the reader's `title` and `authors` page one bears out.
pub fn confirmed(title: Option<&str>, authors: &[String], page_one: &str) -> Option<FrontMatter> {
    let printed: BTreeSet<String> = words(page_one).into_iter().collect();
    let title = title
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|t| {
            let title_words = words(t);
            let found = title_words.iter().filter(|w| printed.contains(*w)).count();
            (2..=40).contains(&title_words.len())
                && !is_furniture(t)
                && found as f64 >= TITLE_WORDS_ON_PAGE * title_words.len() as f64
        });
    let authors: Vec<String> = authors
        .iter()
        .map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|a| is_person(a) && words(a).iter().all(|w| printed.contains(w)))
        .collect();
    (title.is_some() || !authors.is_empty()).then_some(FrontMatter { title, authors })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "SIAM J. COMPUT.\nA Simpli#ed Proof of the Consensus Bound\nJane Q. Doe a,∗ and Rahul Mehta b\nAbstract. We prove...";

    #[test]
    fn a_title_the_page_prints_stands_even_with_a_garbled_word() {
        let front =
            confirmed(Some("A Simplified Proof of the Consensus Bound"), &[], PAGE).unwrap();
        assert_eq!(
            front.title.as_deref(),
            Some("A Simplified Proof of the Consensus Bound")
        );
    }

    #[test]
    fn an_invented_title_or_author_is_dropped_and_so_is_a_running_header() {
        assert_eq!(
            confirmed(Some("Deep Learning for Everything"), &[], PAGE),
            None
        );
        assert_eq!(confirmed(Some("SIAM J. COMPUT."), &[], PAGE), None);
        let front = confirmed(
            None,
            &[
                "Jane Q. Doe".into(),
                "Rahul Mehta".into(),
                "Alan Turing".into(),
                "All Rights Reserved".into(),
            ],
            PAGE,
        )
        .unwrap();
        assert_eq!(front.authors, ["Jane Q. Doe", "Rahul Mehta"]);
    }
}
