//! The validation sample Quire proposes: papers drawn across the score range,
//! more of them where the verdict is least certain (on either side of the
//! maybe cut-off), in an order fixed by a seed so the queue stays the same
//! from one opening to the next.

use sha2::{Digest, Sha256};

use super::calibrate::Cutoffs;

/// How much more a band around the exclude decision is sampled than the
/// bands far from it.
const UNCERTAIN_WEIGHT: f64 = 2.0;

/// The score bands, by the cut-offs in force: clear excludes, near-misses,
/// maybes, low includes, clear includes. Near-misses and maybes are the
/// uncertain ones.
fn band(score: f64, cut: &Cutoffs) -> usize {
    if score < cut.maybe / 2.0 {
        0
    } else if score < cut.maybe {
        1
    } else if score < cut.include {
        2
    } else if score < (cut.include + 10.0) / 2.0 {
        3
    } else {
        4
    }
}

const BANDS: usize = 5;

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

/// Choose `size` of the scored `papers` (id, score): each band gets a share in
/// proportion to its papers times its weight (at least one from every band
/// that has papers, while the size allows), by largest remainder; within a
/// band the seeded order decides. Returned in the seeded order overall, so
/// the queue does not run from low to high score.
pub fn propose(papers: &[(String, f64)], size: usize, cut: &Cutoffs, seed: &str) -> Vec<String> {
    let mut bands: Vec<Vec<&(String, f64)>> = vec![Vec::new(); BANDS];
    for p in papers {
        bands[band(p.1, cut)].push(p);
    }
    for b in &mut bands {
        b.sort_by_key(|p| draw_order(seed, &p.0));
    }
    let size = size.min(papers.len());
    let mut quota = [0usize; BANDS];
    // One from each non-empty band first, so no part of the range goes unseen.
    let mut left = size;
    for (b, members) in bands.iter().enumerate() {
        if left > 0 && !members.is_empty() {
            quota[b] = 1;
            left -= 1;
        }
    }
    let mass: Vec<f64> = (0..BANDS)
        .map(|b| (bands[b].len() - quota[b]) as f64 * band_weight(b))
        .collect();
    let total: f64 = mass.iter().sum();
    if left > 0 && total > 0.0 {
        let exact: Vec<f64> = mass.iter().map(|m| m / total * left as f64).collect();
        let mut given = 0;
        for b in 0..BANDS {
            let extra = (exact[b].floor() as usize).min(bands[b].len() - quota[b]);
            quota[b] += extra;
            given += extra;
        }
        // Largest remainders take what rounding left, where papers remain.
        let mut by_remainder: Vec<usize> = (0..BANDS).collect();
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
    let mut chosen: Vec<&(String, f64)> = (0..BANDS)
        .flat_map(|b| bands[b].iter().take(quota[b]).copied())
        .collect();
    chosen.sort_by_key(|p| draw_order(seed, &p.0));
    chosen.into_iter().map(|p| p.0.clone()).collect()
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
        let sample = propose(&papers, 30, &Cutoffs::DEFAULT, "seed");
        assert_eq!(sample.len(), 30);
        let score = |id: &String| papers.iter().find(|p| &p.0 == id).unwrap().1;
        let mut per_band = [0usize; BANDS];
        for id in &sample {
            per_band[band(score(id), &Cutoffs::DEFAULT)] += 1;
        }
        assert!(per_band.iter().all(|&n| n > 0), "{per_band:?}");
        // The near-miss and maybe bands (2.0-6.5: 45% of scores) get more than
        // their share.
        let uncertain = per_band[1] + per_band[2];
        assert!(uncertain as f64 / 30.0 > 0.45, "{per_band:?}");
    }

    #[test]
    fn the_same_seed_draws_the_same_sample_and_another_seed_another() {
        let papers = scored(200);
        let a = propose(&papers, 20, &Cutoffs::DEFAULT, "one");
        assert_eq!(a, propose(&papers, 20, &Cutoffs::DEFAULT, "one"));
        assert_ne!(a, propose(&papers, 20, &Cutoffs::DEFAULT, "two"));
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 20);
    }

    #[test]
    fn a_small_review_is_sampled_whole() {
        let papers = scored(7);
        assert_eq!(propose(&papers, 30, &Cutoffs::DEFAULT, "s").len(), 7);
        assert!(propose(&[], 30, &Cutoffs::DEFAULT, "s").is_empty());
    }
}
