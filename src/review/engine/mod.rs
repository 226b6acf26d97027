//! The engines a review can run, behind one entry point: given the workspace
//! (papers registered and extracted), the review spec, an event sink and a
//! cancellation token, an engine scores the readable papers, writes their
//! results, and says how it ended ([`Outcome`]).
//!
//! - [`offline`]: classical IR, no model;
//! - [`agent`]: the agent hierarchy over a model, assembled in one place
//!   ([`agent::AgentEngine::new`]).

pub mod agent;
pub mod offline;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::agent::{Caps, EventSink};
use crate::llm::Endpoints;
use crate::llm::accounting::{CallLog, PriceTable};
use crate::review::{Outcome, PaperResult, ReviewError, ReviewSpec};
use crate::workspace::{PaperId, Workspace};

/// What the chosen engine needs.
#[derive(Clone)]
pub enum EngineSetup {
    Offline,
    Agent(AgentSetup),
}

/// A model for the agent engine, ready but for its call log, which the run
/// attaches once the workspace is open.
#[derive(Clone)]
pub struct AgentSetup {
    pub profile: String,
    pub endpoints: Endpoints,
    pub prices: PriceTable,
    pub caps: Caps,
    /// Shorter retry backoff (tests and benchmarks against a local server).
    pub base_backoff: Option<Duration>,
    /// Extra logs of every model call (the benchmark's).
    pub extra_log: Option<Arc<dyn CallLog>>,
    /// Read only this many papers, under the approved protocol, and stop:
    /// a pilot the researcher checks before the rest is read.
    pub pilot: Option<usize>,
    /// Read every paper twice, independently, under this policy.
    pub dual: Option<DualSetup>,
    /// Ask the readings' calls (first calls, then re-asks) through the
    /// endpoint's Batch API before the agents run.
    pub batch: Option<BatchMode>,
}

pub use crate::review::batches::BatchMode;

/// A dual-read review's second reader: the policy, and the model that reads
/// the second time when it is not the first's.
#[derive(Clone)]
pub struct DualSetup {
    pub policy: crate::review::dual::Policy,
    /// The second reading's profile and endpoints; `None` reads with the
    /// first's model and the second reader's own instructions.
    pub second: Option<(String, Endpoints)>,
}

/// What an engine's pass produced.
pub struct EngineRun {
    pub results: BTreeMap<PaperId, PaperResult>,
    /// How the agents' run went (agent engine).
    pub agent: Option<agent::AgentReport>,
    /// The model the results came from (agent engine).
    pub model: Option<String>,
    pub outcome: Outcome,
}

impl EngineSetup {
    /// Run this engine over `ws`'s readable papers.
    pub async fn run(
        &self,
        ws: &Workspace,
        spec: &ReviewSpec,
        events: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Result<EngineRun, ReviewError> {
        match self {
            Self::Offline => offline::run(ws, spec, events).await,
            Self::Agent(setup) => agent::run_review(ws, spec, setup, events, cancel).await,
        }
    }
}
