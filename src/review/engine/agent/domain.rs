//! The review as a domain of the agent runtime: the shared state of one agent
//! review (coverage, the reader, events) and the batch read every way of
//! reading goes through (the reviewer's `read_papers`, and the final sweep).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::coverage::{Coverage, result_key};
use crate::agent::budget::OverBudget;
use crate::agent::{Budget, EventSink, PaperPhase, RunEvent};
use crate::review::dual::Slot;
use crate::review::error::write_failed;
use crate::review::reading::{PaperInput, Reader, Reading};
use crate::review::{
    EngineKind, PaperResult, Provenance, ReviewSpec, Verdict, failures, paper_text,
};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperFile, PaperId, PaperRecord, Workspace};

/// Who read a paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoveredBy {
    Agent,
    Sweep,
    /// A pilot read it, before the rest of the review.
    Pilot,
    /// A second or tie-breaking reading (the domain's slot says which).
    Reading,
}

impl CoveredBy {
    fn as_str(self) -> &'static str {
        match self {
            Self::Agent => "agent",
            Self::Sweep => "sweep",
            Self::Pilot => "pilot",
            Self::Reading => "reading",
        }
    }
}

pub struct ReviewDomain {
    pub ws: Workspace,
    pub spec: ReviewSpec,
    pub reader: Arc<Reader>,
    /// Held only to read or change counters, never across an `.await`.
    coverage: Mutex<Coverage>,
    pub events: Arc<dyn EventSink>,
    /// The run's token: a batch stops starting reads once it is cancelled.
    pub cancel: CancellationToken,
    /// Most papers one `read_papers` call takes.
    pub batch_max: usize,
    /// The run's caps: a batch that could cross one is not started.
    pub budget: Arc<Budget>,
    /// Which reading of each paper this domain makes (dual reading).
    pub slot: Slot,
    fingerprint: String,
}

impl ReviewDomain {
    /// The domain of one reading of each paper: the second or tie-breaking
    /// reading of a dual-read review has its own reader and its own files.
    pub fn load_slot(
        ws: Workspace,
        spec: ReviewSpec,
        reader: Arc<Reader>,
        events: Arc<dyn EventSink>,
        cancel: CancellationToken,
        budget: Arc<Budget>,
        slot: Slot,
    ) -> Result<Arc<Self>, crate::workspace::WorkspaceError> {
        let fingerprint = reader.fingerprint();
        let coverage = Coverage::load_slot(&ws, &spec, &fingerprint, slot)?;
        let batch_max = batch_size(reader.concurrency());
        Ok(Arc::new(Self {
            ws,
            spec,
            reader,
            coverage: Mutex::new(coverage),
            events,
            cancel,
            batch_max,
            budget,
            slot,
            fingerprint,
        }))
    }

    /// Whether reading `ids` could cross a budget cap: their text and the
    /// reader's instructions in, an answer per paper out.
    pub fn batch_fits(&self, ids: &[String]) -> Result<(), OverBudget> {
        let papers: Vec<PaperRecord> = {
            let coverage = self.coverage();
            ids.iter()
                .filter_map(|id| {
                    coverage
                        .readable
                        .get(&PaperId(id.trim().to_owned()))
                        .cloned()
                })
                .filter(|p| !coverage.done.contains(&p.id))
                .collect()
        };
        let mut input = 0u64;
        for paper in &papers {
            // The text file's size in bytes is within a small factor of its
            // tokens; four bytes a token, plus the reader's instructions.
            let bytes = crate::review::paper_text::text_path(&paper.id)
                .ok()
                .and_then(|p| self.ws.entry(&p).ok())
                .map_or(0, |e| e.size);
            input += bytes / 4 + 1_000;
        }
        self.budget
            .check(input, papers.len() as u64 * self.reader.max_output_tokens())
    }

    pub fn coverage(&self) -> MutexGuard<'_, Coverage> {
        self.coverage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Read the papers `ids` (up to the reader's concurrency at once), write
    /// each result to its file, and say how each went, in order.
    pub async fn read_batch(self: &Arc<Self>, ids: &[String], by: CoveredBy) -> Vec<BatchLine> {
        let mut outcomes: Vec<Option<BatchOutcome>> = vec![None; ids.len()];
        let mut todo: Vec<(usize, PaperRecord)> = Vec::new();
        {
            let mut coverage = self.coverage();
            for (i, raw) in ids.iter().enumerate() {
                let id = PaperId(raw.trim().to_owned());
                let skipped = match coverage.readable.get(&id) {
                    None => Some(Skip::NotReadable),
                    Some(_) if coverage.done.contains(&id) => Some(Skip::AlreadyReviewed),
                    Some(_) if coverage.reading.contains(&id) => Some(Skip::BeingRead),
                    Some(paper) => {
                        todo.push((i, paper.clone()));
                        None
                    }
                };
                if skipped.is_none() {
                    coverage.reading.insert(id);
                }
                outcomes[i] = skipped.map(BatchOutcome::Skipped);
            }
        }
        let gates = Gates {
            // Planning is CPU work: a core each, in batch order, so the first
            // papers are ready first.
            plan: Arc::new(Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            )),
            call: Arc::new(Semaphore::new(self.reader.concurrency())),
        };
        let mut set = JoinSet::new();
        for (i, paper) in todo {
            let domain = self.clone();
            let gates = gates.clone();
            self.events.emit(RunEvent::PaperStatus {
                paper: paper.id.0.clone(),
                phase: PaperPhase::Queued,
                detail: None,
            });
            set.spawn(async move { (i, domain.read_one(&paper, by, gates).await) });
        }
        while let Some(joined) = set.join_next().await {
            if let Ok((i, outcome)) = joined {
                outcomes[i] = Some(outcome);
            }
        }
        outcomes
            .into_iter()
            .zip(ids)
            .map(|(outcome, id)| BatchLine {
                id: id.trim().to_owned(),
                outcome: outcome.unwrap_or(BatchOutcome::Incomplete),
            })
            .collect()
    }

    /// Read one paper, holding a call slot of the batch's `gates` for its
    /// model calls only: loading and planning it happen before, while other
    /// papers' calls are in flight, and writing its result after, so neither
    /// keeps the next paper waiting.
    async fn read_one(
        self: &Arc<Self>,
        paper: &PaperRecord,
        by: CoveredBy,
        gates: Gates,
    ) -> BatchOutcome {
        let id = paper.id.clone();
        match self.read_and_save(paper, by, gates).await {
            Ok((result, reading)) => {
                let mut coverage = self.coverage();
                coverage.reading.remove(&id);
                coverage.done.insert(id.clone());
                match by {
                    CoveredBy::Agent => coverage.by_agent += 1,
                    CoveredBy::Sweep => coverage.by_sweep += 1,
                    CoveredBy::Pilot => coverage.by_pilot += 1,
                    CoveredBy::Reading => {}
                }
                drop(coverage);
                self.events.emit(RunEvent::PaperStatus {
                    paper: id.0.clone(),
                    phase: PaperPhase::Scored,
                    detail: Some(format!(
                        "{:.0}/10 {}",
                        result.score,
                        result.verdict.as_str()
                    )),
                });
                BatchOutcome::Scored {
                    score: result.score,
                    verdict: result.verdict,
                    verified: reading.quotes_verified,
                    dropped: reading.quotes_dropped,
                }
            }
            Err(_) if self.cancel.is_cancelled() => {
                // Not a failure of the paper: the run stopped under it.
                self.coverage().reading.remove(&id);
                BatchOutcome::Cancelled
            }
            Err(ReadFailure {
                unsaved: true,
                reason,
                ..
            }) => {
                // Not a failure of the paper either: the workspace cannot
                // keep what is read, so nothing more is read. The paper stays
                // open and is read when the run resumes.
                self.coverage().reading.remove(&id);
                self.budget.halt(write_failed(&reason));
                self.events.emit(RunEvent::PaperStatus {
                    paper: id.0.clone(),
                    phase: PaperPhase::Queued,
                    detail: Some("not saved: the workspace could not be written".into()),
                });
                BatchOutcome::NotSaved(reason)
            }
            Err(ReadFailure { code, reason, .. }) if code == "over_budget" => {
                // Not the paper's failure either: a cap stops the run under
                // it, and the paper stays open for a resume with more room.
                self.coverage().reading.remove(&id);
                BatchOutcome::Capped(reason)
            }
            Err(ReadFailure { code, reason, .. }) => {
                let attempts = {
                    let mut coverage = self.coverage();
                    coverage.reading.remove(&id);
                    let entry = coverage
                        .failed
                        .entry(id.clone())
                        .or_insert((0, String::new()));
                    entry.0 += 1;
                    entry.1 = reason.clone();
                    entry.0
                };
                // A second or third reading that fails leaves the paper's
                // first reading standing: only the run's account counts it.
                if self.slot != Slot::First {
                    self.events.emit(RunEvent::PaperStatus {
                        paper: id.0.clone(),
                        phase: PaperPhase::Failed,
                        detail: Some(reason.clone()),
                    });
                    return BatchOutcome::Failed { attempts, reason };
                }
                // The failure is on record for the report, `--json` and the
                // app until a later read succeeds.
                let failure = failures::PaperFailure {
                    code,
                    reason: reason.clone(),
                    model: Some(self.reader.model().to_owned()),
                    attempts,
                    at: now_rfc3339(),
                };
                let (ws, paper_id) = (self.ws.clone(), id.clone());
                let saved =
                    tokio::task::spawn_blocking(move || failures::save(&ws, &paper_id, &failure))
                        .await;
                if let Ok(Err(e)) = saved {
                    tracing::warn!(paper = %id.0, error = %e, "could not record why the paper failed");
                    self.budget.halt(write_failed(&e.to_string()));
                }
                self.events.emit(RunEvent::PaperStatus {
                    paper: id.0.clone(),
                    phase: PaperPhase::Failed,
                    detail: Some(reason.clone()),
                });
                BatchOutcome::Failed { attempts, reason }
            }
        }
    }

    async fn read_and_save(
        &self,
        paper: &PaperRecord,
        by: CoveredBy,
        gates: Gates,
    ) -> Result<(PaperResult, Reading), ReadFailure> {
        if self.cancel.is_cancelled() {
            return Err(ReadFailure::new("cancelled", "the run was cancelled"));
        }
        if let Some(reason) = self.budget.halted() {
            return Err(ReadFailure::unsaved(reason));
        }
        let (pages, plan) = {
            let _planning = gates.plan.acquire().await.ok();
            let (ws, id, reader) = (self.ws.clone(), paper.id.clone(), self.reader.clone());
            let (title, spec) = (paper.title.clone(), self.spec.clone());
            tokio::task::spawn_blocking(move || {
                let pages = paper_text::load(&ws, &id)
                    .map_err(ReadFailure::from)?
                    .unwrap_or_default();
                let plan = reader.plan(&PaperInput::for_review(&spec, title.as_deref(), &pages));
                Ok::<_, ReadFailure>((pages, plan))
            })
            .await
            .map_err(ReadFailure::from)??
        };
        let permit = gates.call.acquire().await.ok();
        // The run may have been halted while this paper waited for a slot.
        if let Some(reason) = self.budget.halted() {
            return Err(ReadFailure::unsaved(reason));
        }
        self.events.emit(RunEvent::PaperStatus {
            paper: paper.id.0.clone(),
            phase: PaperPhase::Reading,
            detail: None,
        });
        let started_at = now_rfc3339();
        let input = PaperInput::for_review(&self.spec, paper.title.as_deref(), &pages);
        let reading = match plan {
            Ok(plan) => self.reader.read_planned(&input, plan).await,
            Err(e) => Err(e),
        }
        .map_err(|e| ReadFailure::new(e.code(), e.to_string()));
        drop(permit);
        let reading = reading?;
        let answer = reading.answer.clone();
        let result = PaperResult {
            summary: answer.summary.into_iter().take(5).collect(),
            key_points: answer.key_points,
            score: answer.score,
            verdict: answer
                .verdict
                .unwrap_or_else(|| Verdict::from_score(answer.score)),
            rationale: answer.rationale,
            evidence: answer.evidence,
            criteria: answer.criteria,
            provenance: Provenance {
                engine: EngineKind::Agent,
                model: Some(self.reader.model().to_owned()),
                input_hash: result_key(paper, &self.spec, &self.fingerprint),
                extractor: paper.extractor.clone(),
                started_at,
                finished_at: now_rfc3339(),
                prompt_hash: Some(short_hash(&self.fingerprint)),
                quotes_verified: Some(reading.quotes_verified),
                quotes_dropped: Some(reading.quotes_dropped),
                reasked: reading.reasked.clone(),
                covered_by: Some(self.slot.covered_by().unwrap_or(by.as_str()).to_owned()),
            },
            front_matter: reading.front_matter.clone(),
        };
        let ws = self.ws.clone();
        let path = self.slot.file().path(&paper.id)?;
        let to_write = result.clone();
        let id = paper.id.clone();
        let slot = self.slot;
        tokio::task::spawn_blocking(move || {
            ws.write_json(&path, &to_write)?;
            // A later reading never outlives the one it follows: it was
            // made for the inputs that reading had.
            let later: &[PaperFile] = match slot {
                Slot::First => &[PaperFile::SecondResult, PaperFile::TiebreakResult],
                Slot::Second => &[PaperFile::TiebreakResult],
                Slot::Tiebreak => &[],
            };
            for file in later {
                ws.remove_paper_file(&id, *file)?;
            }
            if slot == Slot::First {
                failures::clear(&ws, &id)?;
            }
            Ok::<_, crate::workspace::WorkspaceError>(())
        })
        .await?
        .map_err(|e| ReadFailure::unsaved(e.to_string()))?;
        Ok((result, reading))
    }
}

/// Why a paper's read failed: a stable code and the reason in words.
#[derive(Debug)]
struct ReadFailure {
    code: String,
    reason: String,
    /// The paper was read (or would have been) but its result cannot be
    /// saved: the run's failure, not the paper's.
    unsaved: bool,
}

impl ReadFailure {
    fn new(code: &str, reason: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            reason: reason.into(),
            unsaved: false,
        }
    }

    fn unsaved(reason: String) -> Self {
        Self {
            code: "write_failed".to_owned(),
            reason,
            unsaved: true,
        }
    }
}

impl From<crate::workspace::WorkspaceError> for ReadFailure {
    fn from(e: crate::workspace::WorkspaceError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<tokio::task::JoinError> for ReadFailure {
    fn from(e: tokio::task::JoinError) -> Self {
        Self::new("internal", e.to_string())
    }
}

/// A batch's slots: for planning papers (CPU) and for their model calls.
#[derive(Clone)]
struct Gates {
    plan: Arc<Semaphore>,
    call: Arc<Semaphore>,
}

/// How one paper of a batch went.
#[derive(Clone, Debug, PartialEq)]
pub enum BatchOutcome {
    Scored {
        score: f64,
        verdict: Verdict,
        /// Evidence quotes found on their cited pages, and dropped.
        verified: usize,
        dropped: usize,
    },
    Skipped(Skip),
    Failed {
        attempts: u32,
        reason: String,
    },
    /// The run was cancelled before the read finished.
    Cancelled,
    /// A call of the read would have crossed a cap: the paper stays open.
    Capped(String),
    /// Read, or about to be, but the workspace cannot keep the result: the
    /// run is halted and the paper stays open.
    NotSaved(String),
    /// The read's task ended without an outcome (it panicked).
    Incomplete,
}

/// Why a paper named in a batch was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    NotReadable,
    AlreadyReviewed,
    BeingRead,
}

impl Skip {
    pub fn reason(self) -> &'static str {
        match self {
            Self::NotReadable => "not a readable paper of this review",
            Self::AlreadyReviewed => "already reviewed; not read again",
            Self::BeingRead => "being read by another call",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BatchLine {
    pub id: String,
    pub outcome: BatchOutcome,
}

/// Papers one `read_papers` call takes at a reader concurrency: eight per
/// slot. A batch is a barrier (the reviewer waits for all of it), and its last
/// wave of calls is partly empty; with eight waves a batch that loses at most
/// one wave loses an eighth, and the reviewer takes half the steps it would
/// with four.
pub fn batch_size(concurrency: usize) -> usize {
    (concurrency.max(1) * 8).clamp(4, 64)
}

pub fn short_hash(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..8])
}
