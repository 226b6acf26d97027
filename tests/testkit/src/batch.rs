//! OpenAI's Batch API as the scripted server plays it: request files uploaded
//! as multipart (`POST /v1/files`, purpose `batch`), batches created over them
//! with metadata, listed newest first with cursor paging, followed, cancelled,
//! and their output and error files read back.
//!
//! Time is the client's polling: each retrieve of a batch moves it one state
//! on (validating, in progress, finalizing, then its end), so a test waits on
//! what the client does, never on a clock. At its end a batch answers every
//! line with the server's policy (a fallible reader's answers spoiled as
//! its chat calls' are), writes the results in reverse order (a real
//! batch keeps no order), and spoils lines on request: a 500 in the error
//! file, or the line never run because the window closed (status `expired`).
//! A line is spoiled only the first time its id is seen, as a retry in a new
//! batch then succeeds; a request the API refuses (a 400) is refused in every
//! batch, as a real one is. Anthropic's Message Batches share these files'
//! fates and counts ([`crate::message_batches`]).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::render::{self, Answer};
use crate::request::{Protocol, RecordedRequest};
use crate::script::{Quirks, ScriptedCall};
use crate::tokenizer::Tokenizer;

/// How the server's policy answers a request (a batch line's as a chat
/// call's), setting the quirks the answer is rendered with.
pub(crate) type PolicyReply<'a> =
    &'a (dyn Fn(&RecordedRequest, &mut Quirks) -> (String, Vec<ScriptedCall>) + Sync);

/// What the server says of a request it refuses.
pub(crate) const REFUSED: &str = "the request cannot be taken by a batch";

/// What becomes of one line when its batch ends.
pub(crate) enum Fate {
    Answered,
    /// A 500, the first time the id is seen.
    Failed,
    /// Never run, the first time the id is seen.
    Expired,
    /// A 400, every time.
    Refused,
}

/// How the batch endpoints misbehave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchOptions {
    /// Every n-th line (1-based, within a batch) fails with a 500.
    pub fail_every: Option<usize>,
    /// Every n-th line is never run: the batch ends `expired`.
    pub expire_every: Option<usize>,
    /// Every n-th request id the server sees is refused with a 400, in
    /// every batch it comes in (a request the batch cannot take).
    pub refuse_every: Option<usize>,
    /// Every batch fails validation with this message.
    pub invalid: Option<String>,
    /// Added before every answer of the batch endpoints (time for a test
    /// to kill the client between two steps).
    pub delay: std::time::Duration,
}

/// What the batch endpoints were asked, for tests to check against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    pub files_uploaded: usize,
    pub batches_created: usize,
    /// Lines across every batch created (the same id twice counts twice).
    pub lines_submitted: usize,
    pub cancelled: usize,
    /// Batch lists asked for (`GET /v1/batches`).
    pub lists: usize,
    /// Files deleted, and files the server still holds.
    pub files_deleted: usize,
    pub files_held: usize,
    /// Message batches deleted (Anthropic's; OpenAI's delete files).
    pub batches_deleted: usize,
}

struct StoredBatch {
    id: String,
    input_file_id: String,
    metadata: Value,
    status: &'static str,
    output_file_id: Option<String>,
    error_file_id: Option<String>,
    counts: (usize, usize, usize),
    created_at: u64,
}

impl StoredBatch {
    fn json(&self) -> Value {
        let errors = match self.status {
            "failed" => {
                json!({"object": "list", "data": [{"code": "invalid_request", "line": 1, "message": self.metadata.get("__invalid").cloned().unwrap_or(Value::Null)}]})
            }
            _ => Value::Null,
        };
        let mut metadata = self.metadata.clone();
        if let Some(m) = metadata.as_object_mut() {
            m.remove("__invalid");
        }
        json!({
            "id": self.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": errors,
            "input_file_id": self.input_file_id,
            "completion_window": "24h",
            "status": self.status,
            "output_file_id": self.output_file_id,
            "error_file_id": self.error_file_id,
            "created_at": self.created_at,
            "request_counts": {"total": self.counts.0, "completed": self.counts.1, "failed": self.counts.2},
            "metadata": metadata,
        })
    }
}

#[derive(Default)]
pub(crate) struct State {
    files: BTreeMap<String, String>,
    batches: Vec<StoredBatch>,
    /// Anthropic's message batches ([`crate::message_batches`]).
    pub(crate) message_batches: Vec<crate::message_batches::MessageBatch>,
    seen: BTreeSet<String>,
    refused: BTreeSet<String>,
    pub(crate) next: u64,
    pub(crate) stats: BatchStats,
}

/// The batch endpoints' files and batches.
pub struct BatchStore {
    pub(crate) options: BatchOptions,
    tokenizer: Tokenizer,
    state: Mutex<State>,
}

pub(crate) type Reply = (u16, Value);

impl BatchStore {
    pub fn new(options: BatchOptions, tokenizer: Tokenizer) -> Self {
        Self {
            options,
            tokenizer,
            state: Mutex::new(State::default()),
        }
    }

    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn stats(&self) -> BatchStats {
        let state = self.lock();
        BatchStats {
            files_held: state.files.len(),
            ..state.stats.clone()
        }
    }

    pub fn delay(&self) -> std::time::Duration {
        self.options.delay
    }

    /// The answer to a batch endpoint, or `None` when `path` is not one.
    /// File contents come back as a JSON string (the caller writes it raw).
    pub fn route(
        &self,
        method: &str,
        path: &str,
        query: &str,
        headers: &[(String, String)],
        body: &[u8],
        policy: PolicyReply<'_>,
    ) -> Option<Reply> {
        let parts: Vec<&str> = path.trim_start_matches("/v1/").split('/').collect();
        if let ["messages", "batches", rest @ ..] = parts.as_slice() {
            return self.route_messages(method, rest, query, body, policy);
        }
        Some(match (method, parts.as_slice()) {
            ("POST", ["files"]) => self.upload(headers, body),
            ("DELETE", ["files", id]) => {
                let mut state = self.lock();
                match state.files.remove(*id) {
                    Some(_) => {
                        state.stats.files_deleted += 1;
                        (200, json!({"id": id, "object": "file", "deleted": true}))
                    }
                    None => not_found(id),
                }
            }
            ("GET", ["files", id, "content"]) => match self.lock().files.get(*id) {
                Some(text) => (200, Value::String(text.clone())),
                None => not_found(id),
            },
            ("POST", ["batches"]) => self.create(body),
            ("GET", ["batches"]) => self.list(query),
            ("GET", ["batches", id]) => self.advance(id, policy),
            ("POST", ["batches", id, "cancel"]) => self.cancel(id),
            _ => return None,
        })
    }

    fn upload(&self, headers: &[(String, String)], body: &[u8]) -> Reply {
        let boundary = headers
            .iter()
            .find(|(n, _)| n == "content-type")
            .and_then(|(_, v)| v.split("boundary=").nth(1))
            .map(|b| b.trim_matches('"').to_owned());
        let Some(boundary) = boundary else {
            return bad("a file upload is multipart/form-data with a boundary");
        };
        let text = String::from_utf8_lossy(body);
        let mut purpose = None;
        let mut file = None;
        for part in text.split(&format!("--{boundary}")) {
            let Some((head, content)) = part.split_once("\r\n\r\n") else {
                continue;
            };
            let content = content.strip_suffix("\r\n").unwrap_or(content);
            if head.contains("name=\"purpose\"") {
                purpose = Some(content.to_owned());
            } else if head.contains("name=\"file\"") {
                file = Some(content.to_owned());
            }
        }
        if purpose.as_deref() != Some("batch") {
            return bad("purpose must be batch");
        }
        let Some(file) = file else {
            return bad("no file part");
        };
        for (n, line) in file.lines().enumerate() {
            let ok = serde_json::from_str::<Value>(line).is_ok_and(|v| {
                v["custom_id"].is_string()
                    && v["method"] == "POST"
                    && v["url"] == "/v1/chat/completions"
                    && v["body"].is_object()
            });
            if !ok {
                return bad(&format!("line {} is not a batch request", n + 1));
            }
        }
        let mut state = self.lock();
        state.next += 1;
        let id = format!("file-{}", state.next);
        let bytes = file.len();
        state.files.insert(id.clone(), file);
        state.stats.files_uploaded += 1;
        (
            200,
            json!({"id": id, "object": "file", "bytes": bytes, "purpose": "batch", "filename": "requests.jsonl", "created_at": 0}),
        )
    }

    fn create(&self, body: &[u8]) -> Reply {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return bad("the body is not JSON");
        };
        let Some(file_id) = request["input_file_id"].as_str() else {
            return bad("input_file_id is required");
        };
        if request["endpoint"] != "/v1/chat/completions" || request["completion_window"] != "24h" {
            return bad("endpoint must be /v1/chat/completions and completion_window 24h");
        }
        let mut state = self.lock();
        let Some(lines) = state.files.get(file_id).map(|f| f.lines().count()) else {
            return not_found(file_id);
        };
        state.next += 1;
        let mut metadata = request
            .get("metadata")
            .cloned()
            .filter(Value::is_object)
            .unwrap_or(json!({}));
        if let Some(message) = &self.options.invalid {
            metadata["__invalid"] = json!(message);
        }
        let batch = StoredBatch {
            id: format!("batch_{}", state.next),
            input_file_id: file_id.to_owned(),
            metadata,
            status: "validating",
            output_file_id: None,
            error_file_id: None,
            counts: (lines, 0, 0),
            created_at: state.next,
        };
        let answer = batch.json();
        state.batches.push(batch);
        state.stats.batches_created += 1;
        state.stats.lines_submitted += lines;
        (200, answer)
    }

    fn list(&self, query: &str) -> Reply {
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                .map(str::to_owned)
        };
        let limit: usize = param("limit")
            .and_then(|l| l.parse().ok())
            .unwrap_or(20)
            .clamp(1, 100);
        let mut state = self.lock();
        state.stats.lists += 1;
        let newest_first: Vec<&StoredBatch> = state.batches.iter().rev().collect();
        let start = match param("after") {
            Some(after) => newest_first
                .iter()
                .position(|b| b.id == after)
                .map_or(newest_first.len(), |i| i + 1),
            None => 0,
        };
        let page: Vec<Value> = newest_first
            .iter()
            .skip(start)
            .take(limit)
            .map(|b| b.json())
            .collect();
        let has_more = start + page.len() < newest_first.len();
        let last_id = page
            .last()
            .and_then(|b| b["id"].as_str())
            .map(str::to_owned);
        let first_id = page
            .first()
            .and_then(|b| b["id"].as_str())
            .map(str::to_owned);
        (
            200,
            json!({"object": "list", "data": page, "first_id": first_id, "last_id": last_id, "has_more": has_more}),
        )
    }

    /// A retrieve: the batch as it is, one state further on.
    fn advance(&self, id: &str, policy: PolicyReply<'_>) -> Reply {
        let mut state = self.lock();
        let Some(index) = state.batches.iter().position(|b| b.id == id) else {
            return not_found(id);
        };
        let next = match state.batches[index].status {
            "validating" if self.options.invalid.is_some() => "failed",
            "validating" => "in_progress",
            "in_progress" => "finalizing",
            "finalizing" => "ended",
            "cancelling" => "cancelled",
            done => done,
        };
        if next == "ended" {
            self.finish(&mut state, index, policy);
        } else {
            state.batches[index].status = next;
        }
        (200, state.batches[index].json())
    }

    /// What becomes of the `n`-th line (0-based) of a batch ending now.
    pub(crate) fn fate(&self, state: &mut State, n: usize, custom_id: &str) -> Fate {
        let first_time = state.seen.insert(custom_id.to_owned());
        let nth =
            |every: Option<usize>| every.is_some_and(|e| (n + 1).is_multiple_of(e)) && first_time;
        if first_time
            && self
                .options
                .refuse_every
                .is_some_and(|e| state.seen.len().is_multiple_of(e))
        {
            state.refused.insert(custom_id.to_owned());
        }
        if state.refused.contains(custom_id) {
            Fate::Refused
        } else if nth(self.options.expire_every) {
            Fate::Expired
        } else if nth(self.options.fail_every) {
            Fate::Failed
        } else {
            Fate::Answered
        }
    }

    /// The policy's answer to a line's `body`, as `protocol` sends it.
    pub(crate) fn answer(
        &self,
        state: &mut State,
        protocol: Protocol,
        body: &Value,
        policy: PolicyReply<'_>,
    ) -> Value {
        let recorded = RecordedRequest {
            protocol,
            path: match protocol {
                Protocol::OpenAi => "/v1/chat/completions".into(),
                Protocol::Anthropic => "/v1/messages".into(),
            },
            headers: Vec::new(),
            body: body.clone(),
        };
        let mut quirks = Quirks::default();
        let (text, calls) = policy(&recorded, &mut quirks);
        state.next += 1;
        let answer = Answer {
            text,
            calls,
            model: recorded.model().to_owned(),
            prompt_tokens: self.tokenizer.count(&recorded),
            serial: state.next,
        };
        render::whole(protocol, &answer, &quirks)
    }

    fn finish(&self, state: &mut State, index: usize, policy: PolicyReply<'_>) {
        let file_id = state.batches[index].input_file_id.clone();
        let input = state.files.get(&file_id).cloned().unwrap_or_default();
        let (mut output, mut errors) = (Vec::new(), Vec::new());
        let mut expired = false;
        for (n, line) in input.lines().enumerate() {
            let request: Value = serde_json::from_str(line).unwrap_or(Value::Null);
            let custom_id = request["custom_id"].as_str().unwrap_or("").to_owned();
            let fate = self.fate(state, n, &custom_id);
            state.next += 1;
            let request_id = format!("batch_req_{}", state.next);
            match fate {
                Fate::Refused => errors.push(json!({"id": request_id, "custom_id": custom_id,
                    "response": {"status_code": 400, "request_id": request_id, "body": render::error_body(Protocol::OpenAi, 400, REFUSED)},
                    "error": null})),
                Fate::Expired => {
                    expired = true;
                    errors.push(json!({"id": request_id, "custom_id": custom_id, "response": null,
                        "error": {"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}}));
                }
                Fate::Failed => errors.push(json!({"id": request_id, "custom_id": custom_id,
                    "response": {"status_code": 500, "request_id": request_id, "body": render::error_body(Protocol::OpenAi, 500, "the server had an error processing your request")},
                    "error": null})),
                Fate::Answered => {
                    let body = self.answer(state, Protocol::OpenAi, &request["body"], policy);
                    output.push(json!({"id": request_id, "custom_id": custom_id,
                        "response": {"status_code": 200, "request_id": request_id, "body": body}, "error": null}));
                }
            }
        }
        // A batch keeps no order.
        output.reverse();
        errors.reverse();
        let (done, failed) = (output.len(), errors.len());
        let mut store = |lines: Vec<Value>| {
            (!lines.is_empty()).then(|| {
                state.next += 1;
                let id = format!("file-{}", state.next);
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                state.files.insert(id.clone(), text);
                id
            })
        };
        let output_file_id = store(output);
        let error_file_id = store(errors);
        let batch = &mut state.batches[index];
        batch.output_file_id = output_file_id;
        batch.error_file_id = error_file_id;
        batch.counts = (done + failed, done, failed);
        batch.status = if expired { "expired" } else { "completed" };
    }

    fn cancel(&self, id: &str) -> Reply {
        let mut state = self.lock();
        let Some(index) = state.batches.iter().position(|b| b.id == id) else {
            return not_found(id);
        };
        if matches!(
            state.batches[index].status,
            "validating" | "in_progress" | "finalizing"
        ) {
            state.batches[index].status = "cancelling";
            state.stats.cancelled += 1;
        }
        (200, state.batches[index].json())
    }
}

pub(crate) fn bad(message: &str) -> Reply {
    (400, render::error_body(Protocol::OpenAi, 400, message))
}

pub(crate) fn not_found(id: &str) -> Reply {
    (
        404,
        render::error_body(Protocol::OpenAi, 404, &format!("No such object: {id}")),
    )
}
