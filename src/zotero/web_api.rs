//! Zotero's Web API (`https://api.zotero.org`, v3) for writing a review's
//! verdicts back: a key with write access to the library, items read by key
//! (50 at a time), Quire's notes found by their tag, and writes of at most 50
//! objects a request, at most 4 requests at once, each update carrying the
//! object's version (a 412 names the objects someone changed meanwhile).
//! `Backoff` and `Retry-After` are obeyed before the next request. The key
//! travels in the `Zotero-API-Key` header only, never in a URL or a log.
//! The same client writes through Zotero 10's local API ([`WebApi::local`]):
//! the same requests under `/api`, for My Library, each naming the database
//! its key was granted for ([`super::local_write`]).

use std::sync::Arc;
use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::{Mutex, Semaphore};
use tokio::time::Instant;

use crate::llm::secrets::ApiKey;

/// Objects a write request may carry, and requests at once (Zotero's limits).
pub const PER_WRITE: usize = 50;
pub const AT_ONCE: usize = 4;
/// Longest single wait honoured before giving up on a request.
const LONGEST_WAIT: Duration = Duration::from_secs(120);

#[derive(Debug, thiserror::Error)]
pub enum WebError {
    #[error(
        "Zotero's Web API refused the key (403): it needs write access to this library (zotero.org/settings/keys)"
    )]
    Forbidden,
    #[error(
        "Zotero's Web API does not know the key (401 or 403 on /keys/current): check it at zotero.org/settings/keys"
    )]
    BadKey,
    #[error("Zotero's Web API cannot be reached: {0}")]
    Unreachable(String),
    #[error("the running Zotero's local API cannot be reached: {0}; is Zotero still open?")]
    LocalUnreachable(String),
    #[error("Zotero's Web API answered {status} to {what}: {body}")]
    Status {
        status: u16,
        what: String,
        body: String,
    },
    #[error("Zotero's Web API asked to wait {0} s, longer than Quire waits; try again later")]
    TooLong(u64),
    #[error("Zotero's Web API answered something unreadable to {what}: {why}")]
    Unreadable { what: String, why: String },
    #[error(
        "Zotero refused Quire's local write access (401): it was used up or cleared in Zotero's settings; allow Quire again (`quire zotero authorize`, or Settings)"
    )]
    LocalKeyRefused,
    #[error(
        "the running Zotero serves another database than the one Quire was allowed to write to; allow Quire again for this one"
    )]
    ServerChanged,
}

/// What a key may do: whose library it opens, and where it may write.
#[derive(Clone, Debug)]
pub struct KeyAccess {
    pub user_id: u64,
    pub user_write: bool,
    /// Groups it may write to; `all` when the key covers every group.
    pub group_write: Vec<u64>,
    pub all_groups_write: bool,
}

impl KeyAccess {
    pub fn can_write(&self, prefix: &str) -> bool {
        match prefix.strip_prefix("groups/") {
            Some(group) => {
                self.all_groups_write
                    || group
                        .parse::<u64>()
                        .is_ok_and(|g| self.group_write.contains(&g))
            }
            None => self.user_write,
        }
    }

    /// The Web API's prefix for a local library prefix (`users/0` is the
    /// key's own user).
    pub fn web_prefix(&self, prefix: &str) -> String {
        if prefix.starts_with("users/") {
            format!("users/{}", self.user_id)
        } else {
            prefix.to_owned()
        }
    }
}

/// An item as the Web API holds it now.
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteItem {
    pub key: String,
    pub version: u64,
    /// (tag, type): type 1 is an automatic tag.
    pub tags: Vec<(String, u8)>,
}

/// A note Quire wrote (found by its tag).
#[derive(Clone, Debug, PartialEq)]
pub struct RemoteNote {
    pub key: String,
    pub version: u64,
    pub parent: Option<String>,
    pub html: String,
}

/// How one write request went, object by object (indexes into what was sent).
#[derive(Clone, Debug, Default)]
pub struct WriteOutcome {
    pub written: Vec<usize>,
    pub unchanged: Vec<usize>,
    /// (index, HTTP-like code, message): 412 means changed meanwhile.
    pub failed: Vec<(usize, u16, String)>,
}

pub struct WebApi {
    http: reqwest::Client,
    base: String,
    key: ApiKey,
    /// Zotero 10's local API: the database the key was granted for.
    server_id: Option<String>,
    /// No request before this instant (`Backoff`, `Retry-After`).
    not_before: Mutex<Instant>,
    slots: Arc<Semaphore>,
    requests: std::sync::atomic::AtomicU64,
}

#[derive(Deserialize)]
struct Envelope {
    key: String,
    #[serde(default)]
    version: u64,
    data: Value,
}

impl WebApi {
    /// The Web API at `base` (`https://api.zotero.org`) with `key`.
    pub fn new(base: &str, key: ApiKey) -> Result<Self, WebError> {
        Self::with_client(base, key, reqwest::Client::builder())
    }

    fn with_client(
        base: &str,
        key: ApiKey,
        builder: reqwest::ClientBuilder,
    ) -> Result<Self, WebError> {
        crate::net::install_crypto_provider();
        let http = builder
            .connect_timeout(Duration::from_secs(10))
            .timeout(Duration::from_secs(120))
            .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| WebError::Unreachable(e.without_url().to_string()))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
            key,
            server_id: None,
            not_before: Mutex::new(Instant::now()),
            slots: Arc::new(Semaphore::new(AT_ONCE)),
            requests: std::sync::atomic::AtomicU64::new(0),
        })
    }

    /// Zotero 10's local API at `api_base` (`http://127.0.0.1:23119/api`),
    /// with the write key granted for database `server_id`.
    /// Never through a proxy: the local key would go to it in clear, and
    /// the proxy cannot reach this machine's Zotero anyway.
    pub fn local(api_base: &str, key: ApiKey, server_id: String) -> Result<Self, WebError> {
        let mut api = Self::with_client(api_base, key, reqwest::Client::builder().no_proxy())?;
        api.server_id = Some(server_id);
        Ok(api)
    }

    /// Whether it writes through the local API.
    pub fn is_local(&self) -> bool {
        self.server_id.is_some()
    }

    /// Requests sent so far (retries included).
    pub fn requests(&self) -> u64 {
        self.requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// What the key may do. A local key writes My Library (user 0) only.
    pub async fn access(&self) -> Result<KeyAccess, WebError> {
        if self.is_local() {
            return Ok(KeyAccess {
                user_id: 0,
                user_write: true,
                group_write: Vec::new(),
                all_groups_write: false,
            });
        }
        let (status, body, _) = self
            .send(reqwest::Method::GET, "/keys/current", None)
            .await?;
        if matches!(
            status,
            StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED | StatusCode::NOT_FOUND
        ) {
            return Err(WebError::BadKey);
        }
        let v: Value = ok_json(status, &body, "/keys/current")?;
        let user = &v["access"]["user"];
        let groups = &v["access"]["groups"];
        let group_write = groups
            .as_object()
            .map(|g| {
                g.iter()
                    .filter(|(id, a)| *id != "all" && a["write"].as_bool() == Some(true))
                    .filter_map(|(id, _)| id.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        Ok(KeyAccess {
            user_id: v["userID"].as_u64().unwrap_or(0),
            user_write: user["library"].as_bool() == Some(true)
                && user["write"].as_bool() == Some(true),
            group_write,
            all_groups_write: groups["all"]["write"].as_bool() == Some(true),
        })
    }

    /// The items `keys` name, read 50 at a time.
    pub async fn items(&self, prefix: &str, keys: &[String]) -> Result<Vec<RemoteItem>, WebError> {
        let mut out = Vec::new();
        for chunk in keys.chunks(PER_WRITE) {
            let path = format!(
                "/{prefix}/items?itemKey={}&format=json&limit={PER_WRITE}",
                chunk.join(",")
            );
            let (status, body, _) = self.send(reqwest::Method::GET, &path, None).await?;
            let page: Vec<Envelope> = ok_json(status, &body, &path)?;
            out.extend(page.into_iter().map(|e| RemoteItem {
                key: e.key,
                version: e.data["version"].as_u64().unwrap_or(e.version),
                tags: tags_of(&e.data),
            }));
        }
        Ok(out)
    }

    /// Every note of the library carrying `tag`, paged.
    pub async fn notes_tagged(&self, prefix: &str, tag: &str) -> Result<Vec<RemoteNote>, WebError> {
        let mut out = Vec::new();
        loop {
            let path = format!(
                "/{prefix}/items?itemType=note&tag={}&format=json&limit=100&start={}",
                encode(tag),
                out.len()
            );
            let (status, body, total) = self.send(reqwest::Method::GET, &path, None).await?;
            let page: Vec<Envelope> = ok_json(status, &body, &path)?;
            let got = page.len();
            out.extend(page.into_iter().map(|e| RemoteNote {
                key: e.key,
                version: e.data["version"].as_u64().unwrap_or(e.version),
                parent: e.data["parentItem"].as_str().map(str::to_owned),
                html: e.data["note"].as_str().unwrap_or("").to_owned(),
            }));
            if got == 0 || total.is_none_or(|t| out.len() >= t) {
                return Ok(out);
            }
        }
    }

    /// Write up to [`PER_WRITE`] objects (creates, or updates carrying their
    /// `key` and `version`).
    pub async fn write(&self, prefix: &str, objects: &[Value]) -> Result<WriteOutcome, WebError> {
        let path = format!("/{prefix}/items");
        let body = Value::Array(objects.to_vec()).to_string();
        let (status, text, _) = self.send(reqwest::Method::POST, &path, Some(body)).await?;
        if status == StatusCode::FORBIDDEN {
            return Err(WebError::Forbidden);
        }
        let v: Value = ok_json(status, &text, &path)?;
        let indexes = |field: &str| -> Vec<usize> {
            v[field]
                .as_object()
                .map(|o| o.keys().filter_map(|k| k.parse().ok()).collect())
                .unwrap_or_default()
        };
        let mut outcome = WriteOutcome {
            written: indexes("successful"),
            unchanged: indexes("unchanged"),
            failed: Vec::new(),
        };
        if let Some(failed) = v["failed"].as_object() {
            for (index, f) in failed {
                if let Ok(index) = index.parse() {
                    outcome.failed.push((
                        index,
                        f["code"].as_u64().unwrap_or(0) as u16,
                        f["message"].as_str().unwrap_or("").to_owned(),
                    ));
                }
            }
        }
        outcome.written.sort_unstable();
        outcome.unchanged.sort_unstable();
        Ok(outcome)
    }

    /// One request, within the concurrency limit and after any wait the
    /// server asked for; a 429 or 503 is waited out and sent again.
    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<String>,
    ) -> Result<(StatusCode, String, Option<usize>), WebError> {
        let _slot = self
            .slots
            .acquire()
            .await
            .map_err(|e| WebError::Unreachable(e.to_string()))?;
        for _attempt in 0..4 {
            let wait_until = *self.not_before.lock().await;
            tokio::time::sleep_until(wait_until).await;
            self.requests
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let mut request = self
                .http
                .request(method.clone(), format!("{}{path}", self.base))
                .header("Zotero-API-Version", "3")
                .header("Zotero-API-Key", self.key.expose());
            if let Some(id) = &self.server_id {
                request = request.header("Zotero-Server-ID", id);
            }
            if let Some(body) = &body {
                request = request
                    .header("Content-Type", "application/json")
                    .body(body.clone());
            }
            let response = request.send().await.map_err(|e| {
                let why = e.without_url().to_string();
                if self.is_local() {
                    WebError::LocalUnreachable(why)
                } else {
                    WebError::Unreachable(why)
                }
            })?;
            let status = response.status();
            if let Some(ours) = &self.server_id {
                let theirs = response
                    .headers()
                    .get("zotero-server-id")
                    .and_then(|v| v.to_str().ok());
                if theirs.is_some_and(|t| t != ours) {
                    return Err(WebError::ServerChanged);
                }
                if status == StatusCode::UNAUTHORIZED {
                    return Err(WebError::LocalKeyRefused);
                }
            }
            let header_secs =
                |name: &str| crate::net::header_seconds(&response, name).map(|d| d.as_secs());
            // Backoff: the server is busy; wait before any next request.
            if let Some(secs) = header_secs("backoff") {
                self.defer(secs).await?;
            }
            if matches!(
                status,
                StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
            ) {
                self.defer(header_secs("retry-after").unwrap_or(5)).await?;
                continue;
            }
            let total = response
                .headers()
                .get("total-results")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse().ok());
            let text = response
                .text()
                .await
                .map_err(|e| WebError::Unreachable(e.without_url().to_string()))?;
            return Ok((status, text, total));
        }
        Err(WebError::Status {
            status: 429,
            what: path_only(path),
            body: "still rate limited after waiting".into(),
        })
    }

    async fn defer(&self, secs: u64) -> Result<(), WebError> {
        if Duration::from_secs(secs) > LONGEST_WAIT {
            return Err(WebError::TooLong(secs));
        }
        tracing::info!(secs, "Zotero asked to wait");
        let mut not_before = self.not_before.lock().await;
        *not_before = (*not_before).max(Instant::now() + Duration::from_secs(secs));
        Ok(())
    }
}

fn ok_json<T: serde::de::DeserializeOwned>(
    status: StatusCode,
    body: &str,
    path: &str,
) -> Result<T, WebError> {
    if !status.is_success() {
        return Err(WebError::Status {
            status: status.as_u16(),
            what: path_only(path),
            body: body.chars().take(200).collect(),
        });
    }
    serde_json::from_str(body).map_err(|e| WebError::Unreadable {
        what: path_only(path),
        why: e.to_string(),
    })
}

/// A path without its query, for messages.
fn path_only(path: &str) -> String {
    path.split('?').next().unwrap_or(path).to_owned()
}

fn tags_of(data: &Value) -> Vec<(String, u8)> {
    data["tags"]
        .as_array()
        .map(|tags| {
            tags.iter()
                .filter_map(|t| {
                    Some((
                        t["tag"].as_str()?.to_owned(),
                        t["type"].as_u64().unwrap_or(0) as u8,
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_writes_where_its_access_says() {
        let access = KeyAccess {
            user_id: 475,
            user_write: true,
            group_write: vec![12],
            all_groups_write: false,
        };
        assert!(access.can_write("users/0"));
        assert!(access.can_write("groups/12"));
        assert!(!access.can_write("groups/13"));
        assert_eq!(access.web_prefix("users/0"), "users/475");
        assert_eq!(access.web_prefix("groups/12"), "groups/12");
        assert_eq!(encode("quire:note"), "quire%3Anote");
    }
}
