//! Page-aligned chunks of a paper's text, and merging the answers about them.
//!
//! A chunk holds whole pages, marked `=== page N ===` with their real numbers,
//! so quotes cite the right page whatever part they come from. The merge is
//! code, not another model call: the highest-scoring part decides the score,
//! verdict and rationale; summaries come from the opening part and the best
//! one; key points and evidence are pooled; a criterion is met if any part
//! meets it and not met only if every part says so.

use std::collections::BTreeMap;

use super::parse::ReaderAnswer;
use crate::llm::accounting::count_tokens;
use crate::review::{CriterionOutcome, CriterionVerdict, Verdict};

#[derive(Clone, Debug, PartialEq)]
pub struct Chunk {
    /// 1-based position among the chunks.
    pub index: usize,
    pub first_page: usize,
    pub last_page: usize,
    pub text: String,
    pages: Vec<(usize, String)>,
}

impl Chunk {
    fn new(index: usize, pages: Vec<(usize, String)>) -> Self {
        let text = pages
            .iter()
            .map(|(n, t)| format!("=== page {n} ===\n{}\n", t.trim_end()))
            .collect();
        Self {
            index,
            first_page: pages.first().map_or(1, |p| p.0),
            last_page: pages.last().map_or(1, |p| p.0),
            text,
            pages,
        }
    }

    /// Two chunks of about half the text each, both smaller than this one;
    /// None when it cannot be cut so (a page of one unbroken run of text
    /// shorter than a few words): the caller must not send it again.
    pub fn halves(&self) -> Option<(Chunk, Chunk)> {
        if self.pages.len() > 1 {
            let mid = self.pages.len() / 2;
            return Some((
                Chunk::new(self.index, self.pages[..mid].to_vec()),
                Chunk::new(self.index, self.pages[mid..].to_vec()),
            ));
        }
        // One page too long on its own: cut it near the middle, at a line
        // break if there is one in the middle half, else at a space, else
        // between two characters.
        let (n, text) = self.pages.first().cloned()?;
        let text = text.trim();
        let cut = cut_near_middle(text)?;
        let (a, b) = (text[..cut].trim(), text[cut..].trim());
        (!a.is_empty() && !b.is_empty()).then(|| {
            (
                Chunk::new(self.index, vec![(n, a.to_owned())]),
                Chunk::new(self.index, vec![(n, b.to_owned())]),
            )
        })
    }
}

/// A byte offset strictly inside `text` near its middle, at a char boundary:
/// the line break nearest the middle within its middle half, else the space
/// nearest it, else the middle itself. None for text too short to cut.
fn cut_near_middle(text: &str) -> Option<usize> {
    // One character cannot be cut.
    text.chars().nth(1)?;
    let mut mid = text.len() / 2;
    while !text.is_char_boundary(mid) {
        mid -= 1;
    }
    let (low, high) = (text.len() / 4, text.len() * 3 / 4);
    let nearest = |c: char| {
        let before = text[..mid].rfind(c).filter(|&i| i > low);
        let after = text[mid..].find(c).map(|i| mid + i).filter(|&i| i < high);
        match (before, after) {
            (Some(b), Some(a)) => Some(if mid - b <= a - mid { b } else { a }),
            (b, a) => b.or(a),
        }
    };
    let cut = nearest('\n').or_else(|| nearest(' ')).unwrap_or(mid);
    (cut > 0 && cut < text.len()).then_some(cut)
}

impl Chunk {
    /// This part as one call's message: `lead` (what is asked), which part
    /// it is when the paper has `total` parts, then its text.
    pub fn message(&self, lead: &str, total: usize) -> String {
        let mut text = lead.to_owned();
        if total > 1 {
            text.push_str(&format!(
                "This is part {} of {total} of the paper (pages {}-{}).\n",
                self.index, self.first_page, self.last_page
            ));
        }
        text.push('\n');
        text.push_str(&self.text);
        text
    }
}

/// About how many tokens a paper's pages are: a token per four bytes. For a
/// cap's check before a call, which is checked again against what each call
/// really spent, close is enough; tokenizing the text exactly there would
/// cost as much CPU as everything else done with a paper.
pub fn rough_tokens(pages: &[String]) -> u64 {
    pages.iter().map(|p| p.len() as u64).sum::<u64>() / 4
}

/// Tokens of paper text one call may carry with `settings`: the window less
/// the answer and `fixed` tokens of instructions and framing (at least 512).
pub fn text_budget(settings: &crate::llm::ModelSettings, fixed: u64) -> u64 {
    (settings.context_window as u64)
        .saturating_sub(settings.max_output_tokens as u64)
        .saturating_sub(fixed)
        .max(512)
}

/// Consecutive pages in chunks of at most `budget` tokens (a longer page
/// stands alone and is cut when the server refuses it).
pub fn split(pages: &[String], budget: u64) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut current: Vec<(usize, String)> = Vec::new();
    let mut used = 0;
    for (i, page) in pages.iter().enumerate() {
        if page.trim().is_empty() {
            continue;
        }
        let tokens = count_tokens(page) + 8;
        if !current.is_empty() && used + tokens > budget {
            chunks.push(Chunk::new(chunks.len() + 1, std::mem::take(&mut current)));
            used = 0;
        }
        current.push((i + 1, page.clone()));
        used += tokens;
    }
    if !current.is_empty() {
        chunks.push(Chunk::new(chunks.len() + 1, current));
    }
    chunks
}

/// One answer from the answers about each part, in page order.
pub fn merge(parts: Vec<(Chunk, ReaderAnswer)>, criteria: &[String]) -> ReaderAnswer {
    if parts.len() == 1 {
        let mut only = parts.into_iter().next().map(|p| p.1).unwrap_or_default();
        only.criteria = complete_criteria(std::mem::take(&mut only.criteria), criteria);
        return only;
    }
    let best = parts
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.1.score.total_cmp(&b.1.1.score).then(b.0.cmp(&a.0)))
        .map_or(0, |(i, _)| i);
    let mut merged = ReaderAnswer {
        score: parts[best].1.score,
        verdict: parts[best].1.verdict,
        rationale: format!(
            "{} (Read in {} parts; pages {}-{} weighed most.)",
            parts[best].1.rationale,
            parts.len(),
            parts[best].0.first_page,
            parts[best].0.last_page
        ),
        ..ReaderAnswer::default()
    };
    let mut summary: Vec<_> = parts[0].1.summary.iter().take(3).cloned().collect();
    if best != 0 {
        summary.extend(parts[best].1.summary.iter().take(2).cloned());
    }
    merged.summary = summary;
    let mut by_criterion: BTreeMap<String, Vec<CriterionVerdict>> = BTreeMap::new();
    for (_, answer) in &parts {
        for point in &answer.key_points {
            if merged.key_points.len() < 6 && !merged.key_points.contains(point) {
                merged.key_points.push(point.clone());
            }
        }
        for quote in &answer.evidence {
            if merged.evidence.len() < 6 && !merged.evidence.contains(quote) {
                merged.evidence.push(quote.clone());
            }
        }
        for c in &answer.criteria {
            by_criterion
                .entry(c.criterion.clone())
                .or_default()
                .push(c.clone());
        }
    }
    let mut pooled = Vec::new();
    for (_, verdicts) in by_criterion {
        let met = verdicts.iter().find(|v| v.outcome == CriterionOutcome::Met);
        let all_not = verdicts
            .iter()
            .all(|v| v.outcome == CriterionOutcome::NotMet);
        // Not met by every part: the part that quotes why decides.
        let quoted = verdicts.iter().find(|v| v.fails_with_passage());
        let deciding = met.or(quoted).or(verdicts.first()).cloned();
        if let Some(mut v) = deciding {
            v.outcome = match (met.is_some(), all_not) {
                (true, _) => CriterionOutcome::Met,
                (false, true) => CriterionOutcome::NotMet,
                _ => CriterionOutcome::Unclear,
            };
            pooled.push(v);
        }
    }
    merged.criteria = complete_criteria(pooled, criteria);
    if merged.verdict.is_none() {
        merged.verdict = Some(Verdict::from_score(merged.score));
    }
    merged
}

/// One verdict per criterion of the review, in its order; a criterion the
/// model did not judge is unclear.
fn complete_criteria(given: Vec<CriterionVerdict>, criteria: &[String]) -> Vec<CriterionVerdict> {
    let key = |s: &str| s.trim().to_lowercase();
    criteria
        .iter()
        .map(|c| {
            given
                .iter()
                .find(|g| key(&g.criterion) == key(c) || key(c).starts_with(&key(&g.criterion)))
                .cloned()
                .map(|mut g| {
                    g.criterion = c.clone();
                    g
                })
                .unwrap_or_else(|| CriterionVerdict {
                    criterion: c.clone(),
                    outcome: CriterionOutcome::Unclear,
                    note: "the reader did not judge this criterion".into(),
                    evidence: None,
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::Quote;

    #[test]
    fn chunks_hold_whole_pages_with_their_real_numbers() {
        let pages: Vec<String> = (1..=10).map(|i| format!("page {i} ").repeat(200)).collect();
        let chunks = split(&pages, 1500);
        assert!(chunks.len() > 1);
        assert_eq!(chunks[0].first_page, 1);
        assert_eq!(chunks.last().unwrap().last_page, 10);
        for pair in chunks.windows(2) {
            assert_eq!(pair[0].last_page + 1, pair[1].first_page);
        }
        assert!(
            chunks[1]
                .text
                .starts_with(&format!("=== page {} ===", chunks[1].first_page))
        );
        let (a, b) = chunks[0].halves().unwrap();
        assert_eq!(a.first_page, chunks[0].first_page);
        assert_eq!(b.last_page, chunks[0].last_page);
    }

    #[test]
    fn halving_a_page_always_makes_progress_or_says_it_cannot() {
        // A page whose only line break is its first character: cutting at
        // that break would give back the whole page.
        let page = format!("\n{}", "word ".repeat(3000));
        let chunk = Chunk::new(1, vec![(4, page)]);
        let mut pending = vec![chunk];
        let mut rounds = 0;
        while let Some(c) = pending.pop() {
            rounds += 1;
            assert!(rounds < 10_000, "halving does not end");
            if c.text.len() < 200 {
                continue;
            }
            if let Some((a, b)) = c.halves() {
                assert!(a.text.len() < c.text.len() && b.text.len() < c.text.len());
                assert_eq!((a.first_page, b.first_page), (4, 4));
                pending.extend([a, b]);
            }
        }
        // Text with no break anywhere is cut between characters; one
        // character is where cutting ends.
        let solid = Chunk::new(1, vec![(1, "x".repeat(5000))]);
        let (a, b) = solid.halves().unwrap();
        assert_eq!(a.pages[0].1.len() + b.pages[0].1.len(), 5000);
        assert!(Chunk::new(1, vec![(1, "x".into())]).halves().is_none());
    }

    #[test]
    fn the_best_part_decides_and_a_criterion_is_met_if_any_part_meets_it() {
        let part = |first: usize, score: f64, outcome: CriterionOutcome| {
            (
                Chunk::new(1, vec![(first, "text".into())]),
                ReaderAnswer {
                    score,
                    rationale: format!("part at {first}"),
                    evidence: vec![Quote {
                        text: format!("q{first}"),
                        page: first,
                    }],
                    criteria: vec![CriterionVerdict {
                        criterion: "Empirical".into(),
                        outcome,
                        note: String::new(),
                        evidence: None,
                    }],
                    ..ReaderAnswer::default()
                },
            )
        };
        let merged = merge(
            vec![
                part(1, 3.0, CriterionOutcome::NotMet),
                part(5, 8.0, CriterionOutcome::Met),
            ],
            &["Empirical".into(), "Peer reviewed".into()],
        );
        assert_eq!(merged.score, 8.0);
        assert!(merged.rationale.starts_with("part at 5"));
        assert_eq!(merged.evidence.len(), 2);
        assert_eq!(merged.criteria[0].outcome, CriterionOutcome::Met);
        assert_eq!(merged.criteria[1].outcome, CriterionOutcome::Unclear);
    }
}
