//! Asking the indexes politely: one request at a time per service, spaced to
//! its published rate limit; a `Retry-After` honoured when it is short; a
//! service that cannot be reached (no network, a firewall, a timeout) or keeps
//! refusing is closed for the rest of the run, so a review never waits on it
//! twice. Every request carries a User-Agent with the researcher's contact
//! address when one is set, as Crossref and OpenAlex ask, and OpenAlex's
//! requests carry its API key: the key is in the URL only, and no URL is ever
//! logged, cached or shown. OpenAlex's daily allowance is read from each of its
//! answers; once it is spent the service is closed with a notice that says so.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use reqwest::StatusCode;
use serde::Serialize;
use tokio::time::Instant;

use super::cache::Cache;
use super::markup::{authors_are_printed, is_this_paper};
use super::openalex::Allowance;
use super::{
    Found, Query, ScholarRecord, Service, arxiv, arxiv_base_id, bare_doi, crossref, openalex,
};
use crate::llm::secrets::ApiKey;
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
    /// OpenAlex's API key: without one its allowance is a cent a day.
    pub openalex_key: Option<ApiKey>,
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
            openalex_key: None,
        }
    }

    pub fn with_openalex_key(mut self, key: Option<ApiKey>) -> Self {
        self.openalex_key = key.filter(|k| !k.expose().is_empty());
        self
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
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LookupStats {
    pub requests: u64,
    pub from_cache: u64,
    /// Services closed for this run, with why.
    pub closed: Vec<String>,
    /// OpenAlex's allowance for the day as its last answer told it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openalex_allowance: Option<Allowance>,
    /// What the researcher should know, in sentences: an allowance spent, a
    /// key refused.
    pub notices: Vec<String>,
}

pub(super) enum Answer {
    Body(String),
    NotFound,
    Failed,
}

/// Why OpenAlex stopped answering, for the notice.
enum Refusal {
    AllowanceSpent,
    KeyRefused,
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
    /// id, OpenAlex by DOI (free; it also knows DataCite's DOIs, which
    /// Crossref does not), and only then, when the paper prints no identifier
    /// or its identifier names another work, an OpenAlex search by title.
    pub async fn find(&self, query: &Query) -> Option<Found> {
        let read = query.title.as_deref();
        // Its title is the paper's, and so are its people: a record that
        // names none of the authors the page prints is another work's.
        let is_this = |r: &ScholarRecord, by_identifier: bool| {
            let families: Vec<&str> = r.authors.iter().map(|a| a.family.as_str()).collect();
            r.title
                .as_deref()
                .is_some_and(|t| is_this_paper(t, read, &query.front_text, by_identifier))
                && authors_are_printed(&families, &query.front_text)
        };
        // Whether an identifier the paper prints turned out to be another
        // work's (a cited paper's DOI near the title): then the title is
        // worth a search after all.
        let mut names_another_work = false;
        let mut first_match = |records: Vec<ScholarRecord>| {
            let before = records.len();
            let record = records.into_iter().find(|r| is_this(r, true));
            names_another_work |= record.is_none() && before > 0;
            record
        };
        let doi = query.doi.as_deref().map(bare_doi);
        if let Some(doi) = &doi
            && let Some(record) = first_match(self.crossref(doi).await)
        {
            return Some(found(Service::Crossref, record));
        }
        if let Some(id) = &query.arxiv {
            let id = arxiv_base_id(id).to_owned();
            self.prefetch_arxiv(std::slice::from_ref(&id)).await;
            let records = self.cache.get(Service::Arxiv, &id).unwrap_or_default();
            if let Some(record) = first_match(records) {
                return Some(found(Service::Arxiv, record));
            }
        }
        if let Some(doi) = &doi
            && let Some(record) = first_match(self.openalex_by_doi(doi).await)
        {
            return Some(found(Service::Openalex, record));
        }
        let identified = doi.is_some() || query.arxiv.is_some();
        if identified && !names_another_work {
            return None;
        }
        let title = read.filter(|t| t.split_whitespace().count() >= 2)?;
        let record = self
            .openalex_search(title)
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

    async fn openalex_by_doi(&self, doi: &str) -> Vec<ScholarRecord> {
        let key = format!("doi:{doi}");
        if let Some(records) = self.cached(Service::Openalex, &key) {
            return records;
        }
        match self.get(Service::Openalex, &openalex::doi_path(doi)).await {
            Answer::Body(body) => match openalex::parse_work(&body) {
                Ok(record) => {
                    self.cache
                        .put(Service::Openalex, &key, std::slice::from_ref(&record));
                    vec![record]
                }
                Err(e) => {
                    tracing::warn!(doi, error = %e, "OpenAlex answered something unreadable");
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

    async fn openalex_search(&self, title: &str) -> Vec<ScholarRecord> {
        let key = normalise_for_match(title);
        if let Some(records) = self.cached(Service::Openalex, &key) {
            return records;
        }
        if !self.openalex_can_pay(openalex::SEARCH_USD).await {
            return Vec::new();
        }
        match self
            .get(Service::Openalex, &openalex::search_path(title))
            .await
        {
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

    /// Whether what is left of today's allowance, as OpenAlex's last answer
    /// told it, pays a call at `price_usd`. A call it does not pay would only
    /// earn a 429, so OpenAlex is closed for the run instead, with the notice.
    pub(super) async fn openalex_can_pay(&self, price_usd: f64) -> bool {
        let spent = self
            .stats()
            .openalex_allowance
            .is_some_and(|a| !a.can_pay(price_usd));
        if spent && let Some(lane) = self.lanes.get(&Service::Openalex) {
            let mut lane = lane.lock().await;
            if !lane.closed {
                self.refuse(&mut lane, Refusal::AllowanceSpent);
            }
        }
        !spent
    }

    /// Why OpenAlex is closed for this run, when it is.
    pub fn openalex_closed(&self) -> Option<String> {
        let prefix = format!("{}: ", Service::Openalex.as_str());
        self.stats()
            .closed
            .iter()
            .find_map(|c| c.strip_prefix(&prefix).map(str::to_owned))
    }

    /// OpenAlex's allowance for today, from the headers of its free
    /// `/rate-limit` answer: what Settings shows after a key is saved.
    pub async fn openalex_allowance(&self) -> Result<Allowance, String> {
        let path = openalex::with_credentials(
            "/rate-limit",
            self.options.openalex_key.as_ref().map(ApiKey::expose),
            self.options.contact.as_deref(),
        );
        let url = format!("{}{path}", self.options.endpoints.openalex);
        let response = self.http.get(&url).send().await.map_err(|e| {
            format!(
                "OpenAlex cannot be reached ({})",
                crate::net::failure_words(&e)
            )
        })?;
        let from_headers = Allowance::from_headers(response.headers());
        let status = response.status();
        match status {
            StatusCode::UNAUTHORIZED if self.options.openalex_key.is_some() => {
                Err("OpenAlex refused the API key: check it at openalex.org/settings/api".into())
            }
            StatusCode::TOO_MANY_REQUESTS => Ok(Allowance {
                remaining_usd: 0.0,
                limit_usd: from_headers.map_or(0.0, |a| a.limit_usd),
                resets_in_secs: None,
            }),
            StatusCode::OK => {
                let body = response.text().await.unwrap_or_default();
                Allowance::from_status_body(&body)
                    .or(from_headers)
                    .ok_or_else(|| "OpenAlex answered without telling its allowance".into())
            }
            status => Err(format!(
                "OpenAlex answered {} to the allowance check",
                status.as_u16()
            )),
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
    pub(super) async fn get(&self, service: Service, path: &str) -> Answer {
        let Some(lane) = self.lanes.get(&service) else {
            return Answer::Failed;
        };
        let mut lane = lane.lock().await;
        let path = match service {
            Service::Openalex => openalex::with_credentials(
                path,
                self.options.openalex_key.as_ref().map(ApiKey::expose),
                self.options.contact.as_deref(),
            ),
            Service::Crossref | Service::Arxiv => path.to_owned(),
        };
        // Holds OpenAlex's key: sent, never logged.
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
                    self.close(
                        &mut lane,
                        service,
                        &format!("unreachable ({})", crate::net::failure_words(&e)),
                    );
                    return Answer::Failed;
                }
            };
            let status = response.status();
            let allowance = match service {
                Service::Openalex => self.note_allowance(&response),
                Service::Crossref | Service::Arxiv => None,
            };
            match status {
                StatusCode::OK => {
                    return match response.text().await {
                        Ok(body) => Answer::Body(body),
                        Err(e) => {
                            self.close(
                                &mut lane,
                                service,
                                &format!("answer cut off ({})", crate::net::failure_words(&e)),
                            );
                            Answer::Failed
                        }
                    };
                }
                StatusCode::NOT_FOUND | StatusCode::GONE | StatusCode::BAD_REQUEST => {
                    return Answer::NotFound;
                }
                // OpenAlex's "slow down" is a 403: a pause, then again.
                StatusCode::FORBIDDEN if service == Service::Openalex && attempt < 2 => {
                    lane.next_at = Instant::now() + Duration::from_secs(2);
                }
                StatusCode::UNAUTHORIZED if service == Service::Openalex => {
                    self.refuse(&mut lane, Refusal::KeyRefused);
                    return Answer::Failed;
                }
                // OpenAlex answers 429 for a spent daily allowance: no wait
                // helps until tomorrow. (Its per-second limit, which the
                // pacing keeps well under, comes with a short Retry-After.)
                StatusCode::TOO_MANY_REQUESTS
                    if service == Service::Openalex
                        && (allowance.is_some_and(|a| a.is_spent())
                            || crate::net::retry_after(&response)
                                .is_none_or(|wait| wait > self.options.longest_wait)) =>
                {
                    self.refuse(&mut lane, Refusal::AllowanceSpent);
                    return Answer::Failed;
                }
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => {
                    let wait = crate::net::retry_after(&response).unwrap_or(Duration::from_secs(5));
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

    /// Keep the allowance an OpenAlex answer tells.
    fn note_allowance(&self, response: &reqwest::Response) -> Option<Allowance> {
        let allowance = Allowance::from_headers(response.headers())?;
        if let Ok(mut stats) = self.stats.lock() {
            stats.openalex_allowance = Some(allowance);
        }
        Some(allowance)
    }

    /// Close OpenAlex for the run and tell the researcher why, once.
    fn refuse(&self, lane: &mut Lane, refusal: Refusal) {
        let keyed = self.options.openalex_key.is_some();
        let (why, notice) = match refusal {
            Refusal::AllowanceSpent => (
                "daily allowance spent",
                if keyed {
                    "OpenAlex's daily allowance for your API key is spent, so papers that print \
                     no DOI or arXiv id were not searched there; they keep what their PDFs say. \
                     The allowance renews tomorrow."
                } else {
                    "OpenAlex's daily allowance without an API key (one cent a day) is spent, so \
                     papers that print no DOI or arXiv id were not searched there; they keep what \
                     their PDFs say. A free key (openalex.org/settings/api), saved in Settings, \
                     gives a dollar a day: about a thousand searches."
                },
            ),
            Refusal::KeyRefused => (
                "API key refused (401)",
                if keyed {
                    "OpenAlex refused the API key saved in Settings (401): check it at \
                     openalex.org/settings/api. Papers were looked up in Crossref and arXiv only."
                } else {
                    "OpenAlex asked for an API key (401). A free key (openalex.org/settings/api), \
                     saved in Settings, lets Quire look papers up there."
                },
            ),
        };
        self.close(lane, Service::Openalex, why);
        if let Ok(mut stats) = self.stats.lock()
            && !stats.notices.iter().any(|n| n == notice)
        {
            stats.notices.push(notice.to_owned());
        }
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
