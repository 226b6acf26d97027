//! Running a review from a host: choose the workspace (the one the index knows
//! for the folder, or a new one), set up the engine (resolve the model profile
//! and its key for the agent engine), and run the review as one spawned task
//! with a cancellation token, updating the index when it ends.
//!
//! The CLI and the desktop app both go through [`review_start`]; what crosses
//! back is a [`RunHandle`] (the token and the task) and run events through the
//! host's [`EventSink`].

use super::ErrorKind;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::protocol::approved_protocol;
use super::run_model::RunModel;
use super::workspaces::{existing_workspace_for, new_workspace_root};
use super::{AppContext, CommandError};
use serde::Deserialize;

use crate::agent::{Caps, EventSink, RunEvent};
use crate::blocking::blocking;
use crate::index::WorkspaceSnapshot;
use crate::llm::ModelSettings;
use crate::llm::accounting::PriceTable;
use crate::pdf::ingest::IngestOptions;
use crate::review::batches::BatchMode;
use crate::review::dual::Policy;
use crate::review::engine::DualSetup;
use crate::review::estimate::{Estimate, estimate};
use crate::review::protocol::{self, ProtocolFile};
use crate::review::run::{
    AgentSetup, EngineSetup, ReviewRequest, ReviewSummary, ingest, run_review,
};
use crate::review::source::canonical_source;
use crate::review::{ApprovedProtocol, EngineKind, ReviewSpec};
use crate::scholar::{Endpoints, Lookup, LookupOptions};
use crate::workspace::{PaperId, Workspace};

/// How long a cancelled run gets to stop on its own before it is aborted.
pub const CANCEL_GRACE: Duration = Duration::from_secs(1);

/// How often the app asks an open batch how far it got, unless
/// `QUIRE_BATCH_POLL_SECS` says.
const APP_BATCH_POLL: Duration = Duration::from_secs(30);

/// Batch mode as a command's params ask for it: `asked`, polling every
/// `poll_secs` (else as [`app_batch_poll`] says).
pub(crate) fn batch_asked(asked: bool, poll_secs: Option<f64>) -> Option<BatchMode> {
    asked.then(|| BatchMode {
        poll_every: poll_secs
            .filter(|s| s.is_finite() && *s > 0.0)
            .map_or_else(app_batch_poll, Duration::from_secs_f64),
    })
}

fn app_batch_poll() -> Duration {
    std::env::var("QUIRE_BATCH_POLL_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(APP_BATCH_POLL, Duration::from_secs_f64)
}

#[derive(Clone)]
pub struct ReviewParams {
    pub source: PathBuf,
    pub spec: ReviewSpec,
    /// Use (or create) this workspace instead of the one for `source`.
    pub workspace: Option<PathBuf>,
    pub ingest: IngestOptions,
    /// The model profile for the agent engine (default: the configured one).
    pub profile: Option<String>,
    pub caps: Caps,
    pub lookups: LookupChoice,
    /// Read only this many papers under the approved protocol, and stop.
    pub pilot: Option<usize>,
    /// Read every paper twice, independently, under this policy.
    pub dual: Option<Policy>,
    /// The second reading's model profile (default: the first's model with
    /// the second reader's own instructions).
    pub second_profile: Option<String>,
    /// Read through the profile's Batch API (cheaper, slower).
    pub batch: Option<crate::review::engine::BatchMode>,
}

/// Whether a review looks its papers up in the scholarly indexes (sending
/// their DOIs, arXiv ids and titles, nothing else), and the contact address
/// the requests carry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct LookupChoice {
    pub enabled: bool,
    #[serde(default)]
    pub contact: Option<String>,
}

impl LookupChoice {
    /// On, unless `offline` or `QUIRE_OFFLINE` says no; the contact from
    /// `QUIRE_CONTACT_EMAIL`.
    pub fn from_env(offline: bool) -> Self {
        Self {
            enabled: !offline,
            contact: std::env::var("QUIRE_CONTACT_EMAIL").ok(),
        }
    }
}

async fn lookup_for(
    ctx: &AppContext,
    choice: &LookupChoice,
) -> Result<Option<Arc<Lookup>>, CommandError> {
    if !choice.enabled || crate::net::offline_forced() {
        return Ok(None);
    }
    let contact = choice
        .contact
        .clone()
        .filter(|c| !c.trim().is_empty())
        .or_else(|| std::env::var("QUIRE_CONTACT_EMAIL").ok());
    let key = {
        let ctx = ctx.clone();
        tokio::task::spawn_blocking(move || super::openalex::openalex_key(&ctx))
            .await
            .map_err(CommandError::internal)?
    };
    let options = LookupOptions::new(
        Endpoints::from_env(),
        contact,
        Some(ctx.paths().data_dir.join("scholar")),
    )
    .with_openalex_key(key);
    let lookup = Lookup::new(options)
        .map_err(|e| CommandError::new(ErrorKind::Internal, "lookup_setup", e))?;
    Ok(Some(Arc::new(lookup)))
}

/// A running review.
pub struct RunHandle {
    /// Cancels the run: model calls in flight are dropped, tasks end, and the
    /// workspace is left resumable.
    pub cancel: CancellationToken,
    /// Owns the run; its result is the review's.
    task: JoinHandle<Result<ReviewSummary, CommandError>>,
}

impl RunHandle {
    /// Wait for the run to end.
    pub async fn finish(self) -> Result<ReviewSummary, CommandError> {
        self.task.await.map_err(|e| {
            CommandError::new(
                ErrorKind::Internal,
                "internal_error",
                format!("the run failed: {e}"),
            )
        })?
    }

    /// Cancel, give the run [`CANCEL_GRACE`] to stop and write its state, then
    /// abort it.
    pub async fn cancel(mut self) -> Result<ReviewSummary, CommandError> {
        self.cancel.cancel();
        match tokio::time::timeout(CANCEL_GRACE, &mut self.task).await {
            Ok(joined) => joined.map_err(|e| {
                CommandError::new(
                    ErrorKind::Internal,
                    "internal_error",
                    format!("the run failed: {e}"),
                )
            })?,
            Err(_) => {
                self.task.abort();
                Err(CommandError::new(
                    ErrorKind::Cancelled,
                    "cancelled",
                    "the run was cancelled and stopped at once; its workspace resumes",
                ))
            }
        }
    }
}

/// Start a review; events go to `events` as it runs.
pub async fn review_start(
    ctx: &AppContext,
    params: ReviewParams,
    events: Arc<dyn EventSink>,
) -> Result<RunHandle, CommandError> {
    let (request, _) = resolve(ctx, params).await?;
    require_protocol(&request)?;
    Ok(start(ctx, request, events))
}

/// An agent review reads no paper before its protocol is approved.
fn require_protocol(request: &ReviewRequest) -> Result<(), CommandError> {
    if request.spec.engine == EngineKind::Agent && request.spec.protocol.is_none() {
        // Says what to do; the approval is missing (or is for another question).
        approved_protocol(&request.workspace, &request.spec)?;
    }
    Ok(())
}

/// What an agent review of `params` would cost, before anything is spent:
/// the folder is registered and extracted (no model is called).
pub async fn review_estimate(
    ctx: &AppContext,
    params: ReviewParams,
) -> Result<Estimate, CommandError> {
    let (request, model) = resolve(ctx, params).await?;
    let Some((settings, prices)) = model else {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "estimate_needs_a_model",
            "the offline engine costs nothing; --estimate is for --engine agent",
        ));
    };
    let (ws, _) = ingest(&request, Arc::new(crate::agent::NoEvents)).await?;
    let mut spec = request.spec.clone();
    blocking(move || {
        // Before approval the reader's prompt carries the draft (or the
        // template): its length is what the estimate needs.
        if spec.protocol.is_none() {
            let text = ProtocolFile::load(&ws)?
                .draft_for(&spec)
                .map_or_else(|| protocol::template(&spec), |d| d.text.clone());
            spec.protocol = Some(ApprovedProtocol {
                hash: protocol::hash(&text),
                text,
            });
        }
        Ok::<_, CommandError>(estimate(&ws, &spec, &settings, &prices)?)
    })
    .await
}

/// The workspace of a review, its papers registered and extracted, its
/// engine's settings checked (no model is called): what its protocol is
/// drafted and kept in before any run.
pub async fn review_prepare(
    ctx: &AppContext,
    params: &ReviewParams,
) -> Result<PathBuf, CommandError> {
    let (request, _) = resolve(ctx, params.clone()).await?;
    ingest(&request, Arc::new(crate::agent::NoEvents)).await?;
    // Known to the index from now on: the next run on the same folder (the
    // one that approves the protocol this one shows) finds this workspace
    // and its draft, not a new one.
    index_workspace(ctx, request.workspace.clone()).await;
    Ok(request.workspace)
}

/// The params' workspace, else the index's for the folder, else a new one.
async fn workspace_of(ctx: &AppContext, params: &ReviewParams) -> Result<PathBuf, CommandError> {
    if let Some(dir) = &params.workspace {
        return Ok(dir.clone());
    }
    let (ctx, source) = (ctx.clone(), params.source.clone());
    blocking(move || {
        let source = canonical_source(&source)?;
        Ok::<_, CommandError>(
            existing_workspace_for(&ctx, &source)
                .unwrap_or_else(|| new_workspace_root(&ctx, &source)),
        )
    })
    .await
}

/// The workspace (the index's for the folder, or a new one) and the engine
/// (for the agent: the profile, its key and prices) of a review.
async fn resolve(
    ctx: &AppContext,
    params: ReviewParams,
) -> Result<(ReviewRequest, Option<(ModelSettings, PriceTable)>), CommandError> {
    let workspace = workspace_of(ctx, &params).await?;
    let mut model = None;
    let engine = match params.spec.engine {
        EngineKind::Offline => EngineSetup::Offline,
        EngineKind::Agent => {
            let run_model = RunModel::prepare(ctx, params.profile.as_deref(), &params.caps).await?;
            let (endpoints, prices) = (run_model.endpoints.clone(), run_model.prices.clone());
            model = Some((run_model.settings.clone(), prices.clone()));
            let dual = match params.dual {
                None => None,
                Some(policy) => Some(DualSetup {
                    policy,
                    second: match &params.second_profile {
                        None => None,
                        Some(name) => Some(second_reader(ctx, name, &params.caps).await?),
                    },
                }),
            };
            EngineSetup::Agent(AgentSetup {
                profile: run_model.profile.clone(),
                endpoints,
                prices,
                caps: params.caps,
                base_backoff: None,
                extra_log: None,
                pilot: params.pilot,
                dual,
                batch: params.batch,
            })
        }
    };
    let mut spec = params.spec;
    if spec.engine == EngineKind::Agent {
        let (root, asked) = (workspace.clone(), spec.clone());
        spec.protocol =
            blocking(move || Ok::<_, CommandError>(approved_protocol(&root, &asked).ok())).await?;
    }
    let request = ReviewRequest {
        source: params.source,
        spec,
        workspace,
        ingest: params.ingest,
        engine,
        lookup: lookup_for(ctx, &params.lookups).await?,
    };
    Ok((request, model))
}

/// The second reading's profile, set up like the first (fitted to its
/// server; a cost cap on an unpriced second model refused as on the first).
async fn second_reader(
    ctx: &AppContext,
    profile: &str,
    caps: &Caps,
) -> Result<(String, crate::llm::Endpoints), CommandError> {
    let model = RunModel::prepare(ctx, Some(profile), caps).await?;
    Ok((model.profile, model.endpoints))
}

/// Run a prepared request as its own task (what tests and benchmarks with a
/// ready-made provider use).
pub fn start(ctx: &AppContext, request: ReviewRequest, events: Arc<dyn EventSink>) -> RunHandle {
    spawn(ctx, request, events, CancellationToken::new())
}

/// [`start`] with a token the caller made (and may hand to its event sink).
pub fn spawn(
    ctx: &AppContext,
    request: ReviewRequest,
    events: Arc<dyn EventSink>,
    cancel: CancellationToken,
) -> RunHandle {
    let ctx = ctx.clone();
    let token = cancel.child_token();
    let span = tracing::info_span!("review", engine = request.spec.engine.name());
    let task = tokio::spawn(
        async move {
            let summary = run_review(request, events, token).await?;
            index_workspace(&ctx, summary.workspace.clone()).await;
            Ok(summary)
        }
        .instrument(span),
    );
    RunHandle { cancel, task }
}

/// Bring the index up to date with a workspace; a failure only marks it stale.
pub(crate) async fn index_workspace(ctx: &AppContext, root: PathBuf) {
    // Its papers may have changed: the screening queue is built again.
    ctx.queues().forget(&root);
    let ctx2 = ctx.clone();
    let indexed: Result<(), CommandError> = blocking(move || {
        let ws = Workspace::open_read_only(&root)?;
        let snapshot = WorkspaceSnapshot::of(&ws)?;
        ctx2.with_index(|index| Ok(index.upsert(&snapshot)?))
    })
    .await;
    if let Err(e) = indexed {
        tracing::warn!(error = %e, "could not update the index; it will be rebuilt on next use");
        ctx.mark_index_stale();
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct LabelParams {
    pub workspace: PathBuf,
    /// A paper id, or a unique prefix of one.
    pub paper: String,
    pub verdict: Option<crate::review::Verdict>,
    pub score: Option<f64>,
    pub note: Option<String>,
    /// The token of the queue's serve of this paper ([`ScreeningView::serve`]),
    /// when it is labelled as the queue served it: only then is the label a
    /// sample for the stopping criterion.
    ///
    /// [`ScreeningView::serve`]: crate::review::queue::ScreeningView::serve
    #[serde(default)]
    pub serve: Option<String>,
}

/// Record the researcher's label of a paper (`papers/<id>/label.json`); no
/// engine ever overwrites it. The report shows it at the next run.
pub async fn label_set(params: LabelParams) -> Result<crate::review::labels::Label, CommandError> {
    use crate::review::labels::{Label, save};
    if params.verdict.is_none() && params.score.is_none() && params.note.is_none() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "empty_label",
            "give a verdict, a score or a note",
        ));
    }
    if let Some(score) = params.score
        && !(0.0..=10.0).contains(&score)
    {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "invalid_score",
            format!("{score} is not a score from 0 to 10"),
        ));
    }
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let paper = paper_by_prefix(&ws, &params.paper)?;
        let task = ws.task()?;
        let label = Label {
            verdict: params.verdict,
            score: params.score,
            note: params.note,
            // To the millisecond: the screening curve orders labels by it, and
            // a researcher at the keyboard gives several a second.
            at: humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string(),
            question: task
                .question
                .as_deref()
                .map(|q| crate::review::inputs::question_key(q, &task.criteria)),
            // An unreadable screening.json must not stop a label: the label
            // then counts as picked by hand, which only weakens the
            // stopping criterion.
            queued: params.serve.as_deref().is_some_and(|token| {
                crate::review::queue::take_serve(&ws, &paper.0, token).unwrap_or_else(|e| {
                    tracing::warn!(error = %e, "could not read the screening order");
                    false
                })
            }),
        };
        save(&ws, &paper, &label)?;
        Ok(label)
    })
    .await
}

/// The paper whose id is `prefix` or starts with it; an error names an
/// unknown or ambiguous prefix.
pub(crate) fn paper_by_prefix(ws: &Workspace, prefix: &str) -> Result<PaperId, CommandError> {
    // A whole id (what the app sends) is one file's read, not the review's.
    let whole = PaperId(prefix.trim().to_owned());
    if whole.0.len() == 16 && ws.paper(&whole)?.is_some() {
        return Ok(whole);
    }
    let papers = ws.papers()?;
    let matches: Vec<_> = papers
        .iter()
        .filter(|p| p.id.0.starts_with(prefix.trim()))
        .collect();
    match matches.as_slice() {
        [one] => Ok(one.id.clone()),
        [] => Err(CommandError::new(
            ErrorKind::NotFound,
            "paper_not_found",
            format!("no paper id starts with {prefix:?}"),
        )),
        many => Err(CommandError::new(
            ErrorKind::InvalidInput,
            "paper_ambiguous",
            format!(
                "{} paper ids start with {prefix:?}; give more digits",
                many.len()
            ),
        )),
    }
}

/// A review the app starts on a workspace it has open.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ReviewLaunchParams {
    pub workspace: PathBuf,
    pub question: String,
    #[serde(default)]
    pub criteria: Vec<String>,
    pub engine: EngineKind,
    /// The model profile (agent engine); default: the configured one.
    #[serde(default)]
    pub profile: Option<String>,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    #[serde(default)]
    pub max_cost_usd: Option<f64>,
    /// Look the papers up in the scholarly indexes (the app's setting).
    #[serde(default)]
    pub lookups: LookupChoice,
    /// Read only this many papers under the approved protocol, and stop.
    #[serde(default)]
    pub pilot: Option<usize>,
    /// Read every paper twice, independently, under this policy.
    #[serde(default)]
    pub dual: Option<Policy>,
    /// The second reading's model profile (default: the first's model).
    #[serde(default)]
    pub second_profile: Option<String>,
    /// Read through the profile's Batch API (cheaper, slower).
    #[serde(default)]
    pub batch: bool,
}

/// Start a review of an open workspace and return at once; the run goes on in
/// the background, sending its events to `events` and, if it fails before or
/// outside the engine, one last `Failed` event. One run per workspace at a
/// time; starting again after a cancel or a crash resumes from the files.
pub async fn review_launch(
    ctx: &AppContext,
    params: ReviewLaunchParams,
    events: Arc<dyn EventSink>,
) -> Result<(), CommandError> {
    let root = params.workspace.clone();
    let review = launch_params(ctx, params).await?;
    let cancel = CancellationToken::new();
    if !ctx.claim_run(&root, cancel.clone()) {
        return Err(CommandError::new(
            ErrorKind::Busy,
            "review_running",
            "a review of this folder is already running",
        ));
    }
    let request = match resolve(ctx, review)
        .await
        .and_then(|(request, _)| require_protocol(&request).map(|()| request))
    {
        Ok(request) => request,
        Err(e) => {
            ctx.release_run(&root);
            return Err(e);
        }
    };
    let handle = spawn(ctx, request, events.clone(), cancel);
    let ctx = ctx.clone();
    tokio::spawn(async move {
        if let Err(e) = handle.finish().await {
            events.emit(RunEvent::Failed {
                kind: e.code.clone(),
                message: e.message.clone(),
            });
        }
        ctx.release_run(&root);
    });
    Ok(())
}

/// [`review_estimate`] for a review the app is about to launch.
pub async fn review_launch_estimate(
    ctx: &AppContext,
    params: ReviewLaunchParams,
) -> Result<Estimate, CommandError> {
    let review = launch_params(ctx, params).await?;
    review_estimate(ctx, review).await
}

/// The full parameters of a launch: the workspace's own source folder, the
/// trimmed question and criteria, this process's extraction settings.
async fn launch_params(
    ctx: &AppContext,
    params: ReviewLaunchParams,
) -> Result<ReviewParams, CommandError> {
    let question = params.question.trim().to_owned();
    if question.is_empty() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "empty_question",
            "the review question is empty",
        ));
    }
    let root = params.workspace.clone();
    let task =
        blocking(move || Ok::<_, CommandError>(Workspace::open_read_only(&root)?.task()?)).await?;
    let Some(source) = task.source else {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "no_source",
            "this workspace does not say which folder its papers came from",
        ));
    };
    Ok(ReviewParams {
        source,
        spec: ReviewSpec {
            question,
            criteria: params
                .criteria
                .iter()
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .collect(),
            engine: params.engine,
            protocol: None,
        },
        workspace: Some(params.workspace),
        ingest: ctx.ingest_options()?,
        profile: params.profile,
        caps: Caps {
            max_tokens: params.max_tokens,
            max_cost_usd: params.max_cost_usd,
        },
        lookups: params.lookups,
        pilot: params.pilot,
        dual: params.dual,
        second_profile: params.second_profile,
        batch: batch_asked(params.batch, None),
    })
}

/// Ask the run in `workspace` to stop; it writes its state and ends with a
/// `Cancelled` event, and starting it again resumes. False when none runs.
pub fn review_cancel(ctx: &AppContext, workspace: &std::path::Path) -> bool {
    ctx.cancel_run(workspace)
}
