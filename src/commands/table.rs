//! The extraction table from a host: its columns (added, from a template,
//! removed, or copied from another review), a fill with the model, the
//! table as it stands, the researcher's corrections, and its exports.

use std::path::PathBuf;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::asks::{ask_model, for_estimate};
use super::run_model::RunModel;
use super::{AppContext, CommandError};
use crate::agent::Caps;
use crate::blocking::blocking;
use crate::review::ask::Scope;
use crate::review::ask::candidates::papers_in_scope;
use crate::review::table::fill::{FillOutcome, OnFillProgress, fill};
use crate::review::table::{self, Column, TableView, columns};
use crate::workspace::Workspace;

/// A change to the table's columns; what is not given is left as it is.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ColumnsParams {
    pub workspace: PathBuf,
    /// Add (or replace, by id) this column.
    pub add: Option<Column>,
    /// Add the template of this name (or id).
    pub template: Option<String>,
    /// Remove the column of this id.
    pub remove: Option<String>,
    /// Copy the columns of another review's workspace.
    pub from: Option<PathBuf>,
}

/// Change the columns; returns them as they now are.
pub async fn table_columns(params: ColumnsParams) -> Result<Vec<Column>, CommandError> {
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let mut current = columns::load(&ws)?;
        if let Some(from) = &params.from {
            let other = Workspace::open_read_only(from)?;
            let copied = columns::load(&other)?;
            if copied.is_empty() {
                return Err(CommandError::invalid(
                    "no_columns",
                    format!(
                        "the review at {} has no table columns to copy",
                        from.display()
                    ),
                ));
            }
            for column in copied {
                columns::add(&mut current, column);
            }
        }
        if let Some(name) = &params.template {
            let wanted = name.trim().to_lowercase();
            let template = columns::templates()
                .into_iter()
                .find(|t| t.id == wanted || t.name.to_lowercase() == wanted)
                .ok_or_else(|| {
                    let names: Vec<String> =
                        columns::templates().into_iter().map(|t| t.id).collect();
                    CommandError::invalid(
                        "unknown_template",
                        format!(
                            "no column template {name:?}; available: {}",
                            names.join(", ")
                        ),
                    )
                })?;
            columns::add(&mut current, template);
        }
        if let Some(column) = params.add {
            if column.name.trim().is_empty() || column.instruction.trim().is_empty() {
                return Err(CommandError::invalid(
                    "bad_column",
                    "a column needs a name and an instruction",
                ));
            }
            columns::add(
                &mut current,
                Column::new(&column.name, &column.instruction, column.kind),
            );
        }
        if let Some(id) = &params.remove {
            let before = current.len();
            current.retain(|c| &c.id != id);
            if current.len() == before {
                return Err(CommandError::invalid(
                    "column_not_found",
                    format!("no column {id:?} in this table"),
                ));
            }
        }
        columns::save(&ws, &current)?;
        Ok(current)
    })
    .await
}

/// Filling the table.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct FillParams {
    pub workspace: PathBuf,
    #[serde(default)]
    pub scope: Option<Scope>,
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Send the fill's calls through the profile's Batch API first.
    #[serde(default)]
    pub batch: bool,
    /// Seconds between asking an open batch how far it got (the app's
    /// `QUIRE_BATCH_POLL_SECS`, else 30, when not given).
    #[serde(default)]
    pub batch_poll_secs: Option<f64>,
}

/// Fill every cell that is not current for the papers of the scope.
pub async fn table_fill(
    ctx: &AppContext,
    params: FillParams,
    cancel: CancellationToken,
    progress: OnFillProgress,
) -> Result<FillOutcome, CommandError> {
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open(&root)?)).await?;
    let caps = Caps {
        max_tokens: params.max_tokens,
        max_cost_usd: params.max_cost_usd,
    };
    let model = RunModel::prepare(ctx, params.profile.as_deref(), &caps).await?;
    let counted = model.counted(&ws, caps);
    let scope = params.scope.unwrap_or(Scope::Included);
    let batch = super::reviews::batch_asked(params.batch, params.batch_poll_secs);
    let model = ask_model(&counted);
    let filled = fill(&ws, &scope, &model, batch, &cancel, progress).await;
    counted.close().await?;
    Ok(filled?)
}

/// Fill from the app: one fill per review at a time (held apart from its
/// review run and its questions); app exit stops it.
pub async fn fill_from_app(
    ctx: &AppContext,
    params: FillParams,
    progress: OnFillProgress,
) -> Result<FillOutcome, CommandError> {
    let key = fill_key(&params.workspace);
    let busy = (
        "table_filling",
        "the table of this review is already being filled",
    );
    ctx.held(&key, busy, |cancel| {
        table_fill(ctx, params, cancel, progress)
    })
    .await
}

/// The key a review's fill is held under in the context.
fn fill_key(workspace: &std::path::Path) -> PathBuf {
    workspace.join(crate::workspace::layout::TABLE_DIR)
}

/// Stop the fill running for `workspace` (the cells read so far are kept);
/// false when none is.
pub fn fill_cancel(ctx: &AppContext, workspace: &std::path::Path) -> bool {
    ctx.cancel_run(&fill_key(workspace))
}

/// What filling would take with the params' model, before anything is spent.
pub async fn table_estimate(
    ctx: &AppContext,
    params: FillParams,
) -> Result<crate::review::ask::estimate::Estimate, CommandError> {
    let (ws, model) =
        for_estimate(ctx, params.workspace.clone(), params.profile.as_deref()).await?;
    let scope = params.scope.unwrap_or(Scope::Included);
    Ok(crate::review::table::fill::estimate(&ws, &scope, &model.settings, &model.prices).await?)
}

/// The table for the papers of `scope` (default: those the review keeps).
pub async fn table_view(
    workspace: PathBuf,
    scope: Option<Scope>,
) -> Result<TableView, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        view_of(&ws, &scope.unwrap_or(Scope::Included))
    })
    .await
}

fn view_of(ws: &Workspace, scope: &Scope) -> Result<TableView, CommandError> {
    let papers: Vec<table::TablePaper> = papers_in_scope(ws, scope)?
        .iter()
        .map(table::TablePaper::from)
        .collect();
    Ok(table::view(ws, &papers)?)
}

/// The researcher's value for a cell (or, with `None`, the extracted value
/// checked); no fill overwrites it.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct CorrectParams {
    pub workspace: PathBuf,
    /// A paper id, or a unique prefix of one.
    pub paper: String,
    pub column: String,
    #[serde(default)]
    pub value: Option<String>,
}

pub async fn table_correct(params: CorrectParams) -> Result<(), CommandError> {
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let paper = super::reviews::paper_by_prefix(&ws, &params.paper)?;
        if !columns::load(&ws)?.iter().any(|c| c.id == params.column) {
            return Err(CommandError::invalid(
                "column_not_found",
                format!("no column {:?} in this table", params.column),
            ));
        }
        let value = params
            .value
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty());
        Ok(table::correct(&ws, &paper, &params.column, value)?)
    })
    .await
}
