//! Words the layout split: some PDFs place a word in pieces (kerning pairs in
//! a `TJ` array, a font with missing widths), and the spans then read
//! "Introduction to HB ase" or "Am andee p Khurana". A run of pieces is joined
//! when the joined word occurs in the paper's own text and one of the pieces
//! occurs nowhere but in that same split run, so "Design of" (no "designof"
//! anywhere) stays two words, and so does "in deed" when "deed" is a word of
//! the paper elsewhere.

use std::collections::HashMap;

use crate::pdf::layout::TextLine;

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
