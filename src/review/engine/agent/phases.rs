//! An agent review's pass, phase by phase: **plan** (the planner runs the
//! hierarchy: its plan, the reviewer covering the papers, the writer), **cover**
//! (the sweep reads any paper the agents left open), **write** (the writer on
//! its own if no synthesis was written), **synthesize** (the included papers'
//! digests after the writer's overview), then the account of it all.
//! Each phase runs only while the pass has not ended.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use super::domain::{CoveredBy, ReviewDomain};
use super::{
    AgentEngine, AgentReport, AgentRun, ReviewToolbox, agent_tool_settings, planner_task,
    reading_domain, review_domain, synthesis, tools,
};
use crate::agent::{AgentSet, RunStats, Runtime, RuntimeError, TaskGraph, TaskOutcome, TaskState};
use crate::review::dual::{self, Policy, Slot};
use crate::review::protocol::ProtocolFile;
use crate::review::reading::batch::Ended;
use crate::review::{Outcome, PaperResult, ReviewSpec};
use crate::workspace::{PaperFile, PaperId, Workspace, WsPath, layout};

/// One pass of the agents over a workspace, and what it has done so far.
struct Pass<'a> {
    ws: &'a Workspace,
    spec: &'a ReviewSpec,
    engine: &'a AgentEngine,
    domain: Arc<ReviewDomain>,
    runtime: Arc<Runtime>,
    stats: Arc<RunStats>,
    /// Readable papers, and those already reviewed, when the pass began.
    readable: usize,
    already_reviewed: usize,
    synthesis: WsPath,
}

/// Run the agents over a prepared workspace (papers registered and extracted),
/// then sweep what they left. Results are in the files when this returns.
pub async fn run(
    ws: &Workspace,
    spec: &ReviewSpec,
    engine: &AgentEngine,
) -> Result<AgentRun, RuntimeError> {
    let pass = Pass::start(ws, spec, engine)?;
    pass.publish_protocol()?;
    if let Some(mode) = super::batched::batch_mode(ws, Slot::First, engine.batch)? {
        super::batched::read_through_batches(ws, spec, &pass.domain, mode, &engine.cancel).await?;
    }
    if let Some(papers) = engine.pilot {
        let mut ended = pass.pilot(papers).await?;
        if matches!(ended, Outcome::Pilot { .. }) {
            // A dual-read pilot reads its papers twice too.
            let again = pass.read_again().await?;
            if again != Outcome::Done {
                ended = again;
            }
        }
        return pass.account(None, None, ended);
    }
    let planner = pass.plan().await?;
    let mut ended = match planner.status {
        TaskState::Cancelled => Outcome::Cancelled,
        TaskState::BudgetExhausted => Outcome::Stopped(planner.output.clone()),
        _ => Outcome::Done,
    };
    if ended == Outcome::Done {
        ended = pass.cover().await;
    }
    if ended == Outcome::Done {
        ended = pass.read_again().await?;
    }
    let mut writer = None;
    if ended == Outcome::Done && !pass.synthesis_written() {
        let outcome = pass.write().await?;
        if outcome.status == TaskState::Cancelled {
            ended = Outcome::Cancelled;
        }
        writer = Some(outcome);
    }
    if ended == Outcome::Done {
        ended = pass.synthesize().await?;
    }
    pass.account(Some(&planner), writer.as_ref(), ended)
}

impl<'a> Pass<'a> {
    fn start(
        ws: &'a Workspace,
        spec: &'a ReviewSpec,
        engine: &'a AgentEngine,
    ) -> Result<Self, RuntimeError> {
        let agents = AgentSet::load(Some(ws), &tools::NAMES)?;
        let domain = review_domain(ws, spec, &agents, engine)?;
        let (readable, already_reviewed) = {
            let coverage = domain.coverage();
            (coverage.readable.len(), coverage.done.len())
        };
        let stats = Arc::new(RunStats::default());
        let runtime = Arc::new(Runtime {
            workspace: ws.clone(),
            agents,
            models: engine.models.clone(),
            toolbox: Arc::new(ReviewToolbox {
                domain: domain.clone(),
            }),
            events: engine.events.clone(),
            cancel: engine.cancel.clone(),
            graph: TaskGraph::open(ws)?,
            budget: engine.budget.clone(),
            stats: stats.clone(),
            tool_settings: agent_tool_settings(),
        });
        Ok(Self {
            ws,
            spec,
            engine,
            domain,
            runtime,
            stats,
            readable,
            already_reviewed,
            synthesis: WsPath::parse(layout::SYNTHESIS_FILE)?,
        })
    }

    /// The approved protocol where the agents read it (`protocol.md`, which
    /// no agent may write); with none, the planner writes its own plan.
    fn publish_protocol(&self) -> Result<(), RuntimeError> {
        if let Some(protocol) = &self.spec.protocol {
            let path = WsPath::parse(layout::PROTOCOL_TEXT_FILE)?;
            self.ws.write(&path, protocol.text.as_bytes())?;
        }
        Ok(())
    }

    /// A pilot: `papers` papers read under the approved protocol, and no
    /// more; those already read under it count. The papers are the first in
    /// id order, a hash of their content: an arbitrary but stable sample.
    async fn pilot(&self, papers: usize) -> Result<Outcome, RuntimeError> {
        let Some(protocol) = &self.spec.protocol else {
            return Ok(Outcome::Stopped(
                "a pilot needs an approved protocol".to_owned(),
            ));
        };
        let chosen: Vec<String> = {
            let coverage = self.domain.coverage();
            let (done, open): (Vec<_>, Vec<_>) = coverage
                .readable
                .keys()
                .partition(|id| coverage.done.contains(*id));
            done.into_iter()
                .chain(open)
                .take(papers)
                .map(|id| id.0.clone())
                .collect()
        };
        for batch in chosen.chunks(self.domain.batch_max) {
            if self.engine.cancel.is_cancelled() {
                return Ok(Outcome::Cancelled);
            }
            let read = self.domain.read_batch(batch, CoveredBy::Pilot).await;
            if let Ended::Stopped(reason) = read.ended {
                return Ok(Outcome::Stopped(reason));
            }
        }
        if self.engine.cancel.is_cancelled() {
            return Ok(Outcome::Cancelled);
        }
        let mut file = ProtocolFile::load(self.ws)?;
        file.record_pilot(&protocol.hash, chosen.clone());
        file.save(self.ws)?;
        let scored = {
            let coverage = self.domain.coverage();
            chosen
                .iter()
                .filter(|id| coverage.done.contains(&PaperId((*id).clone())))
                .count()
        };
        Ok(Outcome::Pilot {
            read: chosen.len(),
            scored,
        })
    }

    /// The planner runs the hierarchy: its plan, the reviewer, the writer.
    async fn plan(&self) -> Result<TaskOutcome, RuntimeError> {
        self.runtime
            .run_task("planner", &planner_task(self.spec, self.readable), None)
            .await
    }

    /// The sweep: whatever is still open once the agents are done.
    async fn cover(&self) -> Outcome {
        sweep(&self.domain, CoveredBy::Sweep).await
    }

    /// Dual reading: every paper with a first reading read again,
    /// independently, and under the tie-breaker policy a third time where
    /// the two disagree. Readings already on file are not made again.
    async fn read_again(&self) -> Result<Outcome, RuntimeError> {
        let Some((policy, second_client)) = &self.engine.dual else {
            return Ok(Outcome::Done);
        };
        let first_client = self.engine.models.default.clone();
        let client = second_client
            .clone()
            .unwrap_or_else(|| first_client.clone());
        let agents = &self.runtime.agents;
        let read_first = self.domain.coverage().done.clone();
        let second = reading_domain(
            self.ws,
            self.spec,
            agents,
            self.engine,
            Slot::Second,
            client,
            |id| read_first.contains(id),
        )?;
        self.batch_ahead(&second).await?;
        let ended = sweep(&second, CoveredBy::Reading).await;
        if ended != Outcome::Done || *policy != Policy::TieBreaker {
            return Ok(ended);
        }
        let disagreeing: BTreeSet<PaperId> = second
            .coverage()
            .done
            .iter()
            .filter(|id| self.readings_disagree(id))
            .cloned()
            .collect();
        let third = reading_domain(
            self.ws,
            self.spec,
            agents,
            self.engine,
            Slot::Tiebreak,
            first_client,
            |id| disagreeing.contains(id),
        )?;
        self.batch_ahead(&third).await?;
        Ok(sweep(&third, CoveredBy::Reading).await)
    }

    /// A further reading's calls through batches, when the run reads
    /// as a batch (or left that reading's batches open).
    async fn batch_ahead(&self, domain: &Arc<ReviewDomain>) -> Result<(), RuntimeError> {
        let (ws, engine) = (self.ws, self.engine);
        if let Some(mode) = super::batched::batch_mode(ws, domain.slot, engine.batch)? {
            super::batched::read_through_batches(ws, self.spec, domain, mode, &engine.cancel)
                .await?;
        }
        Ok(())
    }

    /// Whether a paper's first two readings disagree (one keeps it, the
    /// other excludes it).
    fn readings_disagree(&self, id: &PaperId) -> bool {
        let read = |slot: Slot| {
            self.ws
                .read_paper_file::<PaperResult>(id, slot.file())
                .ok()
                .flatten()
        };
        match (read(Slot::First), read(Slot::Second)) {
            (Some(a), Some(b)) => {
                dual::consensus(Policy::TieBreaker, a.verdict, Some(b.verdict), None).disagreed
            }
            _ => false,
        }
    }

    fn synthesis_written(&self) -> bool {
        self.ws
            .read_string(&self.synthesis)
            .is_ok_and(|t| !t.trim().is_empty())
    }

    /// The writer on its own, once every paper is covered, when the planner
    /// never had the synthesis written.
    async fn write(&self) -> Result<TaskOutcome, RuntimeError> {
        self.runtime
            .run_task(
                "writer",
                &format!(
                    "Review question: {}\nWrite the synthesis of the reviewed papers to {}.\nSteps:\n1. read_results to see every reviewed paper.\n2. write_file {} with the themes, agreements and gaps, citing papers by title.\n3. finish.\n",
                    self.spec.question.trim(),
                    layout::SYNTHESIS_FILE,
                    layout::SYNTHESIS_FILE
                ),
                None,
            )
            .await
    }

    /// The synthesis covers every included paper, however many: the groups'
    /// digests follow the writer's overview.
    async fn synthesize(&self) -> Result<Outcome, RuntimeError> {
        let engine = self.engine;
        let papers: Vec<_> = self.domain.coverage().readable.values().cloned().collect();
        let writer = self.runtime.agents.get("writer")?;
        let client = engine.models.for_spec(writer)?;
        let (digests, digested) = synthesis::digest_included(
            self.ws,
            self.spec,
            &papers,
            &client,
            &engine.budget,
            &engine.cancel,
        )
        .await?;
        if engine.cancel.is_cancelled() {
            return Ok(Outcome::Cancelled);
        }
        if let Some(reason) = digested.stopped {
            return Ok(Outcome::Stopped(reason));
        }
        if !digests.is_empty() {
            let overview = self.ws.read_string(&self.synthesis).unwrap_or_default();
            self.ws.write(
                &self.synthesis,
                synthesis::assemble(&overview, &digests).as_bytes(),
            )?;
        }
        Ok(Outcome::Done)
    }

    /// The results on file, and the account of the pass.
    fn account(
        &self,
        planner: Option<&TaskOutcome>,
        writer: Option<&TaskOutcome>,
        ended: Outcome,
    ) -> Result<AgentRun, RuntimeError> {
        let coverage = self.domain.coverage().clone();
        let mut results = BTreeMap::new();
        for id in &coverage.done {
            if let Some(result) = self
                .ws
                .read_paper_file::<PaperResult>(id, PaperFile::Result)?
            {
                results.insert(id.clone(), result);
            }
        }
        let undriven = undriven_steps(
            planner.map(|p| (p.status, p.output.as_str())),
            coverage.by_sweep,
            writer.map(|w| (w.status, w.output.as_str())),
            self.synthesis_written(),
        );
        let budget = &self.engine.budget;
        let (input_tokens, output_tokens) = budget.tokens();
        let stats = &self.stats;
        let report = AgentReport {
            planner: planner
                .map_or("not run (a pilot)", |p| p.status.as_str())
                .to_owned(),
            readable: self.readable,
            already_reviewed: self.already_reviewed,
            covered_by_agent: coverage.by_agent,
            covered_by_sweep: coverage.by_sweep,
            covered_by_pilot: coverage.by_pilot,
            failed: coverage.missing().len(),
            steps: stats.steps.load(Relaxed),
            tool_calls: stats.tool_calls.load(Relaxed),
            text_tool_calls: stats.text_tool_calls.load(Relaxed),
            nudges: stats.nudges.load(Relaxed),
            consolidations: stats.consolidations.load(Relaxed),
            overflows: stats.overflows.load(Relaxed),
            input_tokens,
            output_tokens,
            cost_usd: budget.cost(),
            model_calls: budget.calls(),
            stopped: ended.reason().map(str::to_owned),
            undriven,
        };
        Ok(AgentRun {
            report,
            results,
            outcome: ended,
        })
    }
}

/// Read every open paper of `domain`, batch by batch, until none is open,
/// the run is cancelled, or a cap (or a workspace that cannot be written)
/// stops a batch.
async fn sweep(domain: &Arc<ReviewDomain>, by: CoveredBy) -> Outcome {
    let cancel = &domain.cancel;
    loop {
        let open: Vec<String> = domain
            .coverage()
            .open()
            .iter()
            .map(|p| p.id.0.clone())
            .collect();
        if open.is_empty() || cancel.is_cancelled() {
            break;
        }
        for batch in open.chunks(domain.batch_max) {
            let read = domain.read_batch(batch, by).await;
            if let Ended::Stopped(reason) = read.ended {
                return Outcome::Stopped(reason);
            }
        }
    }
    if cancel.is_cancelled() {
        Outcome::Cancelled
    } else {
        Outcome::Done
    }
}

/// What the agents left to the deterministic path, in words for the report:
/// a planner that ended without finishing (a small model answering in prose),
/// papers the final sweep read because the reviewer did not, a writer that
/// wrote no synthesis.
fn undriven_steps(
    planner: Option<(TaskState, &str)>,
    by_sweep: usize,
    writer: Option<(TaskState, &str)>,
    synthesis_written: bool,
) -> Vec<String> {
    let why = |state: TaskState, output: &str| {
        let output: String = output.trim().chars().take(160).collect();
        match state {
            TaskState::NoToolCall => format!("it answered without calling a tool ({output})"),
            TaskState::StepLimit => "it ran out of steps".to_owned(),
            TaskState::Failed => format!("it failed ({output})"),
            other => other.as_str().replace('_', " "),
        }
    };
    let mut steps = Vec::new();
    if let Some((planner_state, planner_output)) = planner
        && !matches!(
            planner_state,
            TaskState::Finished | TaskState::Cancelled | TaskState::BudgetExhausted
        )
    {
        steps.push(format!(
            "the planner did not finish: {}",
            why(planner_state, planner_output)
        ));
    }
    if by_sweep > 0 {
        steps.push(format!(
            "{by_sweep} papers were read by the final sweep, not by the reviewer agent"
        ));
    }
    if let Some((state, output)) = writer
        && !synthesis_written
        && state != TaskState::Cancelled
    {
        steps.push(format!(
            "the writer wrote no synthesis: {}",
            why(state, output)
        ));
    }
    steps
}
