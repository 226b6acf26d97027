//! What a test asks the server to answer next: a [`Reply`] plus the [`Faults`]
//! to inject while sending it.

use std::time::Duration;

/// A tool call the scripted model makes. `arguments` is sent as given, so a test
/// can script malformed JSON.
#[derive(Clone, Debug)]
pub struct ScriptedCall {
    pub name: String,
    pub arguments: String,
}

impl ScriptedCall {
    pub fn new(name: &str, arguments: serde_json::Value) -> Self {
        Self {
            name: name.to_owned(),
            arguments: arguments.to_string(),
        }
    }

    /// A call whose arguments are sent exactly as written, valid JSON or not.
    pub fn raw(name: &str, arguments: &str) -> Self {
        Self {
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum Reply {
    /// A plain assistant answer.
    Text(String),
    /// Tool calls, optionally with text before them.
    ToolCalls {
        text: String,
        calls: Vec<ScriptedCall>,
    },
    /// An HTTP error in the protocol's error shape.
    Status {
        status: u16,
        retry_after: Option<String>,
        message: String,
    },
    /// Let the deterministic reader policy answer from the request.
    Policy,
}

/// Where a streamed reply is cut off (the socket closes without ending the body).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// After this many SSE events.
    AfterEvents(usize),
    /// Right after the first piece of the first tool call's arguments.
    MidToolCall,
}

/// Real-server quirks (MODEL-SERVERS.md), each off by default.
#[derive(Clone, Debug, Default)]
pub struct Quirks {
    /// llama.cpp: tool-call `id` is "".
    pub empty_ids: bool,
    /// llama.cpp: `arguments` is a JSON object, not a string (sent in one piece).
    pub object_arguments: bool,
    /// Ollama: streamed tool-call deltas carry no `index`.
    pub no_index: bool,
    /// Ollama: each tool call arrives whole in a single chunk.
    pub whole_call_in_one_chunk: bool,
    /// LM Studio: later tool-call chunks repeat `name: ""`.
    pub repeated_empty_name: bool,
    /// The stream ends at EOF without `data: [DONE]`.
    pub no_done: bool,
    /// No `finish_reason` at all (with `no_done`: a stream that just stops).
    pub no_finish_reason: bool,
    /// OpenRouter: `: OPENROUTER PROCESSING` comments and `data: : keepalive` lines.
    pub comments_and_keepalives: bool,
    /// A `finish_reason` nobody documents, e.g. "eos" or "".
    pub unknown_finish_reason: Option<String>,
    /// No `usage` anywhere.
    pub no_usage: bool,
    /// No `id`, `object` or `created` fields.
    pub no_envelope_fields: bool,
    /// Thinking text in `reasoning_content` before the answer.
    pub reasoning: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Faults {
    /// Wait this long before the status line (slow first byte).
    pub first_byte_delay: Duration,
    /// Go silent this long after the first event of a stream (a read timeout).
    pub stall_after_first_event: Option<Duration>,
    pub cut: Option<Cut>,
    /// Re-split the streamed body into writes of at most this many bytes.
    pub write_size: Option<usize>,
    pub quirks: Quirks,
}

#[derive(Clone, Debug)]
pub struct Step {
    pub reply: Reply,
    pub faults: Faults,
}

impl Step {
    pub fn text(text: &str) -> Self {
        Reply::Text(text.to_owned()).into()
    }

    pub fn tools(calls: Vec<ScriptedCall>) -> Self {
        Reply::ToolCalls {
            text: String::new(),
            calls,
        }
        .into()
    }

    pub fn status(status: u16, message: &str) -> Self {
        Reply::Status {
            status,
            retry_after: None,
            message: message.to_owned(),
        }
        .into()
    }

    pub fn rate_limited(retry_after_secs: &str) -> Self {
        Reply::Status {
            status: 429,
            retry_after: Some(retry_after_secs.to_owned()),
            message: "Rate limit reached; slow down".to_owned(),
        }
        .into()
    }

    pub fn with(mut self, faults: Faults) -> Self {
        self.faults = faults;
        self
    }

    pub fn with_quirks(mut self, quirks: Quirks) -> Self {
        self.faults.quirks = quirks;
        self
    }
}

impl From<Reply> for Step {
    fn from(reply: Reply) -> Self {
        Self {
            reply,
            faults: Faults::default(),
        }
    }
}
