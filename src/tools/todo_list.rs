//! The plan as a todo list, stored as a Markdown checklist in `todo.md`.
//!
//! Markdown rather than JSON because people read it too: the researcher can open
//! the workspace and see the plan. `- [ ]` is pending, `- [~]` in progress,
//! `- [x]` completed; other lines are ignored when reading, so a hand-written
//! heading or note does not break the agent.

use serde::{Deserialize, Serialize};

use super::ToolError;
use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    InProgress,
    Completed,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Todo {
    pub content: String,
    pub status: TodoStatus,
}

/// Longest plan we keep; a longer one belongs in notes.
pub(crate) const MAX_TODOS: usize = 500;
const MAX_TODO_CHARS: usize = 500;

impl TodoStatus {
    fn marker(self) -> &'static str {
        match self {
            Self::Pending => "[ ]",
            Self::InProgress => "[~]",
            Self::Completed => "[x]",
        }
    }

    fn from_marker(marker: &str) -> Option<Self> {
        match marker {
            "[ ]" => Some(Self::Pending),
            "[~]" => Some(Self::InProgress),
            "[x]" | "[X]" => Some(Self::Completed),
            _ => None,
        }
    }
}

pub(crate) fn validate(todos: &[Todo]) -> Result<(), ToolError> {
    if todos.len() > MAX_TODOS {
        return Err(ToolError::invalid_arguments(format!(
            "{} todos is more than the {MAX_TODOS} allowed; group them",
            todos.len()
        )));
    }
    for (index, todo) in todos.iter().enumerate() {
        let content = todo.content.trim();
        if content.is_empty() {
            return Err(ToolError::invalid_arguments(format!(
                "todo {index} has empty content"
            )));
        }
        if content.contains(['\n', '\r']) {
            return Err(ToolError::invalid_arguments(format!(
                "todo {index} spans several lines; keep each todo to one line"
            )));
        }
        if content.chars().count() > MAX_TODO_CHARS {
            return Err(ToolError::invalid_arguments(format!(
                "todo {index} is longer than {MAX_TODO_CHARS} characters; put details in notes/"
            )));
        }
    }
    Ok(())
}

pub(crate) fn render(todos: &[Todo]) -> String {
    let mut out = String::from("# Todo\n\n");
    for todo in todos {
        out.push_str(&format!(
            "- {} {}\n",
            todo.status.marker(),
            todo.content.trim()
        ));
    }
    out
}

pub(crate) fn parse(text: &str) -> Vec<Todo> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("- ")?;
            let status = TodoStatus::from_marker(rest.get(..3)?)?;
            let content = rest.get(3..)?.trim();
            (!content.is_empty()).then(|| Todo {
                content: content.to_owned(),
                status,
            })
        })
        .collect()
}

/// Where the caller's todo list lives: its agent task's own `todo.md`, else the
/// workspace's.
pub fn todo_path(actor: Option<&super::Actor>) -> Result<WsPath, WorkspaceError> {
    match actor {
        Some(actor) => actor.folder.join(layout::TODO_FILE),
        None => WsPath::parse(layout::TODO_FILE),
    }
}

/// The todo list at `path` as it is on disk now; empty when there is none yet.
pub fn load(workspace: &Workspace, path: &WsPath) -> Result<Vec<Todo>, WorkspaceError> {
    match workspace.read_string(path) {
        Ok(text) => Ok(parse(&text)),
        Err(WorkspaceError::NotFound { .. }) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

pub(crate) fn save(
    workspace: &Workspace,
    path: &WsPath,
    todos: &[Todo],
) -> Result<(), WorkspaceError> {
    workspace.write(path, render(todos).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn todo(content: &str, status: TodoStatus) -> Todo {
        Todo {
            content: content.into(),
            status,
        }
    }

    #[test]
    fn render_then_parse_round_trips() {
        let todos = vec![
            todo("read paper 1", TodoStatus::Completed),
            todo("read paper 2 [draft]", TodoStatus::InProgress),
            todo("write the report", TodoStatus::Pending),
        ];
        assert_eq!(parse(&render(&todos)), todos);
    }

    #[test]
    fn parse_ignores_prose_and_unknown_markers() {
        let text = "# Plan\nsome words\n- [?] odd\n- [x] done\n* [ ] other bullet\n";
        assert_eq!(parse(text), vec![todo("done", TodoStatus::Completed)]);
    }

    #[test]
    fn validate_refuses_multiline_and_empty_todos() {
        assert!(validate(&[todo("a\nb", TodoStatus::Pending)]).is_err());
        assert!(validate(&[todo("  ", TodoStatus::Pending)]).is_err());
        assert!(validate(&[todo("fine", TodoStatus::Pending)]).is_ok());
    }
}
