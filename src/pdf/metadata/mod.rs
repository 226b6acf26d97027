//! Bibliographic metadata read offline from the PDF itself (title, authors,
//! year, venue, DOI, arXiv id, abstract). The title and
//! authors come from page one's layout when the engine gave one (the largest
//! type near the top, the name lines under it), else from its plain text; the
//! document information dictionary and XMP only fill what the page did not
//! give, and only when their values pass a plausibility check.

mod abstract_text;
mod from_layout;
mod furniture;
mod ids;
mod info;
mod names;
mod plain;
mod rejoin;
mod venue;

pub use furniture::{is_cover_sheet, is_furniture};
pub use ids::find_arxiv;
pub use names::is_person;
use unicode_normalization::UnicodeNormalization;

use super::layout::TextLine;
use super::raw::InfoDict;
use super::zones::{Zone, Zones};
use std::collections::BTreeMap;

use crate::workspace::{Author, MetaField, Origin, PaperMeta};

/// Title and metadata for one paper.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub title: Option<String>,
    pub meta: PaperMeta,
}

/// Metadata from a paper's info dictionary, its cleaned pages, and the lines
/// of type of its first page (empty when the engine gave no layout). A
/// repository's cover sheet in front is passed over: the paper's own first
/// page is the one after it (whose lines the engine gives as `head`).
pub fn read_metadata(info: &InfoDict, pages: &[String], head: &[TextLine]) -> Metadata {
    let pages = match pages {
        [cover, paper @ ..] if !paper.is_empty() && is_cover_sheet(cover) => paper,
        _ => pages,
    };
    let words = rejoin::Words::of(pages);
    let head = &rejoin::rejoined(head, &words);
    let first_page = pages.first().map(String::as_str).unwrap_or("");
    let front: String = pages
        .iter()
        .take(2)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    let layout_title = from_layout::title(head, &words);
    let info_title = [info.title.as_deref(), info.xmp_title.as_deref()]
        .into_iter()
        .flatten()
        .find(|t| info::plausible_info_title(t) && info::appears_on_page(t, first_page))
        .map(tidy);
    let title = layout_title
        .as_ref()
        .map(|t| t.text.clone())
        .or(info_title)
        .or_else(|| plain::title_from_page(first_page))
        .map(|t| without_footnote_marks(&t).to_owned())
        .filter(|t| !t.is_empty());
    // When the layout showed the title but no names under it, the authors
    // are printed elsewhere (at the end, in a footnote): guessing from the
    // plain text would only pick up headings.
    let authors = match &layout_title {
        Some(t) => Some(from_layout::authors(head, t))
            .filter(|a| !a.is_empty())
            .or_else(|| info_authors(info, first_page))
            .unwrap_or_default(),
        None => info_authors(info, first_page)
            .unwrap_or_else(|| plain::authors_from_page(first_page, title.as_deref())),
    };
    let authors = without_affiliation_letters(authors, first_page);
    let head_lines: Vec<&str> = if head.is_empty() {
        first_page.lines().collect()
    } else {
        head.iter().map(|l| l.text.as_str()).collect()
    };
    // A year is the paper's own where the paper dates itself: its title
    // block, banners and notes, not its abstract or body, which cite years
    // of other work ("introduced in 2017", "Beran's (2003)").
    // A dated line of its own ("Version: June 28, 2019") dates the paper
    // wherever it stands.
    let prose = content_text(pages);
    let dating_lines: Vec<&str> = head_lines
        .iter()
        .filter(|l| {
            let key = normalise_for_match(l);
            key.split(' ').count() < 3 || !prose.contains(&key) || ids::is_date_line(l)
        })
        .copied()
        .collect();
    Metadata {
        title,
        meta: PaperMeta {
            authors: authors.iter().map(|a| Author::parse(a)).collect(),
            year: ids::year_of(&dating_lines, &front).or_else(|| {
                info.creation_date
                    .as_deref()
                    .and_then(ids::year_from_pdf_date)
            }),
            doi: ids::find_doi(&front),
            arxiv: ids::find_arxiv(&front),
            venue: venue::venue_of(&first_page.lines().collect::<Vec<_>>()),
            abstract_text: abstract_text::abstract_of(&front),
            sources: BTreeMap::new(),
        },
    }
    .marked_as_read_from_pdf()
}

impl Metadata {
    /// Every field found is marked as read from the PDF.
    fn marked_as_read_from_pdf(mut self) -> Self {
        let meta = &self.meta;
        let found = [
            (MetaField::Title, self.title.is_some()),
            (MetaField::Authors, !meta.authors.is_empty()),
            (MetaField::Year, meta.year.is_some()),
            (MetaField::Doi, meta.doi.is_some()),
            (MetaField::Arxiv, meta.arxiv.is_some()),
            (MetaField::Venue, meta.venue.is_some()),
            (MetaField::Abstract, meta.abstract_text.is_some()),
        ];
        self.meta.sources = found
            .into_iter()
            .filter(|(_, present)| *present)
            .map(|(field, _)| (field, Origin::Pdf))
            .collect();
        self
    }
}

/// The Info or XMP author list, when its names are printed on the first page.
fn info_authors(info: &InfoDict, first_page: &str) -> Option<Vec<String>> {
    let from_info = info.author.as_deref().map(split_author_field);
    let from_xmp = info
        .xmp_creators
        .iter()
        .flat_map(|c| split_author_field(c))
        .collect::<Vec<_>>();
    let page = normalise_for_match(first_page);
    [from_info.unwrap_or_default(), from_xmp]
        .into_iter()
        .find(|names| {
            !names.is_empty()
                && names
                    .iter()
                    .all(|n| page.contains(&normalise_for_match(&Author::parse(n).family)))
        })
}

/// "A. Author, B. Author and C. Author" as a metadata field writes it.
fn split_author_field(text: &str) -> Vec<String> {
    text.split([',', ';', '&'])
        .flat_map(|p| p.split(" and "))
        .map(tidy)
        .filter(|a| a.split_whitespace().count() >= 2 && a.len() <= 60)
        .collect()
}

/// "Semi-Supervised Novelty Detection∗": the mark of a footnote on the title
/// (funding, a version note) is not part of it. Digits stay ("Fortran 77").
fn without_footnote_marks(title: &str) -> &str {
    title.trim_end_matches(|c: char| c.is_whitespace() || "*∗†‡§¶⋆★".contains(c))
}

/// "Dirk Eddelbuettela", "James Joseph Balamutab": affiliation letters set
/// as superscripts lose their place and glue to the names. When the names'
/// last letters run a, b, c in order (each the one before or the next), past
/// "a", and the page sets each letter past "a" before an affiliation ("b
/// Depts of Informatics", "; b Depts"), they are such marks, not the names'.
fn without_affiliation_letters(authors: Vec<String>, page: &str) -> Vec<String> {
    let lasts: Vec<char> = authors
        .iter()
        .filter_map(|a| {
            let mut chars = a.chars().rev();
            let last = chars.next()?;
            chars.next().is_some_and(char::is_lowercase).then_some(last)
        })
        .collect();
    let runs_in_order = lasts.len() == authors.len()
        && lasts.first() == Some(&'a')
        && lasts
            .windows(2)
            .all(|w| w[1] == w[0] || w[1] as u32 == w[0] as u32 + 1)
        && lasts.last().is_some_and(|&c| c > 'a');
    // The letter opens a line or follows a list's separator, before a
    // space or the affiliation's capital ("b Depts", "; bDepts").
    let marks_an_affiliation = |letter: char| {
        let opens = |rest: &str| rest.starts_with(|c: char| c == ' ' || c.is_uppercase());
        page.lines().any(|l| {
            let t = l.trim_start();
            t.starts_with(letter) && opens(&t[letter.len_utf8()..])
        }) || ["; ", ", "].iter().any(|sep| {
            let marker = format!("{sep}{letter}");
            page.match_indices(&marker)
                .any(|(at, _)| opens(&page[at + marker.len()..]))
        })
    };
    if !runs_in_order
        || !lasts
            .iter()
            .filter(|&&c| c > 'a')
            .all(|&c| marks_an_affiliation(c))
    {
        return authors;
    }
    authors
        .into_iter()
        .map(|a| a[..a.len() - 1].to_owned())
        .collect()
}

/// Page one's abstract, body and references, as compared for a match (the
/// layout's lines may break and mend differently from the text's, so a
/// layout line is looked for inside it).
fn content_text(pages: &[String]) -> String {
    let zones = Zones::of(pages);
    pages
        .first()
        .map(|page| {
            page.lines()
                .enumerate()
                .filter(|&(i, _)| {
                    zones
                        .zone(0, i)
                        .is_some_and(|z| z.is_content() || z == Zone::References)
                })
                .map(|(_, l)| normalise_for_match(l))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default()
}

fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Text as compared for a match: compatibility forms unfolded, lowercase,
/// punctuation and spacing differences gone.
pub fn normalise_for_match(text: &str) -> String {
    let folded: String = text
        .nfkc()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    folded.split_whitespace().collect::<Vec<_>>().join(" ")
}
#[cfg(test)]
mod tests {
    #[test]
    fn a_footnote_mark_on_a_title_is_not_part_of_it() {
        assert_eq!(
            super::without_footnote_marks("Semi-Supervised Novelty Detection∗"),
            "Semi-Supervised Novelty Detection"
        );
        assert_eq!(super::without_footnote_marks("Datalog⋆ †"), "Datalog");
        assert_eq!(super::without_footnote_marks("Fortran 77"), "Fortran 77");
    }

    use super::*;

    #[test]
    fn affiliation_letters_glued_to_names_in_order_are_taken_off() {
        let names = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let page = "Dirk Eddelbuettela and James Joseph Balamutab\na\nDebian and R Projects; Chicago, IL, USA; bDepts of Informatics";
        assert_eq!(
            without_affiliation_letters(
                names(&["Dirk Eddelbuettela", "James Joseph Balamutab"]),
                page
            ),
            names(&["Dirk Eddelbuettel", "James Joseph Balamuta"])
        );
        let plain = "Rita Moreira and Joseph Webb\nUniversity of Porto";
        for kept in [
            names(&["Maria Costa", "Ana Silva"]),
            names(&["Anna Berta"]),
            names(&["Rita Moreira", "Joseph Webb"]),
        ] {
            assert_eq!(without_affiliation_letters(kept.clone(), plain), kept);
        }
    }

    #[test]
    fn prefers_a_plausible_info_title_and_ignores_placeholders() {
        let info = InfoDict {
            title: Some("Paxos Made Simple".into()),
            ..InfoDict::default()
        };
        assert_eq!(
            read_metadata(&info, &[], &[]).title.as_deref(),
            Some("Paxos Made Simple")
        );
        let junk = InfoDict {
            title: Some("Microsoft Word - paper.doc".into()),
            ..InfoDict::default()
        };
        let page = "Journal of Things, Vol. 3\nIn Search of an\nUnderstandable Consensus Algorithm\nDiego Ongaro and John Ousterhout\nAbstract\n";
        let meta = read_metadata(&junk, &[page.into()], &[]);
        assert_eq!(
            meta.title.as_deref(),
            Some("In Search of an Understandable Consensus Algorithm")
        );
        let names: Vec<String> = meta.meta.authors.iter().map(Author::display).collect();
        assert_eq!(names, vec!["Diego Ongaro", "John Ousterhout"]);
    }

    #[test]
    fn a_repository_cover_sheet_is_passed_over_for_the_papers_first_page() {
        let cover = "Oblivious routing of highly variable traffic\n\
                     The MIT Faculty has made this article openly available.\n\
                     Citation\nKodialam, M. et al.\nAs Published\nhttp://dx.doi.org/10.1109/TNET.2008.927257\n\
                     Citable Link\nhttp://hdl.handle.net/1721.1/52466\nTerms of Use\nDetailed Terms";
        let paper = "Oblivious Routing of Highly Variable Traffic\n\
                     Murali Kodialam, T. V. Lakshman\n\nAbstract\nWe route traffic.";
        let meta = read_metadata(&InfoDict::default(), &[cover.into(), paper.into()], &[]);
        assert_eq!(
            meta.title.as_deref(),
            Some("Oblivious Routing of Highly Variable Traffic")
        );
        let names: Vec<String> = meta.meta.authors.iter().map(Author::display).collect();
        assert_eq!(names, ["Murali Kodialam", "T. V. Lakshman"]);
        assert!(!is_cover_sheet(paper));
        // A one-page paper that mentions its terms of use is still the paper.
        let alone = read_metadata(&InfoDict::default(), &[cover.into()], &[]);
        let title = alone.title.unwrap_or_default();
        assert!(
            title.starts_with("Oblivious routing of highly variable traffic"),
            "{title}"
        );
    }

    #[test]
    fn finds_year_doi_and_arxiv_ids() {
        let page = "Published 2014. doi: 10.1145/2723372.2742797, see arXiv:1706.03762v5.";
        let meta = read_metadata(&InfoDict::default(), &[page.into()], &[]);
        assert_eq!(meta.meta.year, Some(2014));
        assert_eq!(meta.meta.doi.as_deref(), Some("10.1145/2723372.2742797"));
        assert_eq!(meta.meta.arxiv.as_deref(), Some("1706.03762v5"));
    }
}
