//! The agent-driven review: the planner writes the plan, the reviewer covers
//! every readable paper through `read_papers`, the writer composes the
//! synthesis from the result files; tables and counts are rendered by code.
//!
//! Coverage is the runtime's guarantee, not the model's good will: the
//! reviewer's `finish` is refused while a readable paper lacks a valid result,
//! and a final sweep reads any paper still missing when the agents stopped
//! (a step limit, a weak model). The summary tells the two apart.

mod batched;
mod coverage;
mod domain;
mod phases;
pub mod synthesis;
mod tools;

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use coverage::{Coverage, MAX_ATTEMPTS, result_key, result_path};
pub use domain::{CoveredBy, ReviewDomain, batch_size};
pub use phases::run;
pub use tools::NAMES as TOOL_NAMES;

use super::{AgentSetup, EngineRun};
use crate::agent::budget::UsageReporter;
use crate::agent::{
    AgentSet, Budget, EventSink, FinishGuard, ModelPool, Runtime, RuntimeError, Toolbox,
};
use crate::blocking::blocking;
use crate::llm::ModelClient;
use crate::llm::accounting::CallLog;
use crate::llm::call_file::{CallLogs, FileCallLog};
use crate::review::dual::{Policy, Slot};
use crate::review::reading::Reader;
use crate::review::{Outcome, PaperResult, ReviewError, ReviewSpec};
use crate::tools::{Tool, ToolSettings};
use crate::workspace::{PaperId, Workspace, WsPath, layout};

/// How the agents' run went, as the review summary reports it.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReport {
    pub planner: String,
    pub readable: usize,
    /// Papers whose valid result was already there when this run started.
    pub already_reviewed: usize,
    pub covered_by_agent: usize,
    pub covered_by_sweep: usize,
    /// Papers a pilot read (a run with `pilot`).
    pub covered_by_pilot: usize,
    pub failed: usize,
    pub steps: u64,
    pub tool_calls: u64,
    pub text_tool_calls: u64,
    pub nudges: u64,
    pub consolidations: u64,
    pub overflows: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub model_calls: u64,
    /// Why the run stopped early (cancelled, a budget cap), if it did.
    pub stopped: Option<String>,
    /// The steps the model could not drive as an agent, each saying what
    /// ran in its place (the final sweep read the papers; no synthesis).
    pub undriven: Vec<String>,
}

/// What a pass of the agents produced: the results, how it went, and how it
/// ended.
pub struct AgentRun {
    pub report: AgentReport,
    pub results: BTreeMap<PaperId, PaperResult>,
    pub outcome: Outcome,
}

/// The review's side of the runtime.
struct ReviewToolbox {
    domain: Arc<ReviewDomain>,
}

impl Toolbox for ReviewToolbox {
    fn names(&self) -> Vec<&'static str> {
        tools::NAMES.to_vec()
    }

    fn make(&self, name: &str, _runtime: &Arc<Runtime>, _agent: &str) -> Option<Box<dyn Tool>> {
        let d = self.domain.clone();
        Some(match name {
            tools::LIST_PAPERS => Box::new(tools::ListPapers(d)),
            tools::READ_PAPERS => Box::new(tools::ReadPapers(d)),
            tools::READ_RESULTS => Box::new(tools::ReadResults(d)),
            tools::ANSWER_FROM_PDF => Box::new(tools::AnswerFromPdf(d)),
            _ => return None,
        })
    }

    fn progress(&self, ws: &Workspace, agent: &str) -> Vec<String> {
        let mut lines = self.domain.coverage().progress();
        let written = |file: &str| {
            WsPath::parse(file)
                .ok()
                .and_then(|p| ws.entry(&p).ok())
                .is_some_and(|e| e.size > 0)
        };
        if agent != "reviewer" {
            let plan = match self.domain.spec.protocol {
                Some(_) => layout::PROTOCOL_TEXT_FILE,
                None => layout::PLAN_FILE,
            };
            for file in [plan, layout::SYNTHESIS_FILE] {
                let state = if written(file) {
                    "written"
                } else {
                    "not written yet"
                };
                lines.push(format!("{file}: {state}"));
            }
        }
        lines
    }
}

impl FinishGuard for ReviewToolbox {
    fn check_finish(&self, ws: &Workspace, agent: &str) -> Result<(), String> {
        match agent {
            "reviewer" => {
                let coverage = self.domain.coverage();
                let open = coverage.open();
                if open.is_empty() {
                    return Ok(());
                }
                let some: Vec<&str> = open.iter().take(5).map(|p| p.id.0.as_str()).collect();
                Err(format!(
                    "{} readable papers have no result yet (for example {}); read them with read_papers before you finish",
                    open.len(),
                    some.join(", ")
                ))
            }
            "writer" => {
                let path = WsPath::parse(layout::SYNTHESIS_FILE).map_err(|e| e.to_string())?;
                match ws.read_string(&path) {
                    Ok(text) if !text.trim().is_empty() => Ok(()),
                    _ => Err(format!(
                        "{} is not written yet; write the synthesis there before you finish",
                        layout::SYNTHESIS_FILE
                    )),
                }
            }
            _ => Ok(()),
        }
    }
}

/// The review's tools for any agent run in a review workspace (`quire agent
/// run`): the same domain a review uses, loaded from the workspace's files.
pub fn review_toolbox(
    ws: &Workspace,
    spec: &ReviewSpec,
    agents: &AgentSet,
    engine: &AgentEngine,
) -> Result<Arc<dyn Toolbox>, RuntimeError> {
    let domain = review_domain(ws, spec, agents, engine)?;
    Ok(Arc::new(ReviewToolbox { domain }))
}

/// The review's domain over `ws`: its papers' coverage and the reader that
/// reads them, on `engine`'s models, budget, events and cancellation.
fn review_domain(
    ws: &Workspace,
    spec: &ReviewSpec,
    agents: &AgentSet,
    engine: &AgentEngine,
) -> Result<Arc<ReviewDomain>, RuntimeError> {
    let client = engine.models.for_spec(agents.get("reader")?)?;
    reading_domain(ws, spec, agents, engine, Slot::First, client, |_| true)
}

/// The domain of one reading of each paper (the first, or a dual review's
/// second or tie-breaking one): its reader (the reader spec with the slot's
/// own instructions, on `client`) and its files, over the readable papers
/// `keep` lets through.
fn reading_domain(
    ws: &Workspace,
    spec: &ReviewSpec,
    agents: &AgentSet,
    engine: &AgentEngine,
    slot: Slot,
    client: Arc<ModelClient>,
    keep: impl Fn(&PaperId) -> bool,
) -> Result<Arc<ReviewDomain>, RuntimeError> {
    let mut reader_spec = agents.get("reader")?.clone();
    reader_spec.system_prompt.push_str(slot.instructions());
    let reader = Arc::new(Reader::new(client, reader_spec, engine.cancel.clone()));
    let domain = ReviewDomain::load_slot(
        ws.clone(),
        spec.clone(),
        reader,
        engine.events.clone(),
        engine.cancel.clone(),
        engine.budget.clone(),
        slot,
    )?;
    {
        let mut coverage = domain.coverage();
        coverage.readable.retain(|id, _| keep(id));
        let readable = coverage.readable.clone();
        coverage.done.retain(|id| readable.contains_key(id));
    }
    Ok(domain)
}

/// What an agent review needs besides the workspace and the question: the
/// models, the budget every call is counted against, where events go, the
/// run's cancellation, and the workspace's log of model calls.
pub struct AgentEngine {
    pub models: ModelPool,
    pub budget: Arc<Budget>,
    pub events: Arc<dyn EventSink>,
    pub cancel: CancellationToken,
    /// Papers a pilot reads before it stops ([`AgentSetup::pilot`]).
    pub pilot: Option<usize>,
    /// Readings asked through a Batch API first ([`AgentSetup::batch`]).
    pub batch: Option<crate::review::engine::BatchMode>,
    /// The policy papers are read twice under, and the second reading's
    /// model when it is not the default one.
    pub dual: Option<(Policy, Option<Arc<ModelClient>>)>,
    call_file: Arc<FileCallLog>,
}

impl AgentEngine {
    /// The one place the agent engine is put together: one client over
    /// `setup`'s provider whose every call is logged to the workspace's
    /// `model-calls.jsonl`, counted against the budget under `setup.caps`,
    /// reported as a usage event, and given to `setup.extra_log`.
    pub fn new(
        ws: &Workspace,
        setup: &AgentSetup,
        events: Arc<dyn EventSink>,
        cancel: CancellationToken,
    ) -> Self {
        let budget = Arc::new(Budget::new(setup.caps));
        let call_file = FileCallLog::start(ws.clone());
        let mut logs: Vec<Arc<dyn CallLog>> = vec![
            call_file.clone(),
            budget.clone(),
            Arc::new(UsageReporter {
                budget: budget.clone(),
                events: events.clone(),
            }),
        ];
        if let Some(extra) = &setup.extra_log {
            logs.push(extra.clone());
        }
        let logs: Arc<dyn CallLog> = Arc::new(CallLogs(logs));
        // Every model of the run is logged and counted alike.
        let client_for = |profile: &str, endpoints: &crate::llm::Endpoints| {
            let mut client =
                ModelClient::new(profile.to_owned(), endpoints.clone(), setup.prices.clone())
                    .with_log(logs.clone());
            if let Some(base) = setup.base_backoff {
                client = client.with_base_backoff(base);
            }
            Arc::new(client)
        };
        let client = client_for(&setup.profile, &setup.endpoints);
        let dual = setup.dual.as_ref().map(|dual| {
            let second = dual
                .second
                .as_ref()
                .map(|(profile, provider)| client_for(profile, provider));
            (dual.policy, second)
        });
        Self {
            dual,
            models: ModelPool::single(client),
            budget,
            events,
            cancel,
            pilot: setup.pilot,
            batch: setup.batch,
            call_file,
        }
    }

    /// The default model's id.
    pub fn model(&self) -> String {
        self.models.default.settings().model.clone()
    }

    /// Every call's record on disk before the run reports anything, and the
    /// call log's hold on the workspace let go: the run's last call.
    pub async fn close(&self) -> Result<(), ReviewError> {
        let file = self.call_file.clone();
        blocking(move || {
            file.close();
            Ok::<_, ReviewError>(())
        })
        .await
    }
}

/// An agent review over `ws`: the engine assembled, the agents run, and what
/// they produced read back.
pub async fn run_review(
    ws: &Workspace,
    spec: &ReviewSpec,
    setup: &AgentSetup,
    events: Arc<dyn EventSink>,
    cancel: CancellationToken,
) -> Result<EngineRun, ReviewError> {
    let engine = AgentEngine::new(ws, setup, events, cancel);
    let model = engine.model();
    let ran = run(ws, spec, &engine).await;
    // A run halted by a failed write ends in more failed writes; the first
    // one says what happened.
    let ran = match (ran, engine.budget.halted()) {
        (Err(e), Some(_)) => Err(ReviewError::WriteFailed {
            cause: e.to_string(),
        }),
        (ran, _) => ran.map_err(ReviewError::from),
    };
    engine.close().await?;
    let AgentRun {
        report,
        results,
        outcome,
    } = ran?;
    Ok(EngineRun {
        results,
        agent: Some(report),
        model: Some(model),
        outcome,
    })
}

/// Tool limits for agents: a result the prompt cannot show whole goes to a
/// file, so what the agent sees is either all of it or a pointer to it.
pub fn agent_tool_settings() -> ToolSettings {
    ToolSettings {
        offload_bytes: crate::workspace::MAX_PREVIEW_BYTES,
        ..ToolSettings::default()
    }
}

/// The planner's task: the review's question and criteria, and the steps.
/// With an approved protocol the plan is the researcher's, not the planner's
/// to write: the planner has the papers read and judged by it.
pub fn planner_task(spec: &ReviewSpec, readable: usize) -> String {
    let mut text = spec.question_block();
    text.push_str(&format!(
        "\nThe workspace holds {readable} readable papers under papers/ (their text and results are read-only to you).\n"
    ));
    match &spec.protocol {
        Some(_) => text.push_str(&format!(
            "The researcher approved the review's protocol, in {protocol} (read-only): every paper is read and judged by it.\n\
             Steps:\n\
             1. write_todos with these steps.\n\
             2. reviewer: have every readable paper read and scored by the protocol in {protocol}.\n\
             3. writer: have the synthesis written to {synthesis} from the results.\n\
             4. finish with a short account of the review.\n",
            protocol = layout::PROTOCOL_TEXT_FILE,
            synthesis = layout::SYNTHESIS_FILE,
        )),
        None => text.push_str(&format!(
            "Steps:\n\
             1. write_todos with these steps.\n\
             2. write_file {plan}: how the question and each criterion will be judged, and what the scores 0-10 mean.\n\
             3. reviewer: have every readable paper read and scored against the plan.\n\
             4. writer: have the synthesis written to {synthesis} from the results.\n\
             5. finish with a short account of the review.\n",
            plan = layout::PLAN_FILE,
            synthesis = layout::SYNTHESIS_FILE,
        )),
    }
    text
}
