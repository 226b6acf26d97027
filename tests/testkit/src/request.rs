//! A request as the server received it, with a protocol-neutral reading of it
//! (roles, texts, tools) for tests and for the reader policy.

use serde_json::Value;

use crate::tokenizer::Tokenizer;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    OpenAi,
    Anthropic,
}

/// A tool the client offered.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferedTool {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// One turn, flattened to text: tool calls appear as `name(arguments)` and tool
/// results as their content.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub role: String,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub protocol: Protocol,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    pub fn model(&self) -> &str {
        self.body.get("model").and_then(Value::as_str).unwrap_or("")
    }

    /// Every turn in order, the system prompt first (role "system").
    pub fn turns(&self) -> Vec<Turn> {
        let mut turns = Vec::new();
        if let Some(system) = self.body.get("system") {
            turns.push(Turn {
                role: "system".into(),
                text: content_text(system),
            });
        }
        for m in self
            .body
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("").into();
            let mut text = m.get("content").map(content_text).unwrap_or_default();
            for call in m
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let f = call.get("function").cloned().unwrap_or(Value::Null);
                text.push_str(&format!(
                    "{}({})",
                    f.get("name").and_then(Value::as_str).unwrap_or(""),
                    f.get("arguments").map(value_text).unwrap_or_default()
                ));
            }
            turns.push(Turn { role, text });
        }
        turns
    }

    /// The tools offered, in either protocol's shape.
    pub fn tools(&self) -> Vec<OfferedTool> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| {
                let f = t.get("function").unwrap_or(t);
                OfferedTool {
                    name: f.get("name").and_then(Value::as_str).unwrap_or("").into(),
                    description: f
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .into(),
                    parameters: f
                        .get("parameters")
                        .or_else(|| f.get("input_schema"))
                        .cloned()
                        .unwrap_or(Value::Null),
                }
            })
            .collect()
    }

    /// The JSON schema of a `response_format: json_schema` request, if any.
    pub fn response_schema(&self) -> Option<Value> {
        let format = self.body.get("response_format")?;
        format
            .get("json_schema")
            .and_then(|s| s.get("schema"))
            .cloned()
    }

    /// The prompt's size by the default [`Tokenizer`]: a token per four
    /// bytes of every turn plus the tool specs.
    pub fn prompt_tokens(&self) -> u64 {
        Tokenizer::QUARTER.count(self)
    }
}

impl RecordedRequest {
    /// The request as Ollama reads it when it exceeds a context of `keep`
    /// tokens: cut from the front, the system prompt and tool specs first,
    /// then whole turns, then the front of the first turn left, until what
    /// remains fits (counted by `tokenizer`). Ollama answers that, behind a
    /// normal 200, and says it read its whole window.
    pub fn cut_to(&self, keep: u64, tokenizer: &Tokenizer) -> RecordedRequest {
        let mut cut = self.clone();
        if let Some(body) = cut.body.as_object_mut() {
            body.remove("tools");
            body.remove("system");
        }
        loop {
            let over = tokenizer.count(&cut).saturating_sub(keep);
            if over == 0 {
                return cut;
            }
            let Some(messages) = cut.body.get_mut("messages").and_then(Value::as_array_mut) else {
                return cut;
            };
            if messages.len() > 1 {
                messages.remove(0);
                continue;
            }
            let Some(first) = messages.first_mut() else {
                return cut;
            };
            let text = first.get("content").map(content_text).unwrap_or_default();
            let drop = (tokenizer.bytes_of(over) + 4).min(text.len());
            let mut at = drop;
            while !text.is_char_boundary(at) {
                at += 1;
            }
            first["content"] = Value::String(text[at..].to_owned());
            if at >= text.len() {
                return cut;
            }
        }
    }
}

/// Text of a `content` in any shape: a string, or an array of blocks (`text`,
/// `tool_result` with nested content, `tool_use` as `name(input)`).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("tool_result") => b.get("content").map(content_text).unwrap_or_default(),
                Some("tool_use") => format!(
                    "{}({})",
                    b.get("name").and_then(Value::as_str).unwrap_or(""),
                    b.get("input").map(value_text).unwrap_or_default()
                ),
                _ => b
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
