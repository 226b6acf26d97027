//! A review's readings asked through a Batch API before the agents run.
//!
//! Every paper still to read is planned as the reader will read it, and the
//! first call of each part (the same request, so the same id) goes into the
//! batches ([`crate::review::batches`]). Once they are answered, the reader's
//! client answers those calls from the batch; the agents then run as ever,
//! and each reading goes through the same acceptance as an interactive one:
//! the cut-prompt check, the quotes checked against the pages, coherence.
//! What the batches did not answer (a re-ask, a part found too long, a
//! request refused or never run three times) is asked interactively. A
//! dual-read review batches its second (and tie-breaking) reading the same
//! way once the first is done, each in a ledger of its own.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::domain::ReviewDomain;
use crate::agent::{RunEvent, RuntimeError};
use crate::blocking::blocking;
use crate::llm::batch::BatchLine;
use crate::review::ReviewSpec;
use crate::review::batches::Progress;
use crate::review::batches::ahead::{self, AheadError, BatchMode};
use crate::review::dual::Slot;
use crate::review::paper_text;
use crate::review::reading::PaperInput;
use crate::workspace::Workspace;
use crate::workspace::layout::BATCHES_DIR;

/// The ledger folder of a reading's batches: the first reading's in
/// `batches`, a dual-read review's second and tie-breaking readings each in
/// one of their own under it.
fn ledger_dir(slot: Slot) -> &'static str {
    match slot {
        Slot::First => BATCHES_DIR,
        Slot::Second => "batches/second",
        Slot::Tiebreak => "batches/tiebreak",
    }
}

/// How `slot`'s reading uses batches: as asked, or as a run before it left
/// them.
pub fn batch_mode(
    ws: &Workspace,
    slot: Slot,
    asked: Option<BatchMode>,
) -> Result<Option<BatchMode>, RuntimeError> {
    Ok(ahead::batch_mode(ws, ledger_dir(slot), asked)?)
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
    let lines = requests_for_unread(ws, spec, domain).await?;
    let events = domain.events.clone();
    let progress = move |p: &Progress| {
        events.emit(RunEvent::BatchProgress {
            shard: p.shard.clone(),
            status: p.status.clone(),
            completed: p.completed,
            failed: p.failed,
            total: p.total,
        });
    };
    let client = domain.reader.client();
    let budget = &domain.budget;
    ahead::answer_ahead(
        ws,
        ledger_dir(domain.slot),
        client,
        budget,
        &lines,
        mode,
        &progress,
        cancel,
    )
    .await
    .map_err(|e| match e {
        AheadError::Workspace(e) => RuntimeError::from(e),
        AheadError::Batch(why) => RuntimeError::Batch(why),
    })
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
        let lines = ahead::plan_lines(&unread, &settings, |paper| {
            // A paper with no text to read is reported by its reading.
            let pages = paper_text::load(&ws, &paper.id)?.unwrap_or_default();
            let input = PaperInput::for_review(&spec, paper.title.as_deref(), &pages);
            Ok::<_, RuntimeError>(reader.first_requests(&input).unwrap_or_default())
        })?;
        Ok::<_, RuntimeError>(lines)
    })
    .await
}
