//! A review's readings asked through a Batch API before the agents run.
//!
//! Every paper still to read is read in rehearsal, as the reader will read
//! it ([`ahead`]): the first call of each part goes into the first round of
//! batches, and the calls the readings make having read those answers (a
//! re-ask of an answer that was not JSON or could not stand, halves of a
//! part found too long) into the next. Once they are answered, the reader's
//! client answers those calls from the batches; the agents then run as
//! ever, and each reading goes through the same acceptance as an
//! interactive one: the quotes checked against the pages, coherence. What
//! the batches did not answer (a request refused or never run three times)
//! is asked interactively. A dual-read review batches its second (and
//! tie-breaking) reading the same way once the first is done, each in a
//! ledger of its own.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::domain::ReviewDomain;
use futures_util::future::BoxFuture;

use crate::agent::{RunEvent, RuntimeError};
use crate::llm::ModelClient;
use crate::review::ReviewSpec;
use crate::review::batches::Progress;
use crate::review::batches::ahead::{self, Ahead, AheadError, AheadWork, BatchMode};
use crate::review::dual::Slot;
use crate::review::paper_text;
use crate::review::reading::{PaperInput, Reader};
use crate::workspace::PaperRecord;
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

/// Ask the calls of every unread paper's reading through the profile's
/// Batch API, round after round, and have the reader answered from its
/// results.
pub async fn read_through_batches(
    ws: &Workspace,
    spec: &ReviewSpec,
    domain: &Arc<ReviewDomain>,
    mode: BatchMode,
    cancel: &CancellationToken,
) -> Result<(), RuntimeError> {
    let unread: Vec<PaperRecord> = {
        let coverage = domain.coverage();
        coverage
            .readable
            .iter()
            .filter(|(id, _)| !coverage.done.contains(*id))
            .map(|(_, paper)| paper.clone())
            .collect()
    };
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
    let readings = Arc::new(Readings {
        ws: ws.clone(),
        spec: spec.clone(),
        reader: domain.reader.clone(),
    });
    let ahead = Ahead {
        ws,
        dir: ledger_dir(domain.slot),
        client: domain.reader.client(),
        budget: &domain.budget,
        mode,
        progress: &progress,
        cancel,
    };
    ahead::answer_ahead(&ahead, readings, unread)
        .await
        .map(drop)
        .map_err(|e| match e {
            AheadError::Workspace(e) => RuntimeError::from(e),
            AheadError::Batch(why) => RuntimeError::Batch(why),
        })
}

/// A review's readings of its papers, as the reader reads them.
struct Readings {
    ws: Workspace,
    spec: ReviewSpec,
    reader: Arc<Reader>,
}

impl AheadWork for Readings {
    type Item = PaperRecord;

    fn rehearse<'a>(
        &'a self,
        paper: &'a PaperRecord,
        client: Arc<ModelClient>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            // A paper with no text to read is reported by its reading.
            let Ok(Some(text)) = paper_text::load_text(&self.ws, &paper.id) else {
                return;
            };
            let input = PaperInput::for_review(&self.spec, paper.title.as_deref(), &text);
            let _ = self.reader.with_client(client).read(&input).await;
        })
    }
}
