//! Cut-offs set from the labelled sample, and whether the sample is large
//! enough to let the engine exclude papers on its own.

use serde::{Deserialize, Serialize};

use super::Judged;
use super::metrics::{Confusion, Proportion};

/// The score cut-offs that turn a 0-10 score into a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cutoffs {
    /// From this score a paper is "include".
    pub include: f64,
    /// From this score a paper is "maybe"; below it, "exclude".
    pub maybe: f64,
}

impl Cutoffs {
    /// The cut-offs every review starts with, before any calibration.
    pub const DEFAULT: Self = Self {
        include: 6.5,
        maybe: 4.0,
    };

    pub fn verdict(&self, score: f64) -> crate::review_model::Verdict {
        use crate::review_model::Verdict;
        if score >= self.include {
            Verdict::Include
        } else if score >= self.maybe {
            Verdict::Maybe
        } else {
            Verdict::Exclude
        }
    }
}

/// The highest maybe cut-off that keeps `target` recall on the labelled
/// papers: the score of the relevant paper that has to be kept last. The
/// include cut-off never falls below it. `None` without a relevant paper.
pub fn calibrate(judged: &[Judged], target: f64) -> Option<Cutoffs> {
    let mut relevant: Vec<f64> = judged
        .iter()
        .filter(|j| j.relevant)
        .map(|j| j.score)
        .collect();
    if relevant.is_empty() {
        return None;
    }
    relevant.sort_by(|a, b| b.total_cmp(a));
    let keep = ((target * relevant.len() as f64).ceil() as usize).clamp(1, relevant.len());
    let maybe = relevant[keep - 1];
    Some(Cutoffs {
        include: Cutoffs::DEFAULT.include.max(maybe),
        maybe,
    })
}

/// What the sample supports, as the report states it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoppingRule {
    pub target: f64,
    /// Recall at the cut-offs in force, with its interval.
    pub recall: Option<Proportion>,
    /// The interval's lower bound is at or above the target: the sample
    /// supports letting the engine exclude papers unread.
    pub supports_exclusion: bool,
    /// Relevant papers still to label, each found by the engine, before the
    /// lower bound could reach the target; 0 when it has.
    pub more_relevant_needed: usize,
}

/// Whether the labels support automatic exclusion at `target` recall with the
/// papers kept from `maybe_cut` up, and if not, how many more relevant labels
/// (all kept by the engine) would.
pub fn stopping_rule(judged: &[Judged], maybe_cut: f64, target: f64) -> StoppingRule {
    let confusion = Confusion::of(judged, maybe_cut);
    let recall = confusion.recall();
    let supports = recall.is_some_and(|r| r.low >= target);
    let mut more = 0;
    if !supports {
        let (mut hits, mut of) = (confusion.true_positive, confusion.relevant());
        // Each further relevant paper the engine keeps raises the bound; a
        // target it can never reach (a miss already made) says so by the cap.
        while more < MORE_CAP && Proportion::of(hits, of).is_none_or(|r| r.low < target) {
            hits += 1;
            of += 1;
            more += 1;
        }
    }
    StoppingRule {
        target,
        recall,
        supports_exclusion: supports,
        more_relevant_needed: more,
    }
}

/// Beyond this many further labels the rule says "more than" instead.
pub const MORE_CAP: usize = 10_000;

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(score: f64, relevant: bool) -> Judged {
        Judged {
            id: format!("{score}-{relevant}"),
            score,
            relevant,
        }
    }

    #[test]
    fn calibration_keeps_the_target_share_of_relevant_papers() {
        // Ten relevant papers scoring 9.0 down to 2.7; 95% of ten is all ten.
        let mut papers: Vec<Judged> = (0..10)
            .map(|i| judged(9.0 - 0.7 * i as f64, true))
            .collect();
        papers.push(judged(1.0, false));
        let cut = calibrate(&papers, 0.95).unwrap();
        assert!((cut.maybe - 2.7).abs() < 1e-9, "{cut:?}");
        assert_eq!(Confusion::of(&papers, cut.maybe).false_negative, 0);
        // At 0.9 one may be lost: the cut rises to the ninth.
        let cut = calibrate(&papers, 0.9).unwrap();
        assert!((cut.maybe - 3.4).abs() < 1e-9, "{cut:?}");
        assert_eq!(cut.include, 6.5);
        assert!(calibrate(&[judged(5.0, false)], 0.95).is_none());
    }

    #[test]
    fn the_include_cut_never_falls_below_the_maybe_cut() {
        let papers = [judged(8.0, true), judged(7.5, true)];
        let cut = calibrate(&papers, 0.95).unwrap();
        assert_eq!(cut.maybe, 7.5);
        assert_eq!(cut.include, 7.5);
    }

    #[test]
    fn the_stopping_rule_asks_for_73_relevant_papers_all_found_at_95_percent() {
        let found: Vec<Judged> = (0..18).map(|_| judged(8.0, true)).collect();
        let rule = stopping_rule(&found, 4.0, 0.95);
        assert!(!rule.supports_exclusion);
        // n/(n + z^2) >= 0.95 first holds at n = 73.
        assert_eq!(rule.more_relevant_needed, 73 - 18);

        let enough: Vec<Judged> = (0..73).map(|_| judged(8.0, true)).collect();
        let rule = stopping_rule(&enough, 4.0, 0.95);
        assert!(
            rule.supports_exclusion && rule.more_relevant_needed == 0,
            "{rule:?}"
        );
    }
}
