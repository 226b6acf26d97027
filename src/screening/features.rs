//! Records as TF-IDF vectors: the text features the screening classifier
//! learns from. Terms are words of two letters or more, lowercased, and
//! adjacent pairs of them, so "deep learning" is a feature apart from
//! "deep" and "learning", as in ASReview's default model. Unlike the
//! offline engine's terms they keep stop words and endings: "of the",
//! "randomized" against "randomised", or "review" against "reviews" can
//! tell a study design apart, and the classifier weighs what the labels
//! show. (On the four SYNERGY development sets neither way won on all:
//! raw words gained 0.10 and 0.13 of WSS@95 on two, and lost 0.07 on the
//! other two.) A term used by one record only tells
//! nothing about any other and is left out. Term frequencies are
//! damped (1 + ln tf), weighted by smoothed inverse document frequency and
//! each vector scaled to unit length, as scikit-learn's `TfidfVectorizer`
//! with `sublinear_tf` does, so scores compare across short and long records.

use std::collections::HashMap;

/// A sparse vector: (feature, weight) sorted by feature, unit length.
pub type Sparse = Vec<(u32, f32)>;

/// Every record's vector over one vocabulary.
#[derive(Clone, Debug)]
pub struct Features {
    pub rows: Vec<Sparse>,
    /// How many features the vocabulary has.
    pub dims: usize,
    vocabulary: HashMap<String, u32>,
    idf: Vec<f32>,
}

/// The terms and term pairs of a text.
fn grams(text: &str) -> Vec<String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| t.len() >= 2)
        .map(str::to_lowercase)
        .collect();
    let pairs = words.windows(2).map(|w| format!("{} {}", w[0], w[1]));
    let mut out: Vec<String> = pairs.collect();
    out.extend(words);
    out
}

impl Features {
    /// The vectors of `texts`, over the vocabulary they share.
    pub fn build<S: AsRef<str>>(texts: &[S]) -> Self {
        let grams: Vec<Vec<String>> = texts.iter().map(|t| grams(t.as_ref())).collect();
        let mut df: HashMap<&str, u32> = HashMap::new();
        for doc in &grams {
            let mut seen: Vec<&str> = doc.iter().map(String::as_str).collect();
            seen.sort_unstable();
            seen.dedup();
            for g in seen {
                *df.entry(g).or_default() += 1;
            }
        }
        // Sorted, so the same records always give the same feature numbers.
        let mut kept: Vec<(&str, u32)> = df.into_iter().filter(|(_, n)| *n >= 2).collect();
        kept.sort_unstable();
        let n = texts.len() as f32;
        let vocabulary: HashMap<String, u32> = kept
            .iter()
            .enumerate()
            .map(|(i, (g, _))| ((*g).to_owned(), i as u32))
            .collect();
        let idf: Vec<f32> = kept
            .iter()
            .map(|(_, df)| ((1.0 + n) / (1.0 + *df as f32)).ln() + 1.0)
            .collect();
        let mut features = Self {
            rows: Vec::new(),
            dims: kept.len(),
            vocabulary,
            idf,
        };
        features.rows = grams.iter().map(|g| features.vector(g)).collect();
        features
    }

    /// The vector of a text that is not one of the records (the review
    /// question), over the records' vocabulary.
    pub fn embed(&self, text: &str) -> Sparse {
        self.vector(&grams(text))
    }

    fn vector(&self, grams: &[String]) -> Sparse {
        let mut counts: HashMap<u32, u32> = HashMap::new();
        for g in grams {
            if let Some(&f) = self.vocabulary.get(g) {
                *counts.entry(f).or_default() += 1;
            }
        }
        let mut v: Sparse = counts
            .into_iter()
            .map(|(f, tf)| (f, (1.0 + (tf as f32).ln()) * self.idf[f as usize]))
            .collect();
        v.sort_unstable_by_key(|(f, _)| *f);
        let norm = v.iter().map(|(_, x)| x * x).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, x) in &mut v {
                *x /= norm;
            }
        }
        v
    }
}

/// The dot product of a sparse vector with a dense one.
pub fn dot(x: &Sparse, w: &[f32]) -> f32 {
    x.iter().map(|(f, v)| v * w[*f as usize]).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_terms_and_pairs_are_features_and_one_record_terms_are_not() {
        let f = Features::build(&[
            "Deep learning for screening",
            "Deep learning of images",
            "Screening trials by hand",
        ]);
        let names: Vec<&str> = {
            let mut v: Vec<(&String, &u32)> = f.vocabulary.iter().collect();
            v.sort_by_key(|(_, i)| **i);
            v.into_iter().map(|(g, _)| g.as_str()).collect()
        };
        assert_eq!(names, ["deep", "deep learning", "learning", "screening"]);
        for row in &f.rows {
            let norm: f32 = row.iter().map(|(_, x)| x * x).sum();
            assert!((norm - 1.0).abs() < 1e-5, "{row:?}");
        }
        // "trials" and "hand" are in one record only.
        assert_eq!(f.rows[2].len(), 1);
        // The question is embedded over the same vocabulary.
        let q = f.embed("screening with deep learning");
        assert_eq!(q.len(), 4);
        assert!(f.embed("nothing shared here").is_empty());
    }
}
