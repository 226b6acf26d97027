//! Score cut-offs, and the ones fitted to a target recall on labelled
//! papers. Whether a fitted cut-off holds is not judged here: that is the
//! estimate's, on labels it was not fitted to ([`super::estimate`]).

use serde::{Deserialize, Serialize};

use super::metrics::Judged;

/// The score cut-offs that turn a 0-10 score into a verdict.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
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

/// Relevant labels below which the labels cannot set the cut-offs.
pub const MIN_RELEVANT: usize = 3;
/// The one-sided 95% normal quantile.
const Z_ONE_SIDED: f64 = 1.644_854;

/// The maybe cut-off that keeps `target` recall, set from the labelled
/// papers, and the include cut-off never below it. `None` with fewer than
/// [`MIN_RELEVANT`] relevant labels.
///
/// Keeping `target` of the *labelled* relevant papers is not enough: a sample
/// holds few of them, and the lowest one kept sits above many relevant papers
/// nobody labelled (with k relevant labels, keeping them all keeps about
/// k/(k+1) of the collection's). So the cut is the lower of that paper's
/// score and the `1 - target` quantile of a normal fitted to the relevant
/// labels' scores, which reaches below the sample as a small sample requires.
pub fn calibrate(judged: &[Judged], target: f64) -> Option<Cutoffs> {
    let mut relevant: Vec<f64> = judged
        .iter()
        .filter(|j| j.relevant)
        .map(|j| j.score)
        .collect();
    if relevant.len() < MIN_RELEVANT {
        return None;
    }
    relevant.sort_by(|a, b| b.total_cmp(a));
    let keep = ((target * relevant.len() as f64).ceil() as usize).clamp(1, relevant.len());
    let n = relevant.len() as f64;
    let mean = relevant.iter().sum::<f64>() / n;
    let sd = (relevant.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let quantile = mean - z_for(target) * sd;
    let maybe = ((relevant[keep - 1].min(quantile)).max(0.0) * 10.0).floor() / 10.0;
    Some(Cutoffs {
        include: Cutoffs::DEFAULT.include.max(maybe),
        maybe,
    })
}

/// The one-sided normal quantile for a recall target (1.645 at 0.95),
/// exact enough for cut-offs shown to one decimal.
fn z_for(target: f64) -> f64 {
    if (target - 0.95).abs() < 1e-9 {
        return Z_ONE_SIDED;
    }
    // Abramowitz & Stegun 26.2.23, |error| < 4.5e-4.
    let p = (1.0 - target).clamp(1e-6, 0.5);
    let t = (-2.0 * p.ln()).sqrt();
    t - (2.515_517 + 0.802_853 * t + 0.010_328 * t * t)
        / (1.0 + 1.432_788 * t + 0.189_269 * t * t + 0.001_308 * t * t * t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::validation::metrics::Confusion;

    use crate::review::validation::tests::judged_paper as judged;

    #[test]
    fn calibration_reaches_below_the_lowest_relevant_label_by_their_spread() {
        // Ten relevant papers scoring 9.0 down to 2.7: mean 5.85, sd 2.12, so
        // the 5% quantile is 2.36, below the lowest label.
        let mut papers: Vec<Judged> = (0..10)
            .map(|i| judged(9.0 - 0.7 * i as f64, true))
            .collect();
        papers.push(judged(1.0, false));
        let cut = calibrate(&papers, 0.95).unwrap();
        assert!((cut.maybe - 2.3).abs() < 1e-9, "{cut:?}");
        assert_eq!(Confusion::of(&papers, cut.maybe).false_negative, 0);
        assert_eq!(cut.include, 6.5);
        // A lower target lets the cut rise.
        assert!(calibrate(&papers, 0.8).unwrap().maybe > cut.maybe);
    }

    #[test]
    fn a_tight_cluster_of_relevant_labels_raises_both_cuts() {
        let papers = [8.0, 8.1, 7.9, 8.0, 8.2].map(|s| judged(s, true));
        let cut = calibrate(&papers, 0.95).unwrap();
        assert!((cut.maybe - 7.8).abs() < 1e-9, "{cut:?}");
        assert_eq!(cut.include, cut.maybe);
    }

    #[test]
    fn fewer_than_three_relevant_labels_set_nothing() {
        let papers = [judged(8.0, true), judged(7.0, true), judged(1.0, false)];
        assert!(calibrate(&papers, 0.95).is_none());
    }

    #[test]
    fn the_normal_quantile_is_right_to_three_decimals() {
        assert!((z_for(0.95) - 1.6449).abs() < 1e-3);
        assert!((z_for(0.9) - 1.2816).abs() < 1e-3);
        assert!((z_for(0.99) - 2.3263).abs() < 1e-3);
    }
}
