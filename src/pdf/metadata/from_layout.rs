//! Title and authors from page one's lines of type: the title is the largest
//! type near the top that is not page furniture (a journal header, an arXiv
//! stamp), with the lines that continue it; the authors are the name lines
//! between it and the abstract.

use super::furniture::{is_banner, is_furniture, without_section_label};
use super::names::{Reading, names_in_line};
use super::rejoin::Words;
use crate::pdf::layout::TextLine;

/// Type within this many points of the title's size is the title's.
const SAME_SIZE: f32 = 0.6;

/// A page with fewer characters than this is a cover page, not a page of text.
const COVER_PAGE_CHARS: usize = 600;

/// How far a title looks down the page: the front matter, not the body.
const FRONT_MATTER_LINES: usize = 45;

/// A paper's number or an identifier set large ("IMECE2023-XXXX", "RS-96-37"):
/// one word, with digits in it and no lower-case letter. A title that is one
/// word ("Dremel", "Word2Vec") has lower case.
fn is_identifier(text: &str) -> bool {
    let t = text.trim();
    !t.contains(char::is_whitespace)
        && t.chars().any(|c| c.is_ascii_digit())
        && !t.chars().any(char::is_lowercase)
}

/// The title and where it ends in `lines`.
pub struct Title {
    pub text: String,
    /// Index of the first line after the title.
    pub next: usize,
    pub size: f32,
}

pub fn title(lines: &[TextLine], words: &Words) -> Option<Title> {
    let body = body_size(lines)?;
    let front = front_matter(lines, body);
    let candidate = |(i, l): (usize, &TextLine)| {
        let letters = l.text.chars().filter(|c| c.is_alphabetic()).count();
        letters >= 4
            && l.size > body + 0.9
            && !is_furniture(&l.text)
            && !is_identifier(&l.text)
            && !is_heading_word(&l.text)
            && !is_logo(lines, i, body)
    };
    let size = lines[..front]
        .iter()
        .enumerate()
        .filter(|&c| candidate(c))
        .map(|(_, l)| l.size)
        .fold(0.0f32, f32::max);
    if size == 0.0 {
        return None;
    }
    let start = lines[..front]
        .iter()
        .enumerate()
        .position(|c| candidate(c) && (c.1.size - size).abs() <= SAME_SIZE)?;
    let mut parts = vec![lines[start].text.clone()];
    let mut last = start;
    // The title goes on in the lines of its size just below it; on a
    // two-column page the other column's lines come in between.
    while parts.len() < 5 {
        let below = lines
            .iter()
            .enumerate()
            .skip(last + 1)
            .take_while(|(_, l)| l.top - lines[last].top <= 2.2 * size);
        // The line right under the title, in its size, goes on with it even
        // when it names a venue ("... for AIAA Technical Conference
        // Papers"), unless it is a banner of its own (a link, a copyright).
        let adjacent = |i: usize, l: &TextLine| {
            i == last + 1 && l.top - lines[last].top <= 1.5 * size && !is_banner(&l.text)
        };
        let Some((i, line)) = below
            .filter(|(_, l)| (l.size - size).abs() <= SAME_SIZE)
            .find(|&(i, l)| !is_furniture(&l.text) || adjacent(i, l))
        else {
            break;
        };
        parts.push(line.text.clone());
        last = i;
    }
    // A subtitle set smaller just below, or after a title that ends in a
    // colon: part of the title, joined by a colon.
    let mut subtitle = Vec::new();
    while subtitle.len() < 2 {
        let Some((i, line)) = lines
            .iter()
            .enumerate()
            .skip(last + 1)
            .take_while(|(_, l)| l.top - lines[last].top <= 1.8 * size)
            .find(|(_, l)| is_subtitle(l, size, body))
        else {
            break;
        };
        subtitle.push(line.text.clone());
        last = i;
    }
    let next = last + 1;
    let mut text = without_section_label(&join_title(&parts, words)).to_owned();
    if !subtitle.is_empty() {
        let rest = join_title(&subtitle, words);
        if !text.ends_with([':', '—', '–', '-']) {
            text.push(':');
        }
        text.push(' ');
        text.push_str(&rest);
    }
    let words = text.split_whitespace().count();
    (1..=40)
        .contains(&words)
        .then_some(Title { text, next, size })
}

/// The authors: the name lines after the title, before the abstract. An
/// author block may interleave names with affiliations and emails; only lines
/// that read wholly as names count, and they must share one type size.
pub fn authors(lines: &[TextLine], title: &Title) -> Vec<String> {
    let start = title.next.min(lines.len());
    let block = &lines[start..(start + 24).min(lines.len())];
    let mut names = Vec::new();
    let mut size: Option<f32> = None;
    let mut i = 0;
    while i < block.len() {
        let line = &block[i];
        if is_heading_word(&line.text) {
            break;
        }
        if size.is_some_and(|s| (line.size - s).abs() > 0.4) {
            i += 1;
            continue;
        }
        // The first author line may trail off into an affiliation or a date;
        // later lines must read wholly as names and affiliations.
        let reading = if names.is_empty() {
            Reading::Leading
        } else {
            Reading::Strict
        };
        match names_in_band(block, i, reading) {
            Some((found, used)) => {
                size.get_or_insert(line.size);
                names.extend(found);
                i += used;
            }
            None if is_body_text(line, title) => break,
            None => i += 1,
        }
    }
    names
}

/// The names in `lines[at]`, or in it joined with the lines after it on the
/// same baseline: letter-spaced capitals ("CYNTHIA   DWORK   AND   NANCY")
/// are set so wide apart that each word is a line of its own. Only capitals
/// a few spaces apart join: author blocks side by side ("MIT" ... "FAIR")
/// stand much further apart. Returns the names and how many lines they took.
fn names_in_band(lines: &[TextLine], at: usize, reading: Reading) -> Option<(Vec<String>, usize)> {
    let first = &lines[at];
    let mut text = first.text.clone();
    for (used, line) in (1..).zip(&lines[at..]) {
        if used > 1 {
            let previous = &lines[at + used - 2];
            let letter_spaced = (line.top - first.top).abs() <= 0.3 * first.size
                && (line.size - first.size).abs() <= 0.4
                && line.left - previous.right <= 3.0 * first.size
                && !line.text.chars().any(char::is_lowercase)
                && !previous.text.chars().any(char::is_lowercase);
            if !letter_spaced || used > 6 {
                return None;
            }
            text.push(' ');
            text.push_str(&line.text);
        }
        if let Some(found) = names_in_line(&text, reading) {
            return Some((found, used));
        }
    }
    None
}

/// A line set smaller than a title of `size` but larger than the body,
/// that reads as words of a title (three or more, no names, no furniture):
/// its subtitle. Author lines are often set between the two sizes, so a
/// line of names is never one.
fn is_subtitle(line: &TextLine, size: f32, body: f32) -> bool {
    line.size < size - SAME_SIZE
        && line.size > body + 0.9
        && line.text.split_whitespace().count() >= 3
        && line.text.chars().filter(|c| c.is_alphabetic()).count() >= 12
        && !is_furniture(&line.text)
        && !is_heading_word(&line.text)
        && !line.text.contains([',', '*', '†', '‡'])
        && names_in_line(&line.text, Reading::Leading).is_none()
}

/// Lines before the abstract (or the introduction), at most a page's front.
/// A heading above all the large type is a running header ("Introduction"
/// over a chapter's title page), not the end of the front matter.
fn front_matter(lines: &[TextLine], body: f32) -> usize {
    let limit = lines.len().min(FRONT_MATTER_LINES);
    let first_large = lines[..limit]
        .iter()
        .position(|l| l.size > body + 0.9)
        .unwrap_or(0);
    lines[..limit]
        .iter()
        .enumerate()
        .skip(first_large)
        .find(|(_, l)| is_heading_word(&l.text))
        .map_or(limit, |(i, _)| i)
}

/// A report series' or publisher's mark set huge above the title ("BRICS"):
/// one word in capitals, with no line of its size after it, while a line of
/// several words in title-sized type (half as large again as the body) follows.
fn is_logo(lines: &[TextLine], at: usize, body: f32) -> bool {
    let line = &lines[at];
    let mut words = line.text.split_whitespace();
    let one_word = words.next().is_some() && words.next().is_none();
    if !one_word || line.text.chars().any(char::is_lowercase) {
        return false;
    }
    let after = &lines[at + 1..lines.len().min(at + 30)];
    let continued = after
        .first()
        .is_some_and(|next| (next.size - line.size).abs() <= SAME_SIZE);
    let titled_below = after
        .iter()
        .any(|l| l.size >= 1.5 * body && l.text.split_whitespace().count() >= 2);
    !continued && titled_below
}

/// "Abstract", "ABSTRACT.", "1 Introduction", "Abstract—We study…".
fn is_heading_word(text: &str) -> bool {
    let lower = text.to_lowercase();
    let lower = lower.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ');
    let squeezed: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
    ["abstract", "introduction", "summary"].iter().any(|h| {
        squeezed == *h
            || squeezed
                .strip_prefix(h)
                .is_some_and(|rest| rest.starts_with(|c: char| !c.is_alphanumeric()))
    })
}

/// A long line in the body's type: the text has begun.
fn is_body_text(line: &TextLine, title: &Title) -> bool {
    line.text.chars().count() > 90 && line.size < title.size
}

/// The type size most of the page is set in. A cover page with little text
/// (a report's title, authors and number) has no body to speak of: its
/// middle size stands in.
fn body_size(lines: &[TextLine]) -> Option<f32> {
    let total: usize = lines.iter().map(|l| l.text.chars().count()).sum();
    if total < COVER_PAGE_CHARS {
        let mut sizes: Vec<f32> = lines.iter().map(|l| l.size).collect();
        sizes.sort_by(f32::total_cmp);
        return sizes.get(sizes.len() / 2).copied();
    }
    let mut sizes: Vec<(f32, usize)> = Vec::new();
    for line in lines {
        let chars = line.text.chars().count();
        match sizes.iter_mut().find(|(s, _)| (s - line.size).abs() < 0.3) {
            Some(entry) => entry.1 += chars,
            None => sizes.push((line.size, chars)),
        }
    }
    sizes
        .into_iter()
        .max_by_key(|(_, chars)| *chars)
        .map(|(s, _)| s)
}

/// A title's lines joined: "Write-" + "Optimization" stays hyphenated,
/// "optimi-" + "zation" becomes one word, and so does "RE-" + "THINKING"
/// when the paper spells "rethinking" and never "re-thinking".
fn join_title(parts: &[String], words: &Words) -> String {
    let mut text = String::new();
    for part in parts {
        if text.is_empty() {
            text.push_str(part);
        } else if let Some(head) = text.strip_suffix('-') {
            let before = head.rsplit(char::is_whitespace).next().unwrap_or("");
            let after = part.split_whitespace().next().unwrap_or("");
            let broken_word =
                head.ends_with(char::is_lowercase) && part.starts_with(char::is_lowercase);
            if broken_word || words.spelled_only_whole(before, after) {
                text.pop();
            }
            text.push_str(part);
        } else {
            text.push(' ');
            text.push_str(part);
        }
    }
    // A glyph the title's font left unmapped: a ligature read as a symbol
    // ("A Simpli#ed Proof"), dropped ("Ecient"), or a letter read as a
    // space ("Fun tional").
    let mut mended: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let (core, tail) = split_trailing_punctuation(word);
        if let Some(before) = mended.last_mut()
            && let Some(whole) = words.mended_gap(before, core)
        {
            *before = format!("{whole}{tail}");
            continue;
        }
        mended.push(
            words
                .mended_ligature(word)
                .or_else(|| words.mended_dropped_ligature(word))
                .unwrap_or_else(|| word.to_owned()),
        );
    }
    mended.join(" ")
}

/// "tional:" -> ("tional", ":").
fn split_trailing_punctuation(word: &str) -> (&str, &str) {
    let core = word.trim_end_matches(|c: char| !c.is_alphanumeric());
    (core, &word[core.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, size: f32, top: f32) -> TextLine {
        TextLine {
            text: text.into(),
            size,
            top,
            left: 72.0,
            right: 500.0,
            bold: false,
        }
    }

    fn page() -> Vec<TextLine> {
        let mut lines = vec![
            line(
                "Journal of Computer and System Sciences 55, 1997",
                8.0,
                40.0,
            ),
            line("Can Datalog Be", 16.0, 100.0),
            line("Approximated?", 16.0, 118.0),
            line("Surajit Chaudhuri", 10.0, 150.0),
            line("Microsoft Research, One Microsoft Way", 8.0, 162.0),
            line("Phokion G. Kolaitis*", 10.0, 190.0),
            line(
                "Computer Science Department, University of California",
                8.0,
                202.0,
            ),
            line("Abstract", 10.0, 240.0),
        ];
        for i in 0..30 {
            lines.push(line(
                "In this paper, we investigate whether recursive Datalog predicates can be approximated.",
                9.0,
                260.0 + 11.0 * i as f32,
            ));
        }
        lines
    }

    #[test]
    fn the_title_is_the_largest_type_and_the_authors_the_name_lines_under_it() {
        let lines = page();
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(title.text, "Can Datalog Be Approximated?");
        assert_eq!(
            authors(&lines, &title),
            vec!["Surajit Chaudhuri", "Phokion G. Kolaitis"]
        );
    }

    #[test]
    fn a_running_header_above_the_title_does_not_end_the_front_matter() {
        let mut lines = vec![
            line("Introduction", 8.0, 50.0),
            line("Java: an Overview", 30.0, 116.0),
            line("James Gosling, February 1995", 12.0, 130.0),
            line("Introduction", 14.0, 217.0),
        ];
        for i in 0..20 {
            lines.push(line(
                "JAVA is a programming language and environment that was designed to solve",
                10.0,
                230.0 + 12.0 * i as f32,
            ));
        }
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(title.text, "Java: an Overview");
        assert_eq!(authors(&lines, &title), vec!["James Gosling"]);
    }

    #[test]
    fn a_title_goes_on_past_the_other_columns_lines() {
        let mut lines = vec![
            line("Self-stabilizing Systems in", 19.2, 138.7),
            line(
                "We consider a connected graph in which the major-",
                9.6,
                147.1,
            ),
            line("Spite of Distributed Control", 19.2, 156.5),
            line("Edsger W. Dijkstra", 9.6, 181.2),
        ];
        for i in 0..20 {
            lines.push(line(
                "ity of the possible edges are missing and a finite state",
                9.6,
                190.0 + 12.0 * i as f32,
            ));
        }
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(
            title.text,
            "Self-stabilizing Systems in Spite of Distributed Control"
        );
        assert_eq!(authors(&lines, &title), vec!["Edsger W. Dijkstra"]);
    }

    fn with_body(mut lines: Vec<TextLine>) -> Vec<TextLine> {
        let below = lines.last().map_or(0.0, |l| l.top);
        for i in 0..20 {
            lines.push(line(
                "We study how a priority queue can be made purely functional and fast.",
                10.0,
                below + 20.0 + 12.0 * i as f32,
            ));
        }
        lines
    }

    #[test]
    fn a_series_mark_set_huge_above_the_title_is_not_the_title() {
        let lines = with_body(vec![
            line("BRICS", 117.7, 102.2),
            line("Basic Research in Computer Science", 14.4, 131.7),
            line("Optimal Purely Functional", 24.9, 300.6),
            line("Priority Queues", 24.9, 330.4),
            line("Gerth Stølting Brodal", 14.4, 487.4),
            line("Chris Okasaki", 14.4, 505.4),
        ]);
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(title.text, "Optimal Purely Functional Priority Queues");
        assert_eq!(
            authors(&lines, &title),
            vec!["Gerth Stølting Brodal", "Chris Okasaki"]
        );
        // A one-word title in capitals is still a title.
        let lines = with_body(vec![
            line("DYNAMO", 24.0, 100.0),
            line("Ada Lovelace", 12.0, 130.0),
        ]);
        assert_eq!(
            super::title(&lines, &Words::of(&[])).unwrap().text,
            "DYNAMO"
        );
    }

    #[test]
    fn letter_spaced_capitals_read_as_names_but_blocks_side_by_side_do_not_join() {
        let at = |text: &str, left: f32, right: f32, top: f32| TextLine {
            left,
            right,
            ..line(text, 8.9, top)
        };
        let lines = with_body(vec![
            line("Consensus in the Presence of Partial Synchrony", 14.9, 69.8),
            at("CYNTHIA", 62.9, 96.3, 108.0),
            at("DWORK", 115.0, 140.6, 108.0),
            at("AND NANCY", 160.8, 215.2, 108.0),
            at("LYNCH", 232.8, 258.0, 108.0),
            at("Massachusetts Institute of Technology", 61.9, 301.5, 126.7),
            at("AND", 61.9, 78.7, 146.6),
            at("LARRY", 61.7, 86.9, 166.8),
            at("STOCKMEYER", 102.2, 148.1, 166.8),
            at("MIT", 114.0, 132.2, 180.0),
            at("FAIR", 227.9, 249.9, 180.0),
        ]);
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(
            authors(&lines, &title),
            vec!["Cynthia Dwork", "Nancy Lynch", "Larry Stockmeyer"]
        );
    }

    #[test]
    fn a_report_cover_page_has_its_title_over_its_authors() {
        let lines = vec![
            line("FrTime: Functional Reactive", 14.6, 334.8),
            line("Programming in PLT Scheme", 14.5, 346.8),
            line("Gregory Cooper and Shriram Krishnamurthi", 13.0, 374.5),
            line("Department of Computer Science", 10.6, 402.4),
            line("Brown University", 10.6, 414.2),
            line("Providence, Rhode Island 02912", 10.2, 426.2),
            line("CS-03-20", 11.5, 454.0),
            line("April 2004", 10.1, 466.0),
        ];
        let title = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(
            title.text,
            "FrTime: Functional Reactive Programming in PLT Scheme"
        );
        assert_eq!(
            authors(&lines, &title),
            vec!["Gregory Cooper", "Shriram Krishnamurthi"]
        );
    }

    #[test]
    fn a_subtitle_set_smaller_below_the_title_is_part_of_it_and_names_are_not() {
        let lines = with_body(vec![
            line("Deep Kernel Learning", 17.2, 100.0),
            line(
                "Scalable Gaussian Processes for Large Datasets",
                14.3,
                122.0,
            ),
            line("Andrew Gordon Wilson and Zhiting Hu", 12.0, 150.0),
        ]);
        let found = title(&lines, &Words::of(&[])).unwrap();
        assert_eq!(
            found.text,
            "Deep Kernel Learning: Scalable Gaussian Processes for Large Datasets"
        );
        // Names set between the two sizes are authors, not a subtitle.
        let lines = with_body(vec![
            line("Deep Kernel Learning", 17.2, 100.0),
            line("Andrew Gordon Wilson and Zhiting Hu", 14.3, 122.0),
        ]);
        assert_eq!(
            title(&lines, &Words::of(&[])).unwrap().text,
            "Deep Kernel Learning"
        );
    }

    #[test]
    fn a_section_label_or_a_workshop_line_above_the_title_is_not_it() {
        let lines = with_body(vec![
            line("RESEARCH ARTICLE", 18.0, 60.0),
            line("Proceedings of the 2nd Workshop on Evaluation", 18.0, 80.0),
            line("Sleep Spindles and Memory in Older Adults", 18.0, 110.0),
        ]);
        assert_eq!(
            title(&lines, &Words::of(&[])).unwrap().text,
            "Sleep Spindles and Memory in Older Adults"
        );
        let glued = with_body(vec![line(
            "RESEARCH ARTICLE Sleep Spindles and Memory in Older Adults",
            18.0,
            110.0,
        )]);
        assert_eq!(
            title(&glued, &Words::of(&[])).unwrap().text,
            "Sleep Spindles and Memory in Older Adults"
        );
    }

    #[test]
    fn a_page_in_one_size_has_no_layout_title() {
        let lines: Vec<TextLine> = (0..20)
            .map(|i| {
                line(
                    "Plain text of a scanned letter",
                    10.0,
                    50.0 + 12.0 * i as f32,
                )
            })
            .collect();
        assert!(title(&lines, &Words::of(&[])).is_none());
    }

    #[test]
    fn joins_a_title_broken_over_lines() {
        assert_eq!(
            join_title(&["Write-".into(), "Optimization".into()], &Words::of(&[])),
            "Write-Optimization"
        );
        assert_eq!(
            join_title(&["optimi-".into(), "zation".into()], &Words::of(&[])),
            "optimization"
        );
        assert_eq!(
            join_title(&["Paxos".into(), "Made Simple".into()], &Words::of(&[])),
            "Paxos Made Simple"
        );
        // A capitalised break: the paper's own spelling decides.
        let paper = Words::of(&["We argue that rethinking generalization is needed.".into()]);
        assert_eq!(
            join_title(
                &["REQUIRES RE-".into(), "THINKING GENERALIZATION".into()],
                &paper
            ),
            "REQUIRES RETHINKING GENERALIZATION"
        );
        let paper = Words::of(&["Self-training and rethinking; self training.".into()]);
        assert_eq!(
            join_title(&["SELF-".into(), "TRAINING".into()], &paper),
            "SELF-TRAINING",
            "the paper also spells it with the hyphen"
        );
    }
}
