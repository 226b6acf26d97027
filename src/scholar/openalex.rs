//! OpenAlex's works API as it works since February 2026: a work by its DOI
//! (`GET /works/doi:10.…`, a free singleton) answers the work itself; a
//! search (`GET /works?search=…&per-page=5`, ten times the price of a filter
//! and asked only when a paper prints no identifier) answers
//! `{"meta": {...}, "results": [work, ...]}`. Every request carries the API
//! key (`api_key=`) when one is set, and OpenAlex tells the day's allowance in
//! `X-RateLimit-*-USD` headers. Abstracts come as an inverted index (word →
//! positions), rebuilt here into text.

use std::collections::HashMap;

use serde::Deserialize;

use super::markup::{one_line, plain};
use super::{ScholarRecord, arxiv_base_id, bare_doi, percent_encode};
use crate::workspace::Author;

/// Candidates asked for; the first whose title is printed on the paper wins.
const CANDIDATES: usize = 5;

/// OpenAlex's published prices (2026), in US dollars: a lookup of one work
/// by id or DOI is free, a list (a filter, one page) a tenth of a cent, a
/// search ten times that.
pub const LIST_USD: f64 = 0.0001;
pub const SEARCH_USD: f64 = 0.001;

/// The path of the work with `doi` (bare, lowercase): a free singleton.
pub fn doi_path(doi: &str) -> String {
    format!("/works/doi:{}", percent_encode(doi, b"/"))
}

/// The search path for `title`: its words, with nothing OpenAlex would read
/// as search syntax (quotes, parentheses, an upper-case AND/OR/NOT).
pub fn search_path(title: &str) -> String {
    let words: Vec<String> = one_line(title)
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '(' | ')' | ',' | ':'))
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .map(|w| match w {
            "AND" | "OR" | "NOT" => w.to_lowercase(),
            _ => w.to_owned(),
        })
        .collect();
    format!(
        "/works?search={}&per-page={CANDIDATES}",
        percent_encode(&words.join(" "), b"")
    )
}

/// `path` with the key and the contact address OpenAlex asks for added to
/// its query. The result holds the key: it is sent, never logged or cached.
pub fn with_credentials(path: &str, key: Option<&str>, contact: Option<&str>) -> String {
    let mut path = path.to_owned();
    let mut add = |name: &str, value: &str, keep: &[u8]| {
        path.push(if path.contains('?') { '&' } else { '?' });
        path.push_str(&format!("{name}={}", percent_encode(value, keep)));
    };
    if let Some(key) = key.filter(|k| !k.is_empty()) {
        add("api_key", key, b"");
    }
    if let Some(contact) = contact {
        add("mailto", contact, b"@");
    }
    path
}

/// The day's allowance as OpenAlex tells it (in its answers' headers, or
/// its `/rate-limit` status), in US dollars.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Allowance {
    pub remaining_usd: f64,
    pub limit_usd: f64,
    /// Seconds until it renews, when OpenAlex said.
    pub resets_in_secs: Option<u64>,
}

impl Allowance {
    /// From `X-RateLimit-Remaining-USD` and `X-RateLimit-Limit-USD`; `None`
    /// when either is missing or not a number.
    pub fn from_headers(headers: &reqwest::header::HeaderMap) -> Option<Self> {
        let usd = |name: &str| {
            headers
                .get(name)?
                .to_str()
                .ok()?
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
        };
        Some(Self {
            remaining_usd: usd("x-ratelimit-remaining-usd")?,
            limit_usd: usd("x-ratelimit-limit-usd")?,
            resets_in_secs: None,
        })
    }

    /// From the body of `GET /rate-limit`:
    /// `{"rate_limit": {"daily_budget_usd", "daily_remaining_usd",
    /// "resets_in_seconds", ...}}`.
    pub fn from_status_body(body: &str) -> Option<Self> {
        #[derive(Deserialize)]
        struct Body {
            rate_limit: RateLimit,
        }
        #[derive(Deserialize)]
        struct RateLimit {
            daily_budget_usd: f64,
            daily_remaining_usd: f64,
            #[serde(default)]
            resets_in_seconds: Option<f64>,
        }
        let body: Body = serde_json::from_str(body).ok()?;
        let r = body.rate_limit;
        Some(Self {
            remaining_usd: r.daily_remaining_usd,
            limit_usd: r.daily_budget_usd,
            resets_in_secs: r
                .resets_in_seconds
                .filter(|s| s.is_finite() && *s >= 0.0)
                .map(|s| s as u64),
        })
    }

    /// Nothing left for a paid call (a search costs $0.001).
    pub fn is_spent(&self) -> bool {
        !self.can_pay(SEARCH_USD)
    }

    /// Enough is left for a call at `price_usd`.
    pub fn can_pay(&self, price_usd: f64) -> bool {
        self.remaining_usd + 1e-9 >= price_usd
    }
}

#[derive(Deserialize)]
struct Page {
    results: Vec<Work>,
}

/// A work as OpenAlex answers it: what a record needs, and what citation
/// searching follows ([`super::citations`]).
#[derive(Deserialize)]
pub(super) struct Work {
    /// `https://openalex.org/W…`.
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) ids: Option<Ids>,
    #[serde(default)]
    pub(super) referenced_works: Vec<String>,
    #[serde(default)]
    pub(super) cited_by_count: Option<u64>,
    #[serde(default)]
    pub(super) best_oa_location: Option<Location>,
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

/// A work's other identifiers: `{"pmid": "https://pubmed.ncbi.nlm.nih.gov/123"}`.
#[derive(Deserialize)]
pub(super) struct Ids {
    #[serde(default)]
    pub(super) pmid: Option<String>,
}

/// Where a work can be read: a landing page, a PDF, under a licence.
#[derive(Deserialize)]
pub(super) struct Location {
    #[serde(default)]
    pub(super) landing_page_url: Option<String>,
    #[serde(default)]
    pub(super) pdf_url: Option<String>,
    #[serde(default)]
    pub(super) license: Option<String>,
    #[serde(default)]
    pub(super) version: Option<String>,
    #[serde(default)]
    pub(super) source: Option<Source>,
}

#[derive(Deserialize)]
pub(super) struct Source {
    #[serde(default)]
    pub(super) display_name: Option<String>,
    #[serde(default)]
    pub(super) host_organization_name: Option<String>,
}

/// The candidate records of a search answer, best match first.
pub fn parse(body: &str) -> Result<Vec<ScholarRecord>, String> {
    let page: Page =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAlex result page: {e}"))?;
    Ok(page.results.into_iter().map(record).collect())
}

/// The record of a singleton answer (one work).
pub fn parse_work(body: &str) -> Result<ScholarRecord, String> {
    let work: Work =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAlex work: {e}"))?;
    if work.title.is_none() && work.display_name.is_none() {
        return Err("not an OpenAlex work: it has no title".into());
    }
    Ok(record(work))
}

/// The record of a work: its title, authors, year, venue, identifiers and
/// abstract, as plain text.
pub(super) fn record(work: Work) -> ScholarRecord {
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
    fn a_title_search_is_plain_words_and_carries_the_key() {
        let path = search_path("Paxos, Made (Simple): Cats AND \"Dogs\" ?");
        assert_eq!(
            path,
            "/works?search=Paxos%20Made%20Simple%20Cats%20and%20Dogs&per-page=5"
        );
        assert_eq!(
            with_credentials(&path, Some("k&y"), Some("me@example.org")),
            format!("{path}&api_key=k%26y&mailto=me@example.org")
        );
        assert_eq!(
            with_credentials(&doi_path("10.48550/arxiv.1706.03762"), None, None),
            "/works/doi:10.48550/arxiv.1706.03762"
        );
        assert_eq!(
            with_credentials("/works/doi:10.1/x", Some("key"), None),
            "/works/doi:10.1/x?api_key=key"
        );
    }

    #[test]
    fn a_singleton_is_one_work_and_the_allowance_is_read_from_headers() {
        let body = r#"{"id":"https://openalex.org/W1","doi":"https://doi.org/10.1/x","title":"A Work","publication_year":2020,"authorships":[]}"#;
        assert_eq!(parse_work(body).unwrap().title.as_deref(), Some("A Work"));
        assert!(parse_work(r#"{"error":"Not found"}"#).is_err());

        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("x-ratelimit-limit-usd", "1.00".parse().unwrap());
        headers.insert("x-ratelimit-remaining-usd", "0.0004".parse().unwrap());
        let allowance = Allowance::from_headers(&headers).unwrap();
        assert_eq!(allowance.limit_usd, 1.0);
        assert!(allowance.is_spent());
        headers.insert("x-ratelimit-remaining-usd", "0.25".parse().unwrap());
        assert!(!Allowance::from_headers(&headers).unwrap().is_spent());
        headers.remove("x-ratelimit-limit-usd");
        assert_eq!(Allowance::from_headers(&headers), None);

        let status = r#"{"rate_limit":{"daily_budget_usd":1.0,"daily_used_usd":0.25,"daily_remaining_usd":0.75,"prepaid_balance_usd":0,"prepaid_remaining_usd":0,"resets_at":"2026-12-05T00:00:00Z","resets_in_seconds":3600.4,"endpoint_costs_usd":{"search":0.001}}}"#;
        assert_eq!(
            Allowance::from_status_body(status),
            Some(Allowance {
                remaining_usd: 0.75,
                limit_usd: 1.0,
                resets_in_secs: Some(3600)
            })
        );
        assert_eq!(Allowance::from_status_body("{}"), None);
    }
}
