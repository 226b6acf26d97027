//! Zotero's Web API (v3) for tests: a real HTTP server holding a user's
//! library (items with versions, tags and child notes) that checks the key
//! (`Zotero-API-Key`, `/keys/current`), answers items by key and notes by
//! tag (paged, `Total-Results`), and takes writes as api.zotero.org does:
//! at most 50 objects a request (413 past it), each update's `version`
//! checked (412 when the item changed since, 428 when it names none), the
//! per-object outcome in `successful` / `unchanged` / `failed`. On request it
//! answers one 429 with `Retry-After`, sends a `Backoff`, or plays a user who
//! edits an item between Quire's read and its write.
//!
//! [`WebApiServer::start_local`] plays Zotero 10's local API instead
//! (`/api/…`, user 0): reads need no key; `GET /api/` names the database in
//! `Zotero-Server-ID`; `POST /api/local/authorize` is the dialog the
//! researcher answers once (always, once, or deny); a write must carry that
//! server id (428 without, 412 for another database's) and the key the
//! dialog granted (401 without; a once-only key is spent by its first write).

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};

use crate::http::{serve_on_thread, write_full};

/// An object of the library: a regular item or a child note.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Object {
    pub key: String,
    pub version: u64,
    pub item_type: String,
    /// (tag, type): type 1 is automatic.
    pub tags: Vec<(String, u8)>,
    pub parent: Option<String>,
    pub note: Option<String>,
}

/// How the server behaves beyond the rules.
#[derive(Clone, Debug, Default)]
pub struct Quirks {
    /// Answer the next write with 429 and `Retry-After: 1`.
    pub rate_limit_next_write: bool,
    /// Send `Backoff: 1` with the next answer.
    pub backoff_next: bool,
    /// After the next read of items, the user adds this tag to this item
    /// (a new version), as if editing in Zotero meanwhile.
    pub edit_after_read: Option<(String, String)>,
}

#[derive(Default)]
struct State {
    library_version: u64,
    objects: BTreeMap<String, Object>,
    quirks: Quirks,
    next_key: u64,
}

/// What the server saw.
#[derive(Clone, Debug, Default)]
pub struct Traffic {
    pub gets: usize,
    pub posts: usize,
    /// Objects per write request.
    pub write_sizes: Vec<usize>,
    pub max_in_flight: usize,
    /// Requests whose key header was not the library's key.
    pub bad_keys: usize,
    /// Waits observed between a Retry-After/Backoff and the next request, in ms.
    pub waited_ms: Vec<u128>,
}

pub struct WebApiServer {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    traffic: Arc<Mutex<Traffic>>,
    asked_by: Arc<Mutex<Vec<String>>>,
}

/// How the researcher answers Zotero 10's "allow this application to
/// write?" dialog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consent {
    AlwaysAllow,
    AllowOnce,
    Deny,
}

/// Zotero 10's local API: its database's id, and what the dialog granted.
struct Local {
    server_id: String,
    consent: Consent,
    /// The key granted, and whether it lasts (else one write).
    granted: Mutex<Option<(String, bool)>>,
    /// The application names that asked.
    asked_by: Arc<Mutex<Vec<String>>>,
}

struct Shared {
    key: String,
    local: Option<Local>,
    user_id: u64,
    state: Arc<Mutex<State>>,
    traffic: Arc<Mutex<Traffic>>,
    in_flight: AtomicUsize,
    /// When a wait was asked for, to measure the client's.
    asked_wait_at: Mutex<Option<std::time::Instant>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl WebApiServer {
    /// A library of user `user_id` opened by `key` (with write access).
    pub fn start(key: &str, user_id: u64, objects: Vec<Object>) -> std::io::Result<Self> {
        Self::serve(key, user_id, objects, None)
    }

    /// Zotero 10's local API over My Library, its database `server_id`, the
    /// authorization dialog answered with `consent`.
    pub fn start_local(
        server_id: &str,
        consent: Consent,
        objects: Vec<Object>,
    ) -> std::io::Result<Self> {
        Self::serve("", 0, objects, Some((server_id.to_owned(), consent)))
    }

    fn serve(
        key: &str,
        user_id: u64,
        objects: Vec<Object>,
        local: Option<(String, Consent)>,
    ) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let library_version = objects.iter().map(|o| o.version).max().unwrap_or(0);
        let state = Arc::new(Mutex::new(State {
            library_version,
            objects: objects.into_iter().map(|o| (o.key.clone(), o)).collect(),
            quirks: Quirks::default(),
            next_key: 0,
        }));
        let traffic = Arc::new(Mutex::new(Traffic::default()));
        let asked_by = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared {
            key: key.to_owned(),
            local: local.map(|(server_id, consent)| Local {
                server_id,
                consent,
                granted: Mutex::new(None),
                asked_by: asked_by.clone(),
            }),
            user_id,
            state: state.clone(),
            traffic: traffic.clone(),
            in_flight: AtomicUsize::new(0),
            asked_wait_at: Mutex::new(None),
        });
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        serve_on_thread(
            listener,
            runtime,
            shared,
            |shared, mut stream, request| async move {
                let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                {
                    let mut t = lock(&shared.traffic);
                    t.max_in_flight = t.max_in_flight.max(now);
                }
                let _ = answer(&shared, &mut stream, &request).await;
                shared.in_flight.fetch_sub(1, Ordering::SeqCst);
            },
        );
        Ok(Self {
            addr,
            state,
            traffic,
            asked_by,
        })
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The application names that asked Zotero 10 for write access.
    pub fn asked_by(&self) -> Vec<String> {
        lock(&self.asked_by).clone()
    }

    pub fn object(&self, key: &str) -> Option<Object> {
        lock(&self.state).objects.get(key).cloned()
    }

    /// The child notes of `parent`.
    pub fn notes_of(&self, parent: &str) -> Vec<Object> {
        lock(&self.state)
            .objects
            .values()
            .filter(|o| o.parent.as_deref() == Some(parent))
            .cloned()
            .collect()
    }

    /// Change an item as the researcher would in Zotero (a new version).
    pub fn edit(&self, key: &str, change: impl FnOnce(&mut Object)) {
        let mut state = lock(&self.state);
        state.library_version += 1;
        let version = state.library_version;
        if let Some(o) = state.objects.get_mut(key) {
            change(o);
            o.version = version;
        }
    }

    pub fn quirks(&self, quirks: Quirks) {
        lock(&self.state).quirks = quirks;
    }

    pub fn traffic(&self) -> Traffic {
        lock(&self.traffic).clone()
    }

    pub fn reset_traffic(&self) {
        *lock(&self.traffic) = Traffic::default();
    }
}

fn envelope(o: &Object) -> Value {
    let tags: Vec<Value> = o
        .tags
        .iter()
        .map(|(t, kind)| {
            if *kind == 0 {
                json!({"tag": t})
            } else {
                json!({"tag": t, "type": kind})
            }
        })
        .collect();
    let mut data = json!({"key": o.key, "version": o.version, "itemType": o.item_type, "tags": tags, "relations": {}});
    if let Some(parent) = &o.parent {
        data["parentItem"] = json!(parent);
    }
    if let Some(note) = &o.note {
        data["note"] = json!(note);
    }
    if o.item_type != "note" {
        data["title"] = json!(format!("Item {}", o.key));
        data["collections"] = json!([]);
    }
    json!({"key": o.key, "version": o.version,
           "library": {"type": "user", "id": 475, "name": "reviewer", "links": {}},
           "links": {}, "meta": {}, "data": data})
}

/// Zotero 10's rules for a local request: the authorization dialog, and a
/// write's server id and key. `Some((status, body))` answers it instead.
fn local_gate(
    local: &Local,
    request: &crate::http::HttpRequest,
    route: &str,
) -> Option<(u16, String)> {
    let server_id = request.header("zotero-server-id");
    if route == "/local/authorize" && request.method == "POST" {
        if server_id.is_none() {
            return Some((
                428,
                json!({"error": "Zotero-Server-ID header required"}).to_string(),
            ));
        }
        let app = serde_json::from_slice::<Value>(&request.body)
            .ok()
            .and_then(|v| v["appName"].as_str().map(str::to_owned))
            .unwrap_or_default();
        lock(&local.asked_by).push(app);
        return Some(match local.consent {
            Consent::Deny => (
                403,
                json!({"error": "The user denied write access"}).to_string(),
            ),
            consent => {
                let remember = consent == Consent::AlwaysAllow;
                let key = format!("local{:027}", lock(&local.asked_by).len());
                *lock(&local.granted) = Some((key.clone(), remember));
                (200, json!({"key": key, "remember": remember}).to_string())
            }
        });
    }
    if request.method == "GET" {
        return None;
    }
    match server_id {
        None => {
            return Some((
                428,
                json!({"error": "Zotero-Server-ID header required for writes"}).to_string(),
            ));
        }
        Some(id) if id != local.server_id => {
            return Some((
                412,
                json!({"error": "Zotero-Server-ID does not match this Zotero database"})
                    .to_string(),
            ));
        }
        Some(_) => {}
    }
    let mut granted = lock(&local.granted);
    let given = request.header("zotero-api-key");
    match granted.clone() {
        Some((key, remember)) if given == Some(key.as_str()) => {
            if !remember {
                *granted = None;
            }
            None
        }
        _ => Some((401, json!({"error": "Write access requires an API key. POST /api/local/authorize to obtain one"}).to_string())),
    }
}

async fn answer(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    request: &crate::http::HttpRequest,
) -> std::io::Result<()> {
    if let Some(at) = lock(&shared.asked_wait_at).take() {
        lock(&shared.traffic)
            .waited_ms
            .push(at.elapsed().as_millis());
    }
    let mut headers: Vec<(&str, String)> = vec![("zotero-api-version", "3".into())];
    let backoff = std::mem::take(&mut lock(&shared.state).quirks.backoff_next);
    if backoff {
        headers.push(("backoff", "1".into()));
        *lock(&shared.asked_wait_at) = Some(std::time::Instant::now());
    }
    let (route, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
    let route = match &shared.local {
        Some(local) => {
            headers.push(("zotero-server-id", local.server_id.clone()));
            let Some(route) = route.strip_prefix("/api") else {
                return write_full(stream, 404, &headers, "text/plain", b"Not found").await;
            };
            if let Some(refused) = local_gate(local, request, route) {
                let (status, body) = refused;
                return write_full(
                    stream,
                    status,
                    &headers,
                    "application/json",
                    body.as_bytes(),
                )
                .await;
            }
            if route == "/" || route.is_empty() {
                return write_full(stream, 200, &headers, "application/json", b"{}").await;
            }
            route
        }
        None => {
            if request.header("zotero-api-key") != Some(shared.key.as_str()) {
                lock(&shared.traffic).bad_keys += 1;
                return write_full(stream, 403, &headers, "text/plain", b"Invalid key").await;
            }
            route
        }
    };
    let param = |name: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.replace("%3A", ":").replace("%3a", ":"))
    };
    let prefix = format!("/users/{}", shared.user_id);
    if request.method == "GET" {
        lock(&shared.traffic).gets += 1;
    }
    match (request.method.as_str(), route) {
        ("GET", "/keys/current") => {
            let body = json!({"key": "***", "userID": shared.user_id, "username": "reviewer",
                "access": {"user": {"library": true, "files": true, "notes": true, "write": true},
                           "groups": {"all": {"library": true, "write": false}}}});
            write_full(
                stream,
                200,
                &headers,
                "application/json",
                body.to_string().as_bytes(),
            )
            .await
        }
        ("GET", r) if r == format!("{prefix}/items") => {
            let (page, total, version) = {
                let mut state = lock(&shared.state);
                let found: Vec<Value> = if let Some(keys) = param("itemKey") {
                    let keys: Vec<String> = keys.split(',').map(str::to_owned).collect();
                    let found = keys
                        .iter()
                        .filter_map(|k| state.objects.get(k))
                        .map(envelope)
                        .collect();
                    // The user edits while Quire holds what it read.
                    if let Some((key, tag)) = state.quirks.edit_after_read.take() {
                        state.library_version += 1;
                        let version = state.library_version;
                        if let Some(o) = state.objects.get_mut(&key) {
                            o.tags.push((tag, 0));
                            o.version = version;
                        }
                    }
                    found
                } else {
                    let tag = param("tag");
                    let kind = param("itemType");
                    state
                        .objects
                        .values()
                        .filter(|o| kind.as_ref().is_none_or(|k| &o.item_type == k))
                        .filter(|o| {
                            tag.as_ref()
                                .is_none_or(|t| o.tags.iter().any(|(x, _)| x == t))
                        })
                        .map(envelope)
                        .collect()
                };
                let total = found.len();
                let start: usize = param("start").and_then(|s| s.parse().ok()).unwrap_or(0);
                let limit: usize = param("limit")
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(25)
                    .min(100);
                let page: Vec<Value> = found.into_iter().skip(start).take(limit).collect();
                (page, total, state.library_version)
            };
            headers.push(("total-results", total.to_string()));
            headers.push(("last-modified-version", version.to_string()));
            write_full(
                stream,
                200,
                &headers,
                "application/json",
                Value::Array(page).to_string().as_bytes(),
            )
            .await
        }
        ("POST", r) if r == format!("{prefix}/items") => {
            // Slow enough that concurrent writes overlap, as they would on the network.
            tokio::time::sleep(Duration::from_millis(30)).await;
            let limited = std::mem::take(&mut lock(&shared.state).quirks.rate_limit_next_write);
            if limited {
                headers.push(("retry-after", "1".into()));
                *lock(&shared.asked_wait_at) = Some(std::time::Instant::now());
                return write_full(stream, 429, &headers, "text/plain", b"Too many requests").await;
            }
            let Ok(Value::Array(objects)) = serde_json::from_slice::<Value>(&request.body) else {
                return write_full(stream, 400, &headers, "text/plain", b"Invalid JSON").await;
            };
            {
                let mut t = lock(&shared.traffic);
                t.posts += 1;
                t.write_sizes.push(objects.len());
            }
            if objects.len() > 50 {
                return write_full(
                    stream,
                    413,
                    &headers,
                    "text/plain",
                    b"Too many items submitted",
                )
                .await;
            }
            let (body, version) = {
                let mut state = lock(&shared.state);
                let (mut successful, mut success, mut unchanged, mut failed) =
                    (json!({}), json!({}), json!({}), json!({}));
                for (i, object) in objects.iter().enumerate() {
                    let index = i.to_string();
                    let tags: Option<Vec<(String, u8)>> = object["tags"].as_array().map(|tags| {
                        tags.iter()
                            .filter_map(|t| {
                                Some((
                                    t["tag"].as_str()?.to_owned(),
                                    t["type"].as_u64().unwrap_or(0) as u8,
                                ))
                            })
                            .collect()
                    });
                    match object["key"].as_str() {
                        Some(key) => {
                            let Some(current) = state.objects.get(key).cloned() else {
                                failed[&index] =
                                    json!({"key": key, "code": 404, "message": "Item not found"});
                                continue;
                            };
                            let Some(version) = object["version"].as_u64() else {
                                failed[&index] = json!({"key": key, "code": 428, "message": "If-Unmodified-Since-Version not provided"});
                                continue;
                            };
                            if version != current.version {
                                failed[&index] = json!({"key": key, "code": 412,
                                "message": format!("Item has been modified since specified version (expected {version}, found {})", current.version)});
                                continue;
                            }
                            let mut next = current.clone();
                            if let Some(tags) = tags {
                                next.tags = tags;
                            }
                            if let Some(note) = object["note"].as_str() {
                                next.note = Some(note.to_owned());
                            }
                            if next == current {
                                unchanged[&index] = json!(key);
                                continue;
                            }
                            state.library_version += 1;
                            next.version = state.library_version;
                            successful[&index] = envelope(&next);
                            success[&index] = json!(key);
                            state.objects.insert(key.to_owned(), next);
                        }
                        None => {
                            let parent = object["parentItem"].as_str().map(str::to_owned);
                            if parent
                                .as_ref()
                                .is_some_and(|p| !state.objects.contains_key(p))
                            {
                                failed[&index] =
                                    json!({"code": 400, "message": "Parent item not found"});
                                continue;
                            }
                            state.next_key += 1;
                            state.library_version += 1;
                            let created = Object {
                                key: format!("NEW{:05}", state.next_key),
                                version: state.library_version,
                                item_type: object["itemType"].as_str().unwrap_or("note").to_owned(),
                                tags: tags.unwrap_or_default(),
                                parent,
                                note: object["note"].as_str().map(str::to_owned),
                            };
                            successful[&index] = envelope(&created);
                            success[&index] = json!(created.key);
                            state.objects.insert(created.key.clone(), created);
                        }
                    }
                }
                let body = json!({"successful": successful, "success": success, "unchanged": unchanged, "failed": failed});
                (body, state.library_version)
            };
            headers.push(("last-modified-version", version.to_string()));
            write_full(
                stream,
                200,
                &headers,
                "application/json",
                body.to_string().as_bytes(),
            )
            .await
        }
        _ => write_full(stream, 404, &headers, "text/plain", b"Not found").await,
    }
}
