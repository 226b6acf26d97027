//! A scholarly-index fixture: one real HTTP server on 127.0.0.1 that answers as
//! Crossref (`/crossref/works/{doi}`), arXiv (`/arxiv/api/query?id_list=…`)
//! and OpenAlex (`/openalex/works/doi:…`, `/openalex/works?search=…`,
//! `/openalex/rate-limit`) do, in their real response shapes (a Crossref work
//! envelope, an Atom feed, an OpenAlex work and result page), and misbehaves
//! on request: 404, 429 with `Retry-After`, a server that never answers, a
//! malformed body. OpenAlex keeps its 2026 rules: a daily allowance in US
//! dollars (a cent without a key, a dollar with one; searches $0.001, lookups
//! by DOI free) told in `X-RateLimit-*-USD` headers, 429 once it is spent, 401
//! for a wrong key. It runs on its own thread, so sync tests that spawn the
//! `quire` binary can use it as well as async ones.

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;

use crate::citation_graph::is_list;
pub use crate::citation_graph::{CitationGraph, GraphWork, OaLocation};
use crate::http::{serve_on_thread, write_full};

/// A work as the fixture's indexes hold it.
#[derive(Clone, Debug, Default)]
pub struct Work {
    pub title: String,
    /// (given, family) in order.
    pub authors: Vec<(String, String)>,
    pub year: u16,
    pub venue: Option<String>,
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub abstract_text: Option<String>,
}

/// How an index answers for one key.
#[derive(Clone, Debug)]
pub enum Answer {
    Work(Work),
    NotFound,
    /// 429 with `Retry-After: seconds` the first time, then `then`.
    RateLimitedOnce {
        retry_after: u64,
        then: Box<Answer>,
    },
    /// Accept the request and never answer.
    Hang,
    /// 200 with a body cut off halfway.
    Malformed,
}

/// What each index knows.
#[derive(Clone, Debug, Default)]
pub struct ScholarFixture {
    /// By lowercase DOI.
    pub crossref: HashMap<String, Answer>,
    /// By arXiv id without version.
    pub arxiv: HashMap<String, Answer>,
    /// By title; a search finds the works sharing most of its words, a
    /// lookup by DOI the work with that DOI.
    pub openalex: Vec<(String, Answer)>,
    /// The one API key OpenAlex accepts; another key is refused with 401.
    pub openalex_key: Option<String>,
    /// Dollars already spent today (by the key's owner, or keyless callers).
    pub openalex_spent_usd: f64,
    /// The works citation searching follows, with their references.
    pub graph: CitationGraph,
    /// Answer the first list call 429 with `Retry-After` of this many seconds.
    pub list_rate_limited_once: Option<u64>,
    /// Unpaywall (`/unpaywall/v2/{doi}?email=…`) by lowercase DOI: the best
    /// open location (pdf URL, host type, version, licence), or none (a work
    /// Unpaywall knows as closed). A DOI not listed answers 404.
    pub unpaywall: HashMap<String, Option<OaLocation>>,
    /// Files hosted at `/files/{name}`: what a repository serves.
    pub files: HashMap<String, Hosted>,
}

/// What a host serves at a file's URL.
#[derive(Clone, Debug)]
pub enum Hosted {
    /// A real PDF from disk.
    Pdf(std::path::PathBuf),
    /// A landing or login page in place of the PDF (200, text/html).
    LoginPage,
    /// 403: a host that blocks programs.
    Forbidden,
    /// 302 to this address: a host that sends the download elsewhere.
    RedirectTo(String),
    /// These bytes as `application/pdf`: a file that starts like a PDF
    /// and may be none.
    Bytes(Vec<u8>),
}

/// OpenAlex's daily allowances and prices, as published for 2026.
const ALLOWANCE_KEYED_USD: f64 = 1.0;
const ALLOWANCE_KEYLESS_USD: f64 = 0.01;
const SEARCH_USD: f64 = 0.001;
const LIST_USD: f64 = 0.0001;

/// One request the fixture saw.
#[derive(Clone, Debug)]
pub struct Seen {
    /// "crossref", "arxiv" or "openalex".
    pub service: String,
    pub path: String,
    pub user_agent: Option<String>,
}

pub struct ScholarServer {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

struct Shared {
    fixture: ScholarFixture,
    /// `http://127.0.0.1:N`: the fixture's own URLs in its answers.
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    limited: Mutex<HashSet<String>>,
    /// Dollars spent today: (with the key, without one).
    spent: Mutex<(f64, f64)>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ScholarServer {
    pub fn start(fixture: ScholarFixture) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let fixture_spent = fixture.openalex_spent_usd;
        let shared = Arc::new(Shared {
            fixture,
            base: format!("http://{addr}"),
            seen: seen.clone(),
            limited: Mutex::new(HashSet::new()),
            spent: Mutex::new((fixture_spent, fixture_spent)),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        serve_on_thread(
            listener,
            runtime,
            shared,
            |shared, mut stream, request| async move {
                let _ = answer(&shared, &mut stream, &request).await;
            },
        );
        Ok(Self { addr, seen })
    }

    /// The base URL of one index ("crossref", "arxiv", "openalex").
    pub fn url(&self, service: &str) -> String {
        format!("http://{}/{service}", self.addr)
    }

    /// The environment that points `quire` at this fixture.
    /// A fixture path (`/files/x.pdf`) as a URL to it.
    pub fn file_url(&self, name: &str) -> String {
        format!("http://{}/files/{name}", self.addr)
    }

    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("QUIRE_CROSSREF_URL", self.url("crossref")),
            ("QUIRE_ARXIV_URL", self.url("arxiv")),
            ("QUIRE_OPENALEX_URL", self.url("openalex")),
            ("QUIRE_UNPAYWALL_URL", self.url("unpaywall")),
            // Its files are on loopback over http, which downloads refuse
            // from any host not named here.
            ("QUIRE_TRUSTED_FILE_HOSTS", self.addr.to_string()),
        ]
    }

    pub fn requests(&self) -> Vec<Seen> {
        lock(&self.seen).clone()
    }

    /// How many requests one index ("crossref", "arxiv", "openalex") got.
    pub fn asked(&self, service: &str) -> usize {
        lock(&self.seen)
            .iter()
            .filter(|r| r.service == service)
            .count()
    }
}

async fn answer(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    request: &crate::http::HttpRequest,
) -> std::io::Result<()> {
    let path = request.path.clone();
    let (service, rest) = path
        .trim_start_matches('/')
        .split_once('/')
        .unwrap_or((path.as_str(), ""));
    lock(&shared.seen).push(Seen {
        service: service.to_owned(),
        path: format!("/{rest}"),
        user_agent: request.header("user-agent").map(str::to_owned),
    });
    let fixture = &shared.fixture;
    match service {
        "crossref" => {
            let doi = percent_decode(rest.strip_prefix("works/").unwrap_or("")).to_lowercase();
            let found = fixture
                .crossref
                .get(&doi)
                .cloned()
                .unwrap_or(Answer::NotFound);
            let found = settle(shared, &format!("crossref {doi}"), found);
            match found {
                Answer::Work(work) => {
                    let body = crossref_work(&work);
                    write_full(stream, 200, &[], "application/json", body.as_bytes()).await
                }
                other => misbehave(stream, other, "text/plain", b"Resource not found.").await,
            }
        }
        "arxiv" => {
            let query = rest.split_once('?').map_or("", |(_, q)| q);
            let ids: Vec<String> = param(query, "id_list")
                .map(|l| l.split(',').map(str::to_owned).collect())
                .unwrap_or_default();
            let mut works = Vec::new();
            for id in &ids {
                if let Some(a) = fixture.arxiv.get(id).cloned() {
                    match settle(shared, &format!("arxiv {id}"), a) {
                        Answer::Work(w) => works.push((id.clone(), w)),
                        Answer::NotFound => {}
                        other => {
                            return misbehave(stream, other, "application/atom+xml", b"").await;
                        }
                    }
                }
            }
            let body = atom_feed(&works);
            write_full(
                stream,
                200,
                &[],
                "application/atom+xml; charset=utf-8",
                body.as_bytes(),
            )
            .await
        }
        "openalex" => openalex(shared, stream, rest).await,
        "unpaywall" => unpaywall(shared, stream, rest).await,
        "files" => hosted(shared, stream, rest).await,
        _ => write_full(stream, 404, &[], "text/plain", b"no such index").await,
    }
}

/// OpenAlex: the key checked, the price charged against the day's allowance
/// (429 once it cannot be paid), and every answer with its allowance headers.
async fn openalex(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    rest: &str,
) -> std::io::Result<()> {
    let fixture = &shared.fixture;
    let (route, query) = rest.split_once('?').unwrap_or((rest, ""));
    let key = param(query, "api_key");
    let keyed = match (&key, &fixture.openalex_key) {
        (None, _) => false,
        (Some(given), Some(valid)) if given == valid => true,
        (Some(_), _) => {
            let body = json!({"error": "Invalid API key", "message": "The api_key given is not valid. Get a free key at https://openalex.org/settings/api"});
            return write_full(
                stream,
                401,
                &[],
                "application/json",
                body.to_string().as_bytes(),
            )
            .await;
        }
    };
    let search = param(query, "search");
    let filter = param(query, "filter");
    let cost = if search.is_some() {
        SEARCH_USD
    } else if is_list(route, filter.as_deref()) {
        LIST_USD
    } else {
        0.0
    };
    let limit = if keyed {
        ALLOWANCE_KEYED_USD
    } else {
        ALLOWANCE_KEYLESS_USD
    };
    let (paid, remaining) = {
        let mut spent = lock(&shared.spent);
        let spent = if keyed { &mut spent.0 } else { &mut spent.1 };
        let paid = limit - *spent >= cost - 1e-12;
        if paid {
            *spent += cost;
        }
        (paid, (limit - *spent).max(0.0))
    };
    let headers = [
        ("x-ratelimit-limit-usd", format!("{limit:.4}")),
        ("x-ratelimit-remaining-usd", format!("{remaining:.4}")),
        (
            "x-ratelimit-cost-usd",
            format!("{:.4}", if paid { cost } else { 0.0 }),
        ),
    ];
    if !paid {
        let body = json!({"error": "Rate limit exceeded", "message": "You have exceeded your daily budget. It resets at midnight UTC."});
        return write_full(
            stream,
            429,
            &headers,
            "application/json",
            body.to_string().as_bytes(),
        )
        .await;
    }
    if route == "rate-limit" {
        let body = json!({"api_key": key.as_ref().map(|_| "***"), "rate_limit": {
            "daily_budget_usd": limit, "daily_used_usd": limit - remaining,
            "daily_remaining_usd": remaining, "prepaid_balance_usd": 0.0,
            "prepaid_remaining_usd": 0.0, "resets_at": "2026-12-05T00:00:00Z",
            "resets_in_seconds": 3600, "endpoint_costs_usd": {"singleton": 0.0, "list": 0.0001, "search": SEARCH_USD}
        }});
        return write_full(
            stream,
            200,
            &headers,
            "application/json",
            body.to_string().as_bytes(),
        )
        .await;
    }
    if let Some(reply) = fixture.graph.singleton(route, query, &shared.base) {
        let mut headers = headers.to_vec();
        headers.extend(reply.location.map(|l| ("location", l)));
        let body = reply.body.to_string();
        return write_full(
            stream,
            reply.status,
            &headers,
            "application/json",
            body.as_bytes(),
        )
        .await;
    }
    if let Some(filter) = filter.filter(|_| route == "works") {
        if let Some(wait) = fixture.list_rate_limited_once
            && lock(&shared.limited).insert("openalex list".into())
        {
            let headers = [("retry-after", wait.to_string())];
            return write_full(stream, 429, &headers, "text/plain", b"Too Many Requests").await;
        }
        let reply = fixture.graph.list(&filter, query, keyed, &shared.base);
        let body = reply.body.to_string();
        return write_full(
            stream,
            reply.status,
            &headers,
            "application/json",
            body.as_bytes(),
        )
        .await;
    }
    if let Some(doi) = route.strip_prefix("works/doi:") {
        let doi = percent_decode(doi).to_lowercase();
        let known = fixture.openalex.iter().find(|(_, a)| {
            matches!(a, Answer::Work(w) if w.doi.as_deref().map(str::to_lowercase) == Some(doi.clone()))
        });
        return match known {
            Some((_, Answer::Work(w))) => {
                let body = openalex_work(w).to_string();
                write_full(stream, 200, &headers, "application/json", body.as_bytes()).await
            }
            _ => {
                let body =
                    json!({"error": "Not Found", "message": format!("Work doi:{doi} not found")});
                write_full(
                    stream,
                    404,
                    &headers,
                    "application/json",
                    body.to_string().as_bytes(),
                )
                .await
            }
        };
    }
    let Some(title) = search.filter(|_| route == "works") else {
        let body = json!({"error": "Invalid query parameters", "message": format!("this fixture answers /works/doi:…, /works?search=… and /rate-limit, not /{route}?{query}")});
        return write_full(
            stream,
            400,
            &headers,
            "application/json",
            body.to_string().as_bytes(),
        )
        .await;
    };
    let mut results = Vec::new();
    for (known, a) in &fixture.openalex {
        if !shares_most_words(known, &title) {
            continue;
        }
        match settle(shared, &format!("openalex {known}"), a.clone()) {
            Answer::Work(w) => results.push(openalex_work(&w)),
            Answer::NotFound => {}
            other => return misbehave(stream, other, "application/json", b"").await,
        }
    }
    let body = json!({
        "meta": {"count": results.len(), "db_response_time_ms": 12, "page": 1, "per_page": 5},
        "results": results,
        "group_by": []
    });
    write_full(
        stream,
        200,
        &headers,
        "application/json",
        body.to_string().as_bytes(),
    )
    .await
}

/// Unpaywall: `/v2/{doi}?email=…`; 422 without a plausible email, as
/// Unpaywall answers.
async fn unpaywall(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    rest: &str,
) -> std::io::Result<()> {
    let (route, query) = rest.split_once('?').unwrap_or((rest, ""));
    let email = param(query, "email").filter(|e| e.contains('@'));
    if email.is_none() {
        let body = json!({"HTTP_status_code": 422, "error": true, "message": "Please use an email address in your API call. Example: ?email=you@example.com"});
        return write_full(
            stream,
            422,
            &[],
            "application/json",
            body.to_string().as_bytes(),
        )
        .await;
    }
    let doi = percent_decode(route.strip_prefix("v2/").unwrap_or("")).to_lowercase();
    let Some(found) = shared.fixture.unpaywall.get(&doi) else {
        let body = json!({"HTTP_status_code": 404, "error": true, "message": format!("'{doi}' is an invalid doi. See https://doi.org/{doi}")});
        return write_full(
            stream,
            404,
            &[],
            "application/json",
            body.to_string().as_bytes(),
        )
        .await;
    };
    let best = found.as_ref().map(|(pdf, host_type, version, licence)| {
        let pdf = crate::citation_graph::own_url(pdf, &shared.base);
        json!({"url": pdf, "url_for_pdf": pdf, "url_for_landing_page": format!("https://doi.org/{doi}"),
               "host_type": host_type, "is_best": true, "license": licence, "version": version,
               "evidence": "oa repository (via OAI-PMH doi match)", "repository_institution": null,
               "oa_date": "2020-01-01", "updated": "2026-11-01T00:00:00"})
    });
    let body = json!({"doi": doi, "doi_url": format!("https://doi.org/{doi}"), "is_oa": best.is_some(),
        "oa_status": if best.is_some() { "green" } else { "closed" }, "best_oa_location": best,
        "oa_locations": best.iter().collect::<Vec<_>>(), "data_standard": 2, "genre": "journal-article"});
    write_full(
        stream,
        200,
        &[],
        "application/json",
        body.to_string().as_bytes(),
    )
    .await
}

/// A file host: a real PDF, a login page served instead, or a refusal.
async fn hosted(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    name: &str,
) -> std::io::Result<()> {
    match shared.fixture.files.get(name) {
        Some(Hosted::Pdf(path)) => {
            let bytes = std::fs::read(path)?;
            write_full(stream, 200, &[], "application/pdf", &bytes).await
        }
        Some(Hosted::LoginPage) => {
            let page = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><form>Sign in to download</form></body></html>";
            write_full(stream, 200, &[], "text/html; charset=utf-8", page).await
        }
        Some(Hosted::Forbidden) => write_full(stream, 403, &[], "text/plain", b"Forbidden").await,
        Some(Hosted::RedirectTo(to)) => {
            write_full(
                stream,
                302,
                &[("location", to.clone())],
                "text/plain",
                b"Found",
            )
            .await
        }
        Some(Hosted::Bytes(bytes)) => write_full(stream, 200, &[], "application/pdf", bytes).await,
        None => write_full(stream, 404, &[], "text/plain", b"Not Found").await,
    }
}

/// The answer to give now: a once-rate-limited key answers 429 the first
/// time it is asked and its real answer afterwards.
fn settle(shared: &Shared, key: &str, answer: Answer) -> Answer {
    match answer {
        Answer::RateLimitedOnce { retry_after, then } => {
            if lock(&shared.limited).insert(key.to_owned()) {
                Answer::RateLimitedOnce { retry_after, then }
            } else {
                *then
            }
        }
        other => other,
    }
}

async fn misbehave(
    stream: &mut tokio::net::TcpStream,
    answer: Answer,
    content_type: &str,
    not_found_body: &[u8],
) -> std::io::Result<()> {
    match answer {
        Answer::RateLimitedOnce { retry_after, .. } => {
            let headers = [("retry-after", retry_after.to_string())];
            write_full(stream, 429, &headers, "text/plain", b"Too Many Requests").await
        }
        Answer::Hang => {
            tokio::time::sleep(Duration::from_secs(120)).await;
            Ok(())
        }
        Answer::Malformed => {
            let body: &[u8] = if content_type.contains("xml") {
                b"<?xml version=\"1.0\"?><feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><id>http://arxiv.org/abs/"
            } else {
                b"{\"status\":\"ok\",\"message-type\":\"work\",\"message\":{\"title\":[\"Cut"
            };
            write_full(stream, 200, &[], content_type, body).await
        }
        Answer::NotFound | Answer::Work(_) => {
            write_full(stream, 404, &[], "text/plain", not_found_body).await
        }
    }
}

fn crossref_work(work: &Work) -> String {
    let authors: Vec<_> = work
        .authors
        .iter()
        .enumerate()
        .map(|(i, (given, family))| {
            json!({"given": given, "family": family,
                   "sequence": if i == 0 { "first" } else { "additional" }, "affiliation": []})
        })
        .collect();
    json!({
        "status": "ok",
        "message-type": "work",
        "message-version": "1.0.0",
        "message": {
            "indexed": {"date-parts": [[2025, 1, 4]], "date-time": "2025-01-04T10:00:00Z", "timestamp": 1735984800000_u64},
            "publisher": "Association for Computing Machinery",
            "DOI": work.doi.clone().unwrap_or_default(),
            "type": "proceedings-article",
            "title": [work.title],
            "author": authors,
            "container-title": work.venue.iter().collect::<Vec<_>>(),
            "published-print": {"date-parts": [[work.year, 10]]},
            "issued": {"date-parts": [[work.year, 10, 27]]},
            "abstract": work.abstract_text.as_ref().map(|a| format!("<jats:p>{a}</jats:p>")),
            "URL": format!("https://doi.org/{}", work.doi.clone().unwrap_or_default()),
            "score": 1
        }
    })
    .to_string()
}

fn atom_feed(works: &[(String, Work)]) -> String {
    let mut feed = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\" \
         xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:arxiv=\"http://arxiv.org/schemas/atom\">\n\
         <id>https://arxiv.org/api/fixture</id>\n<title>arXiv Query: fixture</title>\n<updated>2025-01-04T00:00:00Z</updated>\n",
    );
    feed.push_str(&format!(
        "<opensearch:itemsPerPage>{n}</opensearch:itemsPerPage>\n<opensearch:totalResults>{n}</opensearch:totalResults>\n<opensearch:startIndex>0</opensearch:startIndex>\n",
        n = works.len()
    ));
    for (id, w) in works {
        feed.push_str(&format!(
            "<entry>\n<id>http://arxiv.org/abs/{id}v2</id>\n<updated>{y}-06-01T00:00:00Z</updated>\n<published>{y}-05-01T00:00:00Z</published>\n<title>{}</title>\n<summary>  {}\n</summary>\n",
            xml_escape(&w.title),
            xml_escape(w.abstract_text.as_deref().unwrap_or("")),
            y = w.year
        ));
        for (given, family) in &w.authors {
            feed.push_str(&format!(
                "<author>\n<name>{}</name>\n</author>\n",
                xml_escape(&format!("{given} {family}"))
            ));
        }
        if let Some(venue) = &w.venue {
            feed.push_str(&format!(
                "<arxiv:journal_ref>{}</arxiv:journal_ref>\n",
                xml_escape(venue)
            ));
        }
        if let Some(doi) = &w.doi {
            feed.push_str(&format!("<arxiv:doi>{}</arxiv:doi>\n", xml_escape(doi)));
        }
        feed.push_str(&format!(
            "<link href=\"http://arxiv.org/abs/{id}v2\" rel=\"alternate\" type=\"text/html\"/>\n<arxiv:primary_category term=\"cs.LG\"/>\n</entry>\n"
        ));
    }
    feed.push_str("</feed>\n");
    feed
}

pub(crate) fn openalex_work(work: &Work) -> serde_json::Value {
    let mut inverted: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, word) in work
        .abstract_text
        .as_deref()
        .unwrap_or("")
        .split_whitespace()
        .enumerate()
    {
        inverted.entry(word.to_owned()).or_default().push(i);
    }
    json!({
        "id": "https://openalex.org/W0000000001",
        "doi": work.doi.as_ref().map(|d| format!("https://doi.org/{d}")),
        "title": work.title,
        "display_name": work.title,
        "publication_year": work.year,
        "type": "article",
        "authorships": work.authors.iter().enumerate().map(|(i, (g, f))| json!({
            "author_position": if i == 0 { "first" } else { "middle" },
            "author": {"id": "https://openalex.org/A0000000001", "display_name": format!("{g} {f}"), "orcid": null},
            "institutions": [],
            "raw_author_name": format!("{g} {f}")
        })).collect::<Vec<_>>(),
        "primary_location": {
            "is_oa": true,
            "landing_page_url": null,
            "source": work.venue.as_ref().map(|v| json!({"id": "https://openalex.org/S1", "display_name": v, "type": "journal"}))
        },
        "locations": [],
        "abstract_inverted_index": if inverted.is_empty() { serde_json::Value::Null } else { json!(inverted) },
        "cited_by_count": 3
    })
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

pub(crate) fn param<'a>(query: &'a str, name: &str) -> Option<String> {
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v): (&'a str, &'a str)| percent_decode(v))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        if let (b'%', Some(b)) = (bytes[i], hex) {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn words(text: &str) -> HashSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn shares_most_words(known: &str, asked: &str) -> bool {
    let (known, asked) = (words(known), words(asked));
    !known.is_empty() && known.intersection(&asked).count() * 2 >= known.len()
}
