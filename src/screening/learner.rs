//! The classifier the screening ranking learns: a linear support vector
//! machine (L2-regularised, squared hinge loss) trained by dual coordinate
//! descent, the method of LIBLINEAR (Hsieh et al., ICML 2008) that
//! scikit-learn's `LinearSVC` runs, which ASReview's default model uses.
//! Screening labels are very unbalanced (a few includes among thousands),
//! and a missed include costs far more than a wasted read, so the includes
//! together weigh [`INCLUDE_RATIO`] times what the excludes weigh together.
//! Training is deterministic: the same labels give the same weights, so the
//! same order.

use super::features::{Sparse, dot};

/// How hard the model fits the labels against keeping its weights small
/// (scikit-learn's `C`; ASReview's default model uses 0.11).
pub const COST: f32 = 0.11;

/// How much more the includes weigh in all than the excludes: ASReview's
/// default (its "balanced" sample weights, ratio 9.8), chosen in its
/// simulation study over the SYNERGY sets, not fitted here.
pub const INCLUDE_RATIO: f32 = 9.8;

/// Passes over the labelled records at most.
const MAX_EPOCHS: usize = 60;

/// Stop when no label's projected gradient is larger than this.
const TOLERANCE: f32 = 0.01;

/// A trained linear model: a record's score is `w · x + bias`.
#[derive(Clone, Debug)]
pub struct Linear {
    pub weights: Vec<f32>,
    pub bias: f32,
}

impl Linear {
    pub fn score(&self, x: &Sparse) -> f32 {
        dot(x, &self.weights) + self.bias
    }
}

/// Train on `examples` (a record's vector, included or not, and how much
/// the example counts) over `dims` features. Needs at least one example of
/// each class to mean anything; with one class only, every score is the
/// same sign.
pub fn train(examples: &[(&Sparse, bool, f32)], dims: usize) -> Linear {
    let positives: f32 = examples.iter().filter(|e| e.1).map(|e| e.2).sum();
    let negatives: f32 = examples.iter().filter(|e| !e.1).map(|e| e.2).sum();
    let total = positives + negatives;
    // The classes' costs sum to INCLUDE_RATIO : 1, and to `total` in all.
    let cost = |included: bool, weight: f32| {
        let (share, part) = if included {
            (positives, INCLUDE_RATIO / (INCLUDE_RATIO + 1.0))
        } else {
            (negatives, 1.0 / (INCLUDE_RATIO + 1.0))
        };
        COST * weight * total * part / share.max(f32::MIN_POSITIVE)
    };
    // The bias is one more feature, always 1, as LIBLINEAR's `-B 1`.
    let mut w = vec![0.0f32; dims];
    let mut bias = 0.0f32;
    let mut alpha = vec![0.0f32; examples.len()];
    let diag: Vec<f32> = examples
        .iter()
        .map(|(_, y, weight)| 0.5 / cost(*y, *weight))
        .collect();
    let q: Vec<f32> = examples
        .iter()
        .zip(&diag)
        .map(|((x, _, _), d)| x.iter().map(|(_, v)| v * v).sum::<f32>() + 1.0 + d)
        .collect();
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = SplitMix(0x5eed);
    for _ in 0..MAX_EPOCHS {
        rng.shuffle(&mut order);
        let mut largest = 0.0f32;
        for &i in &order {
            let (x, included, _) = examples[i];
            let y = if included { 1.0 } else { -1.0 };
            let g = y * (dot(x, &w) + bias) - 1.0 + diag[i] * alpha[i];
            let projected = if alpha[i] > 0.0 { g } else { g.min(0.0) };
            largest = largest.max(projected.abs());
            if projected != 0.0 {
                let old = alpha[i];
                alpha[i] = (old - g / q[i]).max(0.0);
                let step = (alpha[i] - old) * y;
                for (f, v) in x {
                    w[*f as usize] += step * v;
                }
                bias += step;
            }
        }
        if largest < TOLERANCE {
            break;
        }
    }
    Linear { weights: w, bias }
}

/// A small seeded generator for the pass order (SplitMix64): the same
/// every run, so training is reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_separable_set_is_separated_even_when_one_class_is_rare() {
        // Feature 0 marks the includes, 1 the excludes, 2 is noise in both.
        let include: Sparse = vec![(0, 0.8), (2, 0.6)];
        let exclude: Sparse = vec![(1, 0.8), (2, 0.6)];
        let mut examples = vec![(&include, true, 1.0)];
        examples.extend(std::iter::repeat_n((&exclude, false, 1.0), 50));
        let model = train(&examples, 3);
        assert!(model.score(&include) > 0.0, "{model:?}");
        assert!(model.score(&exclude) < 0.0, "{model:?}");
        // An unseen record with the includes' feature ranks above one with
        // the excludes'.
        assert!(model.score(&vec![(0, 1.0)]) > model.score(&vec![(1, 1.0)]));
        // The same labels give the same model.
        assert_eq!(train(&examples, 3).weights, model.weights);
    }
}
