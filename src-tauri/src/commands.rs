//! The Tauri commands: each forwards to the core handler of the same name. Errors
//! cross the boundary as `{kind, code, message}`; nothing here can panic.

use std::path::PathBuf;
use std::sync::Arc;

use quire::agent::{EventSink, RunEvent};
use quire::commands::asks::{self, AskParams};
use quire::commands::models::{self, ModelListing, ModelProfileSaveParams, ModelSetup};
use quire::commands::openalex::{self, OpenAlexKeyParams, OpenAlexStatus};
use quire::commands::protocol::{self, ProtocolParams, ProtocolView};
use quire::commands::records::{self, AttachParams, ImportParams, SetAsideParams};
use quire::commands::review_rows::{RowQuery, RowsPage};
use quire::commands::review_view::{
    self as view, ExportWritten, PaperDetail, PaperLabelParams, PaperMetaParams, PaperRow,
    ReviewView,
};
use quire::commands::reviews::{self, ReviewLaunchParams};
use quire::commands::screening::{self, ScreeningParams};
use quire::commands::snowball::{self, CopiesParams, FetchParams, SnowballParams};
use quire::commands::table::{self, ColumnsParams, CorrectParams, FillParams};
use quire::commands::validation::{ValidateParams, ValidationView};
use quire::commands::zotero::{
    self, ZoteroCollections, ZoteroKeyParams, ZoteroKeyStatus, ZoteroLocalAccess, ZoteroOpenParams,
    ZoteroOpened, ZoteroPushParams,
};
use quire::commands::{
    self as core, AppContext, CommandError, WorkspaceCreateParams, WorkspaceListResponse,
    WorkspaceSummary,
};
use quire::review::ask::estimate::Estimate as WorkEstimate;
use quire::review::ask::run::Progress as AskProgress;
use quire::review::ask::{AskRecord, Scope};
use quire::review::estimate::Estimate;
use quire::review::fulltext::FullTextSummary;
use quire::review::imports::{DuplicateGroup, ImportProgress, ImportSummary};
use quire::review::outputs::ExportFormat;
use quire::review::queue::ScreeningView;
use quire::review::report::prisma::Flow;
use quire::review::snowball::copies::{CopyOffer, FetchOutcome};
use quire::review::snowball::{Plan as SnowballPlan, RoundSummary as SnowballRound};
use quire::review::table::fill::{FillOutcome, FillProgress};
use quire::review::table::{Column, TableView};
use quire::review::zotero_push::PushSummary as ZoteroPushSummary;
use tauri::ipc::{Channel, Response};
use tauri::{AppHandle, Emitter, Runtime, State};

/// Sent to every window after a workspace is created or reopened, with its id.
pub const WORKSPACES_CHANGED: &str = "workspaces-changed";

#[tauri::command]
pub async fn workspace_create<R: Runtime>(
    app: AppHandle<R>,
    ctx: State<'_, AppContext>,
    params: WorkspaceCreateParams,
) -> Result<WorkspaceSummary, CommandError> {
    let summary = core::workspace_create(&ctx, params).await?;
    if let Err(e) = app.emit(WORKSPACES_CHANGED, &summary.id) {
        tracing::warn!(error = %e, "could not notify windows of the new workspace");
    }
    Ok(summary)
}

#[tauri::command]
pub async fn workspace_list(
    ctx: State<'_, AppContext>,
) -> Result<WorkspaceListResponse, CommandError> {
    core::workspace_list(&ctx).await
}

#[tauri::command]
pub async fn model_setup(ctx: State<'_, AppContext>) -> Result<ModelSetup, CommandError> {
    models::model_setup(&ctx).await
}

#[tauri::command]
pub async fn model_profile_save(
    ctx: State<'_, AppContext>,
    params: ModelProfileSaveParams,
) -> Result<ModelSetup, CommandError> {
    models::model_profile_save(&ctx, params).await
}

#[tauri::command]
pub async fn model_profile_check(
    ctx: State<'_, AppContext>,
    profile: Option<String>,
) -> Result<ModelListing, CommandError> {
    models::model_profile_check(&ctx, profile).await
}

#[tauri::command]
pub async fn openalex_status(
    ctx: State<'_, AppContext>,
    check: bool,
) -> Result<OpenAlexStatus, CommandError> {
    openalex::openalex_status(&ctx, check).await
}

#[tauri::command]
pub async fn openalex_key_save(
    ctx: State<'_, AppContext>,
    params: OpenAlexKeyParams,
) -> Result<OpenAlexStatus, CommandError> {
    openalex::openalex_key_save(&ctx, params).await
}

#[tauri::command]
pub async fn openalex_key_remove(
    ctx: State<'_, AppContext>,
) -> Result<OpenAlexStatus, CommandError> {
    openalex::openalex_key_remove(&ctx).await
}

#[tauri::command]
pub async fn zotero_collections(
    ctx: State<'_, AppContext>,
) -> Result<ZoteroCollections, CommandError> {
    zotero::zotero_collections(&ctx).await
}

#[tauri::command]
pub async fn zotero_open(
    ctx: State<'_, AppContext>,
    params: ZoteroOpenParams,
) -> Result<ZoteroOpened, CommandError> {
    zotero::zotero_open(&ctx, params).await
}

#[tauri::command]
pub async fn zotero_key_status(
    ctx: State<'_, AppContext>,
) -> Result<ZoteroKeyStatus, CommandError> {
    zotero::zotero_key_status(&ctx).await
}

#[tauri::command]
pub async fn zotero_key_save(
    ctx: State<'_, AppContext>,
    params: ZoteroKeyParams,
) -> Result<ZoteroKeyStatus, CommandError> {
    zotero::zotero_key_save(&ctx, params).await
}

#[tauri::command]
pub async fn zotero_key_remove(
    ctx: State<'_, AppContext>,
) -> Result<ZoteroKeyStatus, CommandError> {
    zotero::zotero_key_remove(&ctx).await
}

#[tauri::command]
pub async fn zotero_push(
    ctx: State<'_, AppContext>,
    params: ZoteroPushParams,
) -> Result<ZoteroPushSummary, CommandError> {
    zotero::zotero_push(&ctx, params).await
}

#[tauri::command]
pub async fn zotero_authorize(
    ctx: State<'_, AppContext>,
) -> Result<ZoteroLocalAccess, CommandError> {
    zotero::zotero_authorize(&ctx).await
}

#[tauri::command]
pub async fn snowball_plan(
    ctx: State<'_, AppContext>,
    params: SnowballParams,
) -> Result<SnowballPlan, CommandError> {
    snowball::snowball_plan(&ctx, params).await
}

#[tauri::command]
pub async fn snowball_run(
    ctx: State<'_, AppContext>,
    params: SnowballParams,
) -> Result<SnowballRound, CommandError> {
    snowball::snowball_run(&ctx, params).await
}

#[tauri::command]
pub async fn snowball_copies(params: CopiesParams) -> Result<Vec<CopyOffer>, CommandError> {
    snowball::snowball_copies(params).await
}

#[tauri::command]
pub async fn snowball_fetch(
    ctx: State<'_, AppContext>,
    params: FetchParams,
) -> Result<Vec<FetchOutcome>, CommandError> {
    snowball::snowball_fetch(&ctx, params).await
}

/// Run events to the window that started the run, over its IPC channel.
struct ChannelSink(Channel<RunEvent>);

impl EventSink for ChannelSink {
    fn emit(&self, event: RunEvent) {
        // A closed window loses only the progress display; the run goes on.
        if let Err(e) = self.0.send(event) {
            tracing::debug!(error = %e, "run event not delivered");
        }
    }
}

/// A progress callback that sends each report to the window over `channel`.
fn progress_to<T>(channel: Channel<T>) -> Arc<dyn Fn(T) + Send + Sync>
where
    T: tauri::ipc::IpcResponse + Send + Sync + 'static,
{
    Arc::new(move |report: T| {
        // A closed window loses only the progress display; the work goes on.
        if let Err(e) = channel.send(report) {
            tracing::debug!(error = %e, "progress not delivered");
        }
    })
}

#[tauri::command]
pub async fn review_open(
    ctx: State<'_, AppContext>,
    workspace: PathBuf,
) -> Result<ReviewView, CommandError> {
    crate::heap::giving_back(view::review_open(&ctx, workspace).await)
}

/// Build a review's rows ahead of its open.
#[tauri::command]
pub async fn review_warm(
    ctx: State<'_, AppContext>,
    workspace: PathBuf,
) -> Result<(), CommandError> {
    crate::heap::giving_back(view::review_warm(&ctx, workspace).await)
}

/// A page of the review's rows under the table's filters and order.
#[tauri::command]
pub async fn review_rows(
    ctx: State<'_, AppContext>,
    workspace: PathBuf,
    query: RowQuery,
) -> Result<RowsPage, CommandError> {
    crate::heap::giving_back(view::review_rows(&ctx, workspace, query).await)
}

#[tauri::command]
pub async fn review_prepare(
    ctx: State<'_, AppContext>,
    workspace: PathBuf,
) -> Result<ReviewView, CommandError> {
    view::review_prepare(&ctx, workspace).await
}

#[tauri::command]
pub async fn review_estimate(
    ctx: State<'_, AppContext>,
    params: ReviewLaunchParams,
) -> Result<Estimate, CommandError> {
    reviews::review_launch_estimate(&ctx, params).await
}

#[tauri::command]
pub async fn review_start<R: Runtime>(
    app: AppHandle<R>,
    ctx: State<'_, AppContext>,
    params: ReviewLaunchParams,
    on_event: Channel<RunEvent>,
) -> Result<(), CommandError> {
    let workspace = params.workspace.clone();
    reviews::review_launch(&ctx, params, Arc::new(ChannelSink(on_event))).await?;
    if let Err(e) = app.emit(WORKSPACES_CHANGED, workspace) {
        tracing::warn!(error = %e, "could not notify windows of the new run");
    }
    Ok(())
}

#[tauri::command]
pub fn review_cancel(ctx: State<'_, AppContext>, workspace: PathBuf) -> bool {
    reviews::review_cancel(&ctx, &workspace)
}

#[tauri::command]
pub async fn paper_detail(workspace: PathBuf, paper: String) -> Result<PaperDetail, CommandError> {
    view::paper_detail(workspace, paper).await
}

/// The PDF's bytes as a binary IPC response (no JSON array of numbers).
#[tauri::command]
pub async fn paper_pdf(workspace: PathBuf, paper: String) -> Result<Response, CommandError> {
    Ok(Response::new(view::paper_pdf(workspace, paper).await?))
}

#[tauri::command]
pub async fn paper_label(
    ctx: State<'_, AppContext>,
    params: PaperLabelParams,
) -> Result<PaperRow, CommandError> {
    view::paper_label(&ctx, params).await
}

/// Search records (RIS, PubMed/MEDLINE, BibTeX, CSV) into a review.
#[tauri::command]
pub async fn records_import(
    ctx: State<'_, AppContext>,
    params: ImportParams,
    on_progress: Channel<ImportProgress>,
) -> Result<ImportSummary, CommandError> {
    records::records_import(&ctx, params, progress_to(on_progress)).await
}

/// A folder of PDFs attached to a review as its records' full text.
#[tauri::command]
pub async fn records_attach(
    ctx: State<'_, AppContext>,
    params: AttachParams,
) -> Result<FullTextSummary, CommandError> {
    records::records_attach(&ctx, params).await
}

/// Set a paper aside as a copy of another, or put it back.
#[tauri::command]
pub async fn paper_set_aside(
    ctx: State<'_, AppContext>,
    params: SetAsideParams,
) -> Result<Vec<DuplicateGroup>, CommandError> {
    records::paper_set_aside(&ctx, params).await
}

/// Where screening stands and the next papers, ordered by the labels so far.
#[tauri::command]
pub async fn screening_next(
    ctx: State<'_, AppContext>,
    params: ScreeningParams,
) -> Result<ScreeningView, CommandError> {
    screening::screening_next(&ctx, params).await
}

#[tauri::command]
pub async fn paper_meta(
    ctx: State<'_, AppContext>,
    params: PaperMetaParams,
) -> Result<PaperDetail, CommandError> {
    view::paper_meta(&ctx, params).await
}

#[tauri::command]
pub async fn review_render(
    workspace: PathBuf,
    format: ExportFormat,
) -> Result<String, CommandError> {
    view::review_render(workspace, format).await
}

#[tauri::command]
pub async fn review_export(
    workspace: PathBuf,
    format: ExportFormat,
    dest: PathBuf,
) -> Result<ExportWritten, CommandError> {
    view::review_export(workspace, format, dest).await
}

#[tauri::command]
pub async fn review_flow(workspace: PathBuf) -> Result<Flow, CommandError> {
    view::review_flow(workspace).await
}

/// Propose a validation sample, apply or reset cut-offs, and assess the
/// engine on the researcher's labels.
#[tauri::command]
pub async fn review_validation(params: ValidateParams) -> Result<ValidationView, CommandError> {
    quire::commands::validation::validate(params).await
}

/// Where the review's protocol stands for a question and its criteria.
#[tauri::command]
pub async fn review_protocol(params: ProtocolParams) -> Result<ProtocolView, CommandError> {
    protocol::protocol_show(params).await
}

/// Have the model draft the protocol; the draft waits for approval.
#[tauri::command]
pub async fn review_protocol_draft(
    ctx: State<'_, AppContext>,
    params: ProtocolParams,
) -> Result<ProtocolView, CommandError> {
    protocol::protocol_draft(&ctx, params).await
}

/// Approve the researcher's text as the protocol every paper is read by.
#[tauri::command]
pub async fn review_protocol_approve(params: ProtocolParams) -> Result<ProtocolView, CommandError> {
    protocol::protocol_approve(params).await
}

/// Answer a question across the review's papers (or, with no model, give
/// the best passages); one at a time per review.
#[tauri::command]
pub async fn review_ask(
    ctx: State<'_, AppContext>,
    params: AskParams,
    on_progress: Channel<AskProgress>,
) -> Result<AskRecord, CommandError> {
    asks::ask_from_app(&ctx, params, progress_to(on_progress)).await
}

/// Stop the question being answered; the papers read so far are kept.
#[tauri::command]
pub fn review_ask_cancel(ctx: State<'_, AppContext>, workspace: PathBuf) -> bool {
    asks::ask_cancel(&ctx, &workspace)
}

/// What answering a question would read and spend, before anything is.
#[tauri::command]
pub async fn review_ask_estimate(
    ctx: State<'_, AppContext>,
    params: AskParams,
) -> Result<WorkEstimate, CommandError> {
    asks::ask_estimate(&ctx, params).await
}

/// Put a question in the review's report, or take it out.
#[tauri::command]
pub async fn review_ask_report(
    workspace: PathBuf,
    id: String,
    include: bool,
) -> Result<AskRecord, CommandError> {
    asks::ask_in_report(workspace, id, include).await
}

/// Write a question's answer as Markdown where the save dialog said.
#[tauri::command]
pub async fn review_ask_export(
    workspace: PathBuf,
    id: String,
    dest: PathBuf,
) -> Result<ExportWritten, CommandError> {
    asks::ask_export(workspace, id, dest).await
}

/// The questions asked of the review, newest first.
#[tauri::command]
pub async fn review_asks(workspace: PathBuf) -> Result<Vec<AskRecord>, CommandError> {
    asks::ask_history(workspace).await
}

/// The extraction table for the papers of `scope`.
#[tauri::command]
pub async fn table_view(
    workspace: PathBuf,
    scope: Option<Scope>,
) -> Result<TableView, CommandError> {
    table::table_view(workspace, scope).await
}

/// Add, remove or copy the table's columns.
#[tauri::command]
pub async fn table_columns(params: ColumnsParams) -> Result<Vec<Column>, CommandError> {
    table::table_columns(params).await
}

/// Fill every cell not current for its column; one fill per review at a time.
#[tauri::command]
pub async fn table_fill(
    ctx: State<'_, AppContext>,
    params: FillParams,
    on_progress: Channel<FillProgress>,
) -> Result<FillOutcome, CommandError> {
    table::fill_from_app(&ctx, params, progress_to(on_progress)).await
}

/// What filling the table would read and spend, before anything is.
#[tauri::command]
pub async fn table_estimate(
    ctx: State<'_, AppContext>,
    params: FillParams,
) -> Result<WorkEstimate, CommandError> {
    table::table_estimate(&ctx, params).await
}

/// Stop the table's fill; the cells read so far are kept.
#[tauri::command]
pub fn table_fill_cancel(ctx: State<'_, AppContext>, workspace: PathBuf) -> bool {
    table::fill_cancel(&ctx, &workspace)
}

/// The researcher's value for a cell, or the extracted one checked.
#[tauri::command]
pub async fn table_correct(params: CorrectParams) -> Result<(), CommandError> {
    table::table_correct(params).await
}

/// When this process started its window, for the start-up figure.
pub struct Startup {
    at: std::time::Instant,
    reported: std::sync::atomic::AtomicBool,
}

impl Startup {
    pub fn now() -> Self {
        Self {
            at: std::time::Instant::now(),
            reported: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// The UI painted its first screen: log the time since start-up, once (the
/// desktop benchmark reads this line).
#[tauri::command]
pub fn ui_ready(startup: State<'_, Startup>) {
    if !startup
        .reported
        .swap(true, std::sync::atomic::Ordering::SeqCst)
    {
        let ms = startup.at.elapsed().as_millis() as u64;
        tracing::info!(startup_ms = ms, "first screen painted");
    }
}
