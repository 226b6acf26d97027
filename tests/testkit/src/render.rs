//! Turning an answer into bytes on the wire, in either protocol, streamed or
//! whole, with the requested quirks.

use serde_json::{Value, json};

use crate::request::Protocol;
use crate::script::{Quirks, ScriptedCall};

/// What the model says this turn.
pub struct Answer {
    pub text: String,
    pub calls: Vec<ScriptedCall>,
    pub model: String,
    pub prompt_tokens: u64,
    /// Makes ids unique across the server's lifetime.
    pub serial: u64,
}

impl Answer {
    fn completion_tokens(&self) -> u64 {
        let words = self.text.split_whitespace().count()
            + self
                .calls
                .iter()
                .map(|c| c.arguments.split_whitespace().count() + 1)
                .sum::<usize>();
        words.max(1) as u64
    }

    fn call_id(&self, i: usize, quirks: &Quirks, prefix: &str) -> String {
        if quirks.empty_ids {
            String::new()
        } else {
            format!("{prefix}{}_{i}", self.serial)
        }
    }
}

/// A streamed reply as SSE events, plus the event after which "mid tool call"
/// is (the first argument piece of the first call).
pub struct EventPlan {
    pub events: Vec<Vec<u8>>,
    pub mid_tool_call: Option<usize>,
}

pub fn whole(protocol: Protocol, answer: &Answer, quirks: &Quirks) -> Value {
    match protocol {
        Protocol::OpenAi => openai_whole(answer, quirks),
        Protocol::Anthropic => anthropic_whole(answer, quirks),
    }
}

pub fn stream(protocol: Protocol, answer: &Answer, quirks: &Quirks) -> EventPlan {
    match protocol {
        Protocol::OpenAi => openai_stream(answer, quirks),
        Protocol::Anthropic => anthropic_stream(answer, quirks),
    }
}

/// The protocol's error body for an HTTP status.
pub fn error_body(protocol: Protocol, status: u16, message: &str) -> Value {
    match protocol {
        Protocol::OpenAi => json!({
            "error": {"message": message, "type": "server_error", "code": status}
        }),
        Protocol::Anthropic => {
            let kind = match status {
                429 => "rate_limit_error",
                529 => "overloaded_error",
                401 => "authentication_error",
                400 => "invalid_request_error",
                _ => "api_error",
            };
            json!({"type": "error", "error": {"type": kind, "message": message}})
        }
    }
}

fn finish_reason(answer: &Answer, quirks: &Quirks, tools: &str, stop: &str) -> Option<String> {
    if quirks.no_finish_reason {
        return None;
    }
    Some(match &quirks.unknown_finish_reason {
        Some(reason) => reason.clone(),
        None if answer.calls.is_empty() => stop.to_owned(),
        None => tools.to_owned(),
    })
}

/// Split text into small pieces (two words each), as servers stream tokens.
fn text_pieces(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_inclusive(' ').collect();
    words.chunks(2).map(|w| w.concat()).collect()
}

/// Split argument JSON into 8-character pieces, on character boundaries.
fn argument_pieces(arguments: &str) -> Vec<String> {
    let chars: Vec<char> = arguments.chars().collect();
    chars.chunks(8).map(|c| c.iter().collect()).collect()
}

fn sse_data(value: &Value) -> Vec<u8> {
    format!("data: {value}\n\n").into_bytes()
}

fn sse_event(name: &str, value: &Value) -> Vec<u8> {
    format!("event: {name}\ndata: {value}\n\n").into_bytes()
}

fn arguments_value(call: &ScriptedCall, quirks: &Quirks) -> Value {
    if quirks.object_arguments
        && let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(&call.arguments)
    {
        return object;
    }
    Value::String(call.arguments.clone())
}

fn openai_usage(answer: &Answer) -> Value {
    let out = answer.completion_tokens();
    json!({
        "prompt_tokens": answer.prompt_tokens,
        "completion_tokens": out,
        "total_tokens": answer.prompt_tokens + out,
    })
}

fn openai_whole(answer: &Answer, quirks: &Quirks) -> Value {
    let mut message = json!({
        "role": "assistant",
        "content": if answer.text.is_empty() && !answer.calls.is_empty() { Value::Null } else { Value::String(answer.text.clone()) },
    });
    if let Some(reasoning) = &quirks.reasoning {
        message["reasoning_content"] = json!(reasoning);
    }
    if !answer.calls.is_empty() {
        message["tool_calls"] = answer
            .calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                json!({
                    "id": answer.call_id(i, quirks, "call_"),
                    "type": "function",
                    "function": {"name": c.name, "arguments": arguments_value(c, quirks)},
                })
            })
            .collect();
    }
    let mut body = json!({
        "choices": [{
            "index": 0,
            "message": message,
            "finish_reason": finish_reason(answer, quirks, "tool_calls", "stop"),
        }],
    });
    if !quirks.no_envelope_fields {
        body["id"] = json!(format!("chatcmpl-{}", answer.serial));
        body["object"] = json!("chat.completion");
        body["created"] = json!(1_767_225_600u64 + answer.serial);
        body["model"] = json!(answer.model);
    }
    if !quirks.no_usage {
        body["usage"] = openai_usage(answer);
    }
    body
}

fn openai_stream(answer: &Answer, quirks: &Quirks) -> EventPlan {
    let chunk = |delta: Value, finish: Option<String>| {
        let mut body = json!({
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        });
        if !quirks.no_envelope_fields {
            body["id"] = json!(format!("chatcmpl-{}", answer.serial));
            body["object"] = json!("chat.completion.chunk");
            body["created"] = json!(1_767_225_600u64 + answer.serial);
            body["model"] = json!(answer.model);
        }
        sse_data(&body)
    };
    let keepalive = || b"data: : keepalive\n\n".to_vec();
    let mut events = Vec::new();
    let mut mid_tool_call = None;
    if quirks.comments_and_keepalives {
        events.push(b": OPENROUTER PROCESSING\n\n".to_vec());
    }
    events.push(chunk(json!({"role": "assistant", "content": ""}), None));
    if let Some(reasoning) = &quirks.reasoning {
        for piece in text_pieces(reasoning) {
            events.push(chunk(json!({"reasoning_content": piece}), None));
        }
    }
    for piece in text_pieces(&answer.text) {
        events.push(chunk(json!({"content": piece}), None));
        if quirks.comments_and_keepalives {
            events.push(keepalive());
        }
    }
    for (i, call) in answer.calls.iter().enumerate() {
        let id = answer.call_id(i, quirks, "call_");
        let with_index = |mut delta: Value| {
            if !quirks.no_index {
                delta["index"] = json!(i);
            }
            json!({"tool_calls": [delta]})
        };
        if quirks.whole_call_in_one_chunk || quirks.object_arguments {
            events.push(chunk(
                with_index(json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments_value(call, quirks)},
                })),
                None,
            ));
            continue;
        }
        events.push(chunk(
            with_index(json!({
                "id": id,
                "type": "function",
                "function": {"name": call.name, "arguments": ""},
            })),
            None,
        ));
        for piece in argument_pieces(&call.arguments) {
            let mut function = json!({"arguments": piece});
            if quirks.repeated_empty_name {
                function["name"] = json!("");
            }
            events.push(chunk(with_index(json!({"function": function})), None));
            if mid_tool_call.is_none() {
                mid_tool_call = Some(events.len());
            }
            if quirks.comments_and_keepalives {
                events.push(keepalive());
            }
        }
    }
    if let Some(reason) = finish_reason(answer, quirks, "tool_calls", "stop") {
        events.push(chunk(json!({}), Some(reason)));
    }
    if !quirks.no_usage {
        let mut usage = json!({"choices": [], "usage": openai_usage(answer)});
        if !quirks.no_envelope_fields {
            usage["id"] = json!(format!("chatcmpl-{}", answer.serial));
            usage["object"] = json!("chat.completion.chunk");
        }
        events.push(sse_data(&usage));
    }
    if !quirks.no_done {
        events.push(b"data: [DONE]\n\n".to_vec());
    }
    EventPlan {
        events,
        mid_tool_call,
    }
}

fn anthropic_input(call: &ScriptedCall) -> Value {
    serde_json::from_str::<Value>(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()))
}

fn anthropic_whole(answer: &Answer, quirks: &Quirks) -> Value {
    let mut content = Vec::new();
    if let Some(reasoning) = &quirks.reasoning {
        content.push(json!({"type": "thinking", "thinking": reasoning, "signature": "testkit"}));
    }
    if !answer.text.is_empty() {
        content.push(json!({"type": "text", "text": answer.text}));
    }
    for (i, call) in answer.calls.iter().enumerate() {
        content.push(json!({
            "type": "tool_use",
            "id": answer.call_id(i, quirks, "toolu_"),
            "name": call.name,
            "input": anthropic_input(call),
        }));
    }
    let mut body = json!({
        "id": format!("msg_{}", answer.serial),
        "type": "message",
        "role": "assistant",
        "model": answer.model,
        "content": content,
        "stop_reason": finish_reason(answer, quirks, "tool_use", "end_turn"),
        "stop_sequence": null,
    });
    if !quirks.no_usage {
        body["usage"] = json!({
            "input_tokens": answer.prompt_tokens,
            "output_tokens": answer.completion_tokens(),
        });
    }
    body
}

fn anthropic_stream(answer: &Answer, quirks: &Quirks) -> EventPlan {
    let mut events = Vec::new();
    let mut mid_tool_call = None;
    let mut start = json!({
        "type": "message_start",
        "message": {
            "id": format!("msg_{}", answer.serial),
            "type": "message",
            "role": "assistant",
            "model": answer.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
        },
    });
    if !quirks.no_usage {
        start["message"]["usage"] =
            json!({"input_tokens": answer.prompt_tokens, "output_tokens": 1});
    }
    events.push(sse_event("message_start", &start));
    events.push(sse_event("ping", &json!({"type": "ping"})));
    let mut index = 0usize;
    let mut block = |events: &mut Vec<Vec<u8>>,
                     start: Value,
                     deltas: Vec<Value>,
                     mark_first_delta: bool,
                     mid: &mut Option<usize>| {
        events.push(sse_event(
            "content_block_start",
            &json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        for delta in deltas {
            events.push(sse_event(
                "content_block_delta",
                &json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
            if mark_first_delta && mid.is_none() {
                *mid = Some(events.len());
            }
        }
        events.push(sse_event(
            "content_block_stop",
            &json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    };
    if let Some(reasoning) = &quirks.reasoning {
        let deltas = text_pieces(reasoning)
            .into_iter()
            .map(|p| json!({"type": "thinking_delta", "thinking": p}))
            .collect();
        block(
            &mut events,
            json!({"type": "thinking", "thinking": ""}),
            deltas,
            false,
            &mut mid_tool_call,
        );
    }
    if !answer.text.is_empty() {
        let deltas = text_pieces(&answer.text)
            .into_iter()
            .map(|p| json!({"type": "text_delta", "text": p}))
            .collect();
        block(
            &mut events,
            json!({"type": "text", "text": ""}),
            deltas,
            false,
            &mut mid_tool_call,
        );
    }
    for (i, call) in answer.calls.iter().enumerate() {
        let deltas = argument_pieces(&call.arguments)
            .into_iter()
            .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
            .collect();
        block(
            &mut events,
            json!({"type": "tool_use", "id": answer.call_id(i, quirks, "toolu_"), "name": call.name, "input": {}}),
            deltas,
            true,
            &mut mid_tool_call,
        );
    }
    let mut delta = json!({
        "type": "message_delta",
        "delta": {"stop_reason": finish_reason(answer, quirks, "tool_use", "end_turn"), "stop_sequence": null},
    });
    if !quirks.no_usage {
        delta["usage"] = json!({"output_tokens": answer.completion_tokens()});
    }
    events.push(sse_event("message_delta", &delta));
    if !quirks.no_done {
        events.push(sse_event("message_stop", &json!({"type": "message_stop"})));
    }
    EventPlan {
        events,
        mid_tool_call,
    }
}
