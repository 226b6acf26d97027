//! The citation graph as OpenAlex holds it, asked at its 2026 prices. A
//! work by id or DOI (`/works/W…`, `/works/doi:…`) is a free singleton and
//! carries its `referenced_works` and `cited_by_count`; an id OpenAlex merged
//! into another answers with a redirect to the work it became. Lists cost a
//! tenth of a cent a page: works by id (`filter=openalex:W1|W2…`, up to 100
//! ids a call) and works citing one (`filter=cites:W…`), paged by page number
//! (cursor paging answers 401 without a key), which reaches the first 10,000.
//! Each call goes through [`Lookup`]'s OpenAlex lane: paced, its key attached,
//! its allowance read, a spent allowance closing the lane.

use serde::Deserialize;

use super::client::Answer;
use super::openalex::{self, LIST_USD, SEARCH_USD, Work};
use super::{Lookup, ScholarRecord, Service, percent_encode};
use crate::workspace::OpenCopy;

/// Works a list page holds, and ids one `openalex:` filter takes.
pub const PAGE_SIZE: usize = 100;

/// Pages page-number paging reaches: 10,000 works.
pub const MAX_PAGES: u64 = 100;

/// A work and where it sits in the citation graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CitedWork {
    /// `W…`, after any merge.
    pub openalex: String,
    pub record: ScholarRecord,
    pub pmid: Option<String>,
    /// The works it cites, by OpenAlex id.
    pub referenced: Vec<String>,
    /// How many works cite it, as OpenAlex counts.
    pub cited_by: u64,
    /// Its best open-access copy, when it has one.
    pub open_copy: Option<OpenCopy>,
}

/// How one work is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WorkKey {
    /// Bare and lowercase.
    Doi(String),
    /// `W…`.
    Id(String),
}

/// Why a call gave nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallError {
    /// OpenAlex is closed for the run (the allowance spent, the key refused,
    /// unreachable): no further call will be answered.
    Closed(String),
    /// This call failed (an unreadable answer, a server error); others may not.
    Failed(String),
}

/// `W…` from `https://openalex.org/W…` (or `W…` itself); none for anything
/// that is not a work's id.
pub fn short_id(id: &str) -> Option<String> {
    let tail = id.trim().rsplit('/').next()?.to_uppercase();
    let digits = tail.strip_prefix('W')?;
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())).then_some(tail)
}

pub fn work_path(key: &WorkKey) -> String {
    match key {
        WorkKey::Doi(doi) => openalex::doi_path(doi),
        WorkKey::Id(id) => format!("/works/{id}"),
    }
}

/// The list of the works with `ids` (at most [`PAGE_SIZE`]).
pub fn ids_path(ids: &[String]) -> String {
    format!(
        "/works?filter=openalex:{}&per-page={PAGE_SIZE}",
        percent_encode(&ids.join("|"), b"")
    )
}

/// Page `page` (from 1) of the works citing `id`.
pub fn cites_path(id: &str, page: u64) -> String {
    format!("/works?filter=cites:{id}&per-page={PAGE_SIZE}&page={page}")
}

/// Pages needed to list `works` works, within page-number paging's reach.
pub fn pages_for(works: u64) -> u64 {
    works.div_ceil(PAGE_SIZE as u64).min(MAX_PAGES)
}

#[derive(Deserialize)]
struct ListPage {
    #[serde(default)]
    meta: Option<Meta>,
    results: Vec<Work>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(default)]
    count: Option<u64>,
}

/// A work of a singleton answer.
pub fn parse_work(body: &str) -> Result<CitedWork, String> {
    let work: Work =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAlex work: {e}"))?;
    cited(work).ok_or_else(|| "not an OpenAlex work: it has no id or no title".into())
}

/// The works of a list page, and how many the whole list holds.
pub fn parse_list(body: &str) -> Result<(u64, Vec<CitedWork>), String> {
    let page: ListPage =
        serde_json::from_str(body).map_err(|e| format!("not an OpenAlex result page: {e}"))?;
    let works: Vec<CitedWork> = page.results.into_iter().filter_map(cited).collect();
    let count = page
        .meta
        .and_then(|m| m.count)
        .unwrap_or(works.len() as u64);
    Ok((count, works))
}

fn cited(work: Work) -> Option<CitedWork> {
    let openalex = short_id(work.id.as_deref()?)?;
    let referenced = work
        .referenced_works
        .iter()
        .filter_map(|w| short_id(w))
        .collect();
    let pmid = work
        .ids
        .as_ref()
        .and_then(|ids| ids.pmid.as_deref())
        .and_then(|p| p.trim_end_matches('/').rsplit('/').next())
        .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned);
    let open_copy = work.best_oa_location.as_ref().and_then(|l| {
        let copy = OpenCopy {
            pdf_url: l.pdf_url.clone(),
            landing_url: l.landing_page_url.clone(),
            host: l.source.as_ref().and_then(|s| {
                s.display_name
                    .clone()
                    .or_else(|| s.host_organization_name.clone())
            }),
            version: l.version.clone(),
            licence: l.license.clone(),
        };
        (copy.pdf_url.is_some() || copy.landing_url.is_some()).then_some(copy)
    });
    let cited_by = work.cited_by_count.unwrap_or(0);
    let record = openalex::record(work);
    record.title.as_ref()?;
    Some(CitedWork {
        openalex,
        record,
        pmid,
        referenced,
        cited_by,
        open_copy,
    })
}

impl Lookup {
    /// One work, by id or DOI (free). `Ok(None)` when OpenAlex has no such
    /// work; a merged id answers the work it was merged into.
    pub async fn openalex_work(&self, key: &WorkKey) -> Result<Option<CitedWork>, CallError> {
        match self.get(Service::Openalex, &work_path(key)).await {
            Answer::Body(body) => parse_work(&body).map(Some).map_err(CallError::Failed),
            Answer::NotFound => Ok(None),
            Answer::Failed => Err(self.why_failed()),
        }
    }

    /// One page of a list ([`ids_path`], [`cites_path`]): a tenth of a cent,
    /// so not asked once the allowance cannot pay it.
    pub async fn openalex_list(&self, path: &str) -> Result<(u64, Vec<CitedWork>), CallError> {
        self.openalex_paid(path, LIST_USD).await
    }

    /// Works whose title is like `title`: a search, a tenth of a cent times
    /// ten, for a seed that has no identifier.
    pub async fn openalex_search_works(&self, title: &str) -> Result<Vec<CitedWork>, CallError> {
        let path = openalex::search_path(title);
        Ok(self.openalex_paid(&path, SEARCH_USD).await?.1)
    }

    async fn openalex_paid(
        &self,
        path: &str,
        price_usd: f64,
    ) -> Result<(u64, Vec<CitedWork>), CallError> {
        if !self.openalex_can_pay(price_usd).await {
            return Err(self.why_failed());
        }
        match self.get(Service::Openalex, path).await {
            Answer::Body(body) => parse_list(&body).map_err(CallError::Failed),
            Answer::NotFound => Ok((0, Vec::new())),
            Answer::Failed => Err(self.why_failed()),
        }
    }

    fn why_failed(&self) -> CallError {
        match self.openalex_closed() {
            Some(why) => CallError::Closed(why),
            None => CallError::Failed("OpenAlex gave no usable answer".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_work_carries_its_references_citations_and_open_copy() {
        let body = r#"{"id":"https://openalex.org/W2963403868","doi":"https://doi.org/10.48550/arxiv.1706.03762",
            "title":"Attention Is All You Need","publication_year":2017,
            "ids":{"openalex":"https://openalex.org/W2963403868","pmid":"https://pubmed.ncbi.nlm.nih.gov/12345"},
            "authorships":[{"author":{"display_name":"Ashish Vaswani"}}],
            "referenced_works":["https://openalex.org/W1","https://openalex.org/W22","not-an-id"],
            "cited_by_count":250,
            "best_oa_location":{"is_oa":true,"landing_page_url":"https://arxiv.org/abs/1706.03762","pdf_url":"https://arxiv.org/pdf/1706.03762",
                "source":{"display_name":"arXiv (Cornell University)","host_organization_name":"Cornell University"},
                "license":"cc-by","version":"submittedVersion"}}"#;
        let work = parse_work(body).unwrap();
        assert_eq!(work.openalex, "W2963403868");
        assert_eq!(work.referenced, ["W1", "W22"]);
        assert_eq!(work.cited_by, 250);
        assert_eq!(work.pmid.as_deref(), Some("12345"));
        let copy = work.open_copy.unwrap();
        assert_eq!(copy.host.as_deref(), Some("arXiv (Cornell University)"));
        assert_eq!(copy.licence.as_deref(), Some("cc-by"));
        assert_eq!(copy.version.as_deref(), Some("submittedVersion"));
        assert!(parse_work(r#"{"title":"No id"}"#).is_err());

        let page =
            format!(r#"{{"meta":{{"count":1234,"page":1,"per_page":100}},"results":[{body}]}}"#);
        let (count, works) = parse_list(&page).unwrap();
        assert_eq!((count, works.len()), (1234, 1));
        assert_eq!(pages_for(1234), 13);
        assert_eq!(pages_for(50_000), MAX_PAGES);
        assert_eq!(pages_for(0), 0);
    }

    #[test]
    fn paths_ask_by_id_by_citing_and_by_page() {
        assert_eq!(
            short_id("https://openalex.org/w123").as_deref(),
            Some("W123")
        );
        assert_eq!(short_id("https://openalex.org/A123"), None);
        assert_eq!(
            ids_path(&["W1".into(), "W2".into()]),
            "/works?filter=openalex:W1%7CW2&per-page=100"
        );
        assert_eq!(
            cites_path("W9", 3),
            "/works?filter=cites:W9&per-page=100&page=3"
        );
        assert_eq!(work_path(&WorkKey::Id("W9".into())), "/works/W9");
    }
}
