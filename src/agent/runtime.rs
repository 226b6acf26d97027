//! The step loop: one agent task from its first prompt to its end.
//!
//! Each step rebuilds the prompt from the workspace and the task's last k
//! actions ([`super::context`]), calls the model with the agent's own tools,
//! runs the calls it made through the agent's [`Registry`] (confinement,
//! offload, logging), and goes on until the agent calls `finish`, runs out of
//! steps, fails, or the run is cancelled. Whatever happens, the task ends
//! with a status and an output that says what happened, and the parent sees it.
//!
//! What the loop survives, and how:
//! - a prompt over the model's window (any server's wording, or an Ollama that
//!   cut it silently): the prompt budget shrinks and the step is retried;
//! - a call to an unknown tool or with bad arguments: a tool error back to the
//!   model, which can correct itself;
//! - an answer with no tool call: one nudge, then the task ends `no_tool_call`;
//! - tool calls written as text by a local model: recognised and run (counted);
//! - a budget cap: the task ends before the call that would cross it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::budget::Budget;
use super::context::{self, Turn};
use super::events::{EventSink, RunEvent};
use super::graph::{TaskGraph, TaskNode, TaskState, task_folder};
use super::runtime_tools::{AgentTool, Finish, FinishSlot, WriteNotes};
use super::snapshot;
use super::spec::{AgentError, AgentSet, AgentSpec, ModelChoice, NOTES_TOOL};
use super::text_calls;
use crate::llm::accounting::count_tokens;
use crate::llm::{ChatRequest, LlmError, Message, ModelClient, ToolCall, ToolChoice, ToolDef};
use crate::tools::{Actor, Registry, Tool, ToolContext, ToolSettings};
use crate::workspace::{Workspace, WorkspaceError};

/// How many times a step is retried with a smaller prompt after an overflow.
const MAX_SHRINKS: u32 = 3;
/// Tools a consolidation turn offers: the agent rewrites its files, nothing else.
const CONSOLIDATION_TOOLS: [&str; 4] = [NOTES_TOOL, "write_todos", "read_todos", "read_file"];

/// What the domain (the review) adds to the general runtime.
pub trait Toolbox: Send + Sync {
    /// The tools it can make, by name.
    fn names(&self) -> Vec<&'static str>;
    /// Make tool `name` for a task of `agent`.
    fn make(&self, name: &str, runtime: &Arc<Runtime>, agent: &str) -> Option<Box<dyn Tool>>;
    /// Counters computed from the files for `agent`'s snapshot, one per line.
    fn progress(&self, ws: &Workspace, agent: &str) -> Vec<String>;
    /// Whether `agent` may finish now; the refusal says why and what is left.
    fn check_finish(&self, ws: &Workspace, agent: &str) -> Result<(), String>;
}

/// A toolbox that adds nothing: the general runtime on its own.
pub struct NoToolbox;

impl Toolbox for NoToolbox {
    fn names(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn make(&self, _: &str, _: &Arc<Runtime>, _: &str) -> Option<Box<dyn Tool>> {
        None
    }
    fn progress(&self, _: &Workspace, _: &str) -> Vec<String> {
        Vec::new()
    }
    fn check_finish(&self, _: &Workspace, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// The model clients a run may use: the run's own, and named profiles.
#[derive(Clone)]
pub struct ModelPool {
    pub default: Arc<ModelClient>,
    pub named: Vec<Arc<ModelClient>>,
}

impl ModelPool {
    pub fn single(client: Arc<ModelClient>) -> Self {
        Self {
            default: client,
            named: Vec::new(),
        }
    }

    pub fn for_spec(&self, spec: &AgentSpec) -> Result<Arc<ModelClient>, RuntimeError> {
        match &spec.model {
            ModelChoice::Inherit => Ok(self.default.clone()),
            ModelChoice::Profile(name) if name == self.default.profile() => {
                Ok(self.default.clone())
            }
            ModelChoice::Profile(name) => self
                .named
                .iter()
                .find(|c| c.profile() == name)
                .cloned()
                .ok_or_else(|| RuntimeError::NoModel {
                    agent: spec.name.clone(),
                    profile: name.clone(),
                }),
        }
    }
}

/// Counters a run reports at the end.
#[derive(Debug, Default)]
pub struct RunStats {
    pub steps: AtomicU64,
    pub tool_calls: AtomicU64,
    /// Calls the model wrote as text, recognised and run.
    pub text_tool_calls: AtomicU64,
    pub nudges: AtomicU64,
    pub consolidations: AtomicU64,
    /// Prompts shrunk after the model's window overflowed.
    pub overflows: AtomicU64,
}

#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error(transparent)]
    Agent(#[from] AgentError),
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error("agent {agent} wants model profile {profile:?}, which this run has not loaded")]
    NoModel { agent: String, profile: String },
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<crate::blocking::BlockingFailed> for RuntimeError {
    fn from(e: crate::blocking::BlockingFailed) -> Self {
        Self::Internal(e.to_string())
    }
}

impl RuntimeError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Agent(e) => e.code(),
            Self::Workspace(e) => e.code(),
            Self::NoModel { .. } => "unknown_model_profile",
            Self::Internal(_) => "internal_error",
        }
    }
}

/// How a task ended.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskOutcome {
    pub task_id: String,
    pub agent: String,
    pub status: TaskState,
    pub output: String,
    pub steps: u64,
}

impl TaskOutcome {
    /// The text a parent gets back from a child.
    pub fn report(&self) -> String {
        match self.status {
            TaskState::Finished => self.output.clone(),
            status => format!(
                "[{} ended {} after {} steps, without finishing] {}",
                self.agent,
                status.as_str(),
                self.steps,
                self.output
            ),
        }
    }
}

/// One run of agents over one workspace.
pub struct Runtime {
    pub workspace: Workspace,
    pub agents: AgentSet,
    pub models: ModelPool,
    pub toolbox: Arc<dyn Toolbox>,
    /// Run events go here; never blocks.
    pub events: Arc<dyn EventSink>,
    /// Cancels every model call and ends every task of the run; tools that
    /// fan out (batch reads) use child tokens of it.
    pub cancel: CancellationToken,
    pub graph: TaskGraph,
    pub budget: Arc<Budget>,
    pub stats: Arc<RunStats>,
    pub tool_settings: ToolSettings,
}

impl Runtime {
    /// Run `agent` on `input` as a child of `parent` (or as the root task).
    pub async fn run_task(
        self: &Arc<Self>,
        agent: &str,
        input: &str,
        parent: Option<&str>,
    ) -> Result<TaskOutcome, RuntimeError> {
        let spec = self.agents.get(agent)?.clone();
        let client = self.models.for_spec(&spec)?;
        let node = self.graph.start_or_resume(parent, agent, input)?;
        let span = tracing::info_span!("agent_task", task = %node.id, agent);
        let outcome = self
            .step_loop(&spec, &client, &node)
            .instrument(span)
            .await?;
        let output_path = task_folder(&node.id)?.join("output.md")?;
        self.workspace
            .write(&output_path, outcome.output.as_bytes())?;
        self.graph.end(
            &node.id,
            outcome.status,
            outcome.steps,
            Some(output_path.to_string()),
        )?;
        self.events.emit(RunEvent::AgentDone {
            task: node.id.clone(),
            agent: agent.to_owned(),
            status: outcome.status.as_str().to_owned(),
        });
        Ok(outcome)
    }

    /// The agent's tools: its subset of the built-ins, the domain's tools it
    /// names, the agents it may call, and the runtime's own.
    fn registry_for(self: &Arc<Self>, spec: &AgentSpec, slot: &FinishSlot) -> Registry {
        let mut registry = Registry::with_builtins();
        registry.retain(|name| spec.tools.iter().any(|t| t == name));
        for name in &spec.tools {
            if registry.contains(name) {
                continue;
            }
            if let Ok(child) = self.agents.get(name) {
                registry.register(Box::new(AgentTool {
                    runtime: self.clone(),
                    child: child.name.clone(),
                    description: child.description.clone(),
                }));
            } else if let Some(tool) = self.toolbox.make(name, self, &spec.name) {
                registry.register(tool);
            }
        }
        registry.register(Box::new(WriteNotes));
        registry.register(Box::new(Finish {
            runtime: self.clone(),
            agent: spec.name.clone(),
            slot: slot.clone(),
        }));
        registry
    }

    async fn step_loop(
        self: &Arc<Self>,
        spec: &AgentSpec,
        client: &Arc<ModelClient>,
        node: &TaskNode,
    ) -> Result<TaskOutcome, RuntimeError> {
        let folder = task_folder(&node.id)?;
        self.workspace.create_dir_all(&folder)?;
        let slot: FinishSlot = Default::default();
        let registry = self.registry_for(spec, &slot);
        let all_tools = registry.specs();
        let settings = client.settings().clone();
        let mut actor = Actor {
            agent: spec.name.clone(),
            task: node.id.clone(),
            step: node.steps,
            folder,
        };
        let tools_tokens = count_tokens(&serde_json::to_string(&all_tools).unwrap_or_default());
        let mut budget = window_budget(spec, &settings, tools_tokens, &node.input);
        let mut nudge = false;
        let mut shrinks = 0;
        let end = |status: TaskState, output: String, steps: u64| TaskOutcome {
            task_id: node.id.clone(),
            agent: spec.name.clone(),
            status,
            output,
            steps,
        };
        loop {
            if self.cancel.is_cancelled() {
                return Ok(end(
                    TaskState::Cancelled,
                    "the run was cancelled".into(),
                    actor.step,
                ));
            }
            if actor.step >= spec.step_limit as u64 {
                let output = self.stopped_output(spec, &actor)?;
                return Ok(end(TaskState::StepLimit, output, actor.step));
            }
            actor.step += 1;
            let turn = if nudge {
                Turn::Nudge
            } else if spec.consolidate_every > 0
                && actor.step.is_multiple_of(spec.consolidate_every as u64)
            {
                Turn::Consolidation
            } else {
                Turn::Work
            };
            let offered: Vec<ToolDef> = match turn {
                Turn::Consolidation => all_tools
                    .iter()
                    .filter(|t| CONSOLIDATION_TOOLS.contains(&t.name.as_str()))
                    .cloned()
                    .collect(),
                _ => all_tools.clone(),
            };
            let prompt = self.prompt(spec, node, &actor, turn, budget).await?;
            let prompt_tokens = prompt.total_tokens() + tools_tokens;
            self.events.emit(RunEvent::AgentStep {
                task: node.id.clone(),
                agent: spec.name.clone(),
                step: actor.step,
                prompt_tokens,
                stable_tokens: prompt.stable_tokens() + tools_tokens,
                consolidation: turn == Turn::Consolidation,
            });
            if let Err(over) = self
                .budget
                .check(prompt_tokens, settings.max_output_tokens as u64)
            {
                actor.step -= 1;
                return Ok(end(TaskState::BudgetExhausted, over.0, actor.step));
            }
            self.stats.steps.fetch_add(1, Ordering::Relaxed);
            if turn == Turn::Consolidation {
                self.stats.consolidations.fetch_add(1, Ordering::Relaxed);
            }
            let request = ChatRequest {
                model: String::new(),
                messages: vec![Message::system(prompt.system), Message::user(prompt.user)],
                tools: offered.clone(),
                tool_choice: Some(ToolChoice::Auto),
                max_tokens: Some(settings.max_output_tokens),
                stream: settings.stream && settings.stream_tool_turns,
                response_format: None,
                cache_prefix: true,
            };
            let purpose = format!("agent {} step {}", spec.name, actor.step);
            let answer = match client.complete(&request, &purpose, &self.cancel).await {
                Ok(answer) => answer,
                // Over the window, said (HTTP 400) or done (a prompt the
                // server cut): the next prompt is rebuilt smaller.
                Err(e) if e.is_overflow() && shrinks < MAX_SHRINKS => {
                    tracing::warn!(agent = %spec.name, step = actor.step, error = %e, "prompt over the model's window; shrinking");
                    self.stats.overflows.fetch_add(1, Ordering::Relaxed);
                    shrinks += 1;
                    budget = (budget * 6 / 10).max(300);
                    actor.step -= 1;
                    continue;
                }
                Err(LlmError::Cancelled) => {
                    actor.step -= 1;
                    return Ok(end(
                        TaskState::Cancelled,
                        "the run was cancelled".into(),
                        actor.step,
                    ));
                }
                Err(e) => {
                    return Ok(end(
                        TaskState::Failed,
                        format!("the model call failed at step {}: {e}", actor.step),
                        actor.step,
                    ));
                }
            };
            shrinks = 0;
            let mut calls = answer.tool_calls.clone();
            if calls.is_empty() {
                calls = text_calls::parse(&answer.text, &offered);
                self.stats
                    .text_tool_calls
                    .fetch_add(calls.len() as u64, Ordering::Relaxed);
            }
            if calls.is_empty() {
                if nudge {
                    let said = answer.text.trim();
                    return Ok(end(
                        TaskState::NoToolCall,
                        format!(
                            "answered twice without calling a tool; its last answer: {}",
                            if said.is_empty() { "(empty)" } else { said }
                        ),
                        actor.step,
                    ));
                }
                self.stats.nudges.fetch_add(1, Ordering::Relaxed);
                nudge = true;
                continue;
            }
            nudge = false;
            let ctx = ToolContext::new(self.workspace.clone(), self.tool_settings.clone())
                .for_step(actor.clone());
            for call in calls {
                if let Some(fatal) = self.run_call(&registry, &ctx, &offered, &call).await {
                    // A tool that cannot go on (the disk failed, a budget cap
                    // reached) ends the task; the model cannot fix it.
                    let status = if fatal.code == crate::agent::budget::BUDGET_EXHAUSTED {
                        TaskState::BudgetExhausted
                    } else {
                        TaskState::Failed
                    };
                    return Ok(end(
                        status,
                        format!("{} failed: {}", call.name, fatal.message),
                        actor.step,
                    ));
                }
                let finished = slot.lock().map(|s| s.clone()).unwrap_or_default();
                if let Some(output) = finished {
                    return Ok(end(TaskState::Finished, output, actor.step));
                }
                if self.cancel.is_cancelled() {
                    break;
                }
            }
        }
    }

    /// Run one call; returns the error when it was fatal.
    async fn run_call(
        &self,
        registry: &Registry,
        ctx: &ToolContext,
        offered: &[ToolDef],
        call: &ToolCall,
    ) -> Option<crate::tools::ToolError> {
        // A tool this turn did not offer (a consolidation turn offers few) is
        // answered like an unknown one, listing what was offered.
        let result = if offered.iter().any(|t| t.name == call.name) {
            registry.call(ctx, &call.name, call.arguments.clone()).await
        } else {
            let problem = crate::llm::tool_calls::CallProblem::UnknownTool {
                offered: offered.iter().map(|t| t.name.clone()).collect(),
            };
            let error = crate::tools::ToolError::new("unknown_tool", problem.describe(&call.name));
            let record = crate::workspace::ActionRecord::new(
                &call.name,
                &call.arguments,
                Err((&error.code, &error.message)),
            );
            if let Some(actor) = &ctx.actor {
                let record = record.by(&actor.agent, &actor.task, actor.step);
                if let Ok(log) = actor.action_log() {
                    let _ = self.workspace.append_action(&log, &record);
                }
            }
            Err(error)
        };
        self.stats.tool_calls.fetch_add(1, Ordering::Relaxed);
        let (ok, summary) = match &result {
            Ok(text) => (true, text.lines().next().unwrap_or_default().to_owned()),
            Err(e) => (false, format!("error[{}]: {}", e.code, e.message)),
        };
        if let Some(actor) = &ctx.actor {
            self.events.emit(RunEvent::ToolCall {
                task: actor.task.clone(),
                agent: actor.agent.clone(),
                step: actor.step,
                tool: call.name.clone(),
                ok,
                summary: summary.chars().take(200).collect(),
            });
        }
        result.err().filter(|e| e.fatal)
    }

    async fn prompt(
        &self,
        spec: &AgentSpec,
        node: &TaskNode,
        actor: &Actor,
        turn: Turn,
        budget: u32,
    ) -> Result<context::Prompt, RuntimeError> {
        let ws = self.workspace.clone();
        let toolbox = self.toolbox.clone();
        let (who, k, agent) = (actor.clone(), spec.action_window, spec.name.clone());
        let (snap, progress) = tokio::task::spawn_blocking(move || {
            let snap = snapshot::gather(&ws, &who, k);
            (snap, toolbox.progress(&ws, &agent))
        })
        .await
        .map_err(|e| RuntimeError::Internal(e.to_string()))?;
        let snap = snap?;
        Ok(context::build(&snap.context_input(
            spec,
            &node.input,
            &progress,
            actor.step,
            turn,
            budget,
        )))
    }

    /// The output of a task stopped at its step limit: what it was doing.
    fn stopped_output(&self, spec: &AgentSpec, actor: &Actor) -> Result<String, RuntimeError> {
        let recent = self.workspace.last_actions(&actor.action_log()?, 3)?;
        let last: Vec<String> = recent
            .iter()
            .map(|a| format!("{} → {}", a.tool, a.summary))
            .collect();
        Ok(format!(
            "stopped at its step limit of {} steps before it called finish. Its last actions: {}. Its notes and todo list are in {}.",
            spec.step_limit,
            if last.is_empty() {
                "none".into()
            } else {
                last.join("; ")
            },
            actor.folder
        ))
    }
}

/// The prompt budget: the spec's, but never more than the model's window
/// leaves after the answer, the tool specs, the system prompt and the task.
fn window_budget(
    spec: &AgentSpec,
    settings: &crate::llm::ModelSettings,
    tools_tokens: u64,
    task: &str,
) -> u32 {
    let fixed = tools_tokens
        + count_tokens(&spec.system_prompt)
        + count_tokens(context::RUNTIME_RULES)
        + count_tokens(task)
        // Headings, the instruction and per-message framing.
        + 300;
    let room = (settings.context_window as u64)
        .saturating_sub(settings.max_output_tokens as u64)
        .saturating_sub(fixed);
    (spec.prompt_budget as u64).min(room).max(300) as u32
}
