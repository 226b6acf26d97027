//! The validation sample Quire proposes: a stratified random sample. The
//! papers are split into score bands by the cut-offs in force (clear
//! excludes, near-misses, maybes, low includes, clear includes); each band
//! gives a share, more where the verdict is least certain, drawn at random
//! within the band in an order fixed by a seed. The [`Frame`] records each
//! band's papers and draws, so every sampled paper's inclusion probability
//! (drawn / papers in its band) is known and the estimates can weigh it
//! back ([`super::estimate`]). A sample can be extended band by band; the
//! draw stays random within each band.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::calibrate::Cutoffs;

/// How much more a band around the exclude decision is sampled than the
/// bands far from it.
const UNCERTAIN_WEIGHT: f64 = 2.0;

const BANDS: usize = 5;

/// One score band of the sample's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Stratum {
    /// Scores from `from` (inclusive) to `to` (exclusive; the top band
    /// holds everything from its `from` up).
    pub from: f64,
    pub to: f64,
    /// Scored papers in the band when the sample was drawn.
    pub population: usize,
    /// The band's papers drawn into the sample, in draw order.
    pub drawn: Vec<String>,
}

/// The design a sample was drawn by: enough to weigh each sampled paper by
/// its inclusion probability.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Frame {
    pub strata: Vec<Stratum>,
}

impl Frame {
    /// The band a score falls in.
    pub fn stratum_of(&self, score: f64) -> usize {
        let last = self.strata.len().saturating_sub(1);
        self.strata
            .iter()
            .position(|s| score < s.to)
            .unwrap_or(last)
            .min(last)
    }

    /// Whether `id` was drawn into the sample.
    pub fn holds(&self, id: &str) -> bool {
        self.strata.iter().any(|s| s.drawn.iter().any(|d| d == id))
    }

    /// Whether `id` is in the half of the sample cut-offs are fitted on:
    /// every other draw, counting through the bands in order, so each band
    /// splits evenly (to one) and a band of one draw does not always fall
    /// on the same side; the other half checks them.
    pub fn in_fit_half(&self, id: &str) -> bool {
        self.strata
            .iter()
            .flat_map(|s| s.drawn.iter())
            .position(|d| d == id)
            .is_some_and(|i| i % 2 == 0)
    }

    /// Why the frame no longer describes `papers` (id, score), if it does not:
    /// papers were added, read again or dropped since the draw, so the bands'
    /// sizes differ and the inclusion probabilities are not known.
    pub fn mismatch(&self, papers: &[(String, f64)]) -> Option<String> {
        if self.strata.is_empty() {
            return Some("the sample was drawn before Quire kept its design".to_owned());
        }
        let mut now = vec![0usize; self.strata.len()];
        for (_, score) in papers {
            now[self.stratum_of(*score)] += 1;
        }
        let then: usize = self.strata.iter().map(|s| s.population).sum();
        let differs = self
            .strata
            .iter()
            .zip(&now)
            .any(|(s, n)| s.population != *n);
        differs.then(|| {
            format!(
                "the sample was drawn from {then} scored papers and the review's scores have changed since \
                 ({} scored now)",
                papers.len()
            )
        })
    }
}

/// The score bands, by the cut-offs in force: clear excludes, near-misses,
/// maybes, low includes, clear includes. Near-misses and maybes are the
/// uncertain ones.
fn bounds(cut: &Cutoffs) -> [(f64, f64); BANDS] {
    let high = (cut.include + 10.0) / 2.0;
    [
        (0.0, cut.maybe / 2.0),
        (cut.maybe / 2.0, cut.maybe),
        (cut.maybe, cut.include),
        (cut.include, high),
        (high, 10.0),
    ]
}

fn band_weight(band: usize) -> f64 {
    if band == 1 || band == 2 {
        UNCERTAIN_WEIGHT
    } else {
        1.0
    }
}

/// A paper's place in the seeded order: a hash, so the draw is the same
/// for the same papers and seed and unrelated to file names or scores.
fn draw_order(seed: &str, id: &str) -> [u8; 32] {
    Sha256::digest(format!("{seed}\n{id}").as_bytes()).into()
}

/// Each band's papers, in the seeded order.
fn members<'a>(
    frame: &Frame,
    papers: &'a [(String, f64)],
    seed: &str,
) -> Vec<Vec<&'a (String, f64)>> {
    let mut bands: Vec<Vec<&(String, f64)>> = vec![Vec::new(); frame.strata.len()];
    for p in papers {
        bands[frame.stratum_of(p.1)].push(p);
    }
    for b in &mut bands {
        b.sort_by_cached_key(|p| draw_order(seed, &p.0));
    }
    bands
}

/// Choose `size` of the scored `papers` (id, score): each band gets a share in
/// proportion to its papers times its weight (at least one from every band
/// that has papers, while the size allows), by largest remainder; within a
/// band the seeded order decides. Returns the frame and the queue, in the
/// seeded order overall so it does not run from low to high score.
pub fn propose(
    papers: &[(String, f64)],
    size: usize,
    cut: &Cutoffs,
    seed: &str,
) -> (Frame, Vec<String>) {
    let mut frame = Frame {
        strata: bounds(cut)
            .iter()
            .map(|&(from, to)| Stratum {
                from,
                to,
                population: 0,
                drawn: Vec::new(),
            })
            .collect(),
    };
    let bands = members(&frame, papers, seed);
    for (stratum, band) in frame.strata.iter_mut().zip(&bands) {
        stratum.population = band.len();
    }
    let quota = quotas(&bands, size.min(papers.len()));
    for ((stratum, band), take) in frame.strata.iter_mut().zip(&bands).zip(quota) {
        stratum.drawn = band.iter().take(take).map(|p| p.0.clone()).collect();
    }
    let mut queue: Vec<String> = frame
        .strata
        .iter()
        .flat_map(|s| s.drawn.iter().cloned())
        .collect();
    queue.sort_by_cached_key(|id| draw_order(seed, id));
    (frame, queue)
}

/// Draw `more[b]` further papers from each band `b`, continuing its seeded
/// order; returns the new ones in the seeded order. A band gives at most the
/// papers it has left.
pub fn extend(
    frame: &mut Frame,
    papers: &[(String, f64)],
    more: &[usize],
    seed: &str,
) -> Vec<String> {
    let bands = members(frame, papers, seed);
    let mut added = Vec::new();
    for ((stratum, band), &take) in frame.strata.iter_mut().zip(&bands).zip(more) {
        let fresh: Vec<String> = band
            .iter()
            .map(|p| p.0.clone())
            .filter(|id| !stratum.drawn.contains(id))
            .take(take)
            .collect();
        stratum.drawn.extend(fresh.iter().cloned());
        added.extend(fresh);
    }
    added.sort_by_cached_key(|id| draw_order(seed, id));
    added
}

/// How many each band gives to a sample of `size`.
fn quotas(bands: &[Vec<&(String, f64)>], size: usize) -> Vec<usize> {
    let n = bands.len();
    let mut quota = vec![0usize; n];
    // One from each non-empty band first, so no part of the range goes unseen.
    let mut left = size;
    for (b, members) in bands.iter().enumerate() {
        if left > 0 && !members.is_empty() {
            quota[b] = 1;
            left -= 1;
        }
    }
    let mass: Vec<f64> = (0..n)
        .map(|b| (bands[b].len() - quota[b]) as f64 * band_weight(b))
        .collect();
    let total: f64 = mass.iter().sum();
    if left > 0 && total > 0.0 {
        let exact: Vec<f64> = mass.iter().map(|m| m / total * left as f64).collect();
        let mut given = 0;
        for b in 0..n {
            let extra = (exact[b].floor() as usize).min(bands[b].len() - quota[b]);
            quota[b] += extra;
            given += extra;
        }
        // Largest remainders take what rounding left, where papers remain.
        let mut by_remainder: Vec<usize> = (0..n).collect();
        by_remainder.sort_by(|&a, &b| {
            (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor()))
        });
        let mut left = left - given;
        while left > 0 {
            let Some(&b) = by_remainder.iter().find(|&&b| quota[b] < bands[b].len()) else {
                break;
            };
            quota[b] += 1;
            left -= 1;
            by_remainder.rotate_left(1);
        }
    }
    quota
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(n: usize) -> Vec<(String, f64)> {
        (0..n)
            .map(|i| (format!("p{i:03}"), (i % 101) as f64 / 10.0))
            .collect()
    }

    #[test]
    fn the_sample_spans_every_band_and_leans_on_the_uncertain_ones() {
        let papers = scored(300);
        let (frame, sample) = propose(&papers, 30, &Cutoffs::DEFAULT, "seed");
        assert_eq!(sample.len(), 30);
        let per_band: Vec<usize> = frame.strata.iter().map(|s| s.drawn.len()).collect();
        assert!(per_band.iter().all(|&n| n > 0), "{per_band:?}");
        assert_eq!(per_band.iter().sum::<usize>(), 30);
        // Every drawn paper lies in its band, and the bands hold every paper.
        let score = |id: &String| papers.iter().find(|p| &p.0 == id).unwrap().1;
        for (b, s) in frame.strata.iter().enumerate() {
            assert!(s.drawn.iter().all(|id| frame.stratum_of(score(id)) == b));
        }
        assert_eq!(
            frame.strata.iter().map(|s| s.population).sum::<usize>(),
            300
        );
        assert_eq!(frame.mismatch(&papers), None);
        // The near-miss and maybe bands (2.0-6.5: 45% of scores) get more than
        // their share.
        let uncertain = per_band[1] + per_band[2];
        assert!(uncertain as f64 / 30.0 > 0.45, "{per_band:?}");
    }

    #[test]
    fn the_same_seed_draws_the_same_sample_and_another_seed_another() {
        let papers = scored(200);
        let a = propose(&papers, 20, &Cutoffs::DEFAULT, "one").1;
        assert_eq!(a, propose(&papers, 20, &Cutoffs::DEFAULT, "one").1);
        assert_ne!(a, propose(&papers, 20, &Cutoffs::DEFAULT, "two").1);
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 20);
    }

    #[test]
    fn an_extension_draws_new_papers_from_the_bands_asked_and_halves_alternate() {
        let papers = scored(300);
        let (mut frame, first) = propose(&papers, 10, &Cutoffs::DEFAULT, "s");
        let before: Vec<usize> = frame.strata.iter().map(|s| s.drawn.len()).collect();
        let added = extend(&mut frame, &papers, &[5, 0, 0, 0, 0], "s");
        assert_eq!(added.len(), 5);
        assert!(added.iter().all(|id| !first.contains(id)));
        assert_eq!(frame.strata[0].drawn.len(), before[0] + 5);
        assert_eq!(frame.strata[1].drawn.len(), before[1]);
        // A band gives no more than it has.
        let all = extend(&mut frame, &papers, &[1000, 0, 0, 0, 0], "s");
        assert_eq!(frame.strata[0].drawn.len(), frame.strata[0].population);
        assert!(all.len() < 1000);
        let fit = frame.strata[0]
            .drawn
            .iter()
            .filter(|id| frame.in_fit_half(id))
            .count();
        assert_eq!(fit, frame.strata[0].drawn.len().div_ceil(2));
    }

    #[test]
    fn a_frame_says_when_the_scores_it_was_drawn_on_have_changed() {
        let mut papers = scored(100);
        let (frame, _) = propose(&papers, 10, &Cutoffs::DEFAULT, "s");
        papers.push(("new".into(), 9.5));
        assert!(
            frame
                .mismatch(&papers)
                .unwrap()
                .contains("drawn from 100 scored papers")
        );
        assert!(Frame::default().mismatch(&papers).is_some());
    }

    #[test]
    fn a_small_review_is_sampled_whole() {
        let papers = scored(7);
        assert_eq!(propose(&papers, 30, &Cutoffs::DEFAULT, "s").1.len(), 7);
        assert!(propose(&[], 30, &Cutoffs::DEFAULT, "s").1.is_empty());
    }
}
