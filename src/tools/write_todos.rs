//! `write_todos`: replace the plan. The list goes to `todo.md` on disk at once; the
//! next prompt is rebuilt from that file, never from memory.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::todo_list::{self, Todo, TodoStatus};
use super::{Tool, ToolContext, ToolError, blocking, parse_args};

pub(crate) struct WriteTodos;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    todos: Vec<Todo>,
}

#[async_trait]
impl Tool for WriteTodos {
    fn name(&self) -> &str {
        "write_todos"
    }

    fn description(&self) -> &str {
        "Replace the task's todo list (the plan) with `todos`. Send the whole list every \
         time, each item with its status: pending, in_progress or completed. Keep one item \
         in_progress while you work on it and mark it completed as soon as it is done. The \
         list is saved to todo.md."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "todos": {
                    "type": "array",
                    "maxItems": todo_list::MAX_TODOS,
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "description": "One line saying what to do."},
                            "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
                        },
                        "required": ["content", "status"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["todos"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        todo_list::validate(&args.todos)?;
        let ctx = ctx.clone();
        blocking(move || {
            let path = todo_list::todo_path(ctx.actor.as_ref())?;
            todo_list::save(&ctx.workspace, &path, &args.todos)?;
            let count = |s| args.todos.iter().filter(|t| t.status == s).count();
            Ok(format!(
                "saved {} todos to {path} ({} completed, {} in progress, {} pending)",
                args.todos.len(),
                count(TodoStatus::Completed),
                count(TodoStatus::InProgress),
                count(TodoStatus::Pending),
            ))
        })
        .await
    }
}
