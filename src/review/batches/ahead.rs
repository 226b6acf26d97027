//! Single-shot calls answered ahead through the profile's Batch API, in
//! rounds: the caller's work (a paper's reading, its question, its cells)
//! is rehearsed with a client that answers only from the batches and sends
//! nothing ([`ModelClient::rehearsal`]); the calls it could not answer are
//! the work's next calls, and they go into a batch round. The first
//! rehearsal, with no answers yet, gives each piece of work's first calls
//! (every part of every paper); the next one, having read those answers,
//! gives the calls the work makes next: a re-ask of an answer that was not
//! JSON or could not stand, the halves of a part found too long. Each round
//! is kept in the work's ledger (the driver's rounds, continued), and the
//! client then answers those calls from the batches. Everything after that
//! runs as ever: each answer goes through the caller's usual acceptance,
//! and what the batches did not answer (a request refused, or never run
//! three times) is asked interactively. The review's readings, Ask and the
//! table's fills use it, each with its own ledger folder.
//!
//! A rehearsal is the work's own code run against the batches' answers, so
//! its requests are the ones the run will send, and the same after a
//! restart: the answers it reads are kept in the ledger.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use super::driver::{DriveError, Seen};
use super::{BatchDriver, Ledger, Progress};
use crate::agent::Budget;
use crate::blocking::{BlockingFailed, blocking, on_every_core};
use crate::llm::ModelClient;
use crate::llm::accounting::Hold;
use crate::llm::batch::{BatchLine, BatchService};
use crate::workspace::{Workspace, WorkspaceError};

/// Requests a Batch API gets another try at, in a new batch, at most.
const MAX_ROUNDS: u32 = 3;

/// Rounds of calls made having read earlier rounds' answers, at most: a
/// reading's deepest chain is an answer that was not JSON, its re-ask that
/// could not stand, the re-ask with the reason, and that one not JSON.
const MAX_FOLLOW_UPS: usize = 3;

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

impl From<BlockingFailed> for AheadError {
    fn from(e: BlockingFailed) -> Self {
        Self::Batch(e.to_string())
    }
}

/// Work whose calls batches can answer ahead: what each item (a paper) does
/// with the client it is given.
pub trait AheadWork: Send + Sync + 'static {
    type Item: Send + Sync + 'static;

    /// Do `item`'s work through `client`, its outcome dropped. Given a
    /// rehearsal, every call is answered or failed at once: the future must
    /// not wait on anything else (a timer, a lock held elsewhere, a thread).
    fn rehearse<'a>(&'a self, item: &'a Self::Item, client: Arc<ModelClient>) -> BoxFuture<'a, ()>;
}

/// Where a piece of work keeps its batches and how they go.
pub struct Ahead<'a> {
    pub ws: &'a Workspace,
    /// The folder of `ws` its ledger is kept in.
    pub dir: &'a str,
    /// The client the work will call through, which the batches' answers
    /// are handed to.
    pub client: &'a Arc<ModelClient>,
    /// The run's caps, which the batches stay within.
    pub budget: &'a Budget,
    pub mode: BatchMode,
    /// Each batch's progress, as it is polled.
    pub progress: &'a (dyn Fn(&Progress) + Send + Sync),
    pub cancel: &'a CancellationToken,
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

/// A batch line with the most it can spend ([`ModelClient::batch_hold`]).
struct Planned {
    line: BatchLine,
    hold: Hold,
}

/// How many of `planned`, in order, the run's caps leave room for, each
/// taken at its worst case priced at the batch rate, the same estimate an
/// interactive call holds: a batch is paid for before a single answer is
/// read, so it must not spend past a cap the run would stop at. The rest
/// are asked as the run goes, where the caps stop it cleanly. With no cap,
/// all of them.
fn within_caps(planned: &[Planned], budget: &Budget) -> usize {
    let mut total = Hold::default();
    for (i, next) in planned.iter().enumerate() {
        total.tokens += next.hold.tokens;
        total.cost_usd = match (total.cost_usd, next.hold.cost_usd) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
        };
        if budget.check_hold(total).is_err() {
            return i;
        }
    }
    planned.len()
}

/// Get `items`' calls answered through the client's Batch API, round after
/// round (see the module's doc), as many as the caps leave room for, and
/// have the client answer those calls from the results; `items` are handed
/// back. A cancel cancels the open batches and returns: the caller sees the
/// cancel and stops.
pub async fn answer_ahead<W: AheadWork>(
    ahead: &Ahead<'_>,
    work: Arc<W>,
    items: Vec<W::Item>,
) -> Result<Vec<W::Item>, AheadError> {
    let api = batch_api(ahead.client)?;
    let mut items = items;
    // Every line sent so far, first round first: the ledger's driver is
    // given them all each time, and sends only what it has no answer to.
    let mut lines: Vec<Planned> = Vec::new();
    let mut sent_ids = BTreeSet::new();
    for follow_up in 0..=MAX_FOLLOW_UPS {
        let (back, next) = rehearse(work.clone(), items, ahead.client.clone()).await?;
        items = back;
        let fresh: Vec<Planned> = next
            .into_iter()
            .filter(|planned| sent_ids.insert(planned.line.custom_id.clone()))
            .collect();
        if fresh.is_empty() {
            break;
        }
        if follow_up > 0 {
            tracing::info!(
                requests = fresh.len(),
                "the calls made having read the batches' answers (re-asks, halves of parts found too long) go to a batch round of their own"
            );
        }
        lines.extend(fresh);
        let within = within_caps(&lines, ahead.budget);
        if within < lines.len() {
            tracing::info!(
                sent = within,
                planned = lines.len(),
                "the run's caps leave room for only some requests in batches; the rest are asked as the run goes"
            );
        }
        let sent: Vec<BatchLine> = lines[..within].iter().map(|p| p.line.clone()).collect();
        if !sent.is_empty() && !drive(ahead, &api, &sent).await? {
            break;
        }
        // Nothing past the caps goes in a batch, a later call's neither.
        if within < lines.len() {
            break;
        }
    }
    Ok(items)
}

/// The profile's Batch API, or why there is none.
fn batch_api(client: &ModelClient) -> Result<BatchService, AheadError> {
    match client.batch_api() {
        Some(Ok(api)) => Ok(api),
        Some(Err(e)) => Err(AheadError::Batch(e.to_string())),
        None => Err(AheadError::Batch(
            "the profile's endpoint has no Batch API Quire speaks: batches go to OpenAI-compatible endpoints (OpenAI, vllm run-batch behind one, a LiteLLM proxy) and to Anthropic".into(),
        )),
    }
}

/// Each item's work rehearsed with the batches' answers so far, on every
/// core: the calls it could not answer, as batch lines with what each can
/// spend, in item order.
async fn rehearse<W: AheadWork>(
    work: Arc<W>,
    items: Vec<W::Item>,
    client: Arc<ModelClient>,
) -> Result<(Vec<W::Item>, Vec<Planned>), AheadError> {
    // Known before, so the rehearsals judge answers as the client will.
    client.served_window().await;
    blocking(move || {
        let settings = client.settings().clone();
        let asked = on_every_core(&items, |item| {
            let twin = Arc::new(client.rehearsal());
            if work.rehearse(item, twin.clone()).now_or_never().is_none() {
                // Its calls are then asked as the run goes.
                tracing::warn!("a rehearsal waited on something other than a model call");
            }
            let lines: Vec<Planned> = twin
                .rehearsed()
                .iter()
                .map(|request| Planned {
                    line: BatchLine::new(&settings, request),
                    hold: client.batch_hold(request),
                })
                .collect();
            Ok::<_, AheadError>(lines)
        })?;
        Ok((items, asked.into_iter().flatten().collect()))
    })
    .await
}

/// Drive `lines` through the ledger in `ahead.dir` to their answers, and
/// hand them to the client. False when cancelled.
async fn drive(
    ahead: &Ahead<'_>,
    api: &BatchService,
    lines: &[BatchLine],
) -> Result<bool, AheadError> {
    tracing::info!(
        requests = lines.len(),
        dir = ahead.dir,
        "calls go to the Batch API"
    );
    let driver = BatchDriver {
        ws: ahead.ws,
        dir: ahead.dir,
        api,
        limits: api.limits(),
        poll_every: ahead.mode.poll_every,
        max_rounds: MAX_ROUNDS,
    };
    let progress = ahead.progress;
    let seen = |seen: Seen<'_>| match seen {
        Seen::Step(super::Step::Created {
            shard, batch_id, ..
        }) => {
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
    match driver.run(lines, &seen, ahead.cancel).await {
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
            ahead.client.answer_from_batch(settled.answers);
            Ok(true)
        }
        Err(DriveError::Cancelled) => Ok(false),
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
                adopted: false,
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
