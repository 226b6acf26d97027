//! The agent's tools: the [`Tool`] trait, the [`Registry`] that runs them, and one
//! file per tool.
//!
//! A tool takes JSON arguments and returns text for the model, or a [`ToolError`]
//! with a stable code. Most errors are the model's to fix (a wrong path, an
//! ambiguous edit) and go back to it as a short message; a `fatal` one ends the
//! turn. Tools touch the disk only through [`crate::workspace::Workspace`], so
//! confinement is decided in one place. The registry logs every call to the
//! workspace's action log and offloads outputs too large for a prompt to files.

mod edit_file;
mod error;
mod glob;
mod grep;
mod ls;
mod offload;
mod read_file;
mod read_todos;
mod registry;
mod todo_list;
mod walk;
mod write_file;
mod write_todos;

use async_trait::async_trait;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::workspace::{Workspace, WsPath};

pub use error::{BUDGET_EXHAUSTED, Recovery, ToolError};
pub use registry::Registry;
pub use todo_list::{Todo, TodoStatus, load as load_todos, todo_path};

/// Limits the tools work within; all have defaults suited to a model's context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSettings {
    /// Outputs longer than this many bytes go to `tool-results/` instead of the prompt.
    pub offload_bytes: usize,
    /// `grep` stops after this many matching lines.
    pub grep_max_matches: usize,
    /// `glob` lists at most this many paths.
    pub glob_max_paths: usize,
    /// `ls` lists at most this many entries.
    pub ls_max_entries: usize,
    /// `read_file` cuts lines longer than this many characters.
    pub max_line_chars: usize,
    /// `write_file` and `edit_file` refuse content larger than this many bytes.
    pub max_write_bytes: usize,
    /// Walks (`glob`, `grep`) visit at most this many files.
    pub walk_max_files: usize,
}

impl Default for ToolSettings {
    fn default() -> Self {
        Self {
            offload_bytes: 16 * 1024,
            grep_max_matches: 200,
            glob_max_paths: 500,
            ls_max_entries: 1000,
            max_line_chars: 2000,
            max_write_bytes: 8 * 1024 * 1024,
            walk_max_files: 100_000,
        }
    }
}

/// What a tool call can see: the workspace, the limits, and who is calling.
///
/// What a tool needs beyond this (a model client, a cancellation token, an event
/// sink) it owns itself: tools are values, built for the agent that uses them.
#[derive(Clone, Debug)]
pub struct ToolContext {
    pub workspace: Workspace,
    pub settings: ToolSettings,
    /// The agent step making the call; `None` for a call from outside any agent
    /// (`quire tool`), which is logged to the workspace's `actions.jsonl`.
    pub actor: Option<Actor>,
}

impl ToolContext {
    pub fn new(workspace: Workspace, settings: ToolSettings) -> Self {
        Self {
            workspace,
            settings,
            actor: None,
        }
    }

    /// The same context, for a call made at `step` of the agent task `actor`.
    pub fn for_step(&self, actor: Actor) -> Self {
        Self {
            actor: Some(actor),
            ..self.clone()
        }
    }
}

/// Which agent task and step a call belongs to. The task's folder holds its own
/// action log (so its last k actions are a cheap tail read) and its own todo list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    pub agent: String,
    pub task: String,
    pub step: u64,
    /// `tasks/<task-id>`.
    pub folder: WsPath,
}

impl Actor {
    pub fn action_log(&self) -> Result<WsPath, crate::workspace::WorkspaceError> {
        self.folder.join(crate::workspace::layout::ACTIONS_FILE)
    }
}

/// One capability the model can call.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by: `verb_noun` or a short Unix name. Owned
    /// by the tool, so an agent loaded from a file can be a tool too.
    fn name(&self) -> &str;
    /// What it does and when to use it, written for the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    /// Run it. Text for the model on success.
    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError>;
}

/// Decode a tool's arguments, treating `null` (and the `""` some servers send for
/// tools without parameters) as `{}`.
pub(crate) fn parse_args<T: DeserializeOwned>(args: Value) -> Result<T, ToolError> {
    let args = match args {
        Value::Null => Value::Object(Default::default()),
        Value::String(s) if s.trim().is_empty() => Value::Object(Default::default()),
        other => other,
    };
    serde_json::from_value(args).map_err(|e| ToolError::invalid_arguments(e.to_string()))
}

/// Run blocking filesystem work off the async threads.
pub(crate) use crate::blocking::blocking;

/// Every built-in tool, in the order they are presented to the model.
pub fn builtin_tools() -> Vec<Box<dyn Tool>> {
    vec![
        Box::new(ls::Ls),
        Box::new(glob::Glob),
        Box::new(grep::Grep),
        Box::new(read_file::ReadFile),
        Box::new(write_file::WriteFile),
        Box::new(edit_file::EditFile),
        Box::new(write_todos::WriteTodos),
        Box::new(read_todos::ReadTodos),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_schema_and_description_is_snapshotted() {
        for tool in builtin_tools() {
            let spec = serde_json::json!({
                "name": tool.name(),
                "description": tool.description(),
                "parameters": tool.parameters(),
            });
            insta::assert_json_snapshot!(format!("tool_{}", tool.name()), spec);
        }
    }

    #[test]
    fn tool_names_are_unique_and_schemas_are_objects() {
        let tools = builtin_tools();
        let mut names: Vec<_> = tools.iter().map(|t| t.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), tools.len());
        for tool in &tools {
            assert_eq!(tool.parameters()["type"], "object", "{}", tool.name());
        }
    }

    #[test]
    fn parse_args_accepts_null_and_empty_string_as_no_arguments() {
        #[derive(serde::Deserialize)]
        struct NoArgs {}
        assert!(parse_args::<NoArgs>(Value::Null).is_ok());
        assert!(parse_args::<NoArgs>(Value::String(String::new())).is_ok());
    }
}
