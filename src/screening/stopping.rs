//! When screening may stop: the statistical stopping criterion of Callaghan
//! and Müller-Hansen (2020, "Statistical stopping criteria for automated
//! screening in systematic reviews", Systematic Reviews 9:273,
//! doi:10.1186/s13643-020-01521-4). It tests the hypothesis that fewer
//! than a target share (say 95%) of the relevant records have been found,
//! and screening may stop once that hypothesis is rejected at the chosen
//! confidence.
//!
//! The last `n` records screened are taken as a sample drawn from
//! themselves and everything not yet screened. A prioritised order serves
//! likely relevant records first, so that sample holds at least as many
//! relevant records as a random one would: treating it as random is
//! conservative. Were the target missed, at least
//! `floor(found / target - found_before_sample + 1)` relevant records would
//! lie in that population. The hypergeometric chance of seeing no more
//! than the relevant records the sample holds is the p-value of one such
//! sample; the criterion's p is the least over every `n`.
//!
//! The test is only as good as its premise: the records must have been
//! screened in the ranking's order (or at random), not picked by hand. The
//! caller passes the labels given in that order apart from the others,
//! which count as found before any sample.

/// Where one set of labels stands against a recall target.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stopping {
    /// The chance of seeing what was seen were fewer than `target` of the
    /// relevant records found; `None` when nothing was screened in order.
    pub p: Option<f64>,
    /// The greatest recall, in steps of 1% from 99% down to 50%, shown
    /// with the confidence asked (`p < 1 - confidence`); `None` if not
    /// even 50% is.
    pub recall_at_least: Option<f64>,
    /// Records screened in order since the last relevant one.
    pub since_last_relevant: usize,
}

/// The criterion for `prior` (relevant or not, labels given outside the
/// ordered screening) then `ordered` (in the order screened), out of
/// `total` records, against `target` recall at `confidence`.
pub fn stopping(
    prior: &[bool],
    ordered: &[bool],
    total: usize,
    target: f64,
    confidence: f64,
) -> Stopping {
    let table = LnFactorials::up_to(total);
    let alpha = 1.0 - confidence;
    let recall_at_least = (50..=99)
        .rev()
        .map(|percent| f64::from(percent) / 100.0)
        .find(|&t| p_missed(&table, prior, ordered, total, t).is_some_and(|p| p < alpha));
    Stopping {
        p: p_missed(&table, prior, ordered, total, target),
        recall_at_least,
        since_last_relevant: ordered.iter().rev().take_while(|r| !**r).count(),
    }
}

/// The p-value of "fewer than `target` of the relevant records are found".
fn p_missed(
    table: &LnFactorials,
    prior: &[bool],
    ordered: &[bool],
    total: usize,
    target: f64,
) -> Option<f64> {
    if ordered.is_empty() {
        return None;
    }
    let seen = prior.len() + ordered.len();
    let found = prior.iter().chain(ordered).filter(|r| **r).count();
    let unseen = total.saturating_sub(seen);
    let mut least = 1.0f64;
    let mut in_sample = 0usize;
    for (n, relevant) in ordered.iter().rev().enumerate() {
        let n = n + 1;
        in_sample += usize::from(*relevant);
        let before = found - in_sample;
        // The fewest relevant records the sample's population would hold
        // were the target missed.
        let missed_at = (found as f64 / target - before as f64 + 1.0).floor() as usize;
        let population = unseen + n;
        let p = if missed_at > population {
            // Not that many records are left: the target cannot be missed.
            0.0
        } else {
            table.hypergeometric_cdf(in_sample, population, missed_at, n, least)
        };
        least = least.min(p);
        if least == 0.0 {
            break;
        }
    }
    Some(least)
}

/// `ln(i!)` for every `i` up to a bound: exact, by sums of logarithms.
struct LnFactorials(Vec<f64>);

impl LnFactorials {
    fn up_to(n: usize) -> Self {
        let mut table = Vec::with_capacity(n + 1);
        let mut sum = 0.0f64;
        table.push(0.0);
        for i in 1..=n {
            sum += (i as f64).ln();
            table.push(sum);
        }
        Self(table)
    }

    fn ln_choose(&self, n: usize, k: usize) -> f64 {
        self.0[n] - self.0[k] - self.0[n - k]
    }

    /// P(X <= k) for X the relevant records in `draws` drawn without
    /// replacement from `population` holding `successes`. The sum stops
    /// once it passes `enough` (the caller wants the least p only).
    fn hypergeometric_cdf(
        &self,
        k: usize,
        population: usize,
        successes: usize,
        draws: usize,
        enough: f64,
    ) -> f64 {
        let low = draws.saturating_sub(population - successes);
        let high = k.min(successes).min(draws);
        if low > high {
            return 0.0;
        }
        let whole = self.ln_choose(population, draws);
        let mut sum = 0.0;
        for i in low..=high {
            sum += (self.ln_choose(successes, i)
                + self.ln_choose(population - successes, draws - i)
                - whole)
                .exp();
            if sum > enough {
                break;
            }
        }
        sum.min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hypergeometric_cdf_matches_its_closed_forms() {
        let t = LnFactorials::up_to(60);
        // 1 success in 10, 3 draws: P(X = 0) = 9/10 * 8/9 * 7/8.
        let p0 = t.hypergeometric_cdf(0, 10, 1, 3, 1.0);
        assert!((p0 - 0.7).abs() < 1e-12, "{p0}");
        // 4 in 20, 5 draws: P(X <= 1) = (C(16,5) + 4 C(16,4)) / C(20,5).
        let p1 = t.hypergeometric_cdf(1, 20, 4, 5, 1.0);
        assert!(
            (p1 - (4368.0 + 4.0 * 1820.0) / 15504.0).abs() < 1e-12,
            "{p1}"
        );
        // Every outcome: 1.
        assert!((t.hypergeometric_cdf(5, 50, 5, 20, 2.0) - 1.0).abs() < 1e-9);
        // Drawing everything sees every success: fewer is impossible.
        assert_eq!(t.hypergeometric_cdf(4, 30, 5, 30, 1.0), 0.0);
    }

    #[test]
    fn the_least_p_matches_buscar_computed_with_scipy() {
        // buscarpy's calculate_h0 (scipy.stats.hypergeom) on these labels
        // out of 600 gives 0.4318181818181818 at 95% and
        // 0.18590805549803274 at 80%.
        let mut ordered = vec![true, false, false, true, false, true, true, false, true];
        ordered.extend(vec![false; 150]);
        ordered.push(true);
        ordered.extend(vec![false; 250]);
        let table = LnFactorials::up_to(600);
        let at = |t| p_missed(&table, &[], &ordered, 600, t).unwrap();
        assert!(
            (at(0.95) - 0.431_818_181_818_181_8).abs() < 1e-9,
            "{}",
            at(0.95)
        );
        assert!(
            (at(0.80) - 0.185_908_055_498_032_74).abs() < 1e-9,
            "{}",
            at(0.80)
        );
    }

    #[test]
    fn a_long_run_of_excludes_after_the_finds_lets_screening_stop_and_a_short_one_does_not() {
        // 10 relevant found in the first 40 of 2,000, then excludes. With
        // 10 found, 95% recall means none missed: nearly every record must
        // be screened to show it.
        let mut ordered = vec![false; 40];
        for i in (0..40).step_by(4) {
            ordered[i] = true;
        }
        let early = {
            let mut o = ordered.clone();
            o.extend(vec![false; 20]);
            stopping(&[], &o, 2000, 0.95, 0.95)
        };
        assert!(early.p.unwrap() > 0.05, "{early:?}");
        assert_eq!(early.since_last_relevant, 23);
        let late = {
            let mut o = ordered.clone();
            o.extend(vec![false; 1900]);
            stopping(&[], &o, 2000, 0.95, 0.95)
        };
        assert!(late.p.unwrap() < 0.05, "{late:?}");
        assert!(late.recall_at_least.unwrap() >= 0.95, "{late:?}");
        // A weaker claim is shown before the target is.
        assert!(early.recall_at_least.unwrap_or(0.0) < 0.95, "{early:?}");
    }

    #[test]
    fn screening_everything_proves_the_target_and_nothing_in_order_proves_nothing() {
        let mut all = vec![false; 100];
        all[3] = true;
        assert_eq!(stopping(&[], &all, 100, 0.95, 0.95).p, Some(0.0));
        let none = stopping(&[true, false], &[], 100, 0.95, 0.95);
        assert_eq!((none.p, none.recall_at_least), (None, None));
    }

    #[test]
    fn excludes_picked_by_hand_prove_nothing() {
        // The same 300 excludes after 10 finds: screened in order they are
        // a sample; picked by hand (outside the order) they are not.
        let mut ordered = vec![true; 10];
        ordered.extend(vec![false; 300]);
        let in_order = stopping(&[], &ordered, 1000, 0.95, 0.95);
        let mut by_hand = vec![false; 300];
        by_hand.extend(vec![true; 10]);
        let picked = stopping(&by_hand, &[false; 5], 1000, 0.95, 0.95);
        assert!(
            in_order.p.unwrap() < picked.p.unwrap() - 0.2,
            "{in_order:?} {picked:?}"
        );
        assert!(picked.p.unwrap() > 0.95, "{picked:?}");
    }
}
