//! A review's readings asked through a Batch API before the agents run.
//!
//! Every paper still to read is planned as the reader will read it, and the
//! first call of each part (the same request, so the same id) goes into the
//! batches ([`crate::review::batches`]). Once they are answered, the reader's
//! client answers those calls from the batch; the agents then run as ever,
//! and each reading goes through the same acceptance as an interactive one:
//! the cut-prompt check, the quotes checked against the pages, coherence.
//! What the batches did not answer (a re-ask, a part found too long, a
//! request refused or never run three times) is asked interactively.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::domain::ReviewDomain;
use crate::agent::{RunEvent, RuntimeError};
use crate::blocking::blocking;
use crate::llm::batch::BatchLine;
use crate::review::ReviewSpec;
use crate::review::batches::driver::{DriveError, Seen};
use crate::review::batches::{BatchDriver, Ledger, Step};
use crate::review::engine::BatchMode;
use crate::review::paper_text;
use crate::review::reading::PaperInput;
use crate::workspace::Workspace;

/// Requests a Batch API gets another try at, in a new batch, at most.
const MAX_ROUNDS: u32 = 3;

/// How often a run that did not ask for batches polls the ones it finds open.
const RESUMED_POLL: Duration = Duration::from_secs(30);

/// How this run uses batches: as asked, or, when a run before it left
/// batches open (the app closed, a resume that did not ask), as they were,
/// so no batch is left paid for and unread.
pub fn batch_mode(
    ws: &Workspace,
    asked: Option<BatchMode>,
) -> Result<Option<BatchMode>, RuntimeError> {
    if asked.is_some() {
        return Ok(asked);
    }
    let ledger = Ledger::load(ws)?;
    let open = ledger.shards.iter().any(|s| s.finished.is_none());
    Ok(open.then_some(BatchMode {
        poll_every: RESUMED_POLL,
    }))
}

/// Ask the first calls of every unread paper's reading through the
/// profile's Batch API, and have the reader answered from its results.
pub async fn read_through_batches(
    ws: &Workspace,
    spec: &ReviewSpec,
    domain: &Arc<ReviewDomain>,
    mode: BatchMode,
    cancel: &CancellationToken,
) -> Result<(), RuntimeError> {
    let client = domain.reader.client().clone();
    let api = match client.batch_api() {
        Some(Ok(api)) => api,
        Some(Err(e)) => return Err(RuntimeError::Batch(e.to_string())),
        None => {
            return Err(RuntimeError::Batch(
                "the profile's endpoint has no Batch API Quire speaks: batches go to OpenAI-compatible endpoints (OpenAI, vllm run-batch behind one, a LiteLLM proxy) and to Anthropic".into(),
            ));
        }
    };
    let lines = requests_for_unread(ws, spec, domain).await?;
    if lines.is_empty() {
        return Ok(());
    }
    tracing::info!(requests = lines.len(), "reading calls go to the Batch API");
    let driver = BatchDriver {
        ws,
        api: &api,
        limits: api.limits(),
        poll_every: mode.poll_every,
        max_rounds: MAX_ROUNDS,
    };
    let events = domain.events.clone();
    let seen = move |seen: Seen<'_>| match seen {
        Seen::Step(Step::Created { shard, batch_id }) => {
            tracing::info!(shard, batch_id, "batch submitted");
            events.emit(RunEvent::BatchProgress {
                shard: shard.clone(),
                status: "submitted".into(),
                completed: 0,
                failed: 0,
                total: 0,
            });
        }
        Seen::Step(_) => {}
        Seen::Polled(p) => {
            tracing::info!(
                shard = %p.shard,
                status = %p.status,
                completed = p.completed,
                failed = p.failed,
                total = p.total,
                "batch"
            );
            events.emit(RunEvent::BatchProgress {
                shard: p.shard.clone(),
                status: p.status.clone(),
                completed: p.completed,
                failed: p.failed,
                total: p.total,
            });
        }
    };
    match driver.run(&lines, &seen, cancel).await {
        Ok(settled) => {
            tracing::info!(
                answered = settled.answers.len(),
                unanswered = settled.unresolved.len(),
                batches = settled.batches,
                "the batches are done; what they did not answer is asked interactively"
            );
            for (id, reason) in settled.unresolved.iter().take(5) {
                tracing::warn!(request = %id, %reason, "not answered by the batches");
            }
            client.answer_from_batch(settled.answers);
            Ok(())
        }
        // The pass sees the cancel and stops; the batches were cancelled.
        Err(DriveError::Cancelled) => Ok(()),
        Err(e) => Err(RuntimeError::Batch(e.to_string())),
    }
}

/// The first request of each part of every paper not yet read, once each.
async fn requests_for_unread(
    ws: &Workspace,
    spec: &ReviewSpec,
    domain: &Arc<ReviewDomain>,
) -> Result<Vec<BatchLine>, RuntimeError> {
    let unread: Vec<_> = {
        let coverage = domain.coverage();
        coverage
            .readable
            .iter()
            .filter(|(id, _)| !coverage.done.contains(*id))
            .map(|(_, paper)| paper.clone())
            .collect()
    };
    let (ws, spec, reader) = (ws.clone(), spec.clone(), domain.reader.clone());
    blocking(move || {
        let settings = reader.client().settings().clone();
        let mut seen = BTreeSet::new();
        let mut lines = Vec::new();
        for paper in unread {
            // A paper with no text to read is reported by its reading.
            let pages = paper_text::load(&ws, &paper.id)?.unwrap_or_default();
            let input = PaperInput::for_review(&spec, paper.title.as_deref(), &pages);
            let Ok(requests) = reader.first_requests(&input) else {
                continue;
            };
            for request in &requests {
                let line = BatchLine::new(&settings, request);
                if seen.insert(line.custom_id.clone()) {
                    lines.push(line);
                }
            }
        }
        Ok::<_, RuntimeError>(lines)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::batches::ledger::ShardSize;

    #[test]
    fn open_batches_are_taken_up_by_a_run_that_did_not_ask_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(&dir.path().join("ws")).unwrap();
        assert_eq!(
            batch_mode(&ws, None).unwrap(),
            None,
            "no ledger, no batches"
        );
        let asked = BatchMode {
            poll_every: Duration::from_secs(5),
        };
        assert_eq!(batch_mode(&ws, Some(asked)).unwrap(), Some(asked));

        let mut ledger = Ledger::load(&ws).unwrap();
        for step in [
            Step::Started { run: "r".into() },
            Step::Round {
                round: 1,
                shards: vec![ShardSize {
                    shard: "r1-0".into(),
                    requests: 3,
                }],
            },
            Step::Created {
                shard: "r1-0".into(),
                batch_id: "batch_1".into(),
            },
        ] {
            ledger.record(&ws, step).unwrap();
        }
        assert_eq!(
            batch_mode(&ws, None).unwrap(),
            Some(BatchMode {
                poll_every: RESUMED_POLL
            }),
            "an open batch is followed to its end"
        );
        ledger
            .record(
                &ws,
                Step::Finished {
                    shard: "r1-0".into(),
                    status: "completed".into(),
                    answered: 3,
                    failed: 0,
                },
            )
            .unwrap();
        assert_eq!(batch_mode(&ws, None).unwrap(), None, "all finished");
    }
}
