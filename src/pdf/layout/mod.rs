//! The lines of type on a page, with their size and position: what plain text
//! loses and metadata needs (a title is the largest type near the top of page
//! one; its authors are the lines between it and the abstract). Built in the
//! extraction worker from pdf_oxide's spans, then carried with the text.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

mod gutters;
pub use gutters::{Gutter, gutters};

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

/// How many lines of page one are kept for metadata: enough for any title
/// block, and the size of the cache entry stays small.
pub const MAX_LINES: usize = 120;

/// A gap wider than this many type sizes between two spans on one baseline is
/// a column gutter or a gap between author blocks, not a word space.
const COLUMN_GAP: f32 = 1.5;

/// The size of type whose glyphs advance by `advances` points, for producers
/// that give no usable font size: the median over its letters and digits of
/// each one's advance over its advance at one point in a typical serif face
/// (thousandths of an em, after Times Roman's metrics). The median keeps
/// estimates within a few percent of each other across spans in one face,
/// which is what telling a title from body text needs; spaces, stretched by
/// justification, are left out.
pub fn size_from_advances(glyphs: impl Iterator<Item = (char, f32)>) -> Option<f32> {
    let mut ratios: Vec<f32> = glyphs
        .filter(|(c, advance)| c.is_alphanumeric() && *advance > 0.0)
        .map(|(c, advance)| advance * 1000.0 / f32::from(advance_per_mille(c)))
        .collect();
    if ratios.is_empty() {
        return None;
    }
    ratios.sort_by(f32::total_cmp);
    Some(ratios[ratios.len() / 2])
}

fn advance_per_mille(c: char) -> u16 {
    match c {
        'i' | 'j' | 'l' | 't' => 278,
        'f' | 'r' => 333,
        's' => 389,
        'a' | 'c' | 'e' | 'z' => 444,
        'm' => 778,
        'w' => 722,
        'I' => 333,
        'J' => 389,
        'F' | 'P' | 'S' => 556,
        'E' | 'L' | 'T' | 'Z' => 611,
        'B' | 'C' | 'R' => 667,
        'M' => 889,
        'W' => 944,
        'A'..='Z' => 722,
        ' ' => 250,
        '.' | ',' | ':' | ';' | '\'' => 250,
        '-' | '(' | ')' => 333,
        c if c.is_alphanumeric() => 500,
        _ => 400,
    }
}

/// Group spans into lines, top of the page first, then left to right.
/// `page_top` is the page's top edge in the spans' coordinates. A line is cut
/// where a wide gap parts its spans, and at any of the page's `gutters`.
pub fn lines_from_spans(spans: Vec<Span>, page_top: f32, gutters: &[Gutter]) -> Vec<TextLine> {
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
            let small = span.size < main * 0.85;
            // Small type off the baseline belongs to it: a raised mark up to
            // about two thirds of a size above, a subscript (α₁, x_n) up to
            // almost half a size below; the next line is a whole size away.
            let (below, above) = if small {
                (0.45 * main, 0.7 * main)
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
        .flat_map(|group| split_columns(group, gutters))
        .map(|g| to_line(g, page_top))
        .filter(|l| !l.text.is_empty())
        .collect();
    lines.sort_by(|a, b| a.top.total_cmp(&b.top));
    left_to_right_in_bands(lines)
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
fn split_columns(mut spans: Vec<Span>, gutters: &[Gutter]) -> Vec<Vec<Span>> {
    spans.sort_by(|a, b| a.x.total_cmp(&b.x));
    let size = dominant(&spans);
    let mut parts: Vec<Vec<Span>> = Vec::new();
    for span in spans {
        let joins = parts.last().and_then(|p| p.last()).is_some_and(|last| {
            // The span before the gutter may end inside it, even a little
            // past it: a scan's word boxes run wide. It must start left of
            // the gutter and not reach into the next column as a title does.
            let across_gutter = gutters.iter().any(|g| {
                last.x < g.left
                    && last.x + last.width <= g.right + 0.3 * size
                    && span.x >= g.right - 1.0
            });
            span.x - right_edge(last) <= COLUMN_GAP * size && !across_gutter
        });
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
    let spans = with_lone_glyphs_placed(spans);
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

/// The combining form of a spacing accent that typesetters draw as a glyph of
/// its own over a letter (TeX's `\\'E` is an acute, then an E).
fn combining_form(accent: char) -> Option<char> {
    Some(match accent {
        '\u{00B4}' | '\u{02CA}' => '\u{0301}',
        '`' | '\u{02CB}' => '\u{0300}',
        '^' | '\u{02C6}' => '\u{0302}',
        '~' | '\u{02DC}' => '\u{0303}',
        '\u{00A8}' => '\u{0308}',
        '\u{00AF}' | '\u{02C9}' => '\u{0304}',
        '\u{00B8}' => '\u{0327}',
        '\u{02DA}' => '\u{030A}',
        '\u{02C7}' => '\u{030C}',
        '\u{02D8}' => '\u{0306}',
        '\u{02D9}' => '\u{0307}',
        '\u{02DD}' => '\u{030B}',
        _ => return None,
    })
}

/// A line's spans with each lone glyph drawn over another span put in its
/// place there: an accent on the letter under it ("Altınbu¨ken" reads
/// "Altınbüken"), a letter in the gap left for it ("EV NT" with an "E"
/// drawn into the gap reads "EVENT"). A glyph over nothing stays.
fn with_lone_glyphs_placed(mut spans: Vec<Span>) -> Vec<Span> {
    let mut i = 0;
    while i < spans.len() {
        let mut chars = spans[i].text.trim().chars();
        let Some(glyph) = chars.next().filter(|_| chars.next().is_none()) else {
            i += 1;
            continue;
        };
        let accent = combining_form(glyph);
        if accent.is_none() && !glyph.is_alphabetic() {
            i += 1;
            continue;
        }
        let centre = spans[i].x + spans[i].width / 2.0;
        let under = (0..spans.len()).filter(|&j| j != i).find_map(|j| {
            let s = &spans[j];
            let letters: Vec<char> = s.text.chars().collect();
            if !(s.x <= centre && centre <= s.x + s.width) || letters.len() < 2 {
                return None;
            }
            let share = (centre - s.x) / s.width.max(f32::EPSILON);
            let at = ((share * letters.len() as f32) as usize).min(letters.len() - 1);
            let fits = match accent {
                Some(_) => letters[at].is_alphabetic(),
                None => letters[at] == ' ',
            };
            fits.then_some((j, letters, at))
        });
        let Some((j, letters, at)) = under else {
            i += 1;
            continue;
        };
        let mut text: String = letters[..at].iter().collect();
        match accent {
            Some(accent) => {
                text.push(letters[at]);
                text.push(accent);
            }
            None => text.push(glyph),
        }
        text.extend(&letters[at + 1..]);
        spans[j].text = text.nfc().collect();
        spans.remove(i);
    }
    spans
}

/// A span of `text` at (`x`, `y`) in type of `size`, as tests build pages.
#[cfg(test)]
pub(crate) fn test_span(text: &str, x: f32, y: f32, size: f32) -> Span {
    Span {
        text: text.into(),
        x,
        y,
        width: text.len() as f32 * size * 0.5,
        size,
        bold: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_span as span;

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
        let lines = lines_from_spans(spans, 800.0, &[]);
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
    fn a_subscript_set_below_the_baseline_stays_on_its_line() {
        let spans = vec![
            span("generic variables α", 100.0, 700.0, 10.0),
            span("1", 190.0, 696.4, 7.0),
            span(". . . α", 195.0, 700.0, 10.0),
            span("n", 230.0, 696.4, 7.0),
            span("and the next line of text", 100.0, 688.0, 10.0),
        ];
        let lines = lines_from_spans(spans, 800.0, &[]);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts,
            ["generic variables α1. . . αn", "and the next line of text"]
        );
    }

    #[test]
    fn a_wide_gap_on_one_baseline_makes_two_lines() {
        let spans = vec![
            span("Left column", 50.0, 500.0, 10.0),
            span("Right column", 320.0, 500.0, 10.0),
        ];
        let lines = lines_from_spans(spans, 800.0, &[]);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].text, "Left column");
        assert_eq!(lines[1].left, 320.0);
    }

    #[test]
    fn an_accent_drawn_over_a_letter_joins_it() {
        let mut accent = span("\u{a8}", 131.0, 700.0, 10.0);
        accent.width = 3.0;
        let mut base = span("Altınbu", 100.0, 700.0, 10.0);
        base.width = 35.0;
        let spans = vec![base, accent, span("ken", 135.0, 700.0, 10.0)];
        let lines = lines_from_spans(spans, 800.0, &[]);
        assert_eq!(lines[0].text, "Altınbüken");
    }

    #[test]
    fn a_letter_drawn_into_a_gap_left_for_it_fills_the_gap() {
        let mut word = span("EV NT", 65.0, 617.5, 100.0);
        word.width = 250.4;
        let mut letter = span("E", 167.9, 624.5, 90.0);
        letter.width = 41.6;
        let mut rest = span("UALLY", 315.6, 617.5, 100.0);
        rest.width = 240.0;
        let lines = lines_from_spans(vec![word, letter, rest], 800.0, &[]);
        assert_eq!(lines[0].text, "EVENTUALLY");
        // A letter beside a word, over no gap of its own, stays where it is.
        let lines = lines_from_spans(
            vec![
                span("Paxos", 100.0, 700.0, 10.0),
                span("X", 130.0, 700.0, 10.0),
            ],
            800.0,
            &[],
        );
        assert_eq!(lines[0].text, "Paxos X");
    }

    /// A two-column page whose gutter (12 pt) is narrower than the 1.5 type
    /// sizes that part a line by itself, under a title across both columns.
    #[test]
    fn sizes_read_from_advances_tell_a_title_from_its_authors() {
        // Advances (points) of three spans of a 1990s TeX paper whose font
        // size reads 0.1 pt: two of its title, one author's name.
        let size = |text: &str, advances: &[f32]| {
            size_from_advances(text.chars().zip(advances.iter().copied())).unwrap()
        };
        let functional = size(
            "Functional",
            &[11.04, 9.96, 9.96, 8.64, 6.96, 4.56, 9.72, 9.96, 9.36, 4.56],
        );
        let programming = size(
            "Programming",
            &[
                12.36, 6.6, 9.72, 9.72, 6.6, 9.36, 15.36, 15.36, 4.56, 9.96, 9.72,
            ],
        );
        let author = size(
            "Erik Meijer",
            &[
                8.4, 4.8, 3.36, 6.84, 4.56, 12.24, 6.24, 3.36, 3.72, 6.24, 4.8,
            ],
        );
        assert!(
            (functional - programming).abs() < 0.6,
            "{functional} {programming}"
        );
        assert!(author < 0.8 * functional, "{author} {functional}");
        assert_eq!(size_from_advances(" ".chars().zip([3.0])), None);
    }
}
