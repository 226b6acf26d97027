//! Cleaning extracted text and judging whether it is text at all.
//!
//! Every engine's output goes through [`clean_page`]: NFKC folds ligatures
//! ("ﬁ" → "fi") and compatibility forms, line-end hyphens are joined
//! ("exam-\nple" → "example"), runs of blanks shrink. [`assess`] then scores
//! the result: real prose is full of short function words ("the", "of", "and");
//! text from broken font maps or a missing text layer is not, and text that lost
//! its spaces has absurdly long "words".

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// Below this many letters per page on average there is no usable text layer.
pub const MIN_LETTERS_PER_PAGE: usize = 10;
/// The garbage and spacing checks need this many words to mean anything.
pub const MIN_WORDS_TO_JUDGE: usize = 30;
/// Below this share of function words the text is garbage (broken font encoding).
pub const MIN_FUNCTION_WORD_SHARE: f64 = 0.08;
/// Above this mean word length the spaces were lost.
pub const MAX_MEAN_WORD_LEN: f64 = 11.0;
/// Below this many common letter triples per thousand letters, text whose
/// spaces were lost is not language either. English has about sixty
/// ("the" alone thirty), French and German as many of theirs; letters at
/// random about one.
pub const MIN_COMMON_TRIPLES_PER_1000: f64 = 10.0;

/// Letter triples common in the languages papers are written in.
const COMMON_TRIPLES: [&str; 16] = [
    "the", "and", "ing", "ion", "tio", "ent", "for", "ati", "der", "die", "und", "ein", "les",
    "des", "que", "con",
];

/// Common English function words. Prose in any field is about a third of these.
const FUNCTION_WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "with", "on", "be", "by",
    "this", "are", "we", "an", "or", "from", "at", "which", "not", "can", "our", "each", "its",
    "if", "all", "but", "has", "have", "was", "were", "these", "there", "their", "when", "one",
    "two", "more", "than", "also", "such", "into", "may", "other", "only", "then", "so", "no",
    "use", "used", "how", "what", "where", "between", "both", "any",
];

/// Clean a text layer's pages, and spell out the ligatures its fonts lost
/// (judged over the whole paper: see [`super::ligatures`]).
pub fn clean_pages(raw: &[String]) -> Vec<String> {
    let mut pages: Vec<String> = raw.iter().map(|p| clean_page(p)).collect();
    super::ligatures::mend_lost_ligatures(&mut pages);
    pages
}

/// Clean one page of extracted text.
pub fn clean_page(raw: &str) -> String {
    let normalized: String = raw
        .nfkc()
        .collect::<String>()
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let joined = join_hyphenated_line_ends(&normalized);
    let mut out = String::with_capacity(joined.len());
    for line in joined.lines() {
        let squeezed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push_str(&squeezed);
        out.push('\n');
    }
    // At most one blank line in a row.
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out.trim().to_owned()
}

/// "exam-\nple" → "example" when a lowercase letter precedes the hyphen and one
/// follows the break (the rest of that line follows on the same line);
/// "non-\nTrivial" and other compounds before a capital are left alone.
fn join_hyphenated_line_ends(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if (c == '-' || c == '\u{00AD}') && i > 0 && chars[i - 1].is_lowercase() {
            let mut j = i + 1;
            while j < chars.len() && (chars[j] == ' ' || chars[j] == '\t') {
                j += 1;
            }
            if j < chars.len() && chars[j] == '\n' {
                let mut k = j + 1;
                while k < chars.len() && chars[k].is_whitespace() {
                    k += 1;
                }
                if k < chars.len() && chars[k].is_lowercase() {
                    // Move the rest of the broken word up, keep the line break after it.
                    let mut end = k;
                    while end < chars.len() && !chars[end].is_whitespace() {
                        end += 1;
                    }
                    out.extend(&chars[k..end]);
                    i = end;
                    continue;
                }
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// How text-like a document's extracted text is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quality {
    pub pages: usize,
    pub letters: usize,
    pub words: usize,
    pub function_word_share: f64,
    pub mean_word_len: f64,
    /// Common letter triples ("the", "ing", "und", "les"…) per thousand
    /// letters, spaces ignored; `None` when the letters are not mostly
    /// ASCII (another script, where the triples mean nothing).
    #[serde(default)]
    pub common_triples: Option<f64>,
}

/// The verdict on a document's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Good,
    /// No text layer to speak of.
    Empty,
    /// Letters, but not language: a broken font encoding.
    Garbage,
    /// Words run together: the engine lost the spaces.
    MissingSpaces,
}

impl Quality {
    pub fn verdict(&self) -> Verdict {
        if self.letters == 0 || self.letters < MIN_LETTERS_PER_PAGE * self.pages.max(1) {
            Verdict::Empty
        } else if self.words < MIN_WORDS_TO_JUDGE {
            Verdict::Good
        } else if self.mean_word_len > MAX_MEAN_WORD_LEN
            && self
                .common_triples
                .is_some_and(|t| t < MIN_COMMON_TRIPLES_PER_1000)
        {
            // Run together and no language in it either: a font whose
            // letters map to other letters (a cipher of the text), which
            // only OCR reads.
            Verdict::Garbage
        } else if self.mean_word_len > MAX_MEAN_WORD_LEN {
            Verdict::MissingSpaces
        } else if self.function_word_share < MIN_FUNCTION_WORD_SHARE {
            Verdict::Garbage
        } else {
            Verdict::Good
        }
    }

    /// A single number to compare two engines' output of the same document.
    pub fn score(&self) -> f64 {
        if self.verdict() == Verdict::Empty {
            return 0.0;
        }
        let spacing = (MAX_MEAN_WORD_LEN / self.mean_word_len.max(1.0)).min(1.0);
        self.function_word_share * spacing * (self.letters as f64).ln()
    }
}

pub fn assess(pages: &[String]) -> Quality {
    let mut letters = 0usize;
    let mut words = 0usize;
    let mut word_letters = 0usize;
    let mut function_words = 0usize;
    for page in pages {
        for token in page.split_whitespace() {
            let word: String = token.chars().filter(|c| c.is_alphabetic()).collect();
            if word.is_empty() {
                continue;
            }
            let n = word.chars().count();
            letters += n;
            words += 1;
            word_letters += n;
            if n <= 7 && FUNCTION_WORDS.contains(&word.to_lowercase().as_str()) {
                function_words += 1;
            }
        }
    }
    Quality {
        common_triples: common_triples(pages),
        pages: pages.len(),
        letters,
        words,
        function_word_share: if words == 0 {
            0.0
        } else {
            function_words as f64 / words as f64
        },
        mean_word_len: if words == 0 {
            0.0
        } else {
            word_letters as f64 / words as f64
        },
    }
}

/// Common letter triples per thousand letters (see [`Quality`]).
fn common_triples(pages: &[String]) -> Option<f64> {
    let mut letters: Vec<u8> = Vec::new();
    let mut other = 0usize;
    for c in pages
        .iter()
        .flat_map(|p| p.chars())
        .filter(|c| c.is_alphabetic())
    {
        if c.is_ascii() {
            letters.push(c.to_ascii_lowercase() as u8);
        } else {
            other += 1;
        }
    }
    if letters.len() < 300 || letters.len() < 9 * other {
        return None;
    }
    let hits = letters
        .windows(3)
        .filter(|w| COMMON_TRIPLES.iter().any(|t| t.as_bytes() == *w))
        .count();
    Some(hits as f64 * 1000.0 / letters.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_page_folds_ligatures_and_joins_broken_words() {
        assert_eq!(
            clean_page("e\u{FB03}cient  and \u{FB01}ne"),
            "efficient and fine"
        );
        assert_eq!(clean_page("the exam-\nple shows"), "the example shows");
        assert_eq!(clean_page("non-\nTrivial"), "non-\nTrivial");
        assert_eq!(clean_page("a\n\n\n\nb"), "a\n\nb");
    }

    #[test]
    fn assess_tells_prose_from_garbage_and_run_together_text() {
        let prose =
            "The system stores the data in a log and replays it when a node fails. ".repeat(20);
        assert_eq!(assess(&[prose]).verdict(), Verdict::Good);
        let garbage = "Xq7 zpw Kkv rrt Qmzl vvb Jpq ".repeat(40);
        assert_eq!(assess(&[garbage]).verdict(), Verdict::Garbage);
        let glued = "Thesystemstoresthedatainalogandreplaysit whenanodefails ".repeat(20);
        assert_eq!(assess(&[glued]).verdict(), Verdict::MissingSpaces);
        // A font whose letters map to other letters: run together, and no
        // language in it (a line of functional-reactive-animation.pdf).
        let cipher =
            "SQWQcTQQcWQRZWS]TOWXWOQQcTQKjljISPPNa\\R\\ QSTUUS]em‰js_^WwORObRQ\\sWcTXRSaTPaS\\ "
                .repeat(20);
        assert_eq!(assess(&[cipher]).verdict(), Verdict::Garbage);
        // Run together in German or French is still language.
        let german =
            "DasSystemspeichertdieDatenineinemProtokollundspieltesab wennderKnotenausfällt "
                .repeat(20);
        assert_eq!(assess(&[german]).verdict(), Verdict::MissingSpaces);
        assert_eq!(
            assess(&["".into(), " 12 ".into()]).verdict(),
            Verdict::Empty
        );
        // A one-page note is short, not empty.
        assert_eq!(
            assess(&["Nested arrays hostile test".into()]).verdict(),
            Verdict::Good
        );
    }
}
