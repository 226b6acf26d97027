//! The screening order: records not yet labelled, the most likely to be
//! included first, learned again from every label (active learning with
//! the "maximum" query, as ASReview's default). The review question counts
//! as one more include in training, which helps most while labels are few:
//! a boundary is learned as soon as there is an exclude and an include or a
//! question. Before that there is nothing to learn a boundary from, so the
//! order is by likeness to what is known to be wanted: the includes so far
//! and the question.

use super::features::{Features, Sparse, dot};
use super::learner::{self, Linear};

/// How much the review question counts as an include, against one label.
pub const QUESTION_WEIGHT: f32 = 1.0;

/// The records' features and, if given, the review question's.
pub struct Ranker {
    pub features: Features,
    question: Option<Sparse>,
}

impl Ranker {
    /// A ranker over `texts` (each record's title and abstract), with the
    /// review question when there is one.
    pub fn new<S: AsRef<str>>(texts: &[S], question: Option<&str>) -> Self {
        let features = Features::build(texts);
        let question = question
            .map(|q| features.embed(q))
            .filter(|q| !q.is_empty());
        Self { features, question }
    }

    pub fn len(&self) -> usize {
        self.features.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.features.rows.is_empty()
    }

    /// Every record's score given `labels` (one per record: `Some(true)`
    /// included, `Some(false)` excluded, `None` not yet labelled); higher
    /// is more likely included.
    pub fn scores(&self, labels: &[Option<bool>]) -> Vec<f32> {
        let rows = &self.features.rows;
        if self.learns(labels) {
            let model = self.train(labels);
            return rows.iter().map(|x| model.score(x)).collect();
        }
        // No boundary to learn yet: likeness to the wanted.
        let mut centroid = vec![0.0f32; self.features.dims];
        let mut any = false;
        let wanted = labels
            .iter()
            .zip(rows)
            .filter(|(l, _)| **l == Some(true))
            .map(|(_, x)| x)
            .chain(self.question.as_ref());
        for x in wanted {
            any = true;
            for (f, v) in x {
                centroid[*f as usize] += v;
            }
        }
        if !any {
            // Nothing known: the records' own order.
            return (0..rows.len()).map(|i| -(i as f32)).collect();
        }
        rows.iter().map(|x| dot(x, &centroid)).collect()
    }

    /// Whether `labels` (with the question) give a boundary to learn: an
    /// exclude, and an include or the question.
    pub fn learns(&self, labels: &[Option<bool>]) -> bool {
        let has = |want: bool| labels.contains(&Some(want));
        has(false) && (has(true) || self.question.is_some())
    }

    /// The records not yet labelled, best first (ties by input order).
    pub fn order(&self, labels: &[Option<bool>]) -> Vec<usize> {
        let scores = self.scores(labels);
        let mut open: Vec<usize> = (0..self.len()).filter(|&i| labels[i].is_none()).collect();
        open.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        open
    }

    /// The best record not yet labelled, if any: what the queue serves next.
    pub fn next(&self, labels: &[Option<bool>]) -> Option<usize> {
        let scores = self.scores(labels);
        (0..self.len())
            .filter(|&i| labels[i].is_none())
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))
    }

    fn train(&self, labels: &[Option<bool>]) -> Linear {
        let mut examples: Vec<(&Sparse, bool, f32)> = labels
            .iter()
            .zip(&self.features.rows)
            .filter_map(|(l, x)| l.map(|included| (x, included, 1.0)))
            .collect();
        if let Some(q) = &self.question {
            examples.push((q, true, QUESTION_WEIGHT));
        }
        learner::train(&examples, self.features.dims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records() -> Vec<&'static str> {
        vec![
            "Methylphenidate for attention deficit hyperactivity disorder in children",
            "Stock market volatility and interest rates",
            "Atomoxetine versus methylphenidate in attention deficit disorder",
            "Interest rates and bond prices in emerging markets",
            "Stimulant drugs for hyperactivity disorder: a randomized trial",
            "Market prices of bonds under volatility",
        ]
    }

    #[test]
    fn each_label_reorders_what_is_left_and_the_same_labels_give_the_same_order() {
        let ranker = Ranker::new(&records(), None);
        let mut labels = vec![None; 6];
        // Nothing known: the input order.
        assert_eq!(ranker.order(&labels), [0, 1, 2, 3, 4, 5]);
        // One include: what is like it comes first.
        labels[0] = Some(true);
        assert_eq!(ranker.order(&labels)[0], 2);
        // An exclude too: a boundary is learned; the drug records lead.
        labels[1] = Some(false);
        let order = ranker.order(&labels);
        assert_eq!(&order[..2], [2, 4], "{order:?}");
        assert_eq!(ranker.next(&labels), Some(2));
        assert_eq!(ranker.order(&labels), order, "reproducible");
    }

    #[test]
    fn with_a_question_an_exclude_alone_teaches_the_order() {
        let records = [
            "Drugs for hyperactivity disorder: a review of the evidence",
            "Methylphenidate versus placebo in hyperactivity disorder: a randomised trial",
            "Drugs for hyperactivity disorder: a narrative review of the evidence",
            "Atomoxetine for hyperactivity disorder in adults: a randomised trial",
            "Stimulant drugs and hyperactivity disorder: a randomised trial",
        ];
        let ranker = Ranker::new(&records, Some("Which drugs treat hyperactivity disorder?"));
        let mut labels = vec![None; 5];
        // The question alone ranks the other review above two trials.
        let before = ranker.order(&labels);
        assert!(before.iter().position(|&i| i == 2) < before.iter().position(|&i| i == 3));
        // The researcher excludes a review, and no include is given yet: the
        // question is the include the boundary is learned against, and the
        // other review sinks below the trials.
        labels[0] = Some(false);
        assert!(ranker.learns(&labels));
        let order = ranker.order(&labels);
        assert_eq!(order.last(), Some(&2), "{order:?}");
    }

    #[test]
    fn the_question_orders_the_records_before_any_label() {
        let ranker = Ranker::new(
            &records(),
            Some("Which drugs treat attention deficit hyperactivity disorder?"),
        );
        let order = ranker.order(&[None; 6]);
        let mut top: Vec<usize> = order[..3].to_vec();
        top.sort_unstable();
        assert_eq!(top, [0, 2, 4], "{order:?}");
    }
}
