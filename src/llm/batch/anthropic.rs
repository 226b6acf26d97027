//! Anthropic's Message Batches: the requests sent inline in one create
//! (`POST /v1/messages/batches`, each line's body as its `params`), followed
//! (`GET /v1/messages/batches/{id}`), their results read as JSONL
//! (`…/{id}/results`), cancelled, listed newest first, and deleted once kept.
//!
//! A message batch carries no metadata. A batch created by a run that was
//! killed before it recorded the batch's id is found again by when it was
//! created and how many requests it holds ([`MessageBatch::created_unix`],
//! [`MessageBatch::total`]); its results are matched by request id, which
//! derives from what the request sends, so even a wrong match cannot put one
//! request's answer on another.

use serde::Deserialize;
use serde_json::{Value, json};

use super::http::BatchHttp;
use super::{BatchLine, Polled, RequestCounts};
use crate::llm::LlmError;
use crate::llm::secrets::ApiKey;
use crate::llm::settings::ModelSettings;

/// A message batch as the API describes it (the fields Quire acts on).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct MessageBatch {
    pub id: String,
    /// `in_progress`, `canceling` or `ended`.
    pub processing_status: String,
    #[serde(default)]
    pub request_counts: Counts,
    /// RFC 3339.
    #[serde(default)]
    pub created_at: String,
}

/// Requests of a message batch by where they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Counts {
    #[serde(default)]
    pub processing: u64,
    #[serde(default)]
    pub succeeded: u64,
    #[serde(default)]
    pub errored: u64,
    #[serde(default)]
    pub canceled: u64,
    #[serde(default)]
    pub expired: u64,
}

impl MessageBatch {
    /// Requests it holds, whatever became of them.
    pub fn total(&self) -> u64 {
        let c = &self.request_counts;
        c.processing + c.succeeded + c.errored + c.canceled + c.expired
    }

    /// When it was created, in seconds since the epoch (`None` if the API's
    /// time cannot be read).
    pub fn created_unix(&self) -> Option<u64> {
        humantime::parse_rfc3339_weak(&self.created_at)
            .ok()?
            .duration_since(std::time::UNIX_EPOCH)
            .ok()
            .map(|d| d.as_secs())
    }

    /// The batch in the terms both APIs share: its results are read by its
    /// id, and the batch itself is deleted once they are kept.
    pub fn polled(&self) -> Polled {
        let finished = self.processing_status == "ended";
        let c = &self.request_counts;
        Polled {
            id: self.id.clone(),
            status: self.processing_status.clone(),
            finished,
            counts: RequestCounts {
                total: self.total(),
                completed: c.succeeded,
                failed: c.errored + c.canceled + c.expired,
            },
            failure: None,
            results: finished.then(|| self.id.clone()).into_iter().collect(),
            leftovers: finished.then(|| self.id.clone()).into_iter().collect(),
        }
    }
}

/// The Message Batches API of one endpoint, with the profile's key.
pub struct MessageBatches {
    wire: BatchHttp,
    /// `…/v1/messages/batches`.
    url: String,
}

impl MessageBatches {
    pub fn new(settings: &ModelSettings, key: Option<ApiKey>) -> Result<Self, LlmError> {
        let wire = BatchHttp::new(settings, key)?;
        let url = if wire.base.ends_with("/v1") {
            format!("{}/messages/batches", wire.base)
        } else {
            format!("{}/v1/messages/batches", wire.base)
        };
        Ok(Self { wire, url })
    }

    /// Create a batch of `lines`, each body sent as its request's `params`.
    pub async fn create(&self, lines: &[BatchLine]) -> Result<MessageBatch, LlmError> {
        let requests: Vec<Value> = lines
            .iter()
            .map(|line| {
                let mut params = line.body.clone();
                // A batch is never streamed; the API takes no `stream` in it.
                if let Some(p) = params.as_object_mut() {
                    p.remove("stream");
                }
                json!({"custom_id": line.custom_id, "params": params})
            })
            .collect();
        let request = self
            .wire
            .http
            .post(&self.url)
            .json(&json!({ "requests": requests }));
        let answer = self.wire.send(request, "message batch create").await?;
        BatchHttp::json(&answer, "a message batch create")
    }

    pub async fn retrieve(&self, batch_id: &str) -> Result<MessageBatch, LlmError> {
        let request = self.wire.http.get(format!("{}/{batch_id}", self.url));
        let answer = self.wire.send(request, "message batch retrieve").await?;
        BatchHttp::json(&answer, "a message batch retrieve")
    }

    pub async fn cancel(&self, batch_id: &str) -> Result<MessageBatch, LlmError> {
        let request = self
            .wire
            .http
            .post(format!("{}/{batch_id}/cancel", self.url));
        let answer = self.wire.send(request, "message batch cancel").await?;
        BatchHttp::json(&answer, "a message batch cancel")
    }

    /// An ended batch's results, one JSON line per request, in no order.
    pub async fn results(&self, batch_id: &str) -> Result<String, LlmError> {
        let request = self
            .wire
            .http
            .get(format!("{}/{batch_id}/results", self.url));
        self.wire.send(request, "message batch results").await
    }

    /// Delete an ended batch (its results with it).
    pub async fn delete(&self, batch_id: &str) -> Result<(), LlmError> {
        let request = self.wire.http.delete(format!("{}/{batch_id}", self.url));
        self.wire
            .send(request, "message batch delete")
            .await
            .map(drop)
    }

    /// Every batch created at or after `since` (seconds since the epoch),
    /// newest first, paging through the list (100 a page) only as far back
    /// as that.
    pub async fn created_since(&self, since: u64) -> Result<Vec<MessageBatch>, LlmError> {
        #[derive(Deserialize)]
        struct Page {
            data: Vec<MessageBatch>,
            #[serde(default)]
            has_more: bool,
            #[serde(default)]
            last_id: Option<String>,
        }
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut url = format!("{}?limit=100", self.url);
            if let Some(after) = &after {
                url.push_str(&format!("&after_id={after}"));
            }
            let answer = self
                .wire
                .send(self.wire.http.get(url), "message batch list")
                .await?;
            let page: Page = BatchHttp::json(&answer, "a message batch list")?;
            let older = page
                .data
                .iter()
                .any(|b| b.created_unix().is_some_and(|t| t < since));
            let last = page
                .last_id
                .clone()
                .or_else(|| page.data.last().map(|b| b.id.clone()));
            found.extend(
                page.data
                    .into_iter()
                    .filter(|b| b.created_unix().is_none_or(|t| t >= since)),
            );
            match last {
                Some(last) if page.has_more && !older => after = Some(last),
                _ => return Ok(found),
            }
        }
    }
}
