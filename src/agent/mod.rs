//! The agent runtime: agents as data, a step loop whose every prompt is rebuilt
//! from the workspace, a hierarchy of agents calling agents as tools, and the
//! events a run reports.
//!
//! The design (MISSION.md §2-3): an agent's long-term state lives in files, not
//! in its prompt. Each step's prompt is c_t = g(F_t, a_{t-k..t-1}): a snapshot
//! of the workspace plus the last k actions, nothing else, so step 800 costs
//! what step 8 does. Every N steps the agent consolidates its notes and todo
//! list in its own words. A parent calls a child as a tool; the child runs with
//! its own bounded context and folder, and only its final output returns.
//!
//! This module is general: it knows nothing of papers or reviews. A domain
//! plugs in through [`Toolbox`] (extra tools, progress counters, and when an
//! agent may finish); the review is one such domain.
//!
//! ```no_run
//! # async fn demo(runtime: std::sync::Arc<quire::agent::Runtime>) -> Result<(), quire::agent::RuntimeError> {
//! let outcome = runtime.run_task("planner", "Review the papers in this workspace.", None).await?;
//! println!("{}: {}", outcome.status.as_str(), outcome.output);
//! # Ok(()) }
//! ```

pub mod budget;
pub mod context;
pub mod events;
pub mod graph;
mod runtime;
mod runtime_tools;
pub mod snapshot;
pub mod spec;
mod step;
pub mod text_calls;

pub use budget::{Budget, Caps};
pub use events::{EventLog, EventSink, NoEvents, PaperPhase, RunEvent};
pub use graph::{TaskGraph, TaskNode, TaskState};
pub use runtime::{ModelPool, NoToolbox, RunStats, Runtime, RuntimeError, TaskOutcome, Toolbox};
pub use runtime_tools::FinishGuard;
pub use spec::{AgentError, AgentSet, AgentSpec, ModelChoice, SpecSource};
