//! The lines of type on a page, with their size and position: what plain text
//! loses and metadata needs (a title is the largest type near the top of page
//! one; its authors are the lines between it and the abstract). Built in the
//! extraction worker from pdf_oxide's spans, then carried with the text.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

/// One line of type: the spans that share a baseline within one column, left to
/// right. Superscript marks (footnote numbers, asterisks) join the line they
/// are raised over.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TextLine {
    pub text: String,
    /// The type size most of the line's letters are set in, in points.
    pub size: f32,
    /// The baseline's distance from the top of the page, in points.
    pub top: f32,
    pub left: f32,
    pub right: f32,
    /// Most of the line's letters are bold.
    pub bold: bool,
}

/// A piece of text as the PDF places it; `y` is the baseline's height above
/// the page's bottom edge, as PDF coordinates have it.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub text: String,
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub size: f32,
    pub bold: bool,
}

/// How many lines of page one are kept: enough for any title block, and the
/// size of the cache entry stays small.
pub const MAX_LINES: usize = 120;

/// A gap wider than this many type sizes between two spans on one baseline is
/// a column gutter or a gap between author blocks, not a word space.
const COLUMN_GAP: f32 = 1.5;

/// Group spans into lines, top of the page first, then left to right.
/// `page_top` is the page's top edge in the spans' coordinates.
pub fn lines_from_spans(spans: Vec<Span>, page_top: f32) -> Vec<TextLine> {
    let mut spans: Vec<Span> = spans
        .into_iter()
        .filter(|s| !s.text.trim().is_empty() && s.size.is_finite() && s.size > 0.0)
        .collect();
    // Tallest type first within a band, so a line's baseline is set by its
    // main text rather than by a raised mark.
    spans.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x.total_cmp(&b.x)));
    let mut groups: Vec<Vec<Span>> = Vec::new();
    for span in spans {
        let home = groups.iter_mut().rev().take(6).find(|g| {
            let main = dominant(g);
            let baseline = g[0].y;
            let raised = span.size < main * 0.85;
            // A raised mark sits up to about half a size above the baseline.
            let (below, above) = if raised {
                (0.25 * main, 0.7 * main)
            } else {
                (0.4 * main.max(span.size), 0.4 * main.max(span.size))
            };
            span.y >= baseline - below && span.y <= baseline + above
        });
        match home {
            Some(group) => group.push(span),
            None => groups.push(vec![span]),
        }
    }
    let mut lines: Vec<TextLine> = groups
        .into_iter()
        .flat_map(split_columns)
        .map(|g| to_line(g, page_top))
        .filter(|l| !l.text.is_empty())
        .collect();
    lines.sort_by(|a, b| a.top.total_cmp(&b.top));
    let mut lines = left_to_right_in_bands(lines);
    lines.truncate(MAX_LINES);
    lines
}

/// Lines whose baselines are within a fraction of their size of each other
/// (author blocks side by side) are read left to right.
fn left_to_right_in_bands(lines: Vec<TextLine>) -> Vec<TextLine> {
    let mut ordered: Vec<TextLine> = Vec::with_capacity(lines.len());
    let mut band_start = 0;
    for line in lines {
        let same_band = ordered
            .get(band_start)
            .is_some_and(|first| line.top - first.top <= 0.3 * first.size.min(line.size));
        if !same_band {
            ordered[band_start..].sort_by(|a, b| a.left.total_cmp(&b.left));
            band_start = ordered.len();
        }
        ordered.push(line);
    }
    ordered[band_start..].sort_by(|a, b| a.left.total_cmp(&b.left));
    ordered
}

/// The size most of a group's characters are set in.
fn dominant(spans: &[Span]) -> f32 {
    let mut best = (0.0f32, 0usize);
    for span in spans {
        let chars: usize = spans
            .iter()
            .filter(|s| (s.size - span.size).abs() < 0.3)
            .map(|s| s.text.chars().filter(|c| !c.is_whitespace()).count())
            .sum();
        if chars > best.1 || (chars == best.1 && span.size > best.0) {
            best = (span.size, chars);
        }
    }
    best.0
}

/// Cut a baseline's spans where a wide gap separates them.
fn split_columns(mut spans: Vec<Span>) -> Vec<Vec<Span>> {
    spans.sort_by(|a, b| a.x.total_cmp(&b.x));
    let size = dominant(&spans);
    let mut parts: Vec<Vec<Span>> = Vec::new();
    for span in spans {
        let joins = parts
            .last()
            .and_then(|p| p.last())
            .is_some_and(|last| span.x - right_edge(last) <= COLUMN_GAP * size);
        match (joins, parts.last_mut()) {
            (true, Some(part)) => part.push(span),
            _ => parts.push(vec![span]),
        }
    }
    parts
}

/// Where a span ends. Some producers report letter-spaced capitals with too
/// small a width; no text is narrower than about 0.4 of its size per letter.
fn right_edge(span: &Span) -> f32 {
    let letters = span.text.chars().filter(|c| !c.is_whitespace()).count() as f32;
    span.x + span.width.max(0.4 * span.size * letters)
}

fn to_line(spans: Vec<Span>, page_top: f32) -> TextLine {
    let size = dominant(&spans);
    let mut text = String::new();
    let mut end: Option<f32> = None;
    for span in &spans {
        let gap = end.map_or(0.0, |e| span.x - e);
        let spaced =
            text.ends_with(char::is_whitespace) || span.text.starts_with(char::is_whitespace);
        if !text.is_empty() && !spaced && gap > 0.15 * size.min(span.size) {
            text.push(' ');
        }
        text.push_str(&span.text);
        end = Some(span.x + span.width);
    }
    let letters = |s: &Span| s.text.chars().filter(|c| c.is_alphabetic()).count();
    let bold_letters: usize = spans.iter().filter(|s| s.bold).map(letters).sum();
    let all_letters: usize = spans.iter().map(letters).sum();
    let baseline = spans
        .iter()
        .filter(|s| (s.size - size).abs() < 0.3)
        .map(|s| s.y)
        .next()
        .unwrap_or(spans[0].y);
    TextLine {
        // Compatibility forms too: ligatures ("ﬁ") become their letters.
        text: text
            .nfkc()
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" "),
        size,
        top: page_top - baseline,
        left: spans.first().map_or(0.0, |s| s.x),
        right: spans.last().map_or(0.0, |s| s.x + s.width),
        bold: bold_letters * 2 > all_letters,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str, x: f32, y: f32, size: f32) -> Span {
        Span {
            text: text.into(),
            x,
            y,
            width: text.len() as f32 * size * 0.5,
            size,
            bold: false,
        }
    }

    #[test]
    fn groups_spans_by_baseline_top_first_with_raised_marks_on_their_line() {
        let spans = vec![
            span("Ada Lovelace", 100.0, 650.0, 12.0),
            span("Consensus", 100.0, 700.0, 18.0),
            span("Made Simple", 190.0, 700.0, 18.0),
            // A footnote mark raised over the author's name.
            span("1", 172.0, 654.0, 7.0),
            span("Alan Turing", 190.0, 650.0, 12.0),
        ];
        let lines = lines_from_spans(spans, 800.0);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            ["Consensus Made Simple", "Ada Lovelace1 Alan Turing"]
        );
        assert_eq!(lines[0].size, 18.0);
        assert_eq!(lines[0].top, 100.0);
        assert_eq!(lines[1].size, 12.0);
    }

    #[test]
    fn a_wide_gap_on_one_baseline_makes_two_lines() {
        let spans = vec![
            span("Left column", 50.0, 500.0, 10.0),
            span("Right column", 320.0, 500.0, 10.0),
        ];
        let lines = lines_from_spans(spans, 800.0);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text, "Left column");
        assert_eq!(lines[1].left, 320.0);
    }
}
