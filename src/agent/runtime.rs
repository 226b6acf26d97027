//! The runtime: one run of agents over one workspace (models, the domain's
//! toolbox, events, budget, the task graph), and a task of it from start to
//! its recorded end; the steps themselves are in [`super::step`].
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
use std::sync::atomic::AtomicU64;

use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::budget::Budget;
use super::events::{EventSink, RunEvent};
use super::graph::{TaskGraph, TaskState, task_folder};
use super::runtime_tools::{AgentTool, ChildTasks, Finish, FinishGuard, WriteNotes};
use super::spec::{AgentError, AgentSet, AgentSpec, ModelChoice};
use crate::llm::ModelClient;
use crate::tools::{Registry, Tool, ToolError, ToolSettings};
use crate::workspace::{Workspace, WorkspaceError};

/// What the domain (the review) adds to the general runtime; its
/// [`FinishGuard`] says when an agent may finish.
pub trait Toolbox: FinishGuard {
    /// The tools it can make, by name.
    fn names(&self) -> Vec<&'static str>;
    /// Make tool `name` for a task of `agent`.
    fn make(&self, name: &str, runtime: &Arc<Runtime>, agent: &str) -> Option<Box<dyn Tool>>;
    /// Counters computed from the files for `agent`'s snapshot, one per line.
    fn progress(&self, ws: &Workspace, agent: &str) -> Vec<String>;
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
}

impl FinishGuard for NoToolbox {
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
    /// A Batch API the run sends its calls through failed it.
    #[error("{0}")]
    Batch(String),
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
            Self::Batch(_) => "batch_failed",
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
    pub(super) fn registry_for(self: &Arc<Self>, spec: &AgentSpec) -> Registry {
        let mut registry = Registry::with_builtins();
        registry.retain(|name| spec.tools.iter().any(|t| t == name));
        for name in &spec.tools {
            if registry.contains(name) {
                continue;
            }
            if let Ok(child) = self.agents.get(name) {
                registry.register(Box::new(AgentTool {
                    tasks: Arc::new(Children(self.clone())),
                    child: child.name.clone(),
                    description: child.description.clone(),
                }));
            } else if let Some(tool) = self.toolbox.make(name, self, &spec.name) {
                registry.register(tool);
            }
        }
        registry.register(Box::new(WriteNotes));
        registry.register(Box::new(Finish {
            guard: self.toolbox.clone(),
            agent: spec.name.clone(),
        }));
        registry
    }
}

/// The runtime as the runner of child tasks its agent tools call.
struct Children(Arc<Runtime>);

#[async_trait::async_trait]
impl ChildTasks for Children {
    async fn run_child(&self, agent: &str, task: &str, parent: &str) -> Result<String, ToolError> {
        self.0
            .run_task(agent, task, Some(parent))
            .await
            .map(|outcome| outcome.report())
            .map_err(|e| ToolError::fatal(e.code(), e.to_string()))
    }
}
