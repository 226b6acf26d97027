//! Asking the papers from a host: the run's model (or none: passages), set
//! up by [`RunModel`] like a review's, run the question, and list what was
//! asked.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::models::resolve_model;
use super::run_model::{Counted, RunModel};
use super::{AppContext, CommandError, ErrorKind};
use crate::agent::Caps;
use crate::blocking::blocking;
use crate::review::ask::run::{AskRequest, Progress, run};
use crate::review::ask::{self, AskRecord, Scope};
use crate::review::reading::batch::ReadingModel;
use crate::workspace::Workspace;

/// A question for the papers of a review.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct AskParams {
    pub workspace: PathBuf,
    pub question: String,
    /// Which papers (default: those the review keeps).
    #[serde(default)]
    pub scope: Option<Scope>,
    /// Read every paper in scope, not only the best candidates.
    #[serde(default)]
    pub read_all: bool,
    /// The model profile (default: the configured one).
    #[serde(default)]
    pub profile: Option<String>,
    /// No model: the best-matching passages, not an answer.
    #[serde(default)]
    pub offline: bool,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Send each paper's calls through the profile's Batch API first.
    #[serde(default)]
    pub batch: bool,
    /// Seconds between asking an open batch how far it got (the app's
    /// `QUIRE_BATCH_POLL_SECS`, else 30, when not given).
    #[serde(default)]
    pub batch_poll_secs: Option<f64>,
}

/// Ask the papers; progress goes to `progress`, `cancel` stops it (asking
/// again resumes from the papers already read).
pub async fn ask_papers(
    ctx: &AppContext,
    params: AskParams,
    cancel: CancellationToken,
    progress: Arc<dyn Fn(Progress) + Send + Sync>,
) -> Result<AskRecord, CommandError> {
    if params.question.trim().is_empty() {
        return Err(CommandError::invalid(
            "empty_question",
            "the question is empty",
        ));
    }
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open(&root)?)).await?;
    let request = AskRequest {
        question: params.question.clone(),
        scope: params.scope.clone().unwrap_or(Scope::Included),
        read_all: params.read_all,
        batch: super::reviews::batch_asked(params.batch, params.batch_poll_secs),
    };
    if params.offline {
        return Ok(run(&ws, request, None, cancel, progress).await?);
    }
    let caps = Caps {
        max_tokens: params.max_tokens,
        max_cost_usd: params.max_cost_usd,
    };
    let resolved =
        match resolve_model(ctx.paths().config_dir.clone(), params.profile.as_deref()).await {
            Ok(resolved) => resolved,
            // No model anywhere (and none named): passages, labelled as such.
            Err(e) if e.kind == ErrorKind::ModelSetup && params.profile.is_none() => {
                tracing::info!(reason = %e.message, "no model: passages instead of an answer");
                return Ok(run(&ws, request, None, cancel, progress).await?);
            }
            Err(e) => return Err(e),
        };
    let model = RunModel::from_resolved(resolved, &caps).await?;
    let counted = model.counted(&ws, caps);
    let asked = run(&ws, request, Some(ask_model(&counted)), cancel, progress).await;
    counted.close().await?;
    Ok(asked?)
}

/// What a question or a fill reads with: the run's counted client.
pub(crate) fn ask_model(counted: &Counted) -> ReadingModel {
    ReadingModel {
        client: counted.client.clone(),
        budget: counted.budget.clone(),
    }
}

/// The key a question's run is held under in the context: one at a time per
/// review, apart from its review run.
pub fn ask_key(workspace: &std::path::Path) -> PathBuf {
    workspace.join(crate::workspace::layout::ASKS_DIR)
}

/// Ask from the app: one question at a time per review, cancellable with
/// [`ask_cancel`]; where it is goes to `progress`.
pub async fn ask_from_app(
    ctx: &AppContext,
    params: AskParams,
    progress: Arc<dyn Fn(Progress) + Send + Sync>,
) -> Result<AskRecord, CommandError> {
    let key = ask_key(&params.workspace);
    let busy = (
        "ask_running",
        "a question is already being answered for this review",
    );
    ctx.held(&key, busy, |cancel| {
        ask_papers(ctx, params, cancel, progress)
    })
    .await
}

/// Stop the question being answered for `workspace`; false when none is.
pub fn ask_cancel(ctx: &AppContext, workspace: &std::path::Path) -> bool {
    ctx.cancel_run(&ask_key(workspace))
}

/// What an estimate reads from: the workspace (read-only), and the
/// profile's model fitted to its server and priced.
pub(crate) async fn for_estimate(
    ctx: &AppContext,
    workspace: PathBuf,
    profile: Option<&str>,
) -> Result<(Workspace, RunModel), CommandError> {
    let ws =
        blocking(move || Ok::<_, CommandError>(Workspace::open_read_only(&workspace)?)).await?;
    let model = RunModel::prepare(ctx, profile, &Caps::default()).await?;
    Ok((ws, model))
}

/// What asking would take with the params' model, before anything is spent.
pub async fn ask_estimate(
    ctx: &AppContext,
    params: AskParams,
) -> Result<crate::review::ask::estimate::Estimate, CommandError> {
    let (ws, model) =
        for_estimate(ctx, params.workspace.clone(), params.profile.as_deref()).await?;
    let request = AskRequest {
        question: params.question.clone(),
        scope: params.scope.clone().unwrap_or(Scope::Included),
        read_all: params.read_all,
        batch: None,
    };
    Ok(crate::review::ask::run::estimate(&ws, request, &model.settings, &model.prices).await?)
}

/// Put a question in the review's report, or take it out.
pub async fn ask_in_report(
    workspace: PathBuf,
    id: String,
    include: bool,
) -> Result<AskRecord, CommandError> {
    blocking(move || {
        let ws = Workspace::open(&workspace)?;
        Ok(ask::set_in_report(&ws, &id, include)?)
    })
    .await
}

/// Write a question's answer as Markdown to `dest` (an absolute path the
/// save dialog gave).
pub async fn ask_export(
    workspace: PathBuf,
    id: String,
    dest: PathBuf,
) -> Result<super::review_view::ExportWritten, CommandError> {
    if !dest.is_absolute() {
        return Err(CommandError::invalid(
            "bad_path",
            format!("{} is not an absolute path", dest.display()),
        ));
    }
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let record = ask::load(&ws, &id)?.ok_or_else(|| {
            CommandError::new(
                ErrorKind::NotFound,
                "ask_not_found",
                format!("no question {id} in this review"),
            )
        })?;
        let body = ask::markdown(&record);
        super::review_view::write_replacing(&dest, body.as_bytes())?;
        Ok(super::review_view::ExportWritten {
            path: dest,
            bytes: body.len(),
        })
    })
    .await
}

/// Every question asked of the review, newest first.
pub async fn ask_history(workspace: PathBuf) -> Result<Vec<AskRecord>, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        Ok(ask::history(&ws)?)
    })
    .await
}
