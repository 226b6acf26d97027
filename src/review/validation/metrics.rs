//! Screening metrics from the researcher's labels: the confusion matrix,
//! recall with its 95% interval, specificity, precision, Cohen's kappa, work
//! saved over sampling at 95% recall, and the evidence the engine would lose.
//!
//! Conventions, stated in the report: a paper the researcher labels "include"
//! or "maybe" is relevant (maybe counts as include for recall, as screening
//! guidance asks: when in doubt, keep it); a paper the engine scores at or
//! above the maybe cut-off is kept, below it excluded.

use serde::Serialize;

/// One labelled, scored paper: the engine's score and the researcher's call.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub id: String,
    pub score: f64,
    /// Labelled include or maybe.
    pub relevant: bool,
    /// The engine excluded it by a criterion, whatever its score.
    pub by_criterion: bool,
}

/// z for a two-sided 95% interval.
const Z95: f64 = 1.959_964;

/// Counts of the labelled papers by the researcher's and the engine's decision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Confusion {
    /// Relevant and kept.
    pub true_positive: usize,
    /// Relevant but excluded: evidence the engine would lose.
    pub false_negative: usize,
    /// Not relevant but kept: work the researcher still does.
    pub false_positive: usize,
    /// Not relevant and excluded.
    pub true_negative: usize,
}

impl Confusion {
    pub fn of(judged: &[Judged], maybe_cut: f64) -> Self {
        let mut c = Self::default();
        for j in judged {
            match (j.relevant, j.score >= maybe_cut && !j.by_criterion) {
                (true, true) => c.true_positive += 1,
                (true, false) => c.false_negative += 1,
                (false, true) => c.false_positive += 1,
                (false, false) => c.true_negative += 1,
            }
        }
        c
    }

    pub fn total(&self) -> usize {
        self.true_positive + self.false_negative + self.false_positive + self.true_negative
    }

    pub fn relevant(&self) -> usize {
        self.true_positive + self.false_negative
    }

    pub fn recall(&self) -> Option<Proportion> {
        Proportion::of(self.true_positive, self.relevant())
    }

    pub fn specificity(&self) -> Option<Proportion> {
        Proportion::of(self.true_negative, self.true_negative + self.false_positive)
    }

    pub fn precision(&self) -> Option<Proportion> {
        Proportion::of(self.true_positive, self.true_positive + self.false_positive)
    }

    /// Cohen's kappa between the reference's (the researcher's, or a first
    /// reading's) and the rater's keep/exclude decisions; `None` when it is
    /// not defined ([`Self::kappa_undefined`] says why).
    pub fn kappa(&self) -> Option<f64> {
        if self.kappa_undefined().is_some() {
            return None;
        }
        let n = self.total() as f64;
        let observed = (self.true_positive + self.true_negative) as f64 / n;
        let researcher_yes = self.relevant() as f64 / n;
        let engine_yes = (self.true_positive + self.false_positive) as f64 / n;
        let chance = researcher_yes * engine_yes + (1.0 - researcher_yes) * (1.0 - engine_yes);
        (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
    }
}

/// Why kappa says nothing for a matrix. With one class on either side,
/// chance agreement is that side's own rate, and kappa comes out 0 (or
/// below) however often the two agree: a figure that reads as "no agreement
/// beyond chance" where there is only no variation to agree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KappaUndefined {
    NoPairs,
    /// The reference put every paper one way (kept: `true`).
    ReferenceOneClass {
        kept: bool,
    },
    /// The rater put every paper one way.
    RaterOneClass {
        kept: bool,
    },
}

impl KappaUndefined {
    /// In words, naming the two sides, e.g. ("the researcher", "labelled",
    /// "the engine").
    pub fn describe(self, reference: &str, rater: &str) -> String {
        let way = |kept: bool| if kept { "kept" } else { "excluded" };
        match self {
            Self::NoPairs => "not defined: no paper to compare".to_owned(),
            Self::ReferenceOneClass { kept } => format!(
                "not defined: {reference} {} every paper, so there is no variation to agree on",
                way(kept)
            ),
            Self::RaterOneClass { kept } => format!(
                "not defined: {rater} {} every paper, so there is no variation to agree on",
                way(kept)
            ),
        }
    }
}

/// Kappa as the report prints it: two decimals, or why it is not defined.
pub fn kappa_text(kappa: Option<f64>, undefined: Option<&str>) -> String {
    match (kappa, undefined) {
        (Some(k), _) => format!("{k:.2}"),
        (None, Some(why)) => why.to_owned(),
        (None, None) => "not defined".to_owned(),
    }
}

impl Confusion {
    /// Why kappa is not defined here, when it is not.
    pub fn kappa_undefined(&self) -> Option<KappaUndefined> {
        let n = self.total();
        let reference_kept = self.relevant();
        let rater_kept = self.true_positive + self.false_positive;
        if n == 0 {
            Some(KappaUndefined::NoPairs)
        } else if reference_kept == 0 || reference_kept == n {
            Some(KappaUndefined::ReferenceOneClass {
                kept: reference_kept == n,
            })
        } else if rater_kept == 0 || rater_kept == n {
            Some(KappaUndefined::RaterOneClass {
                kept: rater_kept == n,
            })
        } else {
            None
        }
    }
}

/// A proportion with its 95% Wilson score interval, which stays inside 0-1
/// and is honest at the small counts a validation sample has (the normal
/// approximation claims certainty it does not have at 18 of 18).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Proportion {
    pub hits: usize,
    pub of: usize,
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

impl Proportion {
    pub fn of(hits: usize, of: usize) -> Option<Self> {
        if of == 0 {
            return None;
        }
        let n = of as f64;
        let p = hits as f64 / n;
        let z2 = Z95 * Z95;
        let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
        let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
        Some(Self {
            hits,
            of,
            value: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        })
    }
}

/// Work saved over sampling at 95% recall (Cohen et al. 2006) on the labelled
/// papers ranked by score: the share of them a researcher reading best first
/// would not have to read to find 95% of the relevant ones, less the 5% a
/// random order saves. `None` without a relevant paper.
pub fn wss_at_95(judged: &[Judged]) -> Option<f64> {
    let relevant = judged.iter().filter(|j| j.relevant).count();
    if relevant == 0 {
        return None;
    }
    let needed = (0.95 * relevant as f64).ceil() as usize;
    let mut ranked: Vec<&Judged> = judged.iter().collect();
    // Ties broken against the engine: relevant papers last among equal scores.
    ranked.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.relevant.cmp(&b.relevant))
    });
    let mut found = 0;
    let mut read = 0;
    for j in ranked {
        read += 1;
        if j.relevant {
            found += 1;
            if found == needed {
                break;
            }
        }
    }
    let n = judged.len() as f64;
    Some((n - read as f64) / n - 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::review::validation::tests::judged_paper as judged;

    #[test]
    fn the_confusion_matrix_counts_maybe_cut_decisions() {
        let papers = [
            judged(8.0, true),
            judged(5.0, true),
            judged(3.0, true),
            judged(7.0, false),
            judged(2.0, false),
            judged(1.0, false),
        ];
        let c = Confusion::of(&papers, 4.0);
        assert_eq!(
            c,
            Confusion {
                true_positive: 2,
                false_negative: 1,
                false_positive: 1,
                true_negative: 2
            }
        );
        let recall = c.recall().unwrap();
        assert!((recall.value - 2.0 / 3.0).abs() < 1e-9);
        // Observed agreement 4/6, chance 1/2: kappa 1/3.
        assert!((c.kappa().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn kappa_with_one_class_on_either_side_is_not_defined_and_says_which() {
        // Every labelled paper relevant; the engine keeps 9 of 10. Kappa's
        // formula gives 0.00 here ("no agreement beyond chance") though the
        // two agree on 9 of 10: it is not defined, with the reason.
        let all_relevant = Confusion {
            true_positive: 9,
            false_negative: 1,
            false_positive: 0,
            true_negative: 0,
        };
        assert_eq!(all_relevant.kappa(), None);
        let why = all_relevant.kappa_undefined().unwrap();
        assert_eq!(why, KappaUndefined::ReferenceOneClass { kept: true });
        assert_eq!(
            why.describe("the researcher", "the engine"),
            "not defined: the researcher kept every paper, so there is no variation to agree on"
        );
        let engine_excludes_all = Confusion {
            true_positive: 0,
            false_negative: 3,
            false_positive: 0,
            true_negative: 5,
        };
        assert_eq!(
            engine_excludes_all.kappa_undefined(),
            Some(KappaUndefined::RaterOneClass { kept: false })
        );
        assert_eq!(
            Confusion::default().kappa_undefined(),
            Some(KappaUndefined::NoPairs)
        );
        // Both classes on both sides: defined.
        let mixed = Confusion {
            true_positive: 2,
            false_negative: 1,
            false_positive: 1,
            true_negative: 2,
        };
        assert_eq!(mixed.kappa_undefined(), None);
        assert!(mixed.kappa().is_some());
    }

    #[test]
    fn the_wilson_interval_is_honest_at_small_counts() {
        // 18 of 18: the point estimate is 1, the interval is not.
        let all = Proportion::of(18, 18).unwrap();
        assert_eq!(all.value, 1.0);
        assert!((all.low - 0.8241).abs() < 1e-3, "{all:?}");
        assert_eq!(all.high, 1.0);
        // The textbook case: 81 of 263 is 0.308 (0.255-0.366).
        let p = Proportion::of(81, 263).unwrap();
        assert!(
            (p.low - 0.2553).abs() < 1e-3 && (p.high - 0.3662).abs() < 1e-3,
            "{p:?}"
        );
        assert!(Proportion::of(0, 0).is_none());
    }

    #[test]
    fn kappa_is_one_for_full_agreement_and_none_for_one_class() {
        let agree = [judged(9.0, true), judged(1.0, false)];
        assert_eq!(Confusion::of(&agree, 4.0).kappa(), Some(1.0));
        let one_class = [judged(9.0, true), judged(8.0, true)];
        assert_eq!(Confusion::of(&one_class, 4.0).kappa(), None);
    }

    #[test]
    fn wss_counts_the_papers_left_unread_at_95_percent_recall() {
        // 20 relevant at the top, 80 not: 19 reads find 95%, 81 of 100 unread.
        let mut papers: Vec<Judged> = (0..20)
            .map(|i| judged(10.0 - i as f64 * 0.1, true))
            .collect();
        papers.extend((0..80).map(|i| judged(5.0 - i as f64 * 0.01, false)));
        assert!((wss_at_95(&papers).unwrap() - (0.81 - 0.05)).abs() < 1e-9);
        // A random-looking order saves nothing or less.
        let worst: Vec<Judged> = papers
            .iter()
            .map(|j| judged(10.0 - j.score, j.relevant))
            .collect();
        assert!(wss_at_95(&worst).unwrap() <= 0.0);
        assert!(wss_at_95(&[judged(1.0, false)]).is_none());
    }
}
