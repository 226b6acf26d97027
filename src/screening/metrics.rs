//! How well a screening order did, from the labels in the order the records
//! were screened: the figures simulation studies of screening tools report
//! (ASReview's among them), computed one way for every tool compared.
//! Records given as prior knowledge are left out of the order, as ASReview's
//! own figures leave them out.

/// Figures of one screening order.
#[derive(Clone, Debug, PartialEq)]
pub struct Figures {
    /// Work saved over sampling at 95% recall: the share of records left
    /// unscreened when 95% of the includes are found, less the 5% a random
    /// order would save.
    pub wss95: f64,
    /// Share of the includes found after screening 10% and 25% of records.
    pub recall_10: f64,
    pub recall_25: f64,
    /// Average time to discovery: the mean share of records screened when
    /// each include was found (lower is better).
    pub atd: f64,
}

/// The figures of `screened` (each record's label, in the order screened)
/// out of `total` records holding `includes` includes. Records not in
/// `screened` come after it (in any order: they hold no include when the
/// order went on until the last was found).
pub fn figures(screened: &[bool], total: usize, includes: usize) -> Figures {
    let total_f = total.max(1) as f64;
    let includes_f = includes.max(1) as f64;
    let mut found = 0usize;
    let mut at_95 = None;
    let mut discovery = 0.0;
    let target = (0.95 * includes_f).ceil() as usize;
    for (i, &included) in screened.iter().enumerate() {
        if included {
            found += 1;
            discovery += (i + 1) as f64 / total_f;
            if found >= target && at_95.is_none() {
                at_95 = Some(i + 1);
            }
        }
    }
    let at_95 = at_95.unwrap_or(total);
    let recall_at = |share: f64| {
        let n = (share * total_f).round() as usize;
        screened.iter().take(n).filter(|l| **l).count() as f64 / includes_f
    };
    // Includes never screened count as found at the very end.
    discovery += (includes.saturating_sub(found)) as f64;
    Figures {
        wss95: (total - at_95) as f64 / total_f - 0.05,
        recall_10: recall_at(0.10),
        recall_25: recall_at(0.25),
        atd: discovery / includes_f,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_order_saves_most_work_and_a_worst_order_none() {
        // 100 records, 10 includes.
        let mut best = vec![true; 10];
        best.extend(vec![false; 90]);
        let f = figures(&best, 100, 10);
        assert!((f.wss95 - 0.85).abs() < 1e-9, "{f:?}");
        assert_eq!((f.recall_10, f.recall_25), (1.0, 1.0));
        assert!((f.atd - 0.055).abs() < 1e-9, "{f:?}");

        let mut worst = vec![false; 90];
        worst.extend(vec![true; 10]);
        let f = figures(&worst, 100, 10);
        assert!(f.wss95 < 0.0, "{f:?}");
        assert_eq!((f.recall_10, f.recall_25), (0.0, 0.0));
        // Stopped once all are found: the rest holds no include.
        let f = figures(&best[..10], 100, 10);
        assert!((f.wss95 - 0.85).abs() < 1e-9, "{f:?}");
    }
}
