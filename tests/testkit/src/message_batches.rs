//! Anthropic's Message Batches as the scripted server plays them: a batch
//! created with its requests inline (`POST /v1/messages/batches`, each a
//! `custom_id` and the `params` of a Messages request), followed, listed
//! newest first with `after_id` paging, cancelled, its results read as JSON
//! Lines (`…/{id}/results`, in no order), and deleted once ended. A batch
//! carries no metadata, and its `created_at` is the real time, as a client
//! that finds a batch again by when it was created needs.
//!
//! As with OpenAI's batches, time is the client's polling: a batch ends at
//! its second retrieve. Its lines meet the same fates ([`crate::batch`]):
//! answered by the reader policy, a 500 (`api_error`) or never run
//! (`expired`) the first time their id is seen, or refused
//! (`invalid_request_error`) every time.

use serde_json::{Value, json};

use crate::batch::{BatchStore, Fate, PolicyReply, REFUSED, Reply, State, bad, not_found};
use crate::request::Protocol;

/// One message batch the server holds.
pub struct MessageBatch {
    id: String,
    /// `(custom_id, params)` in the order sent.
    requests: Vec<(String, Value)>,
    status: &'static str,
    polls: usize,
    created_at: String,
    /// The results, once ended.
    results: Option<String>,
    counts: Counts,
}

#[derive(Clone, Copy, Default)]
struct Counts {
    processing: usize,
    succeeded: usize,
    errored: usize,
    canceled: usize,
    expired: usize,
}

impl MessageBatch {
    /// A batch of `requests`, the server's `n`-th, in progress, created at
    /// `created`.
    fn new(n: u64, requests: Vec<(String, Value)>, created: std::time::SystemTime) -> Self {
        Self {
            id: format!("msgbatch_{n:06}"),
            counts: Counts {
                processing: requests.len(),
                ..Counts::default()
            },
            requests,
            status: "in_progress",
            polls: 0,
            created_at: humantime::format_rfc3339_micros(created).to_string(),
            results: None,
        }
    }

    fn json(&self) -> Value {
        let c = &self.counts;
        json!({
            "id": self.id,
            "type": "message_batch",
            "processing_status": self.status,
            "request_counts": {"processing": c.processing, "succeeded": c.succeeded, "errored": c.errored, "canceled": c.canceled, "expired": c.expired},
            "created_at": self.created_at,
            "expires_at": null,
            "ended_at": null,
            "cancel_initiated_at": null,
            "archived_at": null,
            "results_url": self.results.as_ref().map(|_| format!("/v1/messages/batches/{}/results", self.id)),
        })
    }
}

/// A request's `custom_id` as the API takes it: 1 to 64 letters, digits,
/// `_` and `-`.
fn valid_id(id: &str) -> bool {
    (1..=64).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn refused(message: &str) -> Reply {
    (
        400,
        crate::render::error_body(Protocol::Anthropic, 400, message),
    )
}

impl BatchStore {
    /// The answer to `…/messages/batches/<rest>`.
    pub(crate) fn route_messages(
        &self,
        method: &str,
        rest: &[&str],
        query: &str,
        body: &[u8],
        policy: PolicyReply<'_>,
    ) -> Option<Reply> {
        Some(match (method, rest) {
            ("POST", []) => self.create_message_batch(body),
            ("GET", []) => self.list_message_batches(query),
            ("GET", [id]) => self.advance_message_batch(id, policy),
            ("GET", [id, "results"]) => {
                let state = self.lock();
                match state.message_batches.iter().find(|b| b.id == *id) {
                    Some(b) => match &b.results {
                        Some(text) => (200, Value::String(text.clone())),
                        None => refused("the batch has not ended; its results are not ready"),
                    },
                    None => not_found(id),
                }
            }
            ("POST", [id, "cancel"]) => {
                let mut state = self.lock();
                let Some(index) = state.message_batches.iter().position(|b| b.id == *id) else {
                    return Some(not_found(id));
                };
                if state.message_batches[index].status == "in_progress" {
                    state.message_batches[index].status = "canceling";
                    state.stats.cancelled += 1;
                }
                (200, state.message_batches[index].json())
            }
            ("DELETE", [id]) => {
                let mut state = self.lock();
                let Some(index) = state.message_batches.iter().position(|b| b.id == *id) else {
                    return Some(not_found(id));
                };
                if state.message_batches[index].status != "ended" {
                    return Some(refused("a batch must end before it is deleted"));
                }
                state.message_batches.remove(index);
                state.stats.batches_deleted += 1;
                (200, json!({"id": id, "type": "message_batch_deleted"}))
            }
            _ => return None,
        })
    }

    /// A batch another program made on the same account: `requests`
    /// requests with ids of its own, created `age` ago.
    pub(crate) fn plant_message_batch(&self, requests: usize, age: std::time::Duration) -> String {
        let mut state = self.lock();
        state.next += 1;
        let requests: Vec<(String, Value)> = (0..requests)
            .map(|i| {
                (
                    format!("their-request-{i}"),
                    json!({"model": "their-model", "max_tokens": 16, "messages": [{"role": "user", "content": "Their question"}]}),
                )
            })
            .collect();
        let batch = MessageBatch::new(state.next, requests, std::time::SystemTime::now() - age);
        let id = batch.id.clone();
        state.message_batches.push(batch);
        id
    }

    pub(crate) fn message_batch_ids(&self) -> Vec<String> {
        self.lock()
            .message_batches
            .iter()
            .map(|b| b.id.clone())
            .collect()
    }

    fn create_message_batch(&self, body: &[u8]) -> Reply {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return bad("the body is not JSON");
        };
        let Some(lines) = request["requests"].as_array().filter(|r| !r.is_empty()) else {
            return refused("requests: a non-empty list is required");
        };
        if let Some(message) = &self.options.invalid {
            return refused(message);
        }
        let mut requests = Vec::with_capacity(lines.len());
        let mut ids = std::collections::BTreeSet::new();
        for (n, line) in lines.iter().enumerate() {
            let id = line["custom_id"].as_str().unwrap_or("");
            let params = &line["params"];
            if !valid_id(id) || !ids.insert(id) {
                return refused(&format!(
                    "requests.{n}.custom_id: 1-64 letters, digits, _ or -, unique in the batch"
                ));
            }
            let whole = params["model"].is_string()
                && params["max_tokens"].is_u64()
                && params["messages"].is_array();
            if !whole || params["stream"] == true {
                return refused(&format!(
                    "requests.{n}.params: a Messages request (model, max_tokens, messages), not streamed"
                ));
            }
            requests.push((id.to_owned(), params.clone()));
        }
        let mut state = self.lock();
        state.next += 1;
        let batch = MessageBatch::new(state.next, requests, std::time::SystemTime::now());
        state.stats.batches_created += 1;
        state.stats.lines_submitted += batch.requests.len();
        let answer = batch.json();
        state.message_batches.push(batch);
        (200, answer)
    }

    fn list_message_batches(&self, query: &str) -> Reply {
        let param = |name: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                .map(str::to_owned)
        };
        let limit: usize = param("limit")
            .and_then(|l| l.parse().ok())
            .unwrap_or(20)
            .clamp(1, 1000);
        let mut state = self.lock();
        state.stats.lists += 1;
        let newest_first: Vec<&MessageBatch> = state.message_batches.iter().rev().collect();
        let start = match param("after_id") {
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
        let id_at = |b: Option<&Value>| b.and_then(|b| b["id"].as_str()).map(str::to_owned);
        (
            200,
            json!({"data": page, "has_more": has_more, "first_id": id_at(page.first()), "last_id": id_at(page.last())}),
        )
    }

    /// A retrieve: a batch ends at its second, or at the first after a cancel.
    fn advance_message_batch(&self, id: &str, policy: PolicyReply<'_>) -> Reply {
        let mut state = self.lock();
        let Some(index) = state.message_batches.iter().position(|b| b.id == id) else {
            return not_found(id);
        };
        let batch = &mut state.message_batches[index];
        batch.polls += 1;
        let ends = match batch.status {
            "canceling" => true,
            "in_progress" => batch.polls >= 2,
            _ => false,
        };
        if ends {
            self.end_message_batch(&mut state, index, policy);
        }
        (200, state.message_batches[index].json())
    }

    fn end_message_batch(&self, state: &mut State, index: usize, policy: PolicyReply<'_>) {
        let canceled = state.message_batches[index].status == "canceling";
        let requests = std::mem::take(&mut state.message_batches[index].requests);
        let mut counts = Counts::default();
        let mut lines = Vec::with_capacity(requests.len());
        for (n, (custom_id, params)) in requests.iter().enumerate() {
            let result = if canceled {
                counts.canceled += 1;
                json!({"type": "canceled"})
            } else {
                match self.fate(state, n, custom_id) {
                    Fate::Answered => {
                        counts.succeeded += 1;
                        let message = self.answer(state, Protocol::Anthropic, params, policy);
                        json!({"type": "succeeded", "message": message})
                    }
                    Fate::Failed => {
                        counts.errored += 1;
                        json!({"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": "Internal server error"}}})
                    }
                    Fate::Refused => {
                        counts.errored += 1;
                        json!({"type": "errored", "error": {"type": "error", "error": {"type": "invalid_request_error", "message": REFUSED}}})
                    }
                    Fate::Expired => {
                        counts.expired += 1;
                        json!({"type": "expired"})
                    }
                }
            };
            lines.push(json!({"custom_id": custom_id, "result": result}));
        }
        // A batch keeps no order.
        lines.reverse();
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let batch = &mut state.message_batches[index];
        batch.requests = requests;
        batch.counts = counts;
        batch.status = "ended";
        batch.results = Some(text);
    }
}
