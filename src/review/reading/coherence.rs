//! Whether a reader's answer can stand as a result. Valid JSON is not a
//! valid result: small models answer with a rationale of `][`, a summary of
//! one character, a score of 10 with the verdict "exclude", or no evidence at
//! all. An answer is coherent when its score is on the scale and agrees with
//! its verdict, its rationale and summary are in words, and it rests on a
//! verified quote, unless it says the paper does not address the question
//! (a score in the exclude band), which needs no quote.

use crate::review::Verdict;

/// A rationale has at least this many words.
const MIN_RATIONALE_WORDS: usize = 3;

/// A summary has at least this many words in all.
const MIN_SUMMARY_WORDS: usize = 5;

/// What an answer says, as far as coherence goes.
pub struct Claim<'a> {
    pub score: f64,
    pub verdict: Option<Verdict>,
    pub rationale: &'a str,
    pub summary: &'a [crate::review::Quote],
    /// Evidence quotes found on their cited pages.
    pub verified_quotes: usize,
}

/// Why the answer cannot stand, in words the model can act on when it is
/// asked again; None when it is coherent.
pub fn problem(claim: &Claim<'_>) -> Option<String> {
    if !claim.score.is_finite() {
        return Some("Your answer has no score. Give a score from 0 to 10.".into());
    }
    if !(0.0..=10.0).contains(&claim.score) {
        return Some(format!(
            "Your score {} is off the scale. Give a score from 0 to 10.",
            claim.score
        ));
    }
    let earned = Verdict::from_score(claim.score);
    if let Some(verdict) = claim.verdict
        && band(verdict).abs_diff(band(earned)) >= 2
    {
        return Some(format!(
            "Your verdict \"{}\" contradicts your score {} (a score of {} means \"{}\"). Give a verdict that agrees with the score.",
            verdict.as_str(),
            claim.score,
            claim.score,
            earned.as_str()
        ));
    }
    if words(claim.rationale) < MIN_RATIONALE_WORDS {
        return Some(
            "Your rationale is not a sentence. Say in words why the paper earns its score.".into(),
        );
    }
    let summary_words: usize = claim.summary.iter().map(|s| words(&s.text)).sum();
    if summary_words < MIN_SUMMARY_WORDS {
        return Some(
            "Your summary is not in words. Summarise the paper in sentences, each with its page."
                .into(),
        );
    }
    if claim.verified_quotes == 0 && earned != Verdict::Exclude {
        return Some(
            "Your answer gives the paper a score but no evidence. Support it with passages copied exactly from the text, each with its page number; if the paper does not address the question, give it a low score and say so.".into(),
        );
    }
    None
}

/// Include, maybe, exclude as 0, 1, 2: a verdict one band from its score's
/// is a judgement call; two bands apart is a contradiction.
fn band(verdict: Verdict) -> u8 {
    match verdict {
        Verdict::Include => 0,
        Verdict::Maybe => 1,
        Verdict::Exclude => 2,
    }
}

/// Words of two letters or more: punctuation and numbers are not words.
fn words(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::Quote;

    fn summary() -> Vec<Quote> {
        vec![Quote {
            text: "The paper builds a replicated log and measures its recovery time.".into(),
            page: 1,
        }]
    }

    fn claim<'a>(
        score: f64,
        verdict: Option<Verdict>,
        rationale: &'a str,
        summary: &'a [Quote],
        verified: usize,
    ) -> Claim<'a> {
        Claim {
            score,
            verdict,
            rationale,
            summary,
            verified_quotes: verified,
        }
    }

    #[test]
    fn a_small_models_noise_is_not_a_result() {
        let s = summary();
        let fine = "It measures recovery after crashes directly.";
        // The answers a 270M model gave: `][` and `0` as rationales.
        assert!(problem(&claim(10.0, Some(Verdict::Include), "][", &s, 1)).is_some());
        assert!(problem(&claim(0.0, Some(Verdict::Include), fine, &s, 1)).is_some());
        assert!(problem(&claim(10.0, Some(Verdict::Exclude), fine, &s, 1)).is_some());
        assert!(problem(&claim(14.0, None, fine, &s, 1)).is_some());
        assert!(problem(&claim(f64::NAN, None, fine, &s, 1)).is_some());
        let one_letter = [Quote {
            text: "a".into(),
            page: 1,
        }];
        assert!(problem(&claim(8.0, None, fine, &one_letter, 1)).is_some());
        // A high score needs a verified quote; a low one may say the paper
        // does not address the question.
        assert!(problem(&claim(8.0, None, fine, &s, 0)).is_some());
        assert!(problem(&claim(1.0, Some(Verdict::Exclude), fine, &s, 0)).is_none());
        // A verdict one band from its score is a judgement call.
        assert!(problem(&claim(6.0, Some(Verdict::Include), fine, &s, 1)).is_none());
        assert!(problem(&claim(8.0, Some(Verdict::Include), fine, &s, 2)).is_none());
    }
}
