//! The registry: which tools an agent has, their specs for the model, and the
//! one place a call runs, so that every call is checked, logged and offloaded
//! the same way, whatever the tool.
//!
//! Each agent gets its own registry holding only the tools its spec names; a
//! call to any other name is answered with the same `unknown_tool` error the
//! model-call checker uses, listing what this agent may call.

use serde_json::Value;
use tracing::Instrument;

use super::{Tool, ToolContext, ToolError, builtin_tools, offload};
use crate::llm::ToolDef;
use crate::llm::tool_calls::CallProblem;
use crate::workspace::{ActionRecord, WsPath, layout};

#[derive(Default)]
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
}

impl Registry {
    pub fn empty() -> Self {
        Self { tools: Vec::new() }
    }

    /// The file and todo tools.
    pub fn with_builtins() -> Self {
        Self {
            tools: builtin_tools(),
        }
    }

    /// Add a tool; a tool with the same name is replaced.
    pub fn register(&mut self, tool: Box<dyn Tool>) {
        self.tools.retain(|t| t.name() != tool.name());
        self.tools.push(tool);
    }

    /// Keep only the tools `keep` accepts (an agent's subset of the built-ins).
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.tools.retain(|t| keep(t.name()));
    }

    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t.name() == name)
    }

    /// The tools as the model is told about them, in registration order.
    pub fn specs(&self) -> Vec<ToolDef> {
        self.tools
            .iter()
            .map(|t| ToolDef {
                name: t.name().to_owned(),
                description: t.description().to_owned(),
                parameters: t.parameters(),
            })
            .collect()
    }

    /// Run tool `name`, log the call, and offload an oversized result.
    pub async fn call(
        &self,
        ctx: &ToolContext,
        name: &str,
        args: Value,
    ) -> Result<String, ToolError> {
        let span = tracing::info_span!("tool_call", tool = name);
        let logged_args = args.clone();
        let result = self.dispatch(ctx, name, args).instrument(span).await;
        let result = match result {
            Ok(text) if text.len() > ctx.settings.offload_bytes => {
                let ws = ctx.workspace.clone();
                let tool = name.to_owned();
                super::blocking(move || Ok(offload::offload(&ws, &tool, &text)?)).await
            }
            other => other,
        };
        let mut record = match &result {
            Ok(text) => ActionRecord::new(name, &logged_args, Ok(text)),
            Err(e) => ActionRecord::new(name, &logged_args, Err((&e.code, &e.message))),
        };
        let log = match &ctx.actor {
            Some(actor) => {
                record = record.by(&actor.agent, &actor.task, actor.step);
                actor.action_log()?
            }
            None => WsPath::parse(layout::ACTIONS_FILE)?,
        };
        let ws = ctx.workspace.clone();
        let logged: Result<(), ToolError> =
            super::blocking(move || Ok(ws.append_action(&log, &record)?)).await;
        if let Err(e) = logged {
            tracing::warn!(tool = name, error = %e, "could not append to the action log");
        }
        result
    }

    async fn dispatch(
        &self,
        ctx: &ToolContext,
        name: &str,
        args: Value,
    ) -> Result<String, ToolError> {
        let Some(tool) = self.tools.iter().find(|t| t.name() == name) else {
            let problem = CallProblem::UnknownTool {
                offered: self.names().into_iter().map(str::to_owned).collect(),
            };
            return Err(ToolError::new("unknown_tool", problem.describe(name)));
        };
        tool.call(ctx, args).await
    }
}
