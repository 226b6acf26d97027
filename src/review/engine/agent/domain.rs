//! The review as a domain of the agent runtime: the shared state of one agent
//! review (coverage, the reader, events) and the batch read every way of
//! reading goes through (the reviewer's `read_papers`, and the final sweep).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::coverage::{Coverage, result_key};
use crate::agent::{Budget, EventSink, PaperPhase, RunEvent};
use crate::review::dual::Slot;
use crate::review::error::write_failed;
use crate::review::inputs;
use crate::review::reading::batch::{self, Ended, Job, Limits, read_prepared};
use crate::review::reading::chunks::Chunk;
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

    /// A paper's prompt tokens for the batch's cap check: its text at three
    /// bytes a token (what a call holds against the caps), plus the reader's
    /// instructions.
    fn prompt_tokens(&self, id: &PaperId) -> u64 {
        let bytes = crate::review::paper_text::text_path(id)
            .ok()
            .and_then(|p| self.ws.entry(&p).ok())
            .map_or(0, |e| e.size);
        bytes / 3 + 1_000
    }

    pub fn coverage(&self) -> MutexGuard<'_, Coverage> {
        self.coverage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Read the papers `ids` through the batch reader (up to the reader's
    /// concurrency at once, each checked against the caps), write each result
    /// to its file, and say how each went, in order, and how the batch ended.
    pub async fn read_batch(self: &Arc<Self>, ids: &[String], by: CoveredBy) -> BatchRead {
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
        let jobs: Vec<Job<PaperRecord>> = todo
            .into_iter()
            .map(|(index, paper)| {
                self.events.emit(RunEvent::PaperStatus {
                    paper: paper.id.0.clone(),
                    phase: PaperPhase::Queued,
                    detail: None,
                });
                Job {
                    index,
                    prompt_tokens: self.prompt_tokens(&paper.id),
                    work: paper,
                }
            })
            .collect();
        let limits = Limits {
            concurrency: self.reader.concurrency(),
            budget: &self.budget,
            max_output: self.reader.max_output_tokens(),
            cancel: &self.cancel,
            read_before: 0,
        };
        let prepare = |paper: PaperRecord| {
            let domain = self.clone();
            async move {
                let prepared = domain.prepare(&paper).await;
                (paper, prepared)
            }
        };
        let read = |(paper, prepared): (PaperRecord, Result<Prepared, ReadFailure>)| {
            let domain = self.clone();
            async move { domain.read_one(&paper, prepared, by).await }
        };
        let (read, ended) = read_prepared(ids.len(), jobs, limits, prepare, read, |_, _| {}).await;
        let lines = outcomes
            .into_iter()
            .zip(read)
            .zip(ids)
            .map(|((skipped, read), id)| {
                let id = id.trim().to_owned();
                let outcome = match (skipped, read) {
                    (Some(skipped), _) => skipped,
                    (None, Some(Ok(outcome))) => outcome,
                    (None, Some(Err(e))) => BatchOutcome::Failed {
                        attempts: 0,
                        reason: e.reason,
                    },
                    // Named and never read: open again, for a resume.
                    (None, None) => {
                        self.coverage().reading.remove(&PaperId(id.clone()));
                        self.unread(&ended)
                    }
                };
                BatchLine { id, outcome }
            })
            .collect();
        BatchRead { lines, ended }
    }

    /// Why a paper of a batch that ended `ended` was not read.
    fn unread(&self, ended: &Ended) -> BatchOutcome {
        match ended {
            Ended::Cancelled => BatchOutcome::Cancelled,
            Ended::Stopped(reason) if self.budget.halted().is_some() => {
                BatchOutcome::NotSaved(reason.clone())
            }
            Ended::Stopped(reason) => BatchOutcome::Capped(reason.clone()),
            Ended::Done | Ended::Failed(_) => BatchOutcome::Incomplete,
        }
    }

    /// Load a paper's text and split it into the reader's parts: CPU work,
    /// done while other papers' calls are in flight.
    async fn prepare(&self, paper: &PaperRecord) -> Result<Prepared, ReadFailure> {
        let (ws, id, reader) = (self.ws.clone(), paper.id.clone(), self.reader.clone());
        let (title, spec) = (paper.title.clone(), self.spec.clone());
        tokio::task::spawn_blocking(move || {
            let text = paper_text::load_text(&ws, &id)
                .map_err(ReadFailure::from)?
                .unwrap_or_default();
            let plan = reader.plan(&PaperInput::for_review(&spec, title.as_deref(), &text));
            Ok::<_, ReadFailure>(Prepared { text, plan })
        })
        .await
        .map_err(ReadFailure::from)?
    }

    /// Read one prepared paper (the batch reader holds a model slot for it)
    /// and keep its result: a refusal for a cap is the batch's end, not an
    /// outcome of the paper.
    async fn read_one(
        self: &Arc<Self>,
        paper: &PaperRecord,
        prepared: Result<Prepared, ReadFailure>,
        by: CoveredBy,
    ) -> Result<BatchOutcome, batch::ReadError> {
        let id = paper.id.clone();
        let read = match prepared {
            Ok(prepared) => self.read_and_save(paper, prepared, by).await,
            Err(e) => Err(e),
        };
        Ok(match read {
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
                return Err(batch::ReadError::new(code, reason));
            }
            Err(ReadFailure { code, reason, .. }) => self.failed(&id, code, reason).await,
        })
    }

    /// Count a paper's failed read, and keep it on record (a first reading's).
    async fn failed(&self, id: &PaperId, code: String, reason: String) -> BatchOutcome {
        let attempts = {
            let mut coverage = self.coverage();
            coverage.reading.remove(id);
            let entry = coverage
                .failed
                .entry(id.clone())
                .or_insert((0, String::new()));
            entry.0 += 1;
            entry.1 = reason.clone();
            entry.0
        };
        // A second or third reading that fails leaves the paper's first
        // reading standing: only the run's account counts it.
        if self.slot == Slot::First {
            // The failure is on record for the report, `--json` and the app
            // until a later read succeeds.
            let failure = failures::PaperFailure {
                code,
                reason: reason.clone(),
                model: Some(self.reader.model().to_owned()),
                attempts,
                at: now_rfc3339(),
            };
            let (ws, paper_id) = (self.ws.clone(), id.clone());
            let saved =
                tokio::task::spawn_blocking(move || failures::save(&ws, &paper_id, &failure)).await;
            if let Ok(Err(e)) = saved {
                tracing::warn!(paper = %id.0, error = %e, "could not record why the paper failed");
                self.budget.halt(write_failed(&e.to_string()));
            }
        }
        self.events.emit(RunEvent::PaperStatus {
            paper: id.0.clone(),
            phase: PaperPhase::Failed,
            detail: Some(reason.clone()),
        });
        BatchOutcome::Failed { attempts, reason }
    }

    async fn read_and_save(
        &self,
        paper: &PaperRecord,
        Prepared { text, plan }: Prepared,
        by: CoveredBy,
    ) -> Result<(PaperResult, Reading), ReadFailure> {
        self.events.emit(RunEvent::PaperStatus {
            paper: paper.id.0.clone(),
            phase: PaperPhase::Reading,
            detail: None,
        });
        let started_at = now_rfc3339();
        let input = PaperInput::for_review(&self.spec, paper.title.as_deref(), &text);
        let reading = match plan {
            Ok(plan) => self.reader.read_planned(&input, plan).await,
            Err(e) => Err(e),
        }
        .map_err(|e| ReadFailure::new(e.code(), e.to_string()))?;
        let answer = reading.answer.clone();
        let excluded_by = crate::review::reading::excluded_by(&answer);
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
            excluded_by,
            doubts: reading.doubts.clone(),
            provenance: Provenance {
                engine: EngineKind::Agent,
                model: Some(self.reader.model().to_owned()),
                input_hash: result_key(paper, &self.spec, &self.fingerprint),
                inputs: Some(inputs::fingerprint_of(&self.spec)),
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

/// A paper loaded and split into the reader's parts, ready for its calls.
struct Prepared {
    text: paper_text::PaperText,
    plan: Result<Vec<Chunk>, crate::review::reading::ReadError>,
}

/// How a batch read went: each paper named, in order, and how it ended.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchRead {
    pub lines: Vec<BatchLine>,
    pub ended: Ended,
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
