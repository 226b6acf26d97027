//! The registry: which tools exist, their specs for the model, and the one place a
//! call runs, so that every call is logged and every large output is offloaded the
//! same way, whatever the tool.

use serde::Serialize;
use serde_json::Value;
use tracing::Instrument;

use super::{Tool, ToolContext, ToolError, builtin_tools, offload};
use crate::workspace::ActionRecord;

/// A tool as the model is told about it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
}

impl Default for Registry {
    fn default() -> Self {
        Self::with_builtins()
    }
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

    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
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
        let record = match &result {
            Ok(text) => ActionRecord::new(name, &logged_args, Ok(text)),
            Err(e) => ActionRecord::new(name, &logged_args, Err((&e.code, &e.message))),
        };
        let ws = ctx.workspace.clone();
        let logged = super::blocking(move || Ok(ws.log_action(&record)?)).await;
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
            return Err(ToolError::new(
                "unknown_tool",
                format!(
                    "there is no tool named {name:?}; available: {}",
                    self.names().join(", ")
                ),
            ));
        };
        tool.call(ctx, args).await
    }
}
