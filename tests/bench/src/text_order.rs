//! Whether extracted text reads in the right order: the share of our word
//! 5-grams that a reference text (pdftotext's) also has. A bag-of-words F1
//! cannot see two columns interleaved line by line; 5-grams can, because a line
//! of one column glued to a line of the other makes word runs no reader ever
//! wrote. Used by `quire-bench bench`; the reference is taken as the better reader
//! only where its own text is prose.

use std::collections::HashSet;

/// Word runs this long: long enough that a run across a wrong line join is
/// rare in a right text, short enough that a hyphenation or a dropped running
/// header spoils few of them.
pub(crate) const GRAM: usize = 5;

/// The lowercased words of a text: runs of letters and digits.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The share of `ours`' word `GRAM`-grams that `reference` has too; None when
/// `ours` has too few words to make one.
pub(crate) fn in_order_share(ours: &str, reference: &str) -> Option<f64> {
    let ours = words(ours);
    if ours.len() < GRAM {
        return None;
    }
    let reference = words(reference);
    let known: HashSet<&[String]> = reference.windows(GRAM).collect();
    let grams = ours.windows(GRAM);
    let total = grams.len();
    let found = grams.filter(|g| known.contains(g)).count();
    Some(found as f64 / total as f64)
}

/// The median of some shares; 0 for none.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => 0.0,
        n if n % 2 == 1 => sorted[n / 2],
        n => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LEFT: [&str; 3] = [
        "the leader appends each request to its log",
        "and waits until a majority of followers",
        "have written the entry to stable storage",
    ];
    const RIGHT: [&str; 3] = [
        "a follower that misses heartbeats for an",
        "election timeout starts a new term and",
        "asks the other servers for their votes",
    ];

    #[test]
    fn columns_read_one_after_the_other_score_full_marks() {
        let reference = [LEFT, RIGHT].concat().join("\n");
        let ours = [LEFT.join(" "), RIGHT.join(" ")].join("\n\n");
        assert_eq!(in_order_share(&ours, &reference), Some(1.0));
    }

    #[test]
    fn columns_interleaved_line_by_line_score_low_with_the_same_words() {
        let reference = [LEFT, RIGHT].concat().join("\n");
        let interleaved: Vec<String> = LEFT
            .iter()
            .zip(RIGHT)
            .map(|(l, r)| format!("{l} {r}"))
            .collect();
        let ours = interleaved.join("\n");
        let share = in_order_share(&ours, &reference).unwrap_or(1.0);
        assert!(share < 0.6, "{share}");
        // The same words: a bag of words would call this perfect.
        let mut a = words(&ours);
        let mut b = words(&reference);
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }

    #[test]
    fn too_short_a_text_has_no_share_and_median_takes_the_middle() {
        assert_eq!(in_order_share("four words only here", "anything"), None);
        assert_eq!(median(&[0.9, 0.1, 0.5]), 0.5);
        assert!((median(&[0.2, 0.4]) - 0.3).abs() < 1e-12);
        assert_eq!(median(&[]), 0.0);
    }
}
