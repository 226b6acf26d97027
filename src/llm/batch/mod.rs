//! Batch APIs: many single-shot calls sent as one file, answered within a
//! day at about half the price (OpenAI's Batch API, which `vllm run-batch` and
//! a LiteLLM proxy also take). This layer knows the wire: the request file and
//! its lines, the files and batches endpoints, and the result files. Keeping a
//! run's batches across kills (the ledger) is the review's, above it.

pub mod lines;
pub mod openai;

pub use lines::{BatchLine, Limits, LineOutcome, request_id, shard};

/// What a Batch API bills against the interactive price (OpenAI's and
/// Anthropic's both take half).
pub const BATCH_PRICE_SHARE: f64 = 0.5;

/// The window a batch is answered within (OpenAI's `24h`, Anthropic's day).
pub const BATCH_WINDOW_HOURS: u32 = 24;
