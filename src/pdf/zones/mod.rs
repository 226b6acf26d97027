//! A paper's zones: every line of its text is page furniture (running heads,
//! page numbers, banners, marks), the title block (title, authors,
//! affiliations, addresses, e-mails, dates, keywords), the abstract, the body,
//! acknowledgements, references or an appendix.
//!
//! The text itself is kept as printed (quotes are checked against the page as
//! printed); the zones say which lines are the paper's own argument. What
//! reads a paper for its content (summaries, key points, evidence, passages,
//! the model's reader) reads [`Zones::content`] or [`Zones::for_reader`],
//! where furniture is gone, so a sentence that a running head interrupts is
//! whole again, and the title block and the references are not there to be
//! quoted.

mod furniture;
mod headings;

use serde::{Deserialize, Serialize};

use super::metadata::is_cover_sheet;
use headings::{Heading, heading, inline_abstract, is_affiliation, is_author_note, is_prose};

/// What a line of a paper is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Zone {
    Furniture,
    TitleBlock,
    Abstract,
    Body,
    Acknowledgements,
    References,
    Appendix,
}

impl Zone {
    /// The paper's own content: what summaries and evidence come from.
    pub fn is_content(self) -> bool {
        matches!(self, Zone::Abstract | Zone::Body | Zone::Appendix)
    }

    fn label(self) -> &'static str {
        match self {
            Zone::Furniture => "page furniture",
            Zone::TitleBlock => "title block",
            Zone::Abstract => "abstract",
            Zone::Body => "body",
            Zone::Acknowledgements => "acknowledgements",
            Zone::References => "references",
            Zone::Appendix => "appendix",
        }
    }
}

/// Words a note on the authors runs to, at most, when no blank line ends it.
const MAX_NOTE_WORDS: usize = 80;

/// How far into page one the title block may reach before the first
/// section must have begun, in lines: past it, a paper with no heading is
/// taken as all body rather than all title block.
const MAX_TITLE_BLOCK_LINES: usize = 60;

/// Pages after the first that the front matter may still be on: a report
/// series' cover and its inside cover come before the title page.
const FRONT_PAGES_AFTER_FIRST: usize = 2;

/// How far into the paper an abstract's heading may be, in lines.
const MAX_FRONT_LINES: usize = 160;

/// The zone of every line of a paper: `lines[page][line]`, 0-based, over the
/// lines of each page's text as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Zones {
    lines: Vec<Vec<Zone>>,
}

/// One run of lines of a zone, 1-based pages and lines, both ends included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub zone: Zone,
    pub from_page: usize,
    pub from_line: usize,
    pub to_page: usize,
    pub to_line: usize,
}

impl Zones {
    /// The zones of a paper's pages.
    pub fn of(pages: &[String]) -> Self {
        let text: Vec<Vec<&str>> = pages.iter().map(|p| p.lines().collect()).collect();
        let mut lines: Vec<Vec<Zone>> = text
            .iter()
            .map(|page| vec![Zone::Body; page.len()])
            .collect();
        // A repository's cover sheet in front is not the paper's.
        let first = match pages {
            [cover, _, ..] if is_cover_sheet(cover) => {
                lines[0].fill(Zone::Furniture);
                1
            }
            _ => 0,
        };
        let mut furniture = vec![vec![true; text.first().map_or(0, Vec::len)]; first];
        furniture.extend(furniture::furniture(&text[first..]));
        let order: Vec<(usize, usize)> = (first..text.len())
            .flat_map(|p| (0..text[p].len()).map(move |l| (p, l)))
            .filter(|&(p, l)| !furniture[p][l] && !text[p][l].trim().is_empty())
            .collect();
        let line = |i: usize| text[order[i].0][order[i].1];
        let body_from = front_matter(&order, &line, &mut lines);
        back_matter(&order, &line, body_from, &mut lines);
        if let Some(&(page, _)) = order.first() {
            author_notes(&text[page], &mut lines[page]);
        }
        for (p, marks) in furniture.iter().enumerate() {
            for (l, &is) in marks.iter().enumerate() {
                if is {
                    lines[p][l] = Zone::Furniture;
                }
            }
        }
        Self { lines }
    }

    /// The zone of a line (0-based page and line), if the paper has it.
    pub fn zone(&self, page: usize, line: usize) -> Option<Zone> {
        self.lines.get(page)?.get(line).copied()
    }

    /// The pages with only their content lines (abstract, body, appendix),
    /// page for page: furniture, the title block, acknowledgements and the
    /// references are left out, and an abstract's heading word with them.
    /// Section headings stay: they are the paper's, and [`is_heading`]
    /// tells them from its sentences.
    pub fn content(&self, pages: &[String]) -> Vec<String> {
        self.render(pages, |zone, _| zone.is_content().then_some(None))
    }

    /// The pages as the model's reader gets them: furniture and the
    /// references left out, each zone opened by a line naming it
    /// ("--- abstract ---"), so the reader knows the title block from the
    /// paper's own words.
    pub fn for_reader(&self, pages: &[String]) -> Vec<String> {
        let mut open: Option<Zone> = None;
        self.render(pages, move |zone, _| {
            if zone == Zone::Furniture {
                return None;
            }
            let label = (open != Some(zone)).then(|| zone_line(zone));
            open = Some(zone);
            if zone == Zone::References {
                // The references' label alone stands for all their lines.
                return label.map(Some);
            }
            Some(label)
        })
    }

    /// Runs of lines of one zone, furniture given as runs of its own.
    pub fn spans(&self) -> Vec<Span> {
        let mut spans: Vec<Span> = Vec::new();
        for (p, page) in self.lines.iter().enumerate() {
            for (l, &zone) in page.iter().enumerate() {
                match spans.last_mut() {
                    Some(s) if s.zone == zone => {
                        s.to_page = p + 1;
                        s.to_line = l + 1;
                    }
                    _ => spans.push(Span {
                        zone,
                        from_page: p + 1,
                        from_line: l + 1,
                        to_page: p + 1,
                        to_line: l + 1,
                    }),
                }
            }
        }
        spans
    }

    /// Each page rebuilt from the lines `keep` keeps: `None` leaves a line
    /// out, `Some(None)` keeps it, `Some(Some(label))` puts `label` on a line
    /// before it (and keeps the line unless its zone is the references).
    fn render(
        &self,
        pages: &[String],
        mut keep: impl FnMut(Zone, &str) -> Option<Option<String>>,
    ) -> Vec<String> {
        pages
            .iter()
            .enumerate()
            .map(|(p, page)| {
                let mut out: Vec<String> = Vec::new();
                for (l, line) in page.lines().enumerate() {
                    let zone = self.zone(p, l).unwrap_or(Zone::Body);
                    if line.trim().is_empty() {
                        if zone != Zone::Furniture && zone != Zone::References {
                            out.push(String::new());
                        }
                        continue;
                    }
                    let Some(label) = keep(zone, line) else {
                        continue;
                    };
                    if let Some(label) = label {
                        out.push(label);
                    }
                    if zone == Zone::References {
                        continue;
                    }
                    let text = match (zone, inline_abstract(line)) {
                        (Zone::Abstract, Some(rest)) => rest,
                        _ if zone == Zone::Abstract && heading(line) == Some(Heading::Abstract) => {
                            continue;
                        }
                        _ => line,
                    };
                    out.push(text.to_owned());
                }
                let joined = out.join("\n");
                joined.trim_matches('\n').to_owned()
            })
            .collect()
    }
}

/// A heading line of a section: numbered, or one of the named ones. What
/// splits text into sentences ends a sentence at one, so that a heading
/// does not run into the sentence after it ("1 Introduction The package").
pub fn is_heading(line: &str) -> bool {
    matches!(
        heading(line),
        Some(
            Heading::Introduction
                | Heading::Section
                | Heading::Lettered
                | Heading::Appendix
                | Heading::Abstract
        )
    )
}

/// The line that opens a zone in the reader's text.
fn zone_line(zone: Zone) -> String {
    match zone {
        Zone::References => "--- references (not shown) ---".to_owned(),
        _ => format!("--- {} ---", zone.label()),
    }
}

/// Mark the title block and the abstract at the start of `order` (the
/// paper's non-furniture lines in reading order); returns where the body
/// begins in `order`.
fn front_matter<'a>(
    order: &[(usize, usize)],
    line: &dyn Fn(usize) -> &'a str,
    lines: &mut [Vec<Zone>],
) -> usize {
    let Some(&(first_page, _)) = order.first() else {
        return 0;
    };
    let on_front = |i: usize| order[i].0 <= first_page + FRONT_PAGES_AFTER_FIRST;
    let limit = order.len().min(MAX_FRONT_LINES);
    let heads: Vec<(usize, Heading)> = (0..limit)
        .filter(|&i| on_front(i))
        .filter_map(|i| {
            let h =
                heading(line(i)).or_else(|| inline_abstract(line(i)).map(|_| Heading::Abstract));
            h.map(|h| (i, h))
        })
        .collect();
    // The abstract comes before any section: an "Abstract" after one is a
    // section's name, not the paper's abstract.
    let first_section = heads
        .iter()
        .find(|(_, h)| matches!(h, Heading::Introduction | Heading::Section))
        .map_or(usize::MAX, |(i, _)| *i);
    let abstract_at = heads
        .iter()
        .find(|(i, h)| *h == Heading::Abstract && *i < first_section)
        .map(|(i, _)| *i);
    let section_at = heads
        .iter()
        .find(|(i, h)| {
            matches!(
                h,
                Heading::Introduction | Heading::Section | Heading::Contents
            ) && abstract_at.is_none_or(|a| *i > a)
        })
        .map(|(i, _)| *i);
    // Without an "Abstract" heading, the title block is what comes before
    // the first prose (a heading or a banner set above the title among
    // it), and that prose is an unheaded abstract when a section follows
    // it (ACM's small format, a letter's opening paragraph).
    let (title_end, abstract_start) = match abstract_at {
        Some(a) => (a, Some(a)),
        None => {
            let prose = (0..limit.min(MAX_TITLE_BLOCK_LINES)).find(|&i| is_prose(line(i)));
            match (prose, section_at) {
                (Some(p), Some(s)) if p < s => (p, Some(p)),
                (Some(p), _) => (p, None),
                (None, Some(s)) if s <= MAX_TITLE_BLOCK_LINES => (s, None),
                _ => (0, None),
            }
        }
    };
    let set = |lines: &mut [Vec<Zone>], i: usize, zone: Zone| {
        let (p, l) = order[i];
        lines[p][l] = zone;
    };
    for i in 0..title_end {
        set(lines, i, Zone::TitleBlock);
    }
    let Some(start) = abstract_start else {
        return title_end;
    };
    let end = section_at.unwrap_or_else(|| {
        // No section heading: the abstract is the paragraph that holds it.
        (start + 1..order.len())
            .find(|&i| order[i].0 != order[start].0)
            .unwrap_or(order.len())
    });
    let mut zone = Zone::Abstract;
    for i in start..end {
        // Keywords, index terms and ACM's reference format are front matter
        // wherever they sit among the abstract's lines.
        if heading(line(i)) == Some(Heading::Keywords) {
            zone = Zone::TitleBlock;
        }
        set(lines, i, zone);
    }
    end
}

/// Notes on the authors at page one's foot (addresses, "∗Corresponding
/// author", equal contribution) are the title block's, wherever the column
/// order put them: each runs to a blank line or a heading. So is an
/// affiliation or address line anywhere on page one.
fn author_notes(text: &[&str], zones: &mut [Zone]) {
    let mut i = 0;
    while i < text.len() {
        if is_affiliation(text[i]) {
            zones[i] = Zone::TitleBlock;
        }
        // A scan's text layer may break the opener itself over two lines
        // ("Authors’" / "addresses:").
        let opens = is_author_note(text[i])
            || text
                .get(i + 1)
                .is_some_and(|next| is_author_note(&format!("{} {next}", text[i])));
        if !opens {
            i += 1;
            continue;
        }
        zones[i] = Zone::TitleBlock;
        let mut words = text[i].split_whitespace().count();
        let mut j = i + 1;
        while j < text.len()
            && words < MAX_NOTE_WORDS
            && !text[j].trim().is_empty()
            && heading(text[j]).is_none()
            && !is_author_note(text[j])
        {
            zones[j] = Zone::TitleBlock;
            words += text[j].split_whitespace().count();
            j += 1;
        }
        i = j;
    }
}

/// Mark acknowledgements, references, appendices and an author block at the
/// end, from `body_from` on.
fn back_matter<'a>(
    order: &[(usize, usize)],
    line: &dyn Fn(usize) -> &'a str,
    body_from: usize,
    lines: &mut [Vec<Zone>],
) {
    // A heading "References" in the paper's first part is a table of
    // contents' entry or a sentence's start, not the list.
    let late = order.len() * 2 / 5;
    let mut zone = Zone::Body;
    let mut after_references = false;
    let mut in_contents = false;
    for (i, &(p, l)) in order.iter().enumerate().skip(body_from) {
        let text = line(i);
        match heading(text) {
            Some(Heading::References) if i >= late || after_references => {
                zone = Zone::References;
                after_references = true;
            }
            Some(Heading::Acknowledgements) => zone = Zone::Acknowledgements,
            Some(Heading::Appendix) => zone = Zone::Appendix,
            Some(Heading::Lettered) if after_references => zone = Zone::Appendix,
            Some(Heading::AuthorBlock) => zone = Zone::TitleBlock,
            Some(Heading::Contents) => in_contents = true,
            // A section ends acknowledgements or an author block; inside an
            // appendix it is the appendix's own, and after the references
            // only an appendix's heading starts anything.
            Some(Heading::Section | Heading::Introduction)
                if !after_references && zone != Zone::Appendix =>
            {
                zone = Zone::Body;
            }
            _ => {}
        }
        // A table of contents runs while its lines end in page numbers.
        if in_contents {
            let entry = text
                .split_whitespace()
                .last()
                .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()))
                || heading(text) == Some(Heading::Contents);
            if entry {
                lines[p][l] = Zone::Furniture;
                continue;
            }
            in_contents = false;
        }
        lines[p][l] = zone;
    }
}

#[cfg(test)]
mod tests;
