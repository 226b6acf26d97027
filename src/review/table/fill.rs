//! A fill of the table: for every chosen paper, the columns whose cells are
//! not current (new, redefined, or read by another model) are read in one
//! call per paper, up to the model's concurrency, each checked against the
//! run's caps first; what is current is never read again.

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::{cells, columns, load_cells, save_cells};
use crate::blocking::blocking;
use crate::review::ask::Scope;
use crate::review::ask::candidates::papers_in_scope;
use crate::review::ask::run::AskModel;
use crate::review::{ReviewError, paper_text};
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
}

/// A fill's progress callback.
pub type OnFillProgress = Arc<dyn Fn(FillProgress) + Send + Sync>;

/// Fill the table for the papers of `scope`; where it is goes to `progress`.
pub async fn fill(
    ws: &Workspace,
    scope: &Scope,
    model: &AskModel,
    cancel: &CancellationToken,
    progress: OnFillProgress,
) -> Result<FillOutcome, ReviewError> {
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
    let model_id = model.client.settings().model.clone();
    let slots = Arc::new(Semaphore::new(model.client.settings().concurrency.max(1)));
    let mut set = JoinSet::new();
    for paper in papers {
        if cancel.is_cancelled() {
            outcome.stopped = Some("cancelled".into());
            break;
        }
        let (ws2, id) = (ws.clone(), paper.id.clone());
        let (existing, pages) = blocking(move || {
            Ok::<_, ReviewError>((
                load_cells(&ws2, &id)?,
                paper_text::load(&ws2, &id)?.unwrap_or_default(),
            ))
        })
        .await?;
        let needed: Vec<_> = all_columns
            .iter()
            .filter(|c| {
                existing
                    .get(&c.id)
                    .is_none_or(|cell| !cell.is_current(c, &model_id))
            })
            .cloned()
            .collect();
        if needed.is_empty() {
            progress(FillProgress::Current);
            continue;
        }
        let tokens = crate::review::reading::chunks::rough_tokens(&pages);
        if let Err(over) = model.budget.check(
            tokens + 1_200,
            model.client.settings().max_output_tokens as u64,
        ) {
            outcome.stopped = Some(over.0);
            break;
        }
        let permit = slots.clone().acquire_owned().await.ok();
        let (client, ws, cancel) = (model.client.clone(), ws.clone(), cancel.clone());
        let progress = progress.clone();
        set.spawn(async move {
            let read = cells::fill(&client, &paper, &pages, &needed, &cancel).await;
            drop(permit);
            let result = match read {
                Ok(read) => {
                    let mut merged = existing;
                    for (column, cell) in needed.iter().zip(read) {
                        merged.insert(column.id.clone(), cell);
                    }
                    let (ws, id, kept) = (ws.clone(), paper.id.clone(), merged.clone());
                    match tokio::task::spawn_blocking(move || save_cells(&ws, &id, &kept)).await {
                        Ok(Ok(())) => Ok(needed
                            .iter()
                            .filter_map(|c| merged.get(&c.id))
                            .cloned()
                            .collect::<Vec<_>>()),
                        Ok(Err(e)) => Err(e.to_string()),
                        Err(e) => Err(e.to_string()),
                    }
                }
                Err(e) => Err(e.to_string()),
            };
            progress(FillProgress::Read {
                title: paper.title.clone().unwrap_or_else(|| paper.id.0.clone()),
                failed: result.is_err(),
            });
            (paper, result)
        });
    }
    while let Some(joined) = set.join_next().await {
        let Ok((paper, result)) = joined else {
            continue;
        };
        tally(&mut outcome, &paper, result);
    }
    if outcome.stopped.is_none() && cancel.is_cancelled() {
        outcome.stopped = Some("cancelled".into());
    }
    Ok(outcome)
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
            let pages = paper_text::load(&ws, &paper.id)?.unwrap_or_default();
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

fn tally(outcome: &mut FillOutcome, paper: &PaperRecord, result: Result<Vec<cells::Cell>, String>) {
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
        Err(reason) => outcome.failed.push((
            paper.title.clone().unwrap_or_else(|| paper.id.0.clone()),
            reason,
        )),
    }
}
