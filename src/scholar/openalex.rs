//! OpenAlex's works API, asked by title when a paper prints no identifier:
//! `GET /works?filter=title.search:...&per-page=5` answers
//! `{"meta": {...}, "results": [work, ...]}`. Abstracts come as an inverted
//! index (word → positions), rebuilt here into text.

use std::collections::HashMap;

use serde::Deserialize;

use super::markup::{one_line, plain};
use super::{ScholarRecord, arxiv_base_id, bare_doi, percent_encode};
use crate::workspace::Author;

/// Candidates asked for; the first whose title is printed on the paper wins.
const CANDIDATES: usize = 5;

/// The search path for `title`. Commas separate OpenAlex filters, so they go.
pub fn path(title: &str, contact: Option<&str>) -> String {
    let title: String = title.replace(',', " ");
    let mut path = format!(
        "/works?filter=title.search:{}&per-page={CANDIDATES}",
        percent_encode(&one_line(&title), b"")
    );
    if let Some(contact) = contact {
        path.push_str(&format!("&mailto={}", percent_encode(contact, b"@")));
    }
    path
}

#[derive(Deserialize)]
struct Page {
    results: Vec<Work>,
}

#[derive(Deserialize)]
struct Work {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    publication_year: Option<i64>,
    #[serde(default)]
    doi: Option<String>,
    #[serde(default)]
    authorships: Vec<Authorship>,
    #[serde(default)]
    primary_location: Option<Location>,
    #[serde(default)]
    locations: Vec<Location>,
    #[serde(default)]
    abstract_inverted_index: Option<HashMap<String, Vec<usize>>>,
}

#[derive(Deserialize)]
struct Authorship {
    #[serde(default)]
    author: Option<AuthorRef>,
    #[serde(default)]
    raw_author_name: Option<String>,
}

#[derive(Deserialize)]
struct AuthorRef {
    #[serde(default)]
    display_name: Option<String>,
}

#[derive(Deserialize)]
struct Location {
    #[serde(default)]
    landing_page_url: Option<String>,
    #[serde(default)]
    source: Option<Source>,
}

#[derive(Deserialize)]
struct Source {
    #[serde(default)]
    display_name: Option<String>,
}

/// The candidate records of a search answer, best match first.
pub fn parse(body: &str) -> Result<Vec<ScholarRecord>, String> {
    let page: Page =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAlex result page: {e}"))?;
    Ok(page.results.into_iter().map(record).collect())
}

fn record(work: Work) -> ScholarRecord {
    let authors = work
        .authorships
        .iter()
        .filter_map(|a| {
            a.author
                .as_ref()
                .and_then(|r| r.display_name.clone())
                .or_else(|| a.raw_author_name.clone())
        })
        .filter(|name| !name.trim().is_empty())
        .map(|name| Author::parse(&one_line(&name)))
        .collect();
    let arxiv = work.locations.iter().find_map(|l| {
        let url = l.landing_page_url.as_deref()?;
        let (_, id) = url.split_once("arxiv.org/abs/")?;
        Some(arxiv_base_id(id).to_owned())
    });
    ScholarRecord {
        title: work
            .title
            .or(work.display_name)
            .map(|t| plain(&t))
            .filter(|t| !t.is_empty()),
        authors,
        year: work
            .publication_year
            .and_then(|y| u16::try_from(y).ok())
            .filter(|y| (1000..=2100).contains(y)),
        venue: work
            .primary_location
            .and_then(|l| l.source)
            .and_then(|s| s.display_name)
            .map(|v| one_line(&v))
            .filter(|v| !v.is_empty()),
        doi: work
            .doi
            .map(|d| bare_doi(&d))
            .filter(|d| d.starts_with("10.")),
        arxiv,
        abstract_text: work.abstract_inverted_index.map(|index| uninvert(&index)),
    }
}

/// The abstract's text from its inverted index.
fn uninvert(index: &HashMap<String, Vec<usize>>) -> String {
    let mut at: Vec<(usize, &str)> = index
        .iter()
        .flat_map(|(word, places)| places.iter().map(move |p| (*p, word.as_str())))
        .collect();
    at.sort_unstable();
    one_line(&at.into_iter().map(|(_, w)| w).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_candidates_with_their_abstracts() {
        let body = r#"{"meta":{"count":1,"db_response_time_ms":20,"page":1,"per_page":5},"results":[{
            "id":"https://openalex.org/W2963403868","doi":"https://doi.org/10.48550/arxiv.1706.03762",
            "title":"Attention Is All You Need","display_name":"Attention Is All You Need",
            "publication_year":2017,
            "authorships":[{"author_position":"first","author":{"id":"https://openalex.org/A1","display_name":"Ashish Vaswani"},"raw_author_name":"Ashish Vaswani"}],
            "primary_location":{"landing_page_url":"https://arxiv.org/abs/1706.03762","source":{"display_name":"arXiv (Cornell University)"}},
            "locations":[{"landing_page_url":"https://arxiv.org/abs/1706.03762v5","source":null}],
            "abstract_inverted_index":{"The":[0],"models":[2],"dominant":[1]}}]}"#;
        let records = parse(body).unwrap();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert_eq!(r.title.as_deref(), Some("Attention Is All You Need"));
        assert_eq!(r.authors[0].family, "Vaswani");
        assert_eq!(r.year, Some(2017));
        assert_eq!(r.doi.as_deref(), Some("10.48550/arxiv.1706.03762"));
        assert_eq!(r.arxiv.as_deref(), Some("1706.03762"));
        assert_eq!(r.abstract_text.as_deref(), Some("The dominant models"));
        assert!(parse(r#"{"error":"Invalid query parameters"}"#).is_err());
    }

    #[test]
    fn a_title_search_has_no_commas_and_is_encoded() {
        assert_eq!(
            path("Paxos, Made Simple?", Some("me@example.org")),
            "/works?filter=title.search:Paxos%20Made%20Simple%3F&per-page=5&mailto=me@example.org"
        );
    }
}
