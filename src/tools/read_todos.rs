//! `read_todos`: the plan as it is on disk now, as a JSON array.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, blocking, parse_args, todo_list};

pub(crate) struct ReadTodos;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {}

#[async_trait]
impl Tool for ReadTodos {
    fn name(&self) -> &str {
        "read_todos"
    }

    fn description(&self) -> &str {
        "Return the task's current todo list from todo.md as a JSON array of \
         {content, status}. An empty array means no plan has been written yet."
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let _: Args = parse_args(args)?;
        let ctx = ctx.clone();
        blocking(move || {
            let path = todo_list::todo_path(ctx.actor.as_ref())?;
            let todos = todo_list::load(&ctx.workspace, &path)?;
            serde_json::to_string(&todos)
                .map_err(|e| ToolError::fatal("internal_error", e.to_string()))
        })
        .await
    }
}
