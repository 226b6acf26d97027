//! Ligatures a PDF's font left out of its text layer. Many papers set
//! "fi", "fl", "ff", "ffi" and "ffl" as one glyph that maps to no
//! character, and the text then reads "dierent", "denition", "ecient":
//! quotes copied from it are garbled, and searches miss the word. A word
//! is spelled out again when exactly one ligature at one place makes an
//! English word (SCOWL's list, from Debian's `wamerican`) and the word as
//! read is not one of the English words that a ligature would turn into
//! another ("bale" and "baffle"). Titles are mended the same way (see
//! `metadata::rejoin`).

use std::collections::HashSet;
use std::sync::OnceLock;

/// The ligatures fonts set as one glyph.
pub const LIGATURES: [&str; 5] = ["fi", "fl", "ff", "ffi", "ffl"];

/// Two-letter-or-shorter words a lost ligature's word may follow; any other
/// fragment that short is the front of a word split in two ("mo deling").
const SHORT_WORDS: [&str; 26] = [
    "a", "i", "an", "as", "at", "be", "by", "do", "go", "he", "if", "in", "is", "it", "me", "my",
    "no", "of", "on", "or", "so", "to", "up", "us", "we", "vs",
];

/// The English word list: words with a ligature, and (marked `!`) words
/// without one that a ligature put in would turn into another word.
fn english_words() -> &'static (HashSet<&'static str>, HashSet<&'static str>) {
    static WORDS: OnceLock<(HashSet<&'static str>, HashSet<&'static str>)> = OnceLock::new();
    WORDS.get_or_init(|| {
        let lines = include_str!("ligature_words.txt")
            .lines()
            .filter(|l| !l.starts_with('#'));
        let (plain, ligature): (Vec<&str>, Vec<&str>) = lines.partition(|l| l.starts_with('!'));
        (
            ligature.into_iter().collect(),
            plain.into_iter().map(|l| &l[1..]).collect(),
        )
    })
}

/// Whether English has `word` (lowercase), a word with a ligature in it.
pub fn english_ligature_word(word: &str) -> bool {
    english_words().0.contains(word)
}

/// Whether `word` (lowercase) is an English word a ligature put in would
/// turn into another ("bale" into "baffle"): never mended.
pub fn one_ligature_from_another_word(word: &str) -> bool {
    english_words().1.contains(word)
}

/// `word` with one ligature put back at one place, when exactly one such
/// spelling is an English word or satisfies `known`.
pub fn with_ligature(word: &str, known: impl Fn(&str) -> bool) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut found: Vec<String> = (1..chars.len())
        .flat_map(|at| {
            let (head, rest): (String, String) =
                (chars[..at].iter().collect(), chars[at..].iter().collect());
            LIGATURES.map(|l| format!("{head}{l}{rest}"))
        })
        .filter(|w| {
            let lower = w.to_lowercase();
            english_ligature_word(&lower) || known(&lower)
        })
        .collect();
    found.dedup();
    match found.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// `pages` with the ligatures their text lost spelled out. Only words in
/// lower case are mended (a capitalised one may be a name: "Bailis" is not
/// "bailiffs"); a four-letter one only into a word the paper spells
/// elsewhere; none that ends a longer word of the paper or follows a
/// fragment of a word split in two.
pub fn mend_lost_ligatures(pages: &mut [String]) {
    let vocabulary: HashSet<String> = pages
        .iter()
        .flat_map(|p| p.split(|c: char| !c.is_alphabetic()))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let ends_a_longer_word = |word: &str| {
        vocabulary
            .iter()
            .any(|v| v.len() >= word.len() + 2 && v.ends_with(word))
    };
    let mut mended: std::collections::HashMap<String, Option<String>> = Default::default();
    for page in pages.iter_mut() {
        let mut out = String::with_capacity(page.len());
        let mut previous = String::new();
        let mut rest = page.as_str();
        while let Some(start) = rest.find(|c: char| c.is_alphabetic()) {
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest
                .find(|c: char| !c.is_alphabetic())
                .unwrap_or(rest.len());
            let word = &rest[..end];
            let fragment_before = !previous.is_empty()
                && previous.len() <= 2
                && !SHORT_WORDS.contains(&previous.as_str());
            let fix = if word.len() >= 4
                && word.chars().all(|c| c.is_ascii_lowercase())
                && !fragment_before
            {
                mended
                    .entry(word.to_owned())
                    .or_insert_with(|| {
                        if english_ligature_word(word) || one_ligature_from_another_word(word) {
                            return None;
                        }
                        let known = |w: &str| {
                            vocabulary.contains(w) && LIGATURES.iter().any(|l| w.contains(l))
                        };
                        // The scan of the vocabulary last: few words get this far.
                        with_ligature(word, known)
                            .filter(|whole| word.len() > 4 || vocabulary.contains(whole.as_str()))
                            .filter(|_| !ends_a_longer_word(word))
                    })
                    .clone()
            } else {
                None
            };
            out.push_str(fix.as_deref().unwrap_or(word));
            previous = word.to_lowercase();
            rest = &rest[end..];
        }
        out.push_str(rest);
        *page = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mended(text: &str) -> String {
        let mut pages = vec![text.to_owned()];
        mend_lost_ligatures(&mut pages);
        pages.remove(0)
    }

    #[test]
    fn words_that_lost_a_ligature_are_spelled_out_and_real_words_are_not() {
        assert_eq!(
            mended("The dierent denitions are ecient, and the eect is signicant."),
            "The different definitions are efficient, and the eect is significant."
        );
        // A four-letter word only into one the paper spells.
        assert_eq!(
            mended("The eect of the effect."),
            "The effect of the effect."
        );
        // Real words, names, split words, and the ends of longer words stay.
        for text in [
            "a trie of bale and bales",
            "Bailis and Bing wrote it",
            "this is mo deling the behaviour",
            "eliminating and inating",
        ] {
            assert_eq!(mended(text), text, "{text}");
        }
    }
}
