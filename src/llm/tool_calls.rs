//! Checking the tool calls a model made against the tools it was offered. A
//! call to an unknown tool, or with arguments that stayed invalid JSON after
//! the one repair attempt, is not run: it goes back to the model as a tool
//! error saying what was wrong, so the model can correct itself.

use serde_json::Value;

use super::types::{Message, ToolCall, ToolDef};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallProblem {
    UnknownTool {
        offered: Vec<String>,
    },
    /// The arguments as sent, which are not a JSON object.
    BadArguments {
        raw: String,
    },
}

impl CallProblem {
    /// The stable code of the tool error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownTool { .. } => "unknown_tool",
            Self::BadArguments { .. } => "invalid_arguments",
        }
    }

    /// What is wrong with a call to `tool`, for the model.
    pub fn describe(&self, tool: &str) -> String {
        match self {
            Self::UnknownTool { offered } => format!(
                "there is no tool named {tool:?}. The tools are: {}.",
                offered.join(", ")
            ),
            Self::BadArguments { raw } => format!(
                "the arguments of {tool} are not a JSON object: {}. Send them again as one JSON object matching the tool's schema.",
                clip(raw, 300)
            ),
        }
    }

    /// The tool result that tells the model what to fix.
    pub fn message(&self, call: &ToolCall) -> String {
        format!("error[{}]: {}", self.code(), self.describe(&call.name))
    }
}

fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{:?}…", &text[..cut]),
        None => format!("{text:?}"),
    }
}

/// What is wrong with a call, if anything.
pub fn check_call(call: &ToolCall, tools: &[ToolDef]) -> Option<CallProblem> {
    if !tools.iter().any(|t| t.name == call.name) {
        return Some(CallProblem::UnknownTool {
            offered: tools.iter().map(|t| t.name.clone()).collect(),
        });
    }
    match &call.arguments {
        Value::Object(_) => None,
        Value::String(raw) => Some(CallProblem::BadArguments { raw: raw.clone() }),
        other => Some(CallProblem::BadArguments {
            raw: other.to_string(),
        }),
    }
}

/// The tool-error message answering a call that cannot run.
pub fn problem_result(call: &ToolCall, problem: &CallProblem) -> Message {
    Message::tool_result(call.id.clone(), problem.message(call))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_tools_and_broken_arguments_become_tool_errors() {
        let tools = vec![ToolDef {
            name: "read_file".into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }];
        let call = |name: &str, arguments: Value| ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments,
        };
        assert_eq!(
            check_call(&call("read_file", json!({"path": "a"})), &tools),
            None
        );
        let unknown = call("delete_everything", json!({}));
        let problem = check_call(&unknown, &tools).unwrap();
        let reply = problem_result(&unknown, &problem);
        assert_eq!(reply.tool_call_id.as_deref(), Some("c1"));
        assert!(reply.content.contains("read_file") && reply.content.contains("unknown_tool"));
        let broken = call("read_file", json!("{\"path\": [1,"));
        assert!(matches!(
            check_call(&broken, &tools),
            Some(CallProblem::BadArguments { .. })
        ));
    }
}
