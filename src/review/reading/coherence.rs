//! Whether a reader's answer can stand as a result. Valid JSON is not a
//! valid result: small models answer with a rationale of `][`, a summary of
//! one character, a score of 10 with the verdict "exclude", or no evidence at
//! all. An answer is coherent when its score is on the scale and agrees with
//! its verdict, its rationale and summary are in words, and it rests on a
//! verified quote, unless it says the paper does not address the question
//! (a score in the exclude band), which needs no quote. An exclude verdict
//! on a high score is coherent when the answer excludes by a criterion: it
//! names one not met and quotes, verified, the passage that shows it.

use crate::review::Verdict;

/// A rationale has at least this many words.
const MIN_RATIONALE_WORDS: usize = 3;

/// A summary has at least this many words in all.
const MIN_SUMMARY_WORDS: usize = 5;

/// What an answer says, as far as coherence goes.
pub struct Claim<'a> {
    pub score: f64,
    pub verdict: Option<Verdict>,
    /// The verdict is exclude by a criterion not met, its passage verified.
    pub excludes_by_criterion: bool,
    pub rationale: &'a str,
    pub summary: &'a [crate::review::Quote],
    /// Evidence quotes found on their cited pages, and not found.
    pub verified_quotes: usize,
    pub dropped_quotes: usize,
}

/// Why an answer cannot stand.
#[derive(Clone, Debug, PartialEq)]
pub enum Problem {
    NoScore,
    OffScale {
        score: f64,
    },
    VerdictAgainstScore {
        verdict: Verdict,
        score: f64,
    },
    RationaleNotWords,
    SummaryNotWords,
    /// A score that needs evidence, and no quote found on its page
    /// (`dropped` were cited and not found).
    NoEvidence {
        dropped: usize,
    },
}

impl Problem {
    /// What the model is told when it is asked again.
    pub fn ask(&self) -> String {
        match self {
            Self::NoScore => "Your answer has no score. Give a score from 0 to 10.".into(),
            Self::OffScale { score } => {
                format!("Your score {score} is off the scale. Give a score from 0 to 10.")
            }
            Self::VerdictAgainstScore { verdict, score } => format!(
                "Your verdict \"{}\" contradicts your score {score} (a score of {score} means \"{}\"). Give a verdict that agrees with the score; if the paper fails a criterion, mark that criterion not_met and quote the passage that shows it, with its page.",
                verdict.as_str(),
                Verdict::from_score(*score).as_str()
            ),
            Self::RationaleNotWords => {
                "Your rationale is not a sentence. Say in words why the paper earns its score."
                    .into()
            }
            Self::SummaryNotWords => {
                "Your summary is not in words. Summarise the paper in sentences, each with its page."
                    .into()
            }
            Self::NoEvidence { dropped: 0 } => "Your answer gives the paper a score but no evidence. Support it with passages copied exactly from the text, each with its page number; if the paper does not address the question, give it a low score and say so.".into(),
            Self::NoEvidence { dropped } => format!(
                "None of your {dropped} evidence quotes appears word for word on the page you cited. Copy each passage exactly as it is printed, with its page number; if the paper does not address the question, give it a low score and say so."
            ),
        }
    }

    /// What the researcher is told when the paper could not be scored.
    pub fn describe(&self) -> String {
        match self {
            Self::NoScore => "the answer gave no score".into(),
            Self::OffScale { score } => format!("the score {score} was off the 0-10 scale"),
            Self::VerdictAgainstScore { verdict, score } => format!(
                "the verdict \"{}\" contradicted the score {score}",
                verdict.as_str()
            ),
            Self::RationaleNotWords => "the rationale was not in words".into(),
            Self::SummaryNotWords => "the summary was not in words".into(),
            Self::NoEvidence { dropped: 0 } => "a score with no evidence quoted".into(),
            Self::NoEvidence { dropped: 1 } => {
                "a score whose one quote is not on the page it cites".into()
            }
            Self::NoEvidence { dropped } => {
                format!("a score whose {dropped} quotes are none of them on the page they cite")
            }
        }
    }
}

/// Why the answer cannot stand; None when it is coherent.
pub fn problem(claim: &Claim<'_>) -> Option<Problem> {
    if !claim.score.is_finite() {
        return Some(Problem::NoScore);
    }
    if !(0.0..=10.0).contains(&claim.score) {
        return Some(Problem::OffScale { score: claim.score });
    }
    let earned = Verdict::from_score(claim.score);
    if let Some(verdict) = claim.verdict
        && !(verdict == Verdict::Exclude && claim.excludes_by_criterion)
        && band(verdict).abs_diff(band(earned)) >= 2
    {
        return Some(Problem::VerdictAgainstScore {
            verdict,
            score: claim.score,
        });
    }
    if words(claim.rationale) < MIN_RATIONALE_WORDS {
        return Some(Problem::RationaleNotWords);
    }
    let summary_words: usize = claim.summary.iter().map(|s| words(&s.text)).sum();
    if summary_words < MIN_SUMMARY_WORDS {
        return Some(Problem::SummaryNotWords);
    }
    if claim.verified_quotes == 0 && earned != Verdict::Exclude {
        return Some(Problem::NoEvidence {
            dropped: claim.dropped_quotes,
        });
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
            excludes_by_criterion: false,
            rationale,
            summary,
            verified_quotes: verified,
            dropped_quotes: 0,
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

    #[test]
    fn an_on_topic_paper_excluded_by_a_failed_criterion_is_coherent() {
        let s = summary();
        let fine = "On topic, but it studies simulated clusters only.";
        let mut excluded = claim(8.0, Some(Verdict::Exclude), fine, &s, 1);
        assert!(
            problem(&excluded).is_some(),
            "without a criterion, a contradiction"
        );
        excluded.excludes_by_criterion = true;
        assert_eq!(problem(&excluded), None);
        // A criterion excludes; it does not lift a low score to include.
        let mut lifted = claim(1.0, Some(Verdict::Include), fine, &s, 1);
        lifted.excludes_by_criterion = true;
        assert!(problem(&lifted).is_some());
        let ask = Problem::VerdictAgainstScore {
            verdict: Verdict::Exclude,
            score: 8.0,
        }
        .ask();
        assert!(
            ask.contains("mark that criterion not_met and quote the passage"),
            "{ask}"
        );
    }

    #[test]
    fn the_model_is_asked_in_the_second_person_and_the_researcher_told_in_the_third() {
        let p = Problem::NoEvidence { dropped: 2 };
        assert!(p.ask().starts_with("None of your 2 evidence quotes"));
        assert_eq!(
            p.describe(),
            "a score whose 2 quotes are none of them on the page they cite"
        );
        let p = Problem::VerdictAgainstScore {
            verdict: Verdict::Include,
            score: 0.0,
        };
        assert!(
            p.ask().contains("a score of 0 means \"exclude\""),
            "{}",
            p.ask()
        );
        assert!(!p.describe().contains("your"));
    }
}
