//! The agent runtime on its own: list the effective agents of a workspace, and
//! run any agent on any task in any workspace with the same loop the review
//! uses (`quire agents`, `quire agent run`).

use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::models::resolve_model;
use super::{AppContext, CommandError};
use crate::agent::{
    AgentSet, Caps, EventSink, NoToolbox, RunStats, Runtime, TaskGraph, TaskOutcome, Toolbox,
};
use crate::blocking::blocking;
use crate::llm::Endpoints;
use crate::llm::accounting::PriceTable;
use crate::review::engine::AgentSetup;
use crate::review::engine::agent::{self as agent_engine, AgentEngine, TOOL_NAMES};
use crate::review::{EngineKind, ReviewSpec};
use crate::workspace::Workspace;

/// An agent as `quire agents` shows it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentView {
    pub name: String,
    pub level: u8,
    pub description: String,
    pub tools: Vec<String>,
    pub model: String,
    pub step_limit: u32,
    pub action_window: usize,
    pub consolidate_every: u32,
    pub prompt_budget: u32,
    /// `built-in` or the workspace file that defines it.
    pub source: String,
}

/// The effective agents: built-ins overlaid by the workspace's `agents/*.toml`.
pub async fn agent_list(workspace: Option<PathBuf>) -> Result<Vec<AgentView>, CommandError> {
    blocking(move || {
        let ws = workspace
            .map(|root| Workspace::open_read_only(&root))
            .transpose()?;
        let set =
            AgentSet::load(ws.as_ref(), &TOOL_NAMES).map_err(crate::agent::RuntimeError::from)?;
        Ok(set
            .iter()
            .map(|(spec, source)| AgentView {
                name: spec.name.clone(),
                level: spec.level,
                description: spec.description.trim().to_owned(),
                tools: spec.tools.clone(),
                model: String::from(spec.model.clone()),
                step_limit: spec.step_limit,
                action_window: spec.action_window,
                consolidate_every: spec.consolidate_every,
                prompt_budget: spec.prompt_budget,
                source: source.to_string(),
            })
            .collect())
    })
    .await
}

pub struct AgentRunParams {
    pub agent: String,
    pub task: String,
    pub workspace: PathBuf,
    pub profile: Option<String>,
    pub caps: Caps,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRunResponse {
    pub task_id: String,
    pub agent: String,
    pub status: String,
    pub output: String,
    pub steps: u64,
    pub model_calls: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub text_tool_calls: u64,
    pub workspace: PathBuf,
}

/// Run `agent` on `task` in a workspace (created if missing). In a review
/// workspace (its task.json has a question) the review's tools are there too.
pub async fn agent_run(
    ctx: &AppContext,
    params: AgentRunParams,
    events: Arc<dyn EventSink>,
    cancel: CancellationToken,
) -> Result<AgentRunResponse, CommandError> {
    let resolved = resolve_model(ctx.paths().config_dir.clone(), params.profile.as_deref()).await?;
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open_or_init(&root)?)).await?;
    let agents = {
        let ws = ws.clone();
        blocking(move || {
            AgentSet::load(Some(&ws), &TOOL_NAMES).map_err(crate::agent::RuntimeError::from)
        })
        .await?
    };
    agents
        .get(&params.agent)
        .map_err(crate::agent::RuntimeError::from)?;
    let setup = AgentSetup {
        profile: resolved.profile.clone(),
        endpoints: Endpoints::connect(&resolved.settings, resolved.key.as_ref().map(|k| &k.0))?,
        prices: PriceTable::load(&resolved.config_dir)?,
        caps: params.caps,
        base_backoff: None,
        extra_log: None,
        pilot: None,
        dual: None,
        batch: None,
    };
    let engine = AgentEngine::new(&ws, &setup, events, cancel);
    let question = ws
        .task()
        .ok()
        .and_then(|t| t.question.map(|q| (q, t.criteria)));
    let toolbox: Arc<dyn Toolbox> = match question {
        Some((question, criteria)) => agent_engine::review_toolbox(
            &ws,
            &ReviewSpec {
                question,
                criteria,
                engine: EngineKind::Agent,
                protocol: None,
            },
            &agents,
            &engine,
        )?,
        None => Arc::new(NoToolbox),
    };
    let stats = Arc::new(RunStats::default());
    let runtime = Arc::new(Runtime {
        workspace: ws.clone(),
        graph: TaskGraph::open(&ws)?,
        agents,
        models: engine.models.clone(),
        toolbox,
        events: engine.events.clone(),
        cancel: engine.cancel.clone(),
        budget: engine.budget.clone(),
        stats: stats.clone(),
        tool_settings: agent_engine::agent_tool_settings(),
    });
    let outcome: Result<TaskOutcome, _> = runtime.run_task(&params.agent, &params.task, None).await;
    engine.close().await?;
    let outcome = outcome?;
    let budget = &engine.budget;
    let (input_tokens, output_tokens) = budget.tokens();
    Ok(AgentRunResponse {
        task_id: outcome.task_id,
        agent: outcome.agent,
        status: outcome.status.as_str().to_owned(),
        output: outcome.output,
        steps: outcome.steps,
        model_calls: budget.calls(),
        input_tokens,
        output_tokens,
        text_tool_calls: stats
            .text_tool_calls
            .load(std::sync::atomic::Ordering::Relaxed),
        workspace: ws.root().to_path_buf(),
    })
}
