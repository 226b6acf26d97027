//! A fill of the table: for every chosen paper, the columns whose cells are
//! not current (new, redefined, or read by another model) are read in one
//! call per paper, through the one batch reader ([`read_many`]: the model's
//! concurrency, the run's caps, cancel, a typed end); what is current is
//! never read again. As a batch, each paper's calls are answered ahead
//! through the profile's Batch API, round after round (its first calls,
//! then the re-asks; [`crate::review::batches::ahead`], its ledger in
//! `batches/table`), and the cells are then read from those answers through
//! the same checks.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::{Column, cells, columns, load_cells, save_cells};
use crate::blocking::blocking;
use crate::llm::ModelClient;
use crate::review::ask::Scope;
use crate::review::ask::candidates::papers_in_scope;
use crate::review::batches::Progress;
use crate::review::batches::ahead::{Ahead, AheadWork, BatchMode, answer_ahead, batch_mode};
use crate::review::reading::batch::{Ended, Job, Limits, ReadError, ReadingModel, read_many};
use crate::review::{ReviewError, paper_text};
use crate::workspace::layout::TABLE_BATCHES_DIR;
use crate::workspace::{PaperRecord, Workspace};

/// How a fill went.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FillOutcome {
    pub papers: usize,
    /// Papers read in this fill (the rest were current).
    pub read: usize,
    pub cells_filled: usize,
    /// Cells with a value, flagged low-confidence.
    pub low_confidence: usize,
    /// Papers whose reading failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Why the fill stopped early (cancelled, a cap), when it did.
    pub stopped: Option<String>,
    /// The cause, when every paper read failed (cut prompts, a server down).
    pub failure: Option<String>,
}

/// Where a fill is, for a host's progress display.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum FillProgress {
    /// The papers of the scope, before any is looked at.
    Started { papers: usize },
    /// A paper whose cells are all current: nothing to read.
    Current,
    /// A paper read, or whose reading failed.
    Read { title: String, failed: bool },
    /// A batch of the fill's calls as last polled: the Batch API's status
    /// (`submitted` before its first poll) and its requests done.
    Batch(Progress),
}

/// A fill's progress callback.
pub type OnFillProgress = Arc<dyn Fn(FillProgress) + Send + Sync>;

/// Fill the table for the papers of `scope`, as a batch when `batch` says
/// so (or when an earlier fill left batches open); where it is goes to
/// `progress`.
pub async fn fill(
    ws: &Workspace,
    scope: &Scope,
    model: &ReadingModel,
    batch: Option<BatchMode>,
    cancel: &CancellationToken,
    progress: OnFillProgress,
) -> Result<FillOutcome, ReviewError> {
    let model_id = model.client.settings().model.clone();
    let (all_columns, papers) = {
        let (ws, scope) = (ws.clone(), scope.clone());
        blocking(move || Ok::<_, ReviewError>((columns::load(&ws)?, papers_in_scope(&ws, &scope)?)))
            .await?
    };
    let mut outcome = FillOutcome {
        papers: papers.len(),
        ..FillOutcome::default()
    };
    if all_columns.is_empty() {
        return Ok(outcome);
    }
    progress(FillProgress::Started {
        papers: outcome.papers,
    });
    let batch = {
        let ws = ws.clone();
        blocking(move || Ok::<_, ReviewError>(batch_mode(&ws, TABLE_BATCHES_DIR, batch)?)).await?
    };
    // What each paper still needs, read from the workspace in one pass:
    // papers whose every cell is current are done, and count as read before.
    let (mut jobs, current) = {
        let (ws, model_id) = (ws.clone(), model_id.clone());
        blocking(move || {
            let mut jobs = Vec::new();
            let mut current = 0;

            for paper in papers {
                let existing = load_cells(&ws, &paper.id)?;
                let needed: Vec<Column> = all_columns
                    .iter()
                    .filter(|c| {
                        existing
                            .get(&c.id)
                            .is_none_or(|cell| !cell.is_current(c, &model_id))
                    })
                    .cloned()
                    .collect();
                if needed.is_empty() {
                    current += 1;
                    continue;
                }
                // Cells quote the paper's content, not its title block,
                // page furniture or references.
                let pages = paper_text::load_text(&ws, &paper.id)?
                    .unwrap_or_default()
                    .content;
                jobs.push(Job {
                    index: jobs.len(),
                    prompt_tokens: crate::review::reading::chunks::rough_tokens(&pages) + 1_200,
                    work: PaperWork {
                        paper,
                        pages,
                        existing,
                        needed,
                    },
                });
            }
            Ok::<_, ReviewError>((jobs, current))
        })
        .await?
    };
    for _ in 0..current {
        progress(FillProgress::Current);
    }
    if let Some(mode) = batch {
        let shown = progress.clone();
        let polled = move |p: &Progress| shown(FillProgress::Batch(p.clone()));
        let ahead = Ahead {
            ws,
            dir: TABLE_BATCHES_DIR,
            client: &model.client,
            budget: &model.budget,
            mode,
            progress: &polled,
            cancel,
        };
        jobs = answer_ahead(&ahead, Arc::new(Filling), jobs).await?;
    }
    let titles: Vec<String> = jobs.iter().map(|j| title(&j.work.paper)).collect();
    let limits = Limits {
        concurrency: model.client.settings().total_concurrency(),
        budget: &model.budget,
        max_output: model.client.settings().max_output_tokens as u64,
        cancel,
        read_before: current,
    };
    let read = |work: PaperWork| {
        let (client, ws, cancel) = (model.client.clone(), ws.clone(), cancel.clone());
        async move { read_cells(&client, &ws, work, &cancel).await }
    };
    let (read, ended) = read_many(titles.len(), jobs, limits, read, |i, result| {
        progress(FillProgress::Read {
            title: titles[i].clone(),
            failed: result.is_err(),
        });
    })
    .await;
    for (title, result) in titles.iter().zip(read) {
        if let Some(result) = result {
            tally(&mut outcome, title, result);
        }
    }
    match ended {
        Ended::Done => {}
        Ended::Cancelled => outcome.stopped = Some("cancelled".into()),
        Ended::Stopped(reason) => outcome.stopped = Some(reason),
        Ended::Failed(cause) => outcome.failure = Some(cause),
    }
    Ok(outcome)
}

/// The cells of each paper, as [`cells::fill`] reads them.
struct Filling;

impl AheadWork for Filling {
    type Item = Job<PaperWork>;

    fn rehearse<'a>(
        &'a self,
        job: &'a Job<PaperWork>,
        client: Arc<ModelClient>,
    ) -> BoxFuture<'a, ()> {
        let work = &job.work;
        Box::pin(async move {
            let cancel = CancellationToken::new();
            let _ = cells::fill(&client, &work.paper, &work.pages, &work.needed, &cancel).await;
        })
    }
}

/// One paper's fill: the columns it needs, and the cells it has.
struct PaperWork {
    paper: PaperRecord,
    pages: Vec<String>,
    existing: std::collections::BTreeMap<String, cells::Cell>,
    needed: Vec<Column>,
}

/// Read `work`'s columns in one call and keep them beside its other cells;
/// the cells read now.
async fn read_cells(
    client: &ModelClient,
    ws: &Workspace,
    work: PaperWork,
    cancel: &CancellationToken,
) -> Result<Vec<cells::Cell>, ReadError> {
    let PaperWork {
        paper,
        pages,
        existing,
        needed,
    } = work;
    let read = cells::fill(client, &paper, &pages, &needed, cancel)
        .await
        .map_err(|e| ReadError::new(e.code(), e.to_string()))?;
    let mut merged = existing;
    for (column, cell) in needed.iter().zip(read) {
        merged.insert(column.id.clone(), cell);
    }
    let (ws, id, kept) = (ws.clone(), paper.id.clone(), merged.clone());
    tokio::task::spawn_blocking(move || save_cells(&ws, &id, &kept))
        .await
        .map_err(|e| ReadError::new("internal", e.to_string()))?
        .map_err(|e| ReadError::new(e.code(), e.to_string()))?;
    Ok(needed
        .iter()
        .filter_map(|c| merged.get(&c.id))
        .cloned()
        .collect())
}

fn title(paper: &PaperRecord) -> String {
    paper.title.clone().unwrap_or_else(|| paper.id.0.clone())
}

/// What filling the table for `scope` would take with `settings`: the papers
/// with a cell not current, a call per part of each.
pub async fn estimate(
    ws: &Workspace,
    scope: &Scope,
    settings: &crate::llm::ModelSettings,
    prices: &crate::llm::accounting::PriceTable,
) -> Result<crate::review::ask::estimate::Estimate, ReviewError> {
    let (ws, scope, settings, prices) =
        (ws.clone(), scope.clone(), settings.clone(), prices.clone());
    blocking(move || {
        let all_columns = columns::load(&ws)?;
        let mut rows = Vec::new();
        for paper in papers_in_scope(&ws, &scope)? {
            let cells = load_cells(&ws, &paper.id)?;
            let current = all_columns.iter().all(|c| {
                cells
                    .get(&c.id)
                    .is_some_and(|cell| cell.is_current(c, &settings.model))
            });
            let pages = paper_text::load_text(&ws, &paper.id)?
                .unwrap_or_default()
                .content;
            rows.push((paper, pages, current || all_columns.is_empty()));
        }
        let estimate = crate::review::ask::estimate::of_papers(
            &settings,
            rows.iter()
                .map(|(p, pages, done)| (p, pages.as_slice(), *done)),
        );
        Ok(estimate.finish(&settings.model, &prices, 0))
    })
    .await
}

fn tally(outcome: &mut FillOutcome, title: &str, result: Result<Vec<cells::Cell>, ReadError>) {
    match result {
        Ok(cells) => {
            outcome.read += 1;
            for cell in cells {
                if cell.value.is_some() {
                    outcome.cells_filled += 1;
                    if cell.low_confidence {
                        outcome.low_confidence += 1;
                    }
                }
            }
        }
        Err(e) => outcome.failed.push((title.to_owned(), e.reason)),
    }
}
