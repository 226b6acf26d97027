//! Anthropic's Messages API wire format, as pure functions: `system` at the top,
//! content blocks (`text`, `tool_use`, `tool_result`), and a typed event stream.

use serde_json::{Value, json};

use super::openai::{WireError, parse_arguments};
use super::types::{ChatRequest, ChatResponse, FinishReason, Role, ToolCall, ToolChoice, Usage};

/// Default `max_tokens`: the API requires one.
const DEFAULT_MAX_TOKENS: u32 = 4096;

pub fn request_body(request: &ChatRequest) -> Value {
    let system: Vec<&str> = request
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let mut messages: Vec<Value> = Vec::new();
    for m in request.messages.iter().filter(|m| m.role != Role::System) {
        let (role, blocks) = match m.role {
            Role::Tool => (
                "user",
                vec![
                    json!({"type": "tool_result", "tool_use_id": m.tool_call_id.clone().unwrap_or_default(), "content": m.content}),
                ],
            ),
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": m.content}));
                }
                for c in &m.tool_calls {
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}));
                }
                ("assistant", blocks)
            }
            _ => ("user", vec![json!({"type": "text", "text": m.content})]),
        };
        // Consecutive same-role turns (several tool results) merge into one message.
        match messages.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(content) = last["content"].as_array_mut() {
                    content.extend(blocks);
                }
            }
            _ => messages.push(json!({"role": role, "content": blocks})),
        }
    }
    let mut body = json!({
        "model": request.model,
        "max_tokens": request.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        "messages": messages,
        "stream": request.stream,
    });
    if !system.is_empty() {
        let text = system.join("\n\n");
        body["system"] = if request.cache_prefix {
            // Tools come before the system prompt in Anthropic's cache order, so
            // one breakpoint here caches tools and system prompt together.
            json!([{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}])
        } else {
            json!(text)
        };
    }
    if !request.tools.is_empty() {
        body["tools"] = Value::Array(
            request.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})).collect(),
        );
        if let Some(choice) = &request.tool_choice {
            body["tool_choice"] = match choice {
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::None => json!({"type": "none"}),
                ToolChoice::Required => json!({"type": "any"}),
                ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            };
        }
    }
    body
}

fn usage_of(value: &Value) -> Option<Usage> {
    let u = value.get("usage")?;
    let count = |key: &str| u.get(key).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        // `input_tokens` leaves out what the prompt cache wrote or served:
        // the prompt read is all three (and a cut prompt is judged on it).
        input_tokens: count("input_tokens")
            + count("cache_read_input_tokens")
            + count("cache_creation_input_tokens"),
        output_tokens: u.get("output_tokens").and_then(Value::as_u64).unwrap_or(0),
    })
}

/// A non-streaming reply.
pub fn parse_response(body: &Value) -> Result<ChatResponse, WireError> {
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| WireError::Malformed("no content".into()))?;
    let mut response = ChatResponse {
        usage: usage_of(body),
        ..ChatResponse::default()
    };
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => response
                .text
                .push_str(block.get("text").and_then(Value::as_str).unwrap_or("")),
            Some("thinking") => response
                .reasoning
                .push_str(block.get("thinking").and_then(Value::as_str).unwrap_or("")),
            Some("tool_use") => response.tool_calls.push(ToolCall {
                id: block
                    .get("id")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                name: block
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                arguments: block.get("input").cloned().unwrap_or_else(|| json!({})),
            }),
            _ => {}
        }
    }
    response.finish_reason = Some(
        body.get("stop_reason")
            .and_then(Value::as_str)
            .map(FinishReason::parse)
            .unwrap_or(FinishReason::Stop),
    );
    Ok(response)
}

#[derive(Clone, Debug, Default)]
struct Block {
    kind: String,
    id: String,
    name: String,
    json: String,
}

/// Assembles a streamed reply from its events (`event:` name and `data:` JSON).
#[derive(Clone, Debug, Default)]
pub struct StreamAssembler {
    response: ChatResponse,
    blocks: Vec<(u64, Block)>,
    stopped: bool,
}

impl StreamAssembler {
    /// Take one event's data. Returns `true` at `message_stop`.
    pub fn push_data(&mut self, data: &str) -> bool {
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            return false;
        };
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "message_start" => {
                if let Some(usage) = event.get("message").and_then(usage_of) {
                    self.response.usage = Some(usage);
                }
            }
            "content_block_start" => {
                let block = event.get("content_block").cloned().unwrap_or(Value::Null);
                let text = |k: &str| {
                    block
                        .get(k)
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned()
                };
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    self.response.text.push_str(t);
                }
                self.blocks.push((
                    index,
                    Block {
                        kind: text("type"),
                        id: text("id"),
                        name: text("name"),
                        json: String::new(),
                    },
                ));
            }
            "content_block_delta" => {
                let delta = event.get("delta").cloned().unwrap_or(Value::Null);
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") => self
                        .response
                        .text
                        .push_str(delta.get("text").and_then(Value::as_str).unwrap_or("")),
                    Some("thinking_delta") => self
                        .response
                        .reasoning
                        .push_str(delta.get("thinking").and_then(Value::as_str).unwrap_or("")),
                    Some("input_json_delta") => {
                        if let Some((_, block)) =
                            self.blocks.iter_mut().rev().find(|(i, _)| *i == index)
                        {
                            block.json.push_str(
                                delta
                                    .get("partial_json")
                                    .and_then(Value::as_str)
                                    .unwrap_or(""),
                            );
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(reason) = event
                    .get("delta")
                    .and_then(|d| d.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.response.finish_reason = Some(FinishReason::parse(reason));
                }
                if let Some(out) = event
                    .get("usage")
                    .and_then(|u| u.get("output_tokens"))
                    .and_then(Value::as_u64)
                {
                    let usage = self.response.usage.get_or_insert_with(Usage::default);
                    usage.output_tokens = out;
                }
            }
            "message_stop" => {
                self.stopped = true;
                return true;
            }
            _ => {}
        }
        false
    }

    /// The text assembled so far.
    pub fn text(&self) -> &str {
        &self.response.text
    }

    /// The whole reply; a stream that ended without `message_stop` or a stop
    /// reason was cut.
    pub fn finish(mut self) -> Result<ChatResponse, WireError> {
        if !self.stopped && self.response.finish_reason.is_none() {
            return Err(WireError::CutStream);
        }
        if self.response.finish_reason.is_none() {
            self.response.finish_reason = Some(FinishReason::Stop);
        }
        for (_, block) in self
            .blocks
            .into_iter()
            .filter(|(_, b)| b.kind == "tool_use")
        {
            self.response.tool_calls.push(ToolCall {
                id: block.id,
                name: block.name,
                arguments: parse_arguments(&block.json),
            });
        }
        Ok(self.response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{Message, ToolDef};

    #[test]
    fn request_body_puts_system_on_top_and_merges_tool_results() {
        let mut assistant = Message {
            role: Role::Assistant,
            content: String::new(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning: String::new(),
        };
        assistant.tool_calls = vec![
            ToolCall {
                id: "t1".into(),
                name: "ls".into(),
                arguments: json!({}),
            },
            ToolCall {
                id: "t2".into(),
                name: "read_todos".into(),
                arguments: json!({}),
            },
        ];
        let request = ChatRequest {
            model: "claude".into(),
            messages: vec![
                Message::system("be brief"),
                Message::user("go"),
                assistant,
                Message::tool_result("t1", "a"),
                Message::tool_result("t2", "b"),
            ],
            tools: vec![ToolDef {
                name: "ls".into(),
                description: "list".into(),
                parameters: json!({"type": "object"}),
            }],
            tool_choice: Some(ToolChoice::Required),
            max_tokens: None,
            stream: false,
            response_format: None,
            cache_prefix: false,
            affinity: None,
        };
        let body = request_body(&request);
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["messages"].as_array().unwrap().len(), 3);
        assert_eq!(body["messages"][2]["content"].as_array().unwrap().len(), 2);
        assert_eq!(body["messages"][2]["content"][1]["tool_use_id"], "t2");
        assert_eq!(body["tools"][0]["input_schema"]["type"], "object");
        assert_eq!(body["tool_choice"], json!({"type": "any"}));
        assert_eq!(body["max_tokens"], 4096);
    }

    #[test]
    fn assembles_a_streamed_tool_use_with_usage() {
        let events = [
            r#"{"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me look."}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"grep","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": \"pa"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"xos\"}"}}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":40}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut a = StreamAssembler::default();
        for e in events {
            a.push_data(e);
        }
        let r = a.finish().unwrap();
        assert_eq!(r.text, "Let me look.");
        assert_eq!(
            r.tool_calls,
            vec![ToolCall {
                id: "toolu_1".into(),
                name: "grep".into(),
                arguments: json!({"pattern": "paxos"})
            }]
        );
        assert_eq!(r.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 25,
                output_tokens: 40
            })
        );
    }

    #[test]
    fn a_stream_cut_before_the_stop_is_an_error() {
        let mut a = StreamAssembler::default();
        a.push_data(r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"par"}}"#);
        assert_eq!(a.finish().unwrap_err(), WireError::CutStream);
    }

    #[test]
    fn parses_a_whole_reply() {
        let body = json!({"content": [{"type": "text", "text": "ok"}, {"type": "tool_use", "id": "t", "name": "ls", "input": {"path": "."}}],
                          "stop_reason": "tool_use", "usage": {"input_tokens": 3, "output_tokens": 4}});
        let r = parse_response(&body).unwrap();
        assert_eq!(r.text, "ok");
        assert_eq!(r.tool_calls[0].arguments, json!({"path": "."}));
        assert_eq!(r.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn the_prompt_read_counts_what_the_cache_served_and_wrote() {
        let body = json!({"content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                          "usage": {"input_tokens": 40, "cache_read_input_tokens": 3000,
                                    "cache_creation_input_tokens": 200, "output_tokens": 9}});
        let usage = parse_response(&body).unwrap().usage.unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (3240, 9));
    }
}
