//! A page's lines of type in the order a person reads them: down each column,
//! columns left to right, and lines that span the columns (a title, a wide
//! figure's caption) between the stretches of columns they separate. This is
//! what turns positioned type into page text; the lines come from `layout`.

use super::layout::{Gutter, TextLine};

/// Fewer lines than this are read top to bottom: too few to tell columns.
const MIN_LINES_FOR_COLUMNS: usize = 6;

/// A column holds at least this many lines.
const MIN_COLUMN_LINES: usize = 3;

/// Columns within columns are looked for this deep at most: a page of many
/// small labels (a chart, a table) cannot make the search run away.
const MAX_NESTING: usize = 6;

/// A gutter is at least this many type sizes wide.
const MIN_GUTTER_SIZES: f32 = 0.8;

/// The page's text: its lines in reading order, one per line of text, with a
/// blank line where the flow jumps (a new column, a paragraph set apart).
/// `gutters` are the bands the whole page leaves white (`layout::gutters`):
/// a column may start closer to one of them than a gutter's usual width.
pub fn page_text(lines: &[TextLine], gutters: &[Gutter]) -> String {
    let refs: Vec<&TextLine> = lines.iter().collect();
    let ordered = in_reading_order(refs, 0, gutters);
    let mut text = String::with_capacity(lines.iter().map(|l| l.text.len() + 1).sum());
    let mut previous: Option<&TextLine> = None;
    for line in ordered {
        if let Some(p) = previous {
            text.push('\n');
            if starts_new_block(p, line) {
                text.push('\n');
            }
        }
        text.push_str(&line.text);
        previous = Some(line);
    }
    text
}

/// The flow moves up (a new column) or leaves a gap of more than two lines.
/// A line broken by hyphenation is never set apart from its continuation.
fn starts_new_block(previous: &TextLine, line: &TextLine) -> bool {
    if previous.text.ends_with('-') {
        return false;
    }
    let gap = line.top - previous.top;
    gap < -previous.size || gap > 2.5 * previous.size.max(line.size)
}

/// `lines` (top to bottom) in reading order; `depth` columns deep already.
fn in_reading_order<'a>(
    mut lines: Vec<&'a TextLine>,
    depth: usize,
    page_gutters: &[Gutter],
) -> Vec<&'a TextLine> {
    lines.sort_by(|a, b| a.top.total_cmp(&b.top));
    if depth >= MAX_NESTING {
        return lines;
    }
    let Some(gutter) = find_gutter(&lines, page_gutters) else {
        return lines;
    };
    let (mut left, mut right, mut across, mut strays) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for line in lines {
        match gutter.side_of(line) {
            Side::Left => left.push(line),
            Side::Right => right.push(line),
            Side::Across => across.push(line),
            Side::InGutter => strays.push(line),
        }
    }
    // Each line across the gutter closes a stretch of columns: what the
    // columns hold above it is read first, left column, then right, then
    // whatever stands in the gutter beside them.
    let mut ordered = Vec::new();
    let (mut left, mut right) = (left.into_iter().peekable(), right.into_iter().peekable());
    let mut strays = strays.into_iter().peekable();
    for line in across.into_iter().map(Some).chain([None]) {
        let above = |l: &&TextLine| line.is_none_or(|a| l.top < a.top);
        let stretch_left: Vec<&TextLine> = std::iter::from_fn(|| left.next_if(above)).collect();
        let stretch_right: Vec<&TextLine> = std::iter::from_fn(|| right.next_if(above)).collect();
        ordered.extend(in_reading_order(stretch_left, depth + 1, page_gutters));
        ordered.extend(in_reading_order(stretch_right, depth + 1, page_gutters));
        ordered.extend(std::iter::from_fn(|| strays.next_if(above)));
        ordered.extend(line);
    }
    ordered
}

/// A band of white between two columns: from the left column's right edge to
/// the right column's left edge.
#[derive(Clone, Copy, Debug)]
struct Band {
    left: f32,
    right: f32,
    /// How far a left column's line may run on past `left`: nothing, but at
    /// a page gutter a scan's wide word boxes (see `find_gutter`).
    overrun: f32,
}

/// Where a line lies against a gutter.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    Left,
    Right,
    /// Across the gutter into both columns: a title, a wide caption. It
    /// parts the columns above it from those below.
    Across,
    /// In the gutter without reaching into both columns: a page number
    /// centred under the columns, a stray mark. It parts nothing.
    InGutter,
}

impl Band {
    fn side_of(&self, line: &TextLine) -> Side {
        if line.left >= self.right - 0.5 {
            Side::Right
        } else if line.right <= self.left + 0.5 + self.overrun {
            Side::Left
        } else if line.left < self.left - line.size && line.right > self.right + line.size {
            Side::Across
        } else {
            Side::InGutter
        }
    }
}

/// The gutter between two columns of `lines`: a vertical band of white at
/// least a gutter wide that few lines cross or stand in, with a column of
/// lines on either side that share the page's height. None for a single
/// column.
///
/// A line that starts inside the band is one of the few across it, not the
/// edge of a right column: a page number or a short footer is often centred
/// on the page, which puts it in the gutter below the columns, and measuring
/// the gutter up to it would make every such page read as one column.
///
/// Where one of the page's gutters lies, the right column need only begin at
/// its far side: a scan's skewed lines leave the columns a point or two
/// apart line by line, though the page as a whole shows the gutter.
fn find_gutter(lines: &[&TextLine], page_gutters: &[Gutter]) -> Option<Band> {
    if lines.len() < MIN_LINES_FOR_COLUMNS {
        return None;
    }
    let mut sizes: Vec<f32> = lines.iter().map(|l| l.size).collect();
    sizes.sort_by(f32::total_cmp);
    let median_size = sizes[sizes.len() / 2];
    let min_gap = MIN_GUTTER_SIZES * median_size;
    let mut best: Option<(usize, f32, Band)> = None;
    // A gutter starts just right of some line's right edge. Edges within a
    // point of each other are one edge, the rightmost: a left column's lines
    // end a fraction of a point apart, and a gutter tried at the first of
    // them would count the rest as crossing it.
    let mut edges: Vec<f32> = lines.iter().map(|l| l.right).collect();
    edges.sort_by(|a, b| b.total_cmp(a));
    edges.dedup_by(|a, b| (*a - *b).abs() < 1.0);
    for edge in edges {
        let x = edge + 0.5;
        let required = page_gutters
            .iter()
            .find(|g| edge >= g.left - 1.0 && edge < g.right)
            .map_or(min_gap, |g| (g.right - 1.0 - edge).clamp(0.5, min_gap));
        // A line's last word box may run a little into the next column
        // where the gutter is that narrow.
        let overrun = if required < min_gap {
            0.3 * median_size
        } else {
            0.0
        };
        let (mut left, mut right) = (0usize, 0usize);
        let mut between: Vec<&TextLine> = Vec::new();
        let mut gap = f32::INFINITY;
        let (mut left_span, mut right_span) = (Extent::EMPTY, Extent::EMPTY);
        for line in lines {
            if line.left >= edge + required {
                right += 1;
                right_span.cover(line.top);
                gap = gap.min(line.left - edge);
            } else if line.right <= x + overrun {
                left += 1;
                left_span.cover(line.top);
            } else {
                between.push(line);
            }
        }
        // What stands wholly inside the band (a page number) crosses nothing.
        let crossing = between
            .iter()
            .filter(|l| l.left < edge || l.right > edge + gap)
            .count();
        let columns = left >= MIN_COLUMN_LINES
            && right >= MIN_COLUMN_LINES
            // Lines across a gutter are few: a title, a caption, a footer.
            && crossing * 4 <= left.min(right)
            && left_span.overlap(&right_span) >= 0.5 * left_span.len().min(right_span.len());
        let band = Band {
            left: edge,
            right: edge + gap,
            overrun,
        };
        if columns && best.is_none_or(|(c, g, _)| crossing < c || (crossing == c && gap > g)) {
            best = Some((crossing, gap, band));
        }
    }
    best.map(|(_, _, band)| band)
}

/// The vertical extent of a set of lines' baselines.
#[derive(Clone, Copy)]
struct Extent {
    top: f32,
    bottom: f32,
}

impl Extent {
    const EMPTY: Extent = Extent {
        top: f32::INFINITY,
        bottom: f32::NEG_INFINITY,
    };

    fn cover(&mut self, y: f32) {
        self.top = self.top.min(y);
        self.bottom = self.bottom.max(y);
    }

    fn len(&self) -> f32 {
        (self.bottom - self.top).max(0.0)
    }

    fn overlap(&self, other: &Extent) -> f32 {
        (self.bottom.min(other.bottom) - self.top.max(other.top)).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, left: f32, right: f32, top: f32) -> TextLine {
        TextLine {
            text: text.into(),
            size: 10.0,
            top,
            left,
            right,
            bold: false,
        }
    }

    /// A two-column page under a title that spans both columns, with a wide
    /// caption half way down; lines listed top to bottom as a page has them.
    fn two_column_page() -> Vec<TextLine> {
        let mut lines = vec![line("A Title Across the Page", 150.0, 450.0, 60.0)];
        for i in 0..5 {
            let top = 100.0 + 12.0 * i as f32;
            lines.push(line(&format!("left {i}"), 50.0, 290.0, top));
            lines.push(line(&format!("right {i}"), 310.0, 550.0, top));
        }
        lines.push(line(
            "Figure 1: a caption across both columns",
            60.0,
            540.0,
            180.0,
        ));
        for i in 5..8 {
            let top = 200.0 + 12.0 * i as f32;
            lines.push(line(&format!("left {i}"), 50.0, 290.0, top));
            lines.push(line(&format!("right {i}"), 310.0, 550.0, top));
        }
        lines
    }

    #[test]
    fn columns_are_read_one_after_the_other_between_lines_across_them() {
        let text = page_text(&two_column_page(), &[]);
        let order: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            order,
            [
                "A Title Across the Page",
                "left 0",
                "left 1",
                "left 2",
                "left 3",
                "left 4",
                "right 0",
                "right 1",
                "right 2",
                "right 3",
                "right 4",
                "Figure 1: a caption across both columns",
                "left 5",
                "left 6",
                "left 7",
                "right 5",
                "right 6",
                "right 7",
            ]
        );
        assert!(
            text.contains("left 4\n\nright 0"),
            "a new column is a new block: {text:?}"
        );
    }

    #[test]
    fn a_page_number_centred_in_the_gutter_does_not_merge_the_columns() {
        // The columns stand 18 pt apart (1.8 sizes) and the page number sits
        // in the middle of that band, below them, as on many USENIX pages.
        let mut lines = Vec::new();
        for i in 0..6 {
            let top = 100.0 + 12.0 * i as f32;
            lines.push(line(&format!("left {i}"), 72.0, 297.0, top));
            lines.push(line(&format!("right {i}"), 315.0, 540.0, top));
        }
        lines.push(line("2", 303.5, 308.5, 750.0));
        // And a mark in the gutter half way down parts nothing.
        lines.push(line("*", 304.0, 307.0, 130.0));
        let text = page_text(&lines, &[]);
        let order: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        assert_eq!(
            order,
            [
                "left 0", "left 1", "left 2", "left 3", "left 4", "left 5", "right 0", "right 1",
                "right 2", "right 3", "right 4", "right 5", "*", "2",
            ]
        );
    }

    #[test]
    fn a_left_column_whose_lines_end_a_fraction_apart_is_still_a_column() {
        // Justified lines end at 293.1, a few at 292.3: one edge, not two.
        let mut lines = Vec::new();
        for i in 0..10 {
            let top = 100.0 + 12.0 * i as f32;
            let end = if i % 4 == 0 { 292.26 } else { 293.1 };
            lines.push(line(&format!("left {i}"), 54.0, end, top));
            lines.push(line(&format!("right {i}"), 317.0, 556.1, top - 0.8));
        }
        let text = page_text(&lines, &[]);
        let order: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
        let expected: Vec<String> = (0..10)
            .map(|i| format!("left {i}"))
            .chain((0..10).map(|i| format!("right {i}")))
            .collect();
        assert_eq!(order, expected);
    }

    #[test]
    fn ragged_single_column_text_is_read_top_to_bottom() {
        let lines: Vec<TextLine> = (0..12)
            .map(|i| {
                let right = if i % 3 == 2 { 300.0 } else { 540.0 };
                line(&format!("line {i}"), 72.0, right, 100.0 + 12.0 * i as f32)
            })
            .collect();
        let text = page_text(&lines, &[]);
        let expected: Vec<String> = (0..12).map(|i| format!("line {i}")).collect();
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    }

    #[test]
    fn a_hyphenated_line_stays_next_to_its_continuation_in_the_next_column() {
        let mut lines = Vec::new();
        for i in 0..4 {
            let top = 100.0 + 12.0 * i as f32;
            let left = if i == 3 { "ends contin-" } else { "left" };
            lines.push(line(left, 50.0, 290.0, top));
            let right = if i == 0 { "uing here" } else { "right" };
            lines.push(line(right, 310.0, 550.0, top));
        }
        assert!(page_text(&lines, &[]).contains("ends contin-\nuing here"));
    }
}
