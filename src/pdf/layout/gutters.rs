//! Column gutters: the vertical bands of white that part a page's columns,
//! found from how much of the page's height text covers at each x. A line is
//! cut at a gutter, so two columns read one after the other.

use super::Span;

/// A vertical band of white between two columns of a page, `left` to `right`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gutter {
    pub left: f32,
    pub right: f32,
}

/// A gutter is at least this wide, in points.
const MIN_GUTTER_WIDTH: f32 = 6.0;

/// A narrower white band is a gutter when a column starts right after it:
/// a scan's text layer (an OCR'd journal page) gives its words boxes wider
/// than the type and its lines a skew, so its gutter shows only as a dip in
/// how much text covers each point, ending in a cliff where the right
/// column's lines all begin.
const MIN_CLIFF_GUTTER_WIDTH: f32 = 2.0;

/// The gutters between a page's columns, found from all its spans at once: a
/// band in the middle of the text at least `MIN_GUTTER_WIDTH` wide (or
/// `MIN_CLIFF_GUTTER_WIDTH` with a column starting sharply at its right) that
/// hardly any span covers (a title or a wide figure may) while a fifth of the
/// text or more lies on either side. A single line's word gap says nothing;
/// a band the whole page leaves white does, however narrow the gutter is
/// against the type (IEEE's is 1.2 sizes).
pub fn gutters(spans: &[Span]) -> Vec<Gutter> {
    let spans: Vec<&Span> = spans.iter().filter(|s| !s.text.trim().is_empty()).collect();
    if spans.len() < 20 {
        return Vec::new();
    }
    let left = spans.iter().map(|s| s.x).fold(f32::INFINITY, f32::min);
    let right = spans
        .iter()
        .map(|s| s.x + s.width)
        .fold(f32::NEG_INFINITY, f32::max);
    let width = right - left;
    if !(100.0..=5000.0).contains(&width) {
        return Vec::new();
    }
    // How many spans cover each point of the text's width.
    let bins = width.ceil() as usize + 1;
    let mut change = vec![0i32; bins + 1];
    for span in &spans {
        let from = ((span.x - left).max(0.0) as usize).min(bins);
        let to = ((span.x + span.width - left).ceil().max(0.0) as usize).min(bins);
        change[from] += 1;
        change[to] -= 1;
    }
    let mut coverage = Vec::with_capacity(bins);
    let mut running = 0;
    for delta in &change[..bins] {
        running += delta;
        coverage.push(running);
    }
    let mut sorted = coverage.clone();
    sorted.sort_unstable();
    let typical = sorted[sorted.len() * 3 / 4];
    let total: f32 = spans.iter().map(|s| s.width).sum();
    let is_gutter = |band: &Gutter| {
        let middle = band.left > left + 0.2 * width && band.right < right - 0.2 * width;
        // Text on either side, by width: producers cut lines into spans by
        // the word in one column and by the line in another.
        let on_left: f32 = spans
            .iter()
            .filter(|s| s.x + s.width <= band.left + 1.0)
            .map(|s| s.width)
            .sum();
        let on_right: f32 = spans
            .iter()
            .filter(|s| s.x >= band.right - 1.0)
            .map(|s| s.width)
            .sum();
        middle && on_left >= 0.2 * total && on_right >= 0.2 * total
    };
    let band = |(from, to): (usize, usize)| Gutter {
        left: left + from as f32,
        right: left + to as f32,
    };
    // A title, an abstract or a wide figure may cross the gutter; a fifth of
    // what crosses the columns is still white.
    let mut found: Vec<Gutter> = white_runs(&coverage, (typical / 5).max(1))
        .into_iter()
        .map(band)
        .filter(|g| g.right - g.left >= MIN_GUTTER_WIDTH && is_gutter(g))
        .collect();
    // A scan's dip need only be shallow, if a column starts in a cliff at its
    // right: within two points, half the typical cover.
    for (from, to) in white_runs(&coverage, (typical / 4).max(1)) {
        let cliff = coverage.get(to + 2).is_some_and(|&c| 2 * c >= typical);
        let g = band((from, to));
        let known = found.iter().any(|f| f.left < g.right && g.left < f.right);
        if cliff && !known && g.right - g.left >= MIN_CLIFF_GUTTER_WIDTH && is_gutter(&g) {
            found.push(g);
        }
    }
    found.sort_by(|a, b| a.left.total_cmp(&b.left));
    found
}

/// The runs of points (`from..to`) that at most `white` spans cover.
fn white_runs(coverage: &[i32], white: i32) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut start: Option<usize> = None;
    for (i, &covered) in coverage.iter().chain([&i32::MAX]).enumerate() {
        match (covered <= white, start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                start = None;
                runs.push((from, i));
            }
            _ => {}
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::super::{lines_from_spans, test_span as span};
    use super::*;

    fn narrow_gutter_page() -> Vec<Span> {
        let mut spans = vec![span("A title set across both columns", 150.0, 760.0, 10.0)];
        spans[0].width = 300.0;
        for i in 0..20 {
            let y = 700.0 - 12.0 * i as f32;
            let mut left = span(&format!("left column line {i}"), 50.0, y, 10.0);
            left.width = 244.0;
            let mut right = span(&format!("right column line {i}"), 306.0, y, 10.0);
            right.width = 244.0;
            spans.extend([left, right]);
        }
        spans
    }

    #[test]
    fn a_gutter_the_whole_page_leaves_white_parts_its_columns() {
        let spans = narrow_gutter_page();
        let found = gutters(&spans);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].left >= 293.0 && found[0].right <= 307.0,
            "{found:?}"
        );
        let lines = lines_from_spans(spans.clone(), 800.0, &found);
        assert_eq!(lines[1].text, "left column line 0");
        assert_eq!(lines[2].text, "right column line 0");
        // Without the page's gutters the 12 pt gap joins the two columns.
        let joined = lines_from_spans(spans, 800.0, &[]);
        assert_eq!(joined[1].text, "left column line 0 right column line 0");
        // One column of text, its word gaps anywhere, has no gutter.
        let single: Vec<Span> = (0..30)
            .flat_map(|i| {
                let y = 700.0 - 12.0 * i as f32;
                let cut = 150.0 + 7.0 * (i % 9) as f32;
                let mut a = span("some words", 50.0, y, 10.0);
                a.width = cut - 50.0;
                let mut b = span("more words", cut + 3.0, y, 10.0);
                b.width = 550.0 - cut - 3.0;
                [a, b]
            })
            .collect();
        assert_eq!(gutters(&single), Vec::new());
    }

    /// A scanned journal page's text layer: words in boxes wider than their
    /// type, so the left column's lines end anywhere from 302 to 314 pt, and
    /// the right column starting at 314-316 pt, a point from some of them.
    fn scanned_two_column_page() -> Vec<Span> {
        let mut spans = Vec::new();
        for i in 0..40 {
            let y = 740.0 - 12.0 * i as f32;
            let skew = (i % 5) as f32 * 0.4;
            let end = 302.0 + (i * 7 % 13) as f32;
            let mut words = vec![
                Span {
                    text: format!("left {i} "),
                    x: 57.0 + skew,
                    y,
                    width: 120.0,
                    size: 9.6,
                    bold: false,
                },
                Span {
                    text: "words end here ".into(),
                    x: 180.0,
                    y,
                    width: end - 180.0,
                    size: 9.6,
                    bold: false,
                },
            ];
            words.push(Span {
                text: format!("right {i} "),
                x: 314.2 + skew,
                y: y - 0.8,
                width: 250.0,
                size: 9.6,
                bold: false,
            });
            spans.extend(words);
        }
        spans
    }

    #[test]
    fn a_scans_narrow_gutter_shows_as_a_dip_ending_in_a_cliff() {
        let spans = scanned_two_column_page();
        let found = gutters(&spans);
        assert_eq!(found.len(), 1, "{found:?}");
        let lines = lines_from_spans(spans, 800.0, &found);
        assert!(
            lines
                .iter()
                .all(|l| !l.text.contains("right") || l.left > 300.0),
            "no line joins the two columns: {lines:?}"
        );
        let text = crate::pdf::reading_order::page_text(&lines, &found);
        let order: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let expected: Vec<String> = (0..40)
            .map(|i| format!("left {i} words end here"))
            .chain((0..40).map(|i| format!("right {i}")))
            .collect();
        assert_eq!(order, expected);
        // Without the page's gutter the columns read as one, interleaved.
        let joined = lines_from_spans(scanned_two_column_page(), 800.0, &[]);
        assert!(joined.iter().any(|l| l.text.contains("here right")));
    }
}
