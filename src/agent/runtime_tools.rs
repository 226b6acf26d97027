//! The tools the runtime gives every agent, and agents offered as tools:
//! - `finish(output)`: the agent's final answer, refused while the domain's
//!   guard says the work is not done (the reviewer with papers still open);
//! - `write_notes(content)`: the agent's consolidated notes, shown at the head
//!   of every later prompt;
//! - a child agent by name (`reviewer(task)`): runs it with its own bounded
//!   context and folder; only its final output comes back.
//!
//! They reach the runtime only through the two traits below, which the
//! runtime implements: the tools sit under the loop, not beside it.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::snapshot::notes_path;
use super::spec::{FINISH_TOOL, NOTES_TOOL};
use crate::tools::{Tool, ToolContext, ToolError, parse_args};

fn actor(ctx: &ToolContext) -> Result<&crate::tools::Actor, ToolError> {
    ctx.actor
        .as_ref()
        .ok_or_else(|| ToolError::new("not_an_agent", "only an agent task can call this tool"))
}

/// Whether an agent may finish: the domain's guard (the reviewer may not
/// while papers are open).
pub trait FinishGuard: Send + Sync {
    /// `Err` says why not and what is left.
    fn check_finish(&self, ws: &crate::workspace::Workspace, agent: &str) -> Result<(), String>;
}

/// Runs a child agent's task to its end, for [`AgentTool`].
#[async_trait]
pub trait ChildTasks: Send + Sync {
    /// The text the parent gets back: the child's answer, or how it ended.
    async fn run_child(&self, agent: &str, task: &str, parent: &str) -> Result<String, ToolError>;
}

/// The final answer of an accepted `finish` call, as the task's output.
pub fn finish_output(arguments: &Value) -> String {
    match arguments.get("output").and_then(Value::as_str) {
        Some(text) if !text.trim().is_empty() => text.to_owned(),
        _ => "(finished without a written answer)".to_owned(),
    }
}

/// `finish`: when accepted, the loop takes its `output` ([`finish_output`])
/// as the task's.
pub struct Finish {
    pub guard: Arc<dyn FinishGuard>,
    pub agent: String,
}

#[derive(Deserialize)]
struct FinishArgs {
    // Parsed to check the call's shape; the loop reads the output from the
    // call itself (finish_output).
    #[serde(default)]
    #[allow(dead_code)]
    output: String,
}

#[async_trait]
impl Tool for Finish {
    fn name(&self) -> &str {
        FINISH_TOOL
    }

    fn description(&self) -> &str {
        "End your task with your final answer in `output` (Markdown). Only this answer goes \
         back to whoever gave you the task, so say what was done, what was not, and where the \
         results are. Refused while the task's work is not done, with the reason."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"output": {"type": "string", "description": "Your final answer."}},
            "required": ["output"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        // Checked here; the loop takes the output from the call itself.
        let _: FinishArgs = parse_args(args)?;
        let guard = self.guard.clone();
        let ws = ctx.workspace.clone();
        let agent = self.agent.clone();
        let refused = tokio::task::spawn_blocking(move || guard.check_finish(&ws, &agent))
            .await
            .map_err(|e| ToolError::fatal("internal_error", e.to_string()))?;
        if let Err(reason) = refused {
            return Err(ToolError::new("finish_refused", reason));
        }
        Ok("finished".into())
    }
}

pub struct WriteNotes;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NotesArgs {
    content: String,
}

#[async_trait]
impl Tool for WriteNotes {
    fn name(&self) -> &str {
        NOTES_TOOL
    }

    fn description(&self) -> &str {
        "Replace your notes with `content` (Markdown): what is done, what is open, what you \
         learned, what comes next. The head of your notes is shown in every later prompt; keep \
         the most important lines first."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"content": {"type": "string", "description": "The complete new notes."}},
            "required": ["content"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: NotesArgs = parse_args(args)?;
        if args.content.len() > ctx.settings.max_write_bytes {
            return Err(ToolError::new(
                "content_too_large",
                format!(
                    "{} bytes is more than the {} allowed",
                    args.content.len(),
                    ctx.settings.max_write_bytes
                ),
            ));
        }
        let path = notes_path(actor(ctx)?)?;
        let ws = ctx.workspace.clone();
        let bytes = args.content.len();
        let shown = path.to_string();
        tokio::task::spawn_blocking(move || ws.write(&path, args.content.as_bytes()))
            .await
            .map_err(|e| ToolError::fatal("internal_error", e.to_string()))??;
        Ok(format!("saved {shown} ({bytes} bytes)"))
    }
}

/// A child agent offered to its parent as a tool.
pub struct AgentTool {
    pub tasks: Arc<dyn ChildTasks>,
    pub child: String,
    pub description: String,
}

#[derive(Deserialize)]
struct AgentArgs {
    task: String,
}

#[async_trait]
impl Tool for AgentTool {
    fn name(&self) -> &str {
        &self.child
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"task": {"type": "string", "description": "What the agent is to do, with everything it needs to know."}},
            "required": ["task"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: AgentArgs = parse_args(args)?;
        let parent = actor(ctx)?.task.clone();
        self.tasks.run_child(&self.child, &args.task, &parent).await
    }
}
