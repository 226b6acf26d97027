//! Language-model providers. The wire formats (OpenAI-compatible chat
//! completions, Anthropic messages) are pure functions tested on fixtures and
//! parse tolerantly, because real servers omit fields, invent `finish_reason`
//! values, send tool-call arguments as objects, leave out `index`, and end
//! streams without `[DONE]` (MODEL-SERVERS.md). On top: the HTTP provider,
//! the [`ModelClient`] (retries, cancellation, concurrency, accounting),
//! settings and keys, and model discovery.

pub mod accounting;
pub mod anthropic;
pub mod batch;
pub mod call_file;
mod client;
pub mod discovery;
mod error;
mod http;
pub mod openai;
pub mod pool;
mod provider;
pub mod secrets;
pub mod served;
pub mod settings;
pub mod sse;
pub mod tool_calls;
mod types;
mod wire;

pub use client::{ModelClient, StreamEvent};
pub use error::{LlmError, backoff, classify_http, parse_retry_after};
pub use pool::{Endpoints, endpoint_label};
pub use provider::{HttpProvider, Provider, TextSink};
pub use settings::{ModelSettings, Protocol};
pub use types::{
    ChatRequest, ChatResponse, FinishReason, Message, Role, ToolCall, ToolChoice, ToolDef, Usage,
};
