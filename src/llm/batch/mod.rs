//! Batch APIs: many single-shot calls sent as one file or body, answered
//! within a day at about half the price: OpenAI's Batch API (which `vllm
//! run-batch` and a LiteLLM proxy also take) and Anthropic's Message Batches.
//! This layer knows the wire: the request lines, each API's endpoints, and
//! their result lines. Keeping a run's batches across kills (the ledger) is
//! the review's, above it; it sees both APIs as one [`BatchService`].

pub mod anthropic;
mod http;
pub mod lines;
pub mod openai;

pub use lines::{BatchLine, Limits, LineOutcome, request_id, shard};
pub use openai::RequestCounts;

use crate::llm::LlmError;

/// What a Batch API bills against the interactive price (OpenAI's and
/// Anthropic's both take half).
pub const BATCH_PRICE_SHARE: f64 = 0.5;

/// The window a batch is answered within (OpenAI's `24h`, Anthropic's day).
pub const BATCH_WINDOW_HOURS: u32 = 24;

/// A batch as last asked, in the terms both APIs share.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Polled {
    pub id: String,
    /// The API's own word: validating, in_progress, completed, ended…
    pub status: String,
    /// Nothing more will happen to it: its results are final.
    pub finished: bool,
    pub counts: RequestCounts,
    /// Why the whole batch failed, when it did (validation).
    pub failure: Option<String>,
    /// What [`BatchService::results`] reads its result lines from.
    pub results: Vec<String>,
    /// What [`BatchService::discard`] deletes at the provider once its
    /// results are kept (the request file, the result files, the batch).
    pub leftovers: Vec<String>,
}

/// The Batch API of a profile's endpoint.
pub enum BatchService {
    OpenAi(openai::BatchApi),
    Anthropic(anthropic::MessageBatches),
}

impl BatchService {
    /// The provider's limits on one batch.
    pub fn limits(&self) -> Limits {
        match self {
            Self::OpenAi(_) => Limits::OPENAI,
            Self::Anthropic(_) => Limits::ANTHROPIC,
        }
    }

    pub async fn retrieve(&self, batch_id: &str) -> Result<Polled, LlmError> {
        match self {
            Self::OpenAi(api) => api.retrieve(batch_id).await.map(|b| b.polled()),
            Self::Anthropic(api) => api.retrieve(batch_id).await.map(|b| b.polled()),
        }
    }

    pub async fn cancel(&self, batch_id: &str) -> Result<(), LlmError> {
        match self {
            Self::OpenAi(api) => api.cancel(batch_id).await.map(drop),
            Self::Anthropic(api) => api.cancel(batch_id).await.map(drop),
        }
    }

    /// The text of one of a finished batch's `results`.
    pub async fn results(&self, from: &str) -> Result<String, LlmError> {
        match self {
            Self::OpenAi(api) => api.content(from).await,
            Self::Anthropic(api) => api.results(from).await,
        }
    }

    /// Delete one of a finished batch's `leftovers` at the provider.
    pub async fn discard(&self, leftover: &str) -> Result<(), LlmError> {
        match self {
            Self::OpenAi(api) => api.delete_file(leftover).await,
            Self::Anthropic(api) => api.delete(leftover).await,
        }
    }
}
