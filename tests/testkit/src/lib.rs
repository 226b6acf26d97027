//! Test doubles at the edge of the system: generated PDFs ([`pdf`]) and a
//! scripted model server: a real HTTP server on 127.0.0.1 that speaks
//! the OpenAI-compatible Chat Completions protocol and Anthropic's Messages
//! protocol, streaming (SSE) and not, and can misbehave on request the way real
//! servers do (see `../shared/MODEL-SERVERS.md`).
//!
//! Tests queue [`Step`]s (a reply plus the faults to inject) and read back every
//! request the client sent. When the queue is empty the server answers with the
//! deterministic [`reader`] policy, so a whole review can run with no hosted model.
//!
//! The crate shares no code with Quire on purpose: a protocol bug in Quire's wire
//! format must not be mirrored here and cancel out.

mod agent_policy;
mod ask;
pub mod batch;
mod citation_graph;
mod digest;
pub mod fallible;
mod http;
pub mod message_batches;
pub mod own_words;
pub mod pdf;
mod protocol;
pub mod quote_match;
pub mod reader;
mod render;
mod request;
mod sceptic;
pub mod scholar;
mod script;
mod server;
mod tokenizer;
pub mod zotero;
pub mod zotero_web;

pub use batch::{BatchOptions, BatchStats};
pub use fallible::Mistake;
pub use request::{Protocol, RecordedRequest};
pub use script::{Cut, Faults, Quirks, Reply, ScriptedCall, Step};
pub use server::{Policy, ScriptedServer, ServerOptions, ServerStats};
pub use tokenizer::Tokenizer;
