//! Language-model providers, starting with the wire formats (OpenAI-compatible
//! chat completions and Anthropic messages): pure functions from our request
//! types to JSON and from a server's JSON (or SSE stream) back to our types,
//! tested on fixtures, plus the error classification and backoff policy. Parsing is tolerant by design: real servers omit
//! fields, invent `finish_reason` values, send tool-call arguments as objects,
//! leave out `index`, and end streams without `[DONE]` (see MODEL-SERVERS.md).
//! The HTTP transport, retries and the scripted test server build on this.

pub mod anthropic;
mod error;
pub mod openai;
pub mod sse;
mod types;

pub use error::{LlmError, backoff, classify_http, parse_retry_after};
pub use types::{
    ChatRequest, ChatResponse, FinishReason, Message, Role, ToolCall, ToolChoice, ToolDef, Usage,
};
