//! Single-shot calls answered ahead through the profile's Batch API: the
//! caller plans the first request of each piece of work (the same requests
//! its calls will send, so the same ids), the driver gets them answered in
//! batches kept in a ledger of their own, and the client then answers those
//! calls from the batches. Everything after that runs as ever: each answer
//! goes through the caller's usual acceptance, and what the batches did not
//! answer (a re-ask, a part found too long, a request refused or never run
//! three times) is asked interactively. The review's readings and the
//! table's fills use it, each with its own ledger folder.

use std::collections::BTreeSet;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::driver::{DriveError, Seen};
use super::{BatchDriver, Ledger, Progress};
use crate::agent::Budget;
use crate::blocking::on_every_core;
use crate::llm::batch::BatchLine;
use crate::llm::{ChatRequest, ModelClient, ModelSettings};
use crate::workspace::{Workspace, WorkspaceError};

/// Requests a Batch API gets another try at, in a new batch, at most.
const MAX_ROUNDS: u32 = 3;

/// How often work that did not ask for batches polls the ones it finds open.
const RESUMED_POLL: Duration = Duration::from_secs(30);

/// How work's calls go through a Batch API.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchMode {
    /// How often an open batch is asked how far it got.
    pub poll_every: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum AheadError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error("{0}")]
    Batch(String),
}

/// How work with its ledger in `dir` uses batches: as asked, or, when an
/// earlier run left batches open there (the app closed, a resume that did
/// not ask), as they were, so no batch is left paid for and unread.
pub fn batch_mode(
    ws: &Workspace,
    dir: &str,
    asked: Option<BatchMode>,
) -> Result<Option<BatchMode>, WorkspaceError> {
    if asked.is_some() {
        return Ok(asked);
    }
    let ledger = Ledger::load_in(ws, dir)?;
    let open = ledger.shards.iter().any(|s| s.finished.is_none());
    Ok(open.then_some(BatchMode {
        poll_every: RESUMED_POLL,
    }))
}

/// The batch lines of every item's first requests, each request once, in
/// item order. Planning tokenizes each paper's text (10,000 papers are
/// minutes on one core), so every core plans its share.
pub fn plan_lines<T: Sync, E: Send>(
    items: &[T],
    settings: &ModelSettings,
    first_requests: impl Fn(&T) -> Result<Vec<ChatRequest>, E> + Sync,
) -> Result<Vec<BatchLine>, E> {
    let planned = on_every_core(items, |item| {
        Ok(first_requests(item)?
            .iter()
            .map(|request| BatchLine::new(settings, request))
            .collect::<Vec<_>>())
    })?;
    let mut seen = BTreeSet::new();
    Ok(planned
        .into_iter()
        .flatten()
        .filter(|line| seen.insert(line.custom_id.clone()))
        .collect())
}

/// The lines a run's caps leave room for, in order, each taken at its
/// prompt (four bytes a token) and its answer cap: a batch must not spend
/// past a cap the run would stop at. The rest are asked as the run goes,
/// where the caps stop it cleanly. With no cap, all of them.
fn within_caps<'a>(lines: &'a [BatchLine], budget: &Budget) -> &'a [BatchLine] {
    let (mut input, mut output) = (0u64, 0u64);
    for (i, line) in lines.iter().enumerate() {
        input += (line.body.to_string().len() as u64).div_ceil(4);
        output += line.body["max_tokens"].as_u64().unwrap_or(0);
        if budget.check(input, output).is_err() {
            return &lines[..i];
        }
    }
    lines
}

/// Get `lines` answered through `client`'s Batch API, as many as `budget`'s
/// caps leave room for, their ledger in `dir` of `ws`, and have `client`
/// answer those calls from the results. Each batch's progress goes to
/// `progress`. A cancel cancels the open batches and returns: the caller
/// sees the cancel and stops.
#[allow(clippy::too_many_arguments)]
pub async fn answer_ahead(
    ws: &Workspace,
    dir: &str,
    client: &ModelClient,
    budget: &Budget,
    lines: &[BatchLine],
    mode: BatchMode,
    progress: &(dyn Fn(&Progress) + Send + Sync),
    cancel: &CancellationToken,
) -> Result<(), AheadError> {
    let api = match client.batch_api() {
        Some(Ok(api)) => api,
        Some(Err(e)) => return Err(AheadError::Batch(e.to_string())),
        None => {
            return Err(AheadError::Batch(
                "the profile's endpoint has no Batch API Quire speaks: batches go to OpenAI-compatible endpoints (OpenAI, vllm run-batch behind one, a LiteLLM proxy) and to Anthropic".into(),
            ));
        }
    };
    let sent = within_caps(lines, budget);
    if sent.len() < lines.len() {
        tracing::info!(
            sent = sent.len(),
            planned = lines.len(),
            "the run's caps leave room for only some requests in batches; the rest are asked as the run goes"
        );
    }
    let lines = sent;
    if lines.is_empty() {
        return Ok(());
    }
    tracing::info!(requests = lines.len(), dir, "calls go to the Batch API");
    let driver = BatchDriver {
        ws,
        dir,
        api: &api,
        limits: api.limits(),
        poll_every: mode.poll_every,
        max_rounds: MAX_ROUNDS,
    };
    let seen = |seen: Seen<'_>| match seen {
        Seen::Step(super::Step::Created { shard, batch_id }) => {
            tracing::info!(shard, batch_id, "batch submitted");
            progress(&Progress {
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
            progress(p);
        }
    };
    match driver.run(lines, &seen, cancel).await {
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
        Err(DriveError::Cancelled) => Ok(()),
        Err(e) => Err(AheadError::Batch(e.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::batches::Step;
    use crate::review::batches::ledger::ShardSize;
    use crate::workspace::layout::BATCHES_DIR;

    #[test]
    fn open_batches_are_taken_up_by_a_run_that_did_not_ask_for_them() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(&dir.path().join("ws")).unwrap();
        assert_eq!(
            batch_mode(&ws, BATCHES_DIR, None).unwrap(),
            None,
            "no ledger, no batches"
        );
        let asked = BatchMode {
            poll_every: Duration::from_secs(5),
        };
        assert_eq!(
            batch_mode(&ws, BATCHES_DIR, Some(asked)).unwrap(),
            Some(asked)
        );

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
            batch_mode(&ws, BATCHES_DIR, None).unwrap(),
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
        assert_eq!(
            batch_mode(&ws, BATCHES_DIR, None).unwrap(),
            None,
            "all finished"
        );
    }
}
