//! Asking the indexes politely: one request at a time per service, spaced to
//! its published rate limit; a `Retry-After` honoured when it is short; a
//! service that cannot be reached (no network, a firewall, a timeout) or keeps
//! refusing is closed for the rest of the run, so a review never waits on it
//! twice. Every request carries a User-Agent with the researcher's contact
//! address when one is set, as Crossref and OpenAlex ask.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::StatusCode;
use reqwest::header::RETRY_AFTER;
use serde::Serialize;
use tokio::time::Instant;

use super::cache::Cache;
use super::markup::is_this_paper;
use super::{
    Found, Query, ScholarRecord, Service, arxiv, arxiv_base_id, bare_doi, crossref, openalex,
};
use crate::pdf::metadata::normalise_for_match;

/// Where each index answers; tests point these at a local fixture server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoints {
    pub crossref: String,
    pub arxiv: String,
    pub openalex: String,
}

impl Default for Endpoints {
    fn default() -> Self {
        Self {
            crossref: "https://api.crossref.org".into(),
            arxiv: "https://export.arxiv.org".into(),
            openalex: "https://api.openalex.org".into(),
        }
    }
}

impl Endpoints {
    /// The public APIs, or `QUIRE_CROSSREF_URL`, `QUIRE_ARXIV_URL` and
    /// `QUIRE_OPENALEX_URL` where set (a mirror, a test server).
    pub fn from_env() -> Self {
        let var = |name: &str, default: String| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().trim_end_matches('/').to_owned())
                .filter(|v| !v.is_empty())
                .unwrap_or(default)
        };
        let default = Self::default();
        Self {
            crossref: var("QUIRE_CROSSREF_URL", default.crossref),
            arxiv: var("QUIRE_ARXIV_URL", default.arxiv),
            openalex: var("QUIRE_OPENALEX_URL", default.openalex),
        }
    }

    fn base(&self, service: Service) -> &str {
        match service {
            Service::Crossref => &self.crossref,
            Service::Arxiv => &self.arxiv,
            Service::Openalex => &self.openalex,
        }
    }
}

#[derive(Clone, Debug)]
pub struct LookupOptions {
    pub endpoints: Endpoints,
    /// An email address sent in the User-Agent (and to OpenAlex as `mailto`).
    pub contact: Option<String>,
    /// The data folder's cache; `None` keeps answers for this run only.
    pub cache_dir: Option<PathBuf>,
    pub connect_timeout: Duration,
    /// For the whole answer of one request.
    pub request_timeout: Duration,
    /// The longest `Retry-After` waited out; a longer one closes the service.
    pub longest_wait: Duration,
}

impl LookupOptions {
    pub fn new(endpoints: Endpoints, contact: Option<String>, cache_dir: Option<PathBuf>) -> Self {
        Self {
            endpoints,
            contact: contact
                .map(|c| c.trim().to_owned())
                .filter(|c| c.contains('@') && !c.chars().any(char::is_whitespace)),
            cache_dir,
            connect_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(10),
            longest_wait: Duration::from_secs(30),
        }
    }
}

/// The least time between two requests to a service: Crossref's public pool
/// allows 5 a second, arXiv one every 3 seconds, OpenAlex 10 a second.
fn spacing(service: Service) -> Duration {
    match service {
        Service::Crossref => Duration::from_millis(200),
        Service::Arxiv => Duration::from_secs(3),
        Service::Openalex => Duration::from_millis(100),
    }
}

/// What the lookups did, for the log and the closing summary.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupStats {
    pub requests: u64,
    pub from_cache: u64,
    /// Services closed for this run, with why.
    pub closed: Vec<String>,
}

enum Answer {
    Body(String),
    NotFound,
    Failed,
}

/// One service's queue: when it may be asked next, and whether it is closed.
struct Lane {
    next_at: Instant,
    closed: bool,
}

pub struct Lookup {
    http: reqwest::Client,
    options: LookupOptions,
    cache: Cache,
    lanes: HashMap<Service, tokio::sync::Mutex<Lane>>,
    stats: Mutex<LookupStats>,
}

impl Lookup {
    pub fn new(options: LookupOptions) -> Result<Self, String> {
        crate::net::install_crypto_provider();
        let agent = match &options.contact {
            Some(contact) => format!(
                "quire/{} (literature review app; mailto:{contact})",
                env!("CARGO_PKG_VERSION")
            ),
            None => format!(
                "quire/{} (literature review app)",
                env!("CARGO_PKG_VERSION")
            ),
        };
        let http = reqwest::Client::builder()
            .connect_timeout(options.connect_timeout)
            .timeout(options.request_timeout)
            .user_agent(agent)
            .build()
            .map_err(|e| format!("cannot set up HTTP: {e}"))?;
        let lanes = Service::ALL
            .into_iter()
            .map(|s| {
                let lane = Lane {
                    next_at: Instant::now(),
                    closed: false,
                };
                (s, tokio::sync::Mutex::new(lane))
            })
            .collect();
        Ok(Self {
            http,
            cache: Cache::new(options.cache_dir.clone()),
            options,
            lanes,
            stats: Mutex::new(LookupStats::default()),
        })
    }

    pub fn stats(&self) -> LookupStats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The record of the paper `query` describes, from the first index that
    /// has one whose title is printed on the paper: Crossref by DOI, arXiv by
    /// id, then OpenAlex by title.
    pub async fn find(&self, query: &Query) -> Option<Found> {
        let read = query.title.as_deref();
        let is_this = |r: &ScholarRecord, by_identifier: bool| {
            r.title
                .as_deref()
                .is_some_and(|t| is_this_paper(t, read, &query.front_text, by_identifier))
        };
        if let Some(doi) = &query.doi {
            let doi = bare_doi(doi);
            if let Some(record) = self
                .crossref(&doi)
                .await
                .into_iter()
                .find(|r| is_this(r, true))
            {
                return Some(found(Service::Crossref, record));
            }
        }
        if let Some(id) = &query.arxiv {
            let id = arxiv_base_id(id).to_owned();
            self.prefetch_arxiv(std::slice::from_ref(&id)).await;
            let records = self.cache.get(Service::Arxiv, &id).unwrap_or_default();
            if let Some(record) = records.into_iter().find(|r| is_this(r, true)) {
                return Some(found(Service::Arxiv, record));
            }
        }
        let title = read.filter(|t| t.split_whitespace().count() >= 2)?;
        let record = self
            .openalex(title)
            .await
            .into_iter()
            .find(|r| is_this(r, false))?;
        Some(found(Service::Openalex, record))
    }

    /// Ask arXiv for every id not known yet, in batches (one request per
    /// batch, as arXiv asks for few and spaced requests).
    pub async fn prefetch_arxiv(&self, ids: &[String]) {
        let mut seen = HashSet::new();
        let wanted: Vec<String> = ids
            .iter()
            .map(|id| arxiv_base_id(id).to_owned())
            .filter(|id| seen.insert(id.clone()))
            .filter(|id| self.cached(Service::Arxiv, id).is_none())
            .collect();
        for batch in wanted.chunks(arxiv::BATCH) {
            let Answer::Body(body) = self.get(Service::Arxiv, &arxiv::path(batch)).await else {
                continue;
            };
            match arxiv::parse(&body) {
                Ok(records) => {
                    for id in batch {
                        let mine: Vec<ScholarRecord> = records
                            .iter()
                            .filter(|(found_id, _)| found_id == id)
                            .map(|(_, r)| r.clone())
                            .collect();
                        self.cache.put(Service::Arxiv, id, &mine);
                    }
                }
                Err(e) => tracing::warn!(error = %e, "arXiv answered something unreadable"),
            }
        }
    }

    async fn crossref(&self, doi: &str) -> Vec<ScholarRecord> {
        if let Some(records) = self.cached(Service::Crossref, doi) {
            return records;
        }
        match self.get(Service::Crossref, &crossref::path(doi)).await {
            Answer::Body(body) => match crossref::parse(&body) {
                Ok(record) => {
                    self.cache
                        .put(Service::Crossref, doi, std::slice::from_ref(&record));
                    vec![record]
                }
                Err(e) => {
                    tracing::warn!(doi, error = %e, "Crossref answered something unreadable");
                    Vec::new()
                }
            },
            Answer::NotFound => {
                self.cache.put(Service::Crossref, doi, &[]);
                Vec::new()
            }
            Answer::Failed => Vec::new(),
        }
    }

    async fn openalex(&self, title: &str) -> Vec<ScholarRecord> {
        let key = normalise_for_match(title);
        if let Some(records) = self.cached(Service::Openalex, &key) {
            return records;
        }
        let path = openalex::path(title, self.options.contact.as_deref());
        match self.get(Service::Openalex, &path).await {
            Answer::Body(body) => match openalex::parse(&body) {
                Ok(records) => {
                    self.cache.put(Service::Openalex, &key, &records);
                    records
                }
                Err(e) => {
                    tracing::warn!(error = %e, "OpenAlex answered something unreadable");
                    Vec::new()
                }
            },
            Answer::NotFound => {
                self.cache.put(Service::Openalex, &key, &[]);
                Vec::new()
            }
            Answer::Failed => Vec::new(),
        }
    }

    fn cached(&self, service: Service, key: &str) -> Option<Vec<ScholarRecord>> {
        let records = self.cache.get(service, key)?;
        if let Ok(mut stats) = self.stats.lock() {
            stats.from_cache += 1;
        }
        Some(records)
    }

    /// One GET, paced and retried as the service asks.
    async fn get(&self, service: Service, path: &str) -> Answer {
        let Some(lane) = self.lanes.get(&service) else {
            return Answer::Failed;
        };
        let mut lane = lane.lock().await;
        let url = format!("{}{path}", self.options.endpoints.base(service));
        for attempt in 0..3 {
            if lane.closed {
                return Answer::Failed;
            }
            tokio::time::sleep_until(lane.next_at).await;
            lane.next_at = Instant::now() + spacing(service);
            if let Ok(mut stats) = self.stats.lock() {
                stats.requests += 1;
            }
            let response = match self.http.get(&url).send().await {
                Ok(response) => response,
                Err(e) => {
                    self.close(&mut lane, service, &format!("unreachable ({})", reason(&e)));
                    return Answer::Failed;
                }
            };
            let status = response.status();
            match status {
                StatusCode::OK => {
                    return match response.text().await {
                        Ok(body) => Answer::Body(body),
                        Err(e) => {
                            self.close(
                                &mut lane,
                                service,
                                &format!("answer cut off ({})", reason(&e)),
                            );
                            Answer::Failed
                        }
                    };
                }
                StatusCode::NOT_FOUND | StatusCode::GONE | StatusCode::BAD_REQUEST => {
                    return Answer::NotFound;
                }
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                    let wait = retry_after(&response).unwrap_or(Duration::from_secs(5));
                    if wait > self.options.longest_wait || attempt == 2 {
                        self.close(&mut lane, service, &format!("rate limited ({status})"));
                        return Answer::Failed;
                    }
                    tracing::info!(
                        service = service.as_str(),
                        wait_ms = wait.as_millis() as u64,
                        "rate limited: waiting"
                    );
                    lane.next_at = Instant::now() + wait;
                }
                s if s.is_server_error() && attempt == 0 => {
                    lane.next_at = Instant::now() + Duration::from_secs(1);
                }
                _ => {
                    tracing::warn!(
                        service = service.as_str(),
                        status = status.as_u16(),
                        "unexpected answer"
                    );
                    return Answer::Failed;
                }
            }
        }
        Answer::Failed
    }

    fn close(&self, lane: &mut Lane, service: Service, why: &str) {
        lane.closed = true;
        tracing::info!(
            service = service.as_str(),
            why,
            "not asking this service again this run"
        );
        if let Ok(mut stats) = self.stats.lock() {
            stats.closed.push(format!("{}: {why}", service.as_str()));
        }
    }
}

fn found(service: Service, record: ScholarRecord) -> Found {
    Found { service, record }
}

/// A `Retry-After` of seconds (HTTP dates are read as "a while": 5 s).
fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let value = response.headers().get(RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

fn reason(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    }
}
