//! OpenAI's Batch API: upload a request file (`POST /v1/files`, purpose
//! `batch`), create a batch over it (`POST /v1/batches`, with metadata that
//! names the run and the shard), follow it (`GET /v1/batches/{id}`), read its
//! output and error files (`GET /v1/files/{id}/content`), cancel it, and list
//! the batches (`GET /v1/batches`) to find one again after a restart.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{Value, json};

use super::Polled;
use super::http::BatchHttp;
use super::lines::{BatchLine, CHAT_ENDPOINT};
use crate::llm::LlmError;
use crate::llm::secrets::ApiKey;
use crate::llm::settings::ModelSettings;

/// A batch as the API describes it (the fields Quire acts on).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct Batch {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub input_file_id: String,
    #[serde(default)]
    pub output_file_id: Option<String>,
    #[serde(default)]
    pub error_file_id: Option<String>,
    #[serde(default)]
    pub request_counts: Option<RequestCounts>,
    #[serde(default)]
    pub metadata: Option<BTreeMap<String, String>>,
    /// Why a batch failed validation (its `errors.data[].message`).
    #[serde(default)]
    pub errors: Option<Value>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct RequestCounts {
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
}

impl Batch {
    /// No more will happen to it: its files (if any) are final.
    pub fn is_finished(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        )
    }

    /// Why the whole batch failed, when it did (validation).
    pub fn failure(&self) -> Option<String> {
        (self.status == "failed").then(|| {
            self.errors
                .as_ref()
                .and_then(|e| e.get("data"))
                .and_then(Value::as_array)
                .and_then(|d| d.first())
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("the batch failed validation")
                .to_owned()
        })
    }

    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.as_ref()?.get(key).map(String::as_str)
    }

    /// The batch in the terms both APIs share: its results are its output
    /// and error files, and those and its request file are deleted once kept.
    pub fn polled(&self) -> Polled {
        let results: Vec<String> = [&self.output_file_id, &self.error_file_id]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        let request_file = Some(self.input_file_id.clone()).filter(|id| !id.is_empty());
        Polled {
            id: self.id.clone(),
            status: self.status.clone(),
            finished: self.is_finished(),
            counts: self.request_counts.unwrap_or_default(),
            failure: self.failure(),
            leftovers: request_file.into_iter().chain(results.clone()).collect(),
            results,
        }
    }
}

/// The Batch API of one endpoint, with the profile's key.
pub struct BatchApi {
    wire: BatchHttp,
}

impl BatchApi {
    pub fn new(settings: &ModelSettings, key: Option<ApiKey>) -> Result<Self, LlmError> {
        Ok(Self {
            wire: BatchHttp::new(settings, key)?,
        })
    }

    async fn send(&self, request: reqwest::RequestBuilder, what: &str) -> Result<String, LlmError> {
        self.wire.send(request, what).await
    }

    /// Upload `lines` as a request file named `name`; its file id.
    pub async fn upload(&self, name: &str, lines: &[BatchLine]) -> Result<String, LlmError> {
        let mut file = String::new();
        for line in lines {
            file.push_str(&line.to_json_line());
            file.push('\n');
        }
        // multipart/form-data by hand: one field and one file.
        let boundary = format!("quire-{}", uuid::Uuid::new_v4().simple());
        let mut body = Vec::with_capacity(file.len() + 512);
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
                 Content-Type: application/jsonl\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(file.as_bytes());
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let request = self
            .wire
            .http
            .post(format!("{}/files", self.wire.base))
            .header(
                reqwest::header::CONTENT_TYPE,
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body);
        let answer = self.send(request, "file upload").await?;
        let uploaded: Value = BatchHttp::json(&answer, "a file upload")?;
        uploaded
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| LlmError::Malformed("the uploaded file has no id".into()))
    }

    /// Create a batch over an uploaded file, with `metadata` to find it by.
    pub async fn create(
        &self,
        file_id: &str,
        metadata: &BTreeMap<String, String>,
    ) -> Result<Batch, LlmError> {
        let request = self
            .wire
            .http
            .post(format!("{}/batches", self.wire.base))
            .json(&json!({
                "input_file_id": file_id,
                "endpoint": CHAT_ENDPOINT,
                "completion_window": "24h",
                "metadata": metadata,
            }));
        let answer = self.send(request, "batch create").await?;
        BatchHttp::json(&answer, "a batch create")
    }

    pub async fn retrieve(&self, batch_id: &str) -> Result<Batch, LlmError> {
        let request = self
            .wire
            .http
            .get(format!("{}/batches/{batch_id}", self.wire.base));
        let answer = self.send(request, "batch retrieve").await?;
        BatchHttp::json(&answer, "a batch retrieve")
    }

    pub async fn cancel(&self, batch_id: &str) -> Result<Batch, LlmError> {
        let request = self
            .wire
            .http
            .post(format!("{}/batches/{batch_id}/cancel", self.wire.base));
        let answer = self.send(request, "batch cancel").await?;
        BatchHttp::json(&answer, "a batch cancel")
    }

    /// Every batch whose metadata has `key` = `value`, newest first, paging
    /// through the list (100 a page).
    pub async fn find(&self, key: &str, value: &str) -> Result<Vec<Batch>, LlmError> {
        #[derive(Deserialize)]
        struct Page {
            data: Vec<Batch>,
            #[serde(default)]
            has_more: bool,
            #[serde(default)]
            last_id: Option<String>,
        }
        let mut found = Vec::new();
        let mut after: Option<String> = None;
        loop {
            let mut url = format!("{}/batches?limit=100", self.wire.base);
            if let Some(after) = &after {
                url.push_str(&format!("&after={after}"));
            }
            let answer = self.send(self.wire.http.get(url), "batch list").await?;
            let page: Page = BatchHttp::json(&answer, "a batch list")?;
            let last = page
                .last_id
                .clone()
                .or_else(|| page.data.last().map(|b| b.id.clone()));
            found.extend(page.data.into_iter().filter(|b| b.meta(key) == Some(value)));
            match last {
                Some(last) if page.has_more => after = Some(last),
                _ => return Ok(found),
            }
        }
    }

    /// Delete a file (a request file, or a result file once kept).
    pub async fn delete_file(&self, file_id: &str) -> Result<(), LlmError> {
        let request = self
            .wire
            .http
            .delete(format!("{}/files/{file_id}", self.wire.base));
        self.send(request, "file delete").await.map(|_| ())
    }

    /// A result or error file's text.
    pub async fn content(&self, file_id: &str) -> Result<String, LlmError> {
        let request = self
            .wire
            .http
            .get(format!("{}/files/{file_id}/content", self.wire.base));
        self.send(request, "file content").await
    }
}
