//! Asking the papers from a host: resolve the model (or none: passages),
//! set up the client whose every call is logged to the workspace and
//! counted against the caps, run the question, and list what was asked.

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::models::resolve_model;
use super::{AppContext, CommandError, ErrorKind};
use crate::agent::{Budget, Caps};
use crate::blocking::blocking;
use crate::llm::accounting::{CallLog, PriceTable};
use crate::llm::call_file::{CallLogs, FileCallLog};
use crate::review::ask::run::{AskModel, AskRequest, Progress, run};
use crate::review::ask::{self, AskRecord, Scope};
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
    };
    if params.offline {
        return Ok(run(&ws, request, None, cancel, progress).await?);
    }
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
    let (model, calls) = counted_model(
        &ws,
        &resolved,
        Caps {
            max_tokens: params.max_tokens,
            max_cost_usd: params.max_cost_usd,
        },
    )?;
    let asked = run(&ws, request, Some(model), cancel, progress).await;
    close_log(calls).await?;
    Ok(asked?)
}

/// The resolved model's client for work in `ws`: every call logged to its
/// `model-calls.jsonl` and counted against `caps`. Close the log when done.
pub(crate) fn counted_model(
    ws: &Workspace,
    resolved: &super::models::ResolvedModel,
    caps: Caps,
) -> Result<(AskModel, Arc<FileCallLog>), CommandError> {
    let budget = Arc::new(Budget::new(caps));
    let calls = FileCallLog::start(ws.clone());
    let logs: Vec<Arc<dyn CallLog>> = vec![calls.clone(), budget.clone()];
    let client = resolved.client()?.with_log(Arc::new(CallLogs(logs)));
    Ok((
        AskModel {
            client: Arc::new(client),
            budget,
        },
        calls,
    ))
}

/// Every call's record on disk, and the log's hold on the workspace let go.
pub(crate) async fn close_log(calls: Arc<FileCallLog>) -> Result<(), CommandError> {
    blocking(move || {
        calls.close();
        Ok::<_, CommandError>(())
    })
    .await
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

/// What an estimate reads from: the workspace (read-only), the profile's
/// model and the price table.
pub(crate) async fn for_estimate(
    ctx: &AppContext,
    workspace: PathBuf,
    profile: Option<&str>,
) -> Result<(Workspace, super::models::ResolvedModel, PriceTable), CommandError> {
    let ws =
        blocking(move || Ok::<_, CommandError>(Workspace::open_read_only(&workspace)?)).await?;
    let resolved = resolve_model(ctx.paths().config_dir.clone(), profile).await?;
    let prices = PriceTable::load(&resolved.config_dir)?;
    Ok((ws, resolved, prices))
}

/// What asking would take with the params' model, before anything is spent.
pub async fn ask_estimate(
    ctx: &AppContext,
    params: AskParams,
) -> Result<crate::review::ask::estimate::Estimate, CommandError> {
    let (ws, resolved, prices) =
        for_estimate(ctx, params.workspace.clone(), params.profile.as_deref()).await?;
    let request = AskRequest {
        question: params.question.clone(),
        scope: params.scope.clone().unwrap_or(Scope::Included),
        read_all: params.read_all,
    };
    Ok(crate::review::ask::run::estimate(&ws, request, &resolved.settings, &prices).await?)
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
