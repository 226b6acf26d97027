//! Provider-neutral chat types.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A call the model asked for. `arguments` is always a JSON object here, whatever
/// shape the server sent it in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: String,
    /// On assistant messages: the calls it made.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// On tool messages: which call this answers.
    #[serde(default)]
    pub tool_call_id: Option<String>,
    /// On assistant messages: the model's reasoning text, which some servers
    /// (DeepSeek's thinking mode) require back in tool-call loops.
    #[serde(default)]
    pub reasoning: String,
}

impl Message {
    pub fn system(text: impl Into<String>) -> Self {
        Self {
            role: Role::System,
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: String::new(),
        }
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: String::new(),
        }
    }

    pub fn tool_result(call_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            role: Role::Tool,
            content: text.into(),
            tool_calls: Vec::new(),
            tool_call_id: Some(call_id.into()),
            reasoning: String::new(),
        }
    }

    /// The assistant turn for an answer, to send back in the next request.
    pub fn assistant(answer: &ChatResponse) -> Self {
        Self {
            role: Role::Assistant,
            content: answer.text.clone(),
            tool_calls: answer.tool_calls.clone(),
            tool_call_id: None,
            reasoning: answer.reasoning.clone(),
        }
    }
}

/// A tool as offered to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDef {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Tool(String),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolDef>,
    pub tool_choice: Option<ToolChoice>,
    pub max_tokens: Option<u32>,
    pub stream: bool,
    /// A JSON Schema the answer must follow (OpenAI-style `response_format`);
    /// protocols without it get the schema from the prompt alone.
    pub response_format: Option<Value>,
    /// The system prompt and tools are a prefix that repeats byte for byte
    /// from call to call: mark it for the provider's prompt cache where the
    /// protocol has an explicit marker (Anthropic's `cache_control`).
    pub cache_prefix: bool,
    /// Calls with the same affinity (one paper's parts, one agent task's
    /// steps) go to the same endpoint of a pool, whose prompt cache then
    /// holds the prefix they share. Never sent.
    pub affinity: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why the model stopped. Unknown values are kept, not rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    Length,
    ContentFilter,
    Other(String),
}

impl FinishReason {
    pub fn parse(raw: &str) -> Self {
        match raw {
            "stop" | "end_turn" | "eos" | "stop_sequence" => Self::Stop,
            "tool_calls" | "function_call" | "tool_use" => Self::ToolCalls,
            "length" | "max_tokens" => Self::Length,
            "content_filter" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// A whole answer (a non-streaming reply, or a stream assembled).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    /// Reasoning text some servers send separately (`reasoning_content`).
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    /// `None` when the server sent no usage.
    pub usage: Option<Usage>,
    pub finish_reason: Option<FinishReason>,
}
