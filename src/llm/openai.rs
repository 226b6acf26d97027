//! The OpenAI-compatible Chat Completions wire format (OpenAI, vLLM, llama.cpp,
//! Ollama's /v1, LM Studio, OpenRouter, DeepSeek), as pure functions.

use serde_json::{Map, Value, json};

use super::types::{
    ChatRequest, ChatResponse, FinishReason, Message, Role, ToolCall, ToolChoice, Usage,
};

/// What a reply or stream could not be turned into.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    #[error("the response is not a chat completion: {0}")]
    Malformed(String),
    #[error("the stream ended before the model finished (no finish_reason)")]
    CutStream,
}

/// The request body.
pub fn request_body(request: &ChatRequest) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body =
        json!({ "model": request.model, "messages": messages, "stream": request.stream });
    if request.stream {
        body["stream_options"] = json!({ "include_usage": true });
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(
            request
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect(),
        );
        if let Some(choice) = &request.tool_choice {
            body["tool_choice"] = match choice {
                ToolChoice::Auto => json!("auto"),
                ToolChoice::None => json!("none"),
                ToolChoice::Required => json!("required"),
                ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
            };
        }
    }
    if let Some(max) = request.max_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(schema) = &request.response_format {
        body["response_format"] = json!({
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema},
        });
    }
    body
}

fn message_json(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = json!({ "role": role, "content": m.content });
    if !m.tool_calls.is_empty() {
        out["tool_calls"] = Value::Array(
            m.tool_calls
                .iter()
                .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments.to_string()}}))
                .collect(),
        );
    }
    if let Some(id) = &m.tool_call_id {
        out["tool_call_id"] = json!(id);
    }
    if m.role == Role::Assistant && !m.reasoning.is_empty() {
        out["reasoning_content"] = json!(m.reasoning);
    }
    out
}

fn usage_of(value: &Value) -> Option<Usage> {
    let usage = value.get("usage")?.as_object()?;
    let input = usage.get("prompt_tokens").and_then(Value::as_u64);
    let output = usage.get("completion_tokens").and_then(Value::as_u64);
    if input.is_none() && output.is_none() {
        return None;
    }
    Some(Usage {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
    })
}

/// A non-streaming reply.
pub fn parse_response(body: &Value) -> Result<ChatResponse, WireError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| WireError::Malformed("no choices".into()))?;
    let message = choice
        .get("message")
        .ok_or_else(|| WireError::Malformed("choice without message".into()))?;
    let text_of = |key: &str| {
        message
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned()
    };
    let mut assembler = StreamAssembler {
        text: text_of("content"),
        reasoning: text_of("reasoning_content"),
        ..StreamAssembler::default()
    };
    for call in message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        assembler.tool_call_delta(call, true);
    }
    assembler.finish_reason = Some(
        choice
            .get("finish_reason")
            .and_then(Value::as_str)
            .map(FinishReason::parse)
            .unwrap_or(FinishReason::Stop),
    );
    assembler.usage = usage_of(body);
    assembler.finish()
}

/// One tool call being assembled from deltas.
#[derive(Clone, Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
}

/// Assembles a streamed reply from its chunks (the JSON of each `data:` line).
#[derive(Clone, Debug, Default)]
pub struct StreamAssembler {
    text: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
}

impl StreamAssembler {
    /// Take one SSE `data:` payload. Returns `true` at `[DONE]`. Keep-alives and
    /// payloads that are not JSON objects are ignored.
    pub fn push_data(&mut self, data: &str) -> bool {
        let data = data.trim();
        if data == "[DONE]" {
            return true;
        }
        if data.starts_with(':') || data.is_empty() {
            return false;
        }
        if let Ok(chunk) = serde_json::from_str::<Value>(data) {
            self.push_chunk(&chunk);
        }
        false
    }

    pub fn push_chunk(&mut self, chunk: &Value) {
        if let Some(usage) = usage_of(chunk) {
            self.usage = Some(usage);
        }
        let Some(choice) = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return;
        };
        if let Some(delta) = choice.get("delta") {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.text.push_str(text);
            }
            if let Some(text) = delta.get("reasoning_content").and_then(Value::as_str) {
                self.reasoning.push_str(text);
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.tool_call_delta(call, false);
            }
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(FinishReason::parse(reason));
        }
    }

    /// Merge one tool-call delta. Servers differ: some omit `index` (Ollama), some
    /// repeat `name: ""` (LM Studio), some send a whole call in one chunk, some send
    /// `arguments` as an object (llama.cpp).
    fn tool_call_delta(&mut self, delta: &Value, whole: bool) {
        let index = delta.get("index").and_then(Value::as_u64);
        let id = delta.get("id").and_then(Value::as_str).unwrap_or("");
        let function = delta.get("function").cloned().unwrap_or(Value::Null);
        let name = function.get("name").and_then(Value::as_str).unwrap_or("");
        let slot = if whole {
            None
        } else if let Some(i) = index {
            self.calls.iter().position(|c| c.index == Some(i))
        } else if !id.is_empty() {
            self.calls.iter().position(|c| c.id == id)
        } else if name.is_empty() {
            // A continuation with neither index nor id belongs to the latest call.
            self.calls.len().checked_sub(1)
        } else {
            None
        };
        let slot = slot.unwrap_or_else(|| {
            self.calls.push(PartialCall {
                index,
                ..PartialCall::default()
            });
            self.calls.len() - 1
        });
        let call = &mut self.calls[slot];
        if call.id.is_empty() && !id.is_empty() {
            call.id = id.to_owned();
        }
        if call.name.is_empty() && !name.is_empty() {
            call.name = name.to_owned();
        }
        match function.get("arguments") {
            Some(Value::String(part)) => call.arguments.push_str(part),
            Some(object @ Value::Object(_)) => call.arguments = object.to_string(),
            _ => {}
        }
    }

    /// The whole reply. A stream that never said why it stopped was cut.
    /// The text assembled so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn finish(self) -> Result<ChatResponse, WireError> {
        let Some(finish_reason) = self.finish_reason else {
            return Err(WireError::CutStream);
        };
        let tool_calls = self
            .calls
            .into_iter()
            .enumerate()
            .map(|(n, c)| ToolCall {
                id: if c.id.is_empty() {
                    format!("call_{n}")
                } else {
                    c.id
                },
                name: c.name,
                arguments: parse_arguments(&c.arguments),
            })
            .collect();
        Ok(ChatResponse {
            text: self.text,
            reasoning: self.reasoning,
            tool_calls,
            usage: self.usage,
            finish_reason: Some(finish_reason),
        })
    }
}

/// Arguments as a JSON object: `""` is `{}`; malformed JSON gets one repair
/// attempt (code fences stripped, missing closing braces added); what still does
/// not parse is kept as a string so the caller can return it to the model as a
/// tool error.
pub fn parse_arguments(raw: &str) -> Value {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Value::Object(Map::new());
    }
    if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(trimmed) {
        return value;
    }
    let unfenced = trimmed
        .trim_start_matches("```json")
        .trim_start_matches("```")
        .trim_end_matches("```")
        .trim();
    let opens = unfenced
        .matches('{')
        .count()
        .saturating_sub(unfenced.matches('}').count());
    let repaired = format!("{unfenced}{}", "}".repeat(opens));
    match serde_json::from_str::<Value>(&repaired) {
        Ok(value @ Value::Object(_)) => value,
        _ => Value::String(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolDef;

    fn stream(lines: &[&str]) -> Result<ChatResponse, WireError> {
        let mut a = StreamAssembler::default();
        for line in lines {
            if a.push_data(line) {
                break;
            }
        }
        a.finish()
    }

    #[test]
    fn request_body_carries_messages_tools_and_choice() {
        let request = ChatRequest {
            model: "m".into(),
            messages: vec![
                Message::system("s"),
                Message::user("u"),
                Message::tool_result("c1", "42"),
            ],
            tools: vec![ToolDef {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
            tool_choice: Some(ToolChoice::Tool("ls".into())),
            max_tokens: Some(100),
            stream: true,
            response_format: None,
            cache_prefix: false,
            affinity: None,
        };
        let body = request_body(&request);
        assert_eq!(
            body["messages"][2],
            json!({"role": "tool", "content": "42", "tool_call_id": "c1"})
        );
        assert_eq!(body["tools"][0]["function"]["name"], "ls");
        assert_eq!(body["tool_choice"]["function"]["name"], "ls");
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert_eq!(body["max_tokens"], 100);
    }

    #[test]
    fn parses_a_plain_reply_with_missing_object_and_id_fields() {
        let body = json!({"choices": [{"message": {"content": "hi"}, "finish_reason": "eos"}]});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.text, "hi");
        assert_eq!(r.finish_reason, Some(FinishReason::Stop));
        assert_eq!(r.usage, None);
    }

    #[test]
    fn parses_parallel_tool_calls_with_object_arguments_and_empty_ids() {
        let body = json!({
            "choices": [{"message": {"content": null, "tool_calls": [
                {"id": "", "function": {"name": "ls", "arguments": {"path": "notes"}}},
                {"id": "b", "function": {"name": "read_todos", "arguments": ""}}
            ]}, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 12, "completion_tokens": 3}
        });
        let r = parse_response(&body).unwrap();
        assert_eq!(r.tool_calls.len(), 2);
        assert_eq!(r.tool_calls[0].id, "call_0");
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "notes"}));
        assert_eq!(r.tool_calls[1].arguments, json!({}));
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 12,
                output_tokens: 3
            })
        );
    }

    #[test]
    fn assembles_streamed_text_and_interleaved_tool_call_arguments() {
        let r = stream(&[
            r#"{"choices":[{"delta":{"content":"Hel"}}]}"#,
            ": keepalive",
            r#"{"choices":[{"delta":{"content":"lo"}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"grep","arguments":"{\"pat"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"ls","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"","arguments":"tern\":\"x\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7}}"#,
            "[DONE]",
        ])
        .unwrap();
        assert_eq!(r.text, "Hello");
        assert_eq!(r.tool_calls[0].name, "grep");
        assert_eq!(r.tool_calls[0].arguments, json!({"pattern": "x"}));
        assert_eq!(r.tool_calls[1].arguments, json!({}));
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 5,
                output_tokens: 7
            })
        );
    }

    #[test]
    fn tool_calls_without_index_are_told_apart_by_id_or_by_a_new_name() {
        let r = stream(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"x","function":{"name":"ls","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"glob","arguments":"{\"pattern\":\"*\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
        ])
        .unwrap();
        let names: Vec<&str> = r.tool_calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["ls", "glob"]);
        assert_eq!(r.tool_calls[1].id, "call_1");
    }

    #[test]
    fn a_stream_without_finish_reason_is_cut_even_after_done_is_missing() {
        let cut = stream(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"ls","arguments":"{\"pa"}}]}}]}"#,
        ]);
        assert_eq!(cut, Err(WireError::CutStream));
        let unknown =
            stream(&[r#"{"choices":[{"delta":{"content":"x"},"finish_reason":"weird"}]}"#])
                .unwrap();
        assert_eq!(
            unknown.finish_reason,
            Some(FinishReason::Other("weird".into()))
        );
    }

    #[test]
    fn malformed_arguments_get_one_repair_and_otherwise_stay_a_string() {
        assert_eq!(parse_arguments("```json\n{\"a\": 1\n```"), json!({"a": 1}));
        assert_eq!(
            parse_arguments("{\"a\": {\"b\": 2}"),
            json!({"a": {"b": 2}})
        );
        assert_eq!(
            parse_arguments("not json"),
            Value::String("not json".into())
        );
    }
}
