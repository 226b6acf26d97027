//! Tool calls a local model wrote as text instead of as structured calls:
//! Hermes-style `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
//! blocks, or a lone JSON object naming an offered tool with its arguments
//! (optionally in a ```json fence). Templates that are not tool-aware turn
//! calls into such text (MODEL-SERVERS.md); recognising them keeps the run going.

use serde_json::Value;

use crate::llm::{ToolCall, ToolDef};

/// The calls written in `text`, only for tools in `offered`.
pub fn parse(text: &str, offered: &[ToolDef]) -> Vec<ToolCall> {
    let mut calls = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("<tool_call>") {
        let after = &rest[start + "<tool_call>".len()..];
        let end = after.find("</tool_call>").unwrap_or(after.len());
        if let Some(call) = call_from_json(after[..end].trim(), offered) {
            calls.push(call);
        }
        rest = &after[end.min(after.len())..];
    }
    if calls.is_empty() {
        let body = strip_fence(text.trim());
        if body.starts_with('{')
            && let Some(call) = call_from_json(body, offered)
        {
            calls.push(call);
        }
    }
    for (n, call) in calls.iter_mut().enumerate() {
        call.id = format!("text-call-{}", n + 1);
    }
    calls
}

fn strip_fence(text: &str) -> &str {
    let Some(inner) = text.strip_prefix("```") else {
        return text;
    };
    let inner = inner.strip_prefix("json").unwrap_or(inner);
    inner.strip_suffix("```").unwrap_or(inner).trim()
}

fn call_from_json(raw: &str, offered: &[ToolDef]) -> Option<ToolCall> {
    let value: Value = serde_json::from_str(raw).ok()?;
    let object = value.as_object()?;
    // {"name": "t", "arguments": {...}} or {"function": {"name": ..., ...}}.
    let inner = object
        .get("function")
        .and_then(Value::as_object)
        .unwrap_or(object);
    let name = inner.get("name").and_then(Value::as_str)?;
    if !offered.iter().any(|t| t.name == name) {
        return None;
    }
    let arguments = inner
        .get("arguments")
        .or_else(|| inner.get("parameters"))
        .or_else(|| inner.get("input"))
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let arguments = match arguments {
        Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
        other => other,
    };
    Some(ToolCall {
        id: String::new(),
        name: name.to_owned(),
        arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolDef> {
        ["read_file", "finish"]
            .iter()
            .map(|n| ToolDef {
                name: (*n).into(),
                description: String::new(),
                parameters: json!({"type": "object"}),
            })
            .collect()
    }

    #[test]
    fn hermes_blocks_and_lone_objects_become_calls_for_offered_tools_only() {
        let text = "I will read it.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.md\"}}\n</tool_call>\n<tool_call>{\"name\": \"rm\", \"arguments\": {}}</tool_call>";
        let calls = parse(text, &tools());
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "read_file");
        assert_eq!(calls[0].arguments, json!({"path": "a.md"}));
        let lone = parse(
            "```json\n{\"name\": \"finish\", \"arguments\": \"{\\\"output\\\": \\\"done\\\"}\"}\n```",
            &tools(),
        );
        assert_eq!(lone[0].arguments, json!({"output": "done"}));
        assert!(parse("The answer is {\"name\": \"x\"}.", &tools()).is_empty());
        assert!(parse("{\"name\": \"delete\", \"arguments\": {}}", &tools()).is_empty());
    }
}
