//! Bibliographic metadata read offline from the PDF itself: the document
//! information dictionary when it is plausible, else heuristics on the first page
//! (the title is the first run of title-like lines; authors follow it).

use super::engines::InfoDict;
use crate::workspace::PaperMeta;

/// Title and metadata for one paper.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Metadata {
    pub title: Option<String>,
    pub meta: PaperMeta,
}

pub fn read_metadata(info: &InfoDict, pages: &[String]) -> Metadata {
    let first_page = pages.first().map(String::as_str).unwrap_or("");
    let head: String = pages
        .iter()
        .take(2)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("\n");
    // The Info dictionary, then XMP, then the page itself; a metadata title only
    // counts if it looks like one and is printed on the first page.
    let title = [info.title.as_deref(), info.xmp_title.as_deref()]
        .into_iter()
        .flatten()
        .find(|t| plausible_info_title(t) && appears_on_page(t, first_page))
        .map(tidy)
        .or_else(|| title_from_page(first_page));
    let xmp_authors: Vec<String> = info
        .xmp_creators
        .iter()
        .flat_map(|c| split_authors(c))
        .collect();
    let authors = info
        .author
        .as_deref()
        .map(split_authors)
        .filter(|a| !a.is_empty())
        .or_else(|| (!xmp_authors.is_empty()).then_some(xmp_authors))
        .unwrap_or_else(|| authors_from_page(first_page, title.as_deref()));
    Metadata {
        title,
        meta: PaperMeta {
            authors,
            year: year_from(&head)
                .or_else(|| info.creation_date.as_deref().and_then(year_from_pdf_date)),
            doi: find_doi(&head),
            arxiv: find_arxiv(&head),
        },
    }
}

fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Producers fill Title with file names and placeholders; only a real title counts.
fn plausible_info_title(title: &str) -> bool {
    let t = title.trim();
    let lower = t.to_lowercase();
    let words = t.split_whitespace().count();
    let junk = [
        "untitled",
        "microsoft word",
        ".dvi",
        ".doc",
        ".tex",
        ".pdf",
        "no title",
        "title",
        "paper",
    ];
    (2..=40).contains(&words)
        && t.len() >= 8
        && !junk.iter().any(|j| {
            lower == *j
                || lower.contains(&format!("{j} -"))
                || lower.ends_with(j) && j.starts_with('.')
        })
        && !lower.starts_with("microsoft word")
        && t.chars().filter(|c| c.is_alphabetic()).count() * 2 > t.len()
}

/// Producers also copy section names or old drafts' titles into Info; a real
/// title is printed on the first page.
fn appears_on_page(title: &str, page: &str) -> bool {
    let page = page.to_lowercase();
    let words: Vec<String> = title
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let found = words
        .iter()
        .filter(|w| page.contains(w.trim_matches(|c: char| !c.is_alphanumeric())))
        .count();
    page.is_empty() || found * 4 >= words.len() * 3
}

/// Lines that are not a title: journal headers, dates, URLs, page furniture.
fn is_furniture(line: &str) -> bool {
    let lower = line.to_lowercase();
    let markers = [
        "proceedings",
        "journal",
        "conference",
        "vol.",
        "volume",
        "arxiv",
        "doi",
        "http",
        "www.",
        "copyright",
        "©",
        "issn",
        "isbn",
        "permission to",
        "preprint",
        "submitted",
        "accepted",
        "published",
        "page ",
        "pp.",
        "acm ",
        "ieee",
        "usenix",
        "@",
        "technical report",
        "university",
        "institute",
        "department",
    ];
    markers.iter().any(|m| lower.contains(m))
        || line.chars().filter(|c| c.is_ascii_digit()).count() * 3 > line.len()
}

fn title_like(line: &str) -> bool {
    let words = line.split_whitespace().count();
    let letters = line.chars().filter(|c| c.is_alphabetic()).count();
    (1..=25).contains(&words)
        && letters >= 4
        && letters * 10 >= line.len() * 6
        && !is_furniture(line)
}

fn title_from_page(page: &str) -> Option<String> {
    let lines: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(25)
        .collect();
    let start = lines
        .iter()
        .position(|l| title_like(l) && l.split_whitespace().count() >= 2)?;
    let mut title = lines[start].to_owned();
    // A title often wraps onto a second (rarely a third) line.
    for next in lines.iter().skip(start + 1).take(2) {
        let ends_open = !title.ends_with(['.', ':', '?', '!']) || title.ends_with(':');
        let shouting = next
            .chars()
            .filter(|c| c.is_alphabetic())
            .all(char::is_uppercase)
            && !title
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(char::is_uppercase);
        // A line of two or three capitalised words may be a name or the end of
        // the title; after a function word ("of", "for", "an") it is the title.
        const FUNCTION_WORDS: [&str; 12] = [
            "a", "an", "the", "of", "for", "and", "to", "in", "on", "with", "via", "by",
        ];
        let dangling = title
            .rsplit(' ')
            .next()
            .is_some_and(|w| FUNCTION_WORDS.contains(&w.to_lowercase().as_str()));
        let continues = next
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c.is_uppercase())
            && !shouting
            && title_like(next)
            && (dangling || !looks_like_names(next))
            && !next.to_lowercase().starts_with("abstract");
        if ends_open
            && continues
            && title.split_whitespace().count() + next.split_whitespace().count() <= 25
        {
            title.push(' ');
            title.push_str(next);
        } else {
            break;
        }
    }
    Some(tidy(&title))
}

/// "Ada Lovelace, Alan Turing and Grace Hopper": capitalised words in short groups.
fn looks_like_names(line: &str) -> bool {
    let parts: Vec<&str> = line
        .split([',', ';'])
        .flat_map(|p| p.split(" and "))
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    !parts.is_empty()
        && parts.iter().all(|p| {
            let words: Vec<&str> = p.split_whitespace().collect();
            (2..=4).contains(&words.len())
                && words
                    .iter()
                    .all(|w| w.chars().next().is_some_and(|c| c.is_uppercase()) || w.len() <= 3)
        })
}

fn authors_from_page(page: &str, title: Option<&str>) -> Vec<String> {
    let lines: Vec<&str> = page
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(30)
        .collect();
    let after_title = title
        .and_then(|t| {
            let last_word = t.split_whitespace().last()?;
            lines
                .iter()
                .position(|l| l.ends_with(last_word))
                .map(|i| i + 1)
        })
        .unwrap_or(0);
    lines
        .iter()
        .skip(after_title)
        .take(4)
        .find(|l| looks_like_names(&clean_author_marks(l)))
        .map(|l| split_authors(&clean_author_marks(l)))
        .unwrap_or_default()
}

fn clean_author_marks(line: &str) -> String {
    line.chars()
        .filter(|c| !c.is_ascii_digit() && !"*†‡§¶".contains(*c))
        .collect()
}

fn split_authors(text: &str) -> Vec<String> {
    text.split([',', ';', '&'])
        .flat_map(|p| p.split(" and "))
        .map(tidy)
        .filter(|a| a.split_whitespace().count() >= 2 && a.len() <= 60)
        .collect()
}

fn year_from(text: &str) -> Option<u16> {
    let bytes = text.as_bytes();
    for i in 0..bytes.len().saturating_sub(3) {
        let window = &text.get(i..i + 4)?;
        let boundary_before = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        let boundary_after = i + 4 >= bytes.len() || !bytes[i + 4].is_ascii_alphanumeric();
        if boundary_before && boundary_after && window.bytes().all(|b| b.is_ascii_digit()) {
            let year: u16 = window.parse().ok()?;
            if (1950..=2035).contains(&year) {
                return Some(year);
            }
        }
    }
    None
}

/// `D:20150311...` → 2015.
fn year_from_pdf_date(date: &str) -> Option<u16> {
    let digits = date.trim_start_matches("D:");
    digits
        .get(..4)?
        .parse()
        .ok()
        .filter(|y| (1950..=2035).contains(y))
}

fn find_doi(text: &str) -> Option<String> {
    let start = text.find("10.")?;
    let rest = &text[start..];
    let candidate: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && *c != ',' && *c != ';')
        .collect();
    let candidate = candidate.trim_end_matches(['.', ')', ']']);
    let (prefix, suffix) = candidate.split_once('/')?;
    (prefix.len() >= 7
        && prefix[3..].chars().all(|c| c.is_ascii_digit() || c == '.')
        && !suffix.is_empty())
    .then(|| candidate.to_owned())
}

fn find_arxiv(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let start = lower.find("arxiv:")? + "arxiv:".len();
    let id: String = text[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'v')
        .collect();
    let id = id.trim_end_matches('.');
    (id.len() >= 9 && id.contains('.')).then(|| id.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefers_a_plausible_info_title_and_ignores_placeholders() {
        let info = InfoDict {
            title: Some("Paxos Made Simple".into()),
            ..InfoDict::default()
        };
        assert_eq!(
            read_metadata(&info, &[]).title.as_deref(),
            Some("Paxos Made Simple")
        );
        let junk = InfoDict {
            title: Some("Microsoft Word - paper.doc".into()),
            ..InfoDict::default()
        };
        let page = "Journal of Things, Vol. 3\nIn Search of an\nUnderstandable Consensus Algorithm\nDiego Ongaro and John Ousterhout\nAbstract\n";
        let meta = read_metadata(&junk, &[page.into()]);
        assert_eq!(
            meta.title.as_deref(),
            Some("In Search of an Understandable Consensus Algorithm")
        );
        assert_eq!(meta.meta.authors, vec!["Diego Ongaro", "John Ousterhout"]);
    }

    #[test]
    fn finds_year_doi_and_arxiv_ids() {
        let page = "Published 2014. doi: 10.1145/2723372.2742797, see arXiv:1706.03762v5.";
        let meta = read_metadata(&InfoDict::default(), &[page.into()]);
        assert_eq!(meta.meta.year, Some(2014));
        assert_eq!(meta.meta.doi.as_deref(), Some("10.1145/2723372.2742797"));
        assert_eq!(meta.meta.arxiv.as_deref(), Some("1706.03762v5"));
    }
}
