//! Words the layout split: some PDFs place a word in pieces (kerning pairs in
//! a `TJ` array, a font with missing widths), and the spans then read
//! "Introduction to HB ase" or "Am andee p Khurana". A run of pieces is joined
//! when the joined word occurs in the paper's own text and one of the pieces
//! occurs nowhere but in that same split run, so "Design of" (no "designof"
//! anywhere) stays two words, and so does "in deed" when "deed" is a word of
//! the paper elsewhere. A ligature a title's font lost is spelled out from
//! the paper's own words, or from a list of English words with ligatures
//! (a title's words are often nowhere else in the paper).

use std::collections::HashMap;

use crate::pdf::layout::TextLine;
use crate::pdf::ligatures::{
    LIGATURES, english_ligature_word, one_ligature_from_another_word, with_ligature,
};

/// Most pieces one word is found split into.
const MOST_PIECES: usize = 4;

/// The paper's text as words, to tell a split word from two real ones.
pub struct Words {
    text: Vec<String>,
    counts: HashMap<String, usize>,
}

impl Words {
    pub fn of(pages: &[String]) -> Self {
        let text: Vec<String> = pages
            .iter()
            .flat_map(|p| p.split_whitespace())
            .map(bare)
            .filter(|w| !w.is_empty())
            .collect();
        let mut counts = HashMap::new();
        for word in &text {
            *counts.entry(word.clone()).or_insert(0) += 1;
        }
        Self { text, counts }
    }

    fn spelled_whole(&self, word: &str) -> bool {
        self.counts.contains_key(word)
    }

    /// A word with a ligature in it that the paper spells, or English has.
    fn ligature_word_known(&self, word: &str) -> bool {
        self.spelled_whole(word) || english_ligature_word(word)
    }

    /// `word` with a ligature its font dropped without a trace ("Ecient",
    /// "Eective") spelled out: when the paper spells the word at most where
    /// the title and a running header do, English has no such word, and
    /// exactly one of fi, fl, ff, ffi, ffl at one place makes a word that
    /// the paper spells or English has.
    pub fn mended_dropped_ligature(&self, word: &str) -> Option<String> {
        let (core, tail) = word
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphabetic())
            .map(|(i, c)| word.split_at(i + c.len_utf8()))?;
        let chars: Vec<char> = core.chars().collect();
        if chars.len() < 4
            || !chars.iter().all(|c| c.is_alphabetic())
            || english_ligature_word(&bare(core))
            || one_ligature_from_another_word(&bare(core))
            || self.counts.get(&bare(core)).copied().unwrap_or(0) > 2
        {
            return None;
        }
        let whole = with_ligature(core, |w| self.spelled_whole(w))?;
        Some(format!("{whole}{tail}"))
    }

    /// `before` and `after` as one word with the glyph between them that the
    /// font left unmapped and the text layer read as a space ("Fun tional",
    /// "S heme"): when `after` is no word the paper spells apart and exactly one
    /// letter or ligature between them makes one it does.
    pub fn mended_gap(&self, before: &str, after: &str) -> Option<String> {
        let letters = |w: &str| !w.is_empty() && w.chars().all(char::is_alphabetic);
        if !letters(before) || !letters(after) || !after.starts_with(char::is_lowercase) {
            return None;
        }
        // `after` may occur, but only right after `before` (the title itself
        // is in the text).
        let pair = [bare(before), bare(after)];
        let together = self.text.windows(2).filter(|w| *w == pair).count();
        if self.counts.get(&pair[1]).copied().unwrap_or(0) > together {
            return None;
        }
        let letters = ('a'..='z')
            .map(|lost| format!("{before}{lost}{after}"))
            .filter(|w| self.spelled_whole(&bare(w)));
        let ligatures = LIGATURES
            .iter()
            .map(|lost| format!("{before}{lost}{after}"))
            .filter(|w| self.ligature_word_known(&bare(w)));
        let mut found: Vec<String> = letters.chain(ligatures).collect();
        found.dedup();
        match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// `word` with a ligature its font left unmapped ("simpli#ed",
    /// "e\u{FFFD}cient") spelled out, when exactly one of fi, fl, ff, ffi,
    /// ffl makes a word the paper spells elsewhere; `None` otherwise.
    pub fn mended_ligature(&self, word: &str) -> Option<String> {
        let chars: Vec<char> = word.chars().collect();
        let odd = chars
            .iter()
            .position(|&c| !c.is_alphanumeric() && !"-'’.,:;!?()[]\"“”".contains(c))?;
        let letters = |range: &[char]| range.iter().all(|c| c.is_alphabetic());
        if odd == 0
            || odd + 1 >= chars.len()
            || !letters(&chars[..odd])
            || !letters(&chars[odd + 1..])
        {
            return None;
        }
        let (head, tail): (String, String) = (
            chars[..odd].iter().collect(),
            chars[odd + 1..].iter().collect(),
        );
        let found: Vec<String> = LIGATURES
            .iter()
            .map(|l| format!("{head}{l}{tail}"))
            .filter(|w| self.ligature_word_known(&bare(w)))
            .collect();
        match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// `before` + `after`, broken at a hyphen over two lines, is one word: the
    /// paper spells it whole somewhere and never with the hyphen.
    pub fn spelled_only_whole(&self, before: &str, after: &str) -> bool {
        let (before, after) = (bare(before), bare(after));
        !before.is_empty()
            && !after.is_empty()
            && self.spelled_whole(&format!("{before}{after}"))
            && !self.spelled_whole(&format!("{before}-{after}"))
    }

    /// Some piece occurs nowhere but inside this very run of pieces (the
    /// text repeats the split lines, a running header repeats them often).
    fn only_split(&self, run: &[String]) -> bool {
        let together = self.text.windows(run.len()).filter(|w| w == &run).count();
        run.iter()
            .any(|piece| self.counts.get(piece).copied().unwrap_or(0) <= together)
    }
}

/// `lines` with their split words joined.
pub fn rejoined(lines: &[TextLine], words: &Words) -> Vec<TextLine> {
    lines
        .iter()
        .map(|line| TextLine {
            text: rejoin(&line.text, words),
            ..line.clone()
        })
        .collect()
}

fn rejoin(text: &str, words: &Words) -> String {
    let pieces: Vec<&str> = text.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(pieces.len());
    let mut i = 0;
    while i < pieces.len() {
        let longest = (2..=MOST_PIECES.min(pieces.len() - i)).rev().find(|&n| {
            let run = &pieces[i..i + n];
            let bare_run: Vec<String> = run.iter().map(|p| bare(p)).collect();
            continues_a_word(run)
                && words.spelled_whole(&bare(&run.concat()))
                && words.only_split(&bare_run)
        });
        let n = longest.unwrap_or(1);
        out.push(pieces[i..i + n].concat());
        i += n;
    }
    out.join(" ")
}

/// Each piece after the first could be the rest of a word: it does not start
/// a new capitalised one ("Ravi Kumar" is two names even when an email
/// address spells "ravikumar"), unless the text is in capitals throughout.
fn continues_a_word(run: &[&str]) -> bool {
    run.windows(2).all(|pair| {
        let shouting = pair[0]
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase);
        shouting || !pair[1].starts_with(char::is_uppercase)
    })
}

fn bare(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Words {
        Words::of(&[text.to_owned()])
    }

    #[test]
    fn a_glyph_read_as_a_space_is_restored_when_the_paper_spells_the_word() {
        let paper = words(
            "Fun tional Rea tive Programming in S heme. Functional reactive programming in Scheme is reactive and functional.",
        );
        assert_eq!(
            paper.mended_gap("Fun", "tional").as_deref(),
            Some("Functional")
        );
        assert_eq!(paper.mended_gap("S", "heme").as_deref(), Some("Scheme"));
        // Two real words stay two.
        assert_eq!(paper.mended_gap("reactive", "programming"), None);
        assert_eq!(paper.mended_gap("Fun", "tion"), None);
    }

    #[test]
    fn a_lost_ligature_is_spelled_out_when_the_paper_spells_the_word() {
        let paper = words("The simplified model is efficient; we simplified it again.");
        assert_eq!(
            paper.mended_ligature("Simpli#ed").as_deref(),
            Some("Simplified")
        );
        assert_eq!(
            paper.mended_ligature("e\u{FFFD}cient").as_deref(),
            Some("efficient")
        );
        // A word the paper never spells, from English.
        assert_eq!(
            paper.mended_ligature("Unmodi#ed").as_deref(),
            Some("Unmodified")
        );
        // No word either way, or a real symbol, stays as it is.
        assert_eq!(paper.mended_ligature("qu#zz"), None);
        assert_eq!(paper.mended_ligature("C#"), None);
        assert_eq!(paper.mended_ligature("model"), None);
    }

    #[test]
    fn a_ligature_dropped_from_a_title_word_only_the_title_has_is_mended_from_english() {
        // The title's words appear nowhere else in the paper.
        let paper = words("Ecient Indexes for Eective Search\nWe build indexes and search them.");
        assert_eq!(
            paper.mended_dropped_ligature("Ecient").as_deref(),
            Some("Efficient")
        );
        assert_eq!(
            paper.mended_dropped_ligature("Eective:").as_deref(),
            Some("Effective:")
        );
        // The glyph read as a space.
        assert_eq!(paper.mended_gap("E", "cient").as_deref(), Some("Efficient"));
        // Real words are left alone, spelled by the paper or not.
        for word in [
            "Indexes", "Search", "build", "Lies", "Tight", "Vector", "Baled", "Bus",
        ] {
            assert_eq!(paper.mended_dropped_ligature(word), None, "{word}");
        }
    }

    #[test]
    fn joins_a_split_word_the_paper_spells_whole() {
        // The page's text repeats its head lines, split the same way, and a
        // running header repeats the title on every page.
        let body = words(
            "Introduction to HB ase Schema Design\nAm andee p Khurana\nEnvelop es\n\
             HBase is a database. Amandeep Khurana wrote about HBase schema design for you.\n\
             Introduction to HB ase Schema Design\nIntroduction to HB ase Schema Design",
        );
        assert_eq!(
            rejoin("Introduction to HB ase Schema Design", &body),
            "Introduction to HBase Schema Design"
        );
        assert_eq!(rejoin("Am andee p Khurana", &body), "Amandeep Khurana");
        // Two names stay apart even when an address spells them as one.
        let mail = words("Ravi Kumar\n{dasgupta, ravikumar}@example.com");
        assert_eq!(rejoin("Ravi Kumar", &mail), "Ravi Kumar");
        // Two real words stay apart even when both are in the text.
        assert_eq!(rejoin("design for", &body), "design for");
        assert_eq!(
            rejoin("Schema Design for you", &body),
            "Schema Design for you"
        );
        // A word the paper never spells whole is left as read.
        assert_eq!(rejoin("Envelop es", &body), "Envelop es");
    }
}
