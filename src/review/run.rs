//! Running a review over a folder: workspace, ingestion, engine, results,
//! reports. Everything it decides is written to the workspace first; a second
//! run on the same workspace reuses every extraction and every result whose
//! inputs have not changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

pub use super::engine::{AgentSetup, EngineSetup};
use super::outputs::ReviewFiles;

use super::dual::DualFile;
use super::engine::EngineRun;
use super::engine::agent::AgentReport;
use super::enrich::{EnrichOutcome, enrich_papers};
use super::failures::PaperFailure;
use super::imports::{import_read, is_records_source};
use super::inputs::{Inputs, InputsFile};
use super::source::{canonical_source, register_papers};
use super::{PaperResult, ReviewError, ReviewSpec, ReviewStatus, Verdict, paper_text, report};
use crate::agent::{EventSink, PaperPhase, RunEvent};
use crate::blocking::blocking;
use crate::pdf::find_pdfs;
use crate::pdf::ingest::{IngestOptions, chain_version, extract_all};
use crate::pdf::metadata::read_metadata;
use crate::scholar::Lookup;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{
    PaperId, PaperMeta, PaperRecord, PaperStatus, RunId, RunRecord, RunStatus, TaskMeta,
    TaskStatus, Workspace, WorkspaceId, WsPath, layout,
};

/// What to review and how.
#[derive(Clone)]
pub struct ReviewRequest {
    /// A folder of PDFs or one PDF.
    pub source: PathBuf,
    pub spec: ReviewSpec,
    /// The workspace folder: opened when it holds one, else created.
    pub workspace: PathBuf,
    pub ingest: IngestOptions,
    pub engine: EngineSetup,
    /// Look the papers up in the scholarly indexes; `None` stays offline.
    pub lookup: Option<Arc<Lookup>>,
}

/// The outcome, as `--json` prints it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSummary {
    pub workspace: PathBuf,
    pub report: PathBuf,
    pub engine: String,
    pub counts: report::Counts,
    pub papers: Vec<PaperLine>,
    /// How the agents' run went (agent engine).
    pub agent: Option<AgentReport>,
    /// How the run ended; a cancelled or stopped one resumes.
    pub status: ReviewStatus,
    /// How the scholarly lookups went (`None` offline).
    pub lookups: Option<EnrichOutcome>,
}

/// One file of the review.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperLine {
    /// Exactly, even when not valid UTF-8 ([`crate::workspace::os_path`]).
    #[serde(serialize_with = "crate::workspace::os_path::serialize")]
    pub file: PathBuf,
    pub sha256: String,
    pub status: String,
    pub reason: Option<String>,
    pub title: Option<String>,
    /// Authors, year, DOI, arXiv id, venue, abstract, and where each came from.
    pub meta: PaperMeta,
    pub score: Option<f64>,
    pub verdict: Option<Verdict>,
    /// Why a readable paper has no score: the model could not read it (the
    /// reason it gave), or the run stopped before it. None when scored.
    pub not_scored: Option<String>,
    /// Why its reading is stale (made under earlier inputs), when it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
}

/// Review `request.source` in `request.workspace`: register and extract the
/// PDFs, run the engine, write results, the report and the exports. Events go
/// to `events`; `cancel` stops the run at the next safe point, leaving a
/// workspace that resumes.
pub async fn run_review(
    request: ReviewRequest,
    events: Arc<dyn EventSink>,
    cancel: CancellationToken,
) -> Result<ReviewSummary, ReviewError> {
    let (workspace, papers) = ingest(&request, events.clone()).await?;
    if !papers.iter().any(|p| p.status.is_readable()) {
        return Err(ReviewError::NoReadablePaper {
            path: request.source.clone(),
            why: why_none_readable(&papers, &request.source),
        });
    }
    {
        let (ws, spec) = (workspace.clone(), request.spec.clone());
        let dual = dual_of(&request.engine);
        let model = model_of(&request.engine);
        blocking(move || {
            record_start(&ws, &spec, model.as_deref())?;
            record_dual(&ws, dual)
        })
        .await?;
    }
    let run_id = new_run_id();
    events.emit(RunEvent::RunStarted {
        run_id: run_id.0.clone(),
        engine: request.spec.engine.name().to_owned(),
        papers: papers.len(),
    });
    let started_at = now_rfc3339();
    // The lookups run beside the engine (which reads text, not bibliographic
    // records) and are joined before the report is written.
    let lookups = request.lookup.clone().map(|lookup| {
        events.emit(RunEvent::LookupsStarted {
            papers: papers
                .iter()
                .filter(|p| p.status == PaperStatus::Ok)
                .count(),
        });
        let (ws, papers) = (workspace.clone(), papers.clone());
        tokio::spawn(async move { enrich_papers(&ws, &papers, lookup).await })
    });
    save_run(
        &workspace,
        &run_id,
        &request.spec,
        RunStatus::Running,
        &started_at,
        &[],
    )?;
    let ran = request
        .engine
        .run(&workspace, &request.spec, events.clone(), cancel.clone())
        .await?;
    let lookups = match lookups {
        Some(task) => finish_lookups(task, &cancel).await,
        None => None,
    };
    if let Some(outcome) = &lookups {
        events.emit(RunEvent::LookupsDone {
            looked_up: outcome.looked_up,
            matched: outcome.matched,
            notices: outcome.stats.notices.clone(),
        });
    }
    let ws = workspace.clone();
    let spec = request.spec.clone();
    let summary = blocking(move || write_report(&ws, &spec, ran, &run_id, &started_at))
        .await
        .map_err(ReviewError::on_write)?;
    let summary = ReviewSummary { lookups, ..summary };
    events.emit(last_event(&summary));
    Ok(summary)
}

/// Why no paper of the source can be read, in words: "the folder holds no
/// PDF", or "none of its 3 PDFs has text: 2 need a password, 1 is a scan
/// with no text layer (OCR is off or found nothing)".
fn why_none_readable(papers: &[PaperRecord], source: &Path) -> String {
    let records = is_records_source(source);
    if papers.is_empty() && crate::records::zotero::review_title(source).is_some() {
        return "the Zotero collection holds no item (only notes or nothing)".to_owned();
    }
    if papers.is_empty() && records {
        return "the export holds no record".to_owned();
    }
    if papers.is_empty() {
        return "the folder holds no PDF".to_owned();
    }
    if records {
        return format!(
            "none of its {} records has a title or an abstract",
            papers.len()
        );
    }
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for p in papers {
        let kind = match p.status {
            PaperStatus::Encrypted => "need a password",
            PaperStatus::NeedsOcr => "are scans with no text layer (OCR is off or found nothing)",
            PaperStatus::Damaged => "are damaged",
            PaperStatus::NotPdf => "are not PDFs",
            PaperStatus::TooLarge => "are over the size or page limit",
            PaperStatus::Timeout => "took too long to extract",
            PaperStatus::Pending | PaperStatus::Ok => "were not extracted",
        };
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let files = if papers.len() == 1 {
        "its 1 PDF".to_owned()
    } else {
        format!("its {} PDFs", papers.len())
    };
    format!("none of {files} has text to read: {}", kinds.join(", "))
}

/// The event that closes a run, from how it ended.
fn last_event(summary: &ReviewSummary) -> RunEvent {
    let agent = summary.agent.as_ref();
    match summary.status {
        ReviewStatus::Cancelled => RunEvent::Cancelled,
        ReviewStatus::Stopped => RunEvent::Failed {
            kind: "budget_exhausted".into(),
            message: agent.and_then(|a| a.stopped.clone()).unwrap_or_default(),
        },
        ReviewStatus::Failed => RunEvent::Failed {
            kind: "no_paper_scored".into(),
            // A pilot reads only some of the papers: those it read count.
            message: format!(
                "none of the {} papers read could be scored; the report says why for each",
                agent.map_or(summary.counts.screened, |a| a.failed)
            ),
        },
        ReviewStatus::Done | ReviewStatus::Incomplete | ReviewStatus::Pilot => RunEvent::Finished {
            covered_by_agent: agent.map_or(0, |a| a.covered_by_agent),
            covered_by_sweep: agent.map_or(0, |a| a.covered_by_sweep),
        },
    }
}

/// Open or create the workspace, register the source's PDFs and extract those
/// not extracted yet (no model is called). Returns the workspace and the
/// source's papers.
pub async fn ingest(
    request: &ReviewRequest,
    events: Arc<dyn EventSink>,
) -> Result<(Workspace, Vec<PaperRecord>), ReviewError> {
    let (workspace, papers) = {
        let request = request.clone();
        blocking(move || prepare(&request)).await?
    };
    let papers = extract_papers(&workspace, papers, &request.ingest, events).await?;
    Ok((workspace, papers))
}

/// Extract the text of those of `papers` not extracted yet (by this version of
/// the extraction chain), saving each paper's text, status and metadata.
/// Returns the papers as they are now.
pub async fn extract_papers(
    workspace: &Workspace,
    papers: Vec<PaperRecord>,
    options: &IngestOptions,
    events: Arc<dyn EventSink>,
) -> Result<Vec<PaperRecord>, ReviewError> {
    let to_extract: Vec<PaperRecord> = papers
        .iter()
        .filter(|p| needs_extraction(workspace, p))
        .cloned()
        .collect();
    events.emit(RunEvent::ExtractionStarted {
        papers: papers.len(),
        to_extract: to_extract.len(),
    });
    for p in &to_extract {
        events.emit(RunEvent::PaperStatus {
            paper: p.id.0.clone(),
            phase: PaperPhase::Extracting,
            detail: None,
        });
    }
    let files: Vec<(PathBuf, String)> = to_extract
        .iter()
        .map(|p| (p.file.clone(), p.sha256.clone()))
        .collect();
    let progress = events.clone();
    let ids: Vec<String> = to_extract.iter().map(|p| p.id.0.clone()).collect();
    let extracted = extract_all(files, options, move |index, ex| {
        progress.emit(RunEvent::Extracted {
            paper: ids.get(index).cloned().unwrap_or_default(),
            status: ex.status.as_str().to_owned(),
            from_cache: ex.from_cache,
        })
    })
    .await;

    let ws = workspace.clone();
    blocking(move || {
        for (mut paper, ex) in to_extract.into_iter().zip(extracted) {
            let metadata = read_metadata(&ex.info, &ex.pages, &ex.head);
            paper.status = ex.status;
            paper.reason = ex.reason.clone();
            paper.pages = ex.pages.len();
            paper.ocr = ex.ocr();
            paper.extractor = Some(format!(
                "{} ({})",
                ex.extractor().unwrap_or_else(|| "none".into()),
                chain_version()
            ));
            paper.title = metadata.title.or_else(|| Some(file_title(&paper.file)));
            paper.meta = metadata.meta;
            if !ex.pages.is_empty() {
                paper_text::save(&ws, &paper.id, &ex.pages)?;
            }
            ws.save_paper(&paper)?;
        }
        Ok::<_, ReviewError>(())
    })
    .await?;

    let ws = workspace.clone();
    blocking(move || {
        let ids: std::collections::HashSet<PaperId> = papers.into_iter().map(|p| p.id).collect();
        Ok::<_, ReviewError>(
            ws.papers()?
                .into_iter()
                .filter(|p| ids.contains(&p.id))
                .collect::<Vec<_>>(),
        )
    })
    .await
}

/// Open or create the workspace and register the source's papers (its
/// PDFs, or, for a search export, its records) and those added since: the
/// PDFs of the folders attached to it and every record imported into it.
fn prepare(request: &ReviewRequest) -> Result<(Workspace, Vec<PaperRecord>), ReviewError> {
    let source = canonical_source(&request.source)?;
    let (workspace, mut papers) = if is_records_source(&source) {
        prepare_records(request, &source)?
    } else {
        let pdfs = find_pdfs(&source)?;
        let workspace = open_or_create(&request.workspace, &source)?;
        register_papers(&workspace, &pdfs)?;
        let papers = papers_of_files(&workspace, &pdfs)?;
        (workspace, papers)
    };
    let mut taking: std::collections::HashSet<PaperId> =
        papers.iter().map(|p| p.id.clone()).collect();
    for paper in added_since(&workspace)? {
        if taking.insert(paper.id.clone()) {
            papers.push(paper);
        }
    }
    // A record's full text is read with it, wherever its PDF lives (a
    // Zotero item's is in Zotero's storage, in no folder of the review).
    let records: std::collections::HashSet<PaperId> = papers
        .iter()
        .filter(|p| p.is_record())
        .map(|p| p.id.clone())
        .collect();
    for paper in workspace.papers()? {
        let of_a_record = paper
            .full_text_of
            .as_ref()
            .is_some_and(|r| records.contains(r));
        if of_a_record && taking.insert(paper.id.clone()) {
            papers.push(paper);
        }
    }
    // A paper the researcher set aside as a duplicate is never read.
    papers.retain(|p| p.duplicate_of.is_none());
    Ok((workspace, papers))
}

/// The papers of `pdfs` as the workspace knows them. Only the files found
/// now take part, even if the workspace knew others (a PDF taken out of
/// the folder is out of the review).
fn papers_of_files(
    workspace: &Workspace,
    pdfs: &[crate::pdf::FoundPdf],
) -> Result<Vec<PaperRecord>, ReviewError> {
    let wanted: std::collections::HashSet<&Path> = pdfs.iter().map(|p| p.path.as_path()).collect();
    Ok(workspace
        .papers()?
        .into_iter()
        .filter(|p| {
            wanted.contains(p.file.as_path())
                || p.duplicates.iter().any(|d| wanted.contains(d.as_path()))
        })
        .collect())
}

/// The papers added to the review beyond its source: every record imported
/// into it, and the PDFs now in the folders attached to it (a folder gone
/// from disk adds nothing, with a warning).
fn added_since(workspace: &Workspace) -> Result<Vec<PaperRecord>, ReviewError> {
    let mut pdfs = Vec::new();
    for folder in workspace.task()?.folders {
        match find_pdfs(&folder) {
            Ok(found) => pdfs.extend(found),
            Err(e) => {
                tracing::warn!(folder = %folder.display(), error = %e, "an attached folder could not be read")
            }
        }
    }
    register_papers(workspace, &pdfs)?;
    let mut papers = papers_of_files(workspace, &pdfs)?;
    papers.extend(workspace.papers()?.into_iter().filter(|p| p.is_record()));
    Ok(papers)
}

/// A search export as the source: its records are read (an unreadable file
/// is refused before any workspace is made) and imported.
fn prepare_records(
    request: &ReviewRequest,
    source: &Path,
) -> Result<(Workspace, Vec<PaperRecord>), ReviewError> {
    let export = crate::records::read_file(source)?;
    let workspace = open_or_create(&request.workspace, source)?;
    let mut known = workspace
        .papers()?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let mut ids = Vec::new();
    import_read(&workspace, &mut known, source, &export, &mut ids)?;
    let ids: std::collections::HashSet<String> = ids.into_iter().collect();
    let papers = known
        .into_values()
        .filter(|p| ids.contains(&p.id.0))
        .collect();
    Ok((workspace, papers))
}

fn open_or_create(dir: &Path, source: &Path) -> Result<Workspace, ReviewError> {
    Ok(if dir.join(layout::TASK_FILE).is_file() {
        Workspace::open(dir)?
    } else {
        Workspace::create(dir, &task_for(source, dir))?
    })
}

/// The task now runs, for this question and these criteria.
fn record_start(ws: &Workspace, spec: &ReviewSpec, model: Option<&str>) -> Result<(), ReviewError> {
    if InputsFile::record(ws, Inputs::new(spec, model))? {
        // The synthesis was written for the previous inputs: it is no
        // synthesis of this review's (and while it stood, the writer would
        // not write one). This run writes it again.
        let synthesis = WsPath::parse(layout::SYNTHESIS_FILE)?;
        if ws.entry(&synthesis).is_ok() {
            ws.remove_file(&synthesis)?;
        }
    }
    let mut task = ws.task()?;
    task.question = Some(spec.question.clone());
    task.criteria = spec.criteria.clone();
    task.status = TaskStatus::Running;
    task.updated_at = now_rfc3339();
    Ok(ws.save_task(&task)?)
}

/// The model an agent run reads with.
fn model_of(engine: &EngineSetup) -> Option<String> {
    match engine {
        EngineSetup::Agent(setup) => Some(setup.endpoints.settings().model.clone()),
        _ => None,
    }
}

/// The dual reading a run asks for: its policy and second model.
fn dual_of(engine: &EngineSetup) -> Option<DualFile> {
    match engine {
        EngineSetup::Agent(AgentSetup {
            dual: Some(dual),
            endpoints,
            ..
        }) => {
            let second = dual.second.as_ref().map_or(endpoints, |(_, p)| p);
            Some(DualFile::new(
                dual.policy,
                Some(second.settings().model.clone()),
                dual.second.as_ref().map(|(profile, _)| profile.clone()),
            ))
        }
        _ => None,
    }
}

/// Keep the run's dual reading in `dual.json`, or take it away for a run
/// without one: older second readings stay on disk, deciding nothing.
fn record_dual(ws: &Workspace, dual: Option<DualFile>) -> Result<(), ReviewError> {
    match dual {
        Some(dual) => dual.save(ws)?,
        None => DualFile::remove(ws)?,
    }
    Ok(())
}

fn task_for(source: &Path, dir: &Path) -> TaskMeta {
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "review".into());
    TaskMeta::new(WorkspaceId(id), file_title(source), source)
}

fn file_title(path: &Path) -> String {
    if let Some(title) = crate::records::zotero::review_title(path) {
        return title;
    }
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Extract again unless this chain already produced the record (and its
/// text). A search record has no file to extract: its text is written on import.
fn needs_extraction(ws: &Workspace, paper: &PaperRecord) -> bool {
    if paper.is_record() {
        return false;
    }
    let current = paper
        .extractor
        .as_deref()
        .is_some_and(|e| e.contains(chain_version()));
    !current
        || (paper.status.is_readable() && !matches!(paper_text::load(ws, &paper.id), Ok(Some(_))))
}

fn new_run_id() -> RunId {
    // Time for sorting by eye, a random suffix because two runs can start within
    // the same second.
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    RunId(format!(
        "run-{}-{}",
        now_rfc3339().replace([':', '-'], ""),
        &suffix[..8]
    ))
}

fn save_run(
    ws: &Workspace,
    id: &RunId,
    spec: &ReviewSpec,
    status: RunStatus,
    started_at: &str,
    undriven: &[String],
) -> Result<(), ReviewError> {
    let finished_at = (status != RunStatus::Running).then(now_rfc3339);
    ws.save_run(&RunRecord {
        id: id.clone(),
        engine: spec.engine.name().into(),
        status,
        started_at: started_at.to_owned(),
        finished_at,
        undriven: undriven.to_vec(),
    })?;
    Ok(())
}

/// Write the report and exports from what the engine produced, close the run
/// record and the task, and sum it all up.
fn write_report(
    ws: &Workspace,
    spec: &ReviewSpec,
    ran: EngineRun,
    run_id: &RunId,
    started_at: &str,
) -> Result<ReviewSummary, ReviewError> {
    let EngineRun {
        results,
        agent,
        model,
        outcome,
    } = ran;
    let undriven = agent
        .as_ref()
        .map(|a| a.undriven.clone())
        .unwrap_or_default();
    let files = ReviewFiles::assemble(ws, spec.clone(), results, model, undriven)?;
    files.write_all(ws, started_at)?;
    let counts = files.counts();
    let status = ReviewStatus::of(&outcome, counts.screened, counts.not_scored);
    let (run_status, task_status) = status.recorded();
    save_run(ws, run_id, spec, run_status, started_at, &files.undriven)?;
    let mut task = files.task.clone();
    task.status = task_status;
    task.updated_at = now_rfc3339();
    ws.save_task(&task)?;

    Ok(ReviewSummary {
        workspace: ws.root().to_path_buf(),
        report: ws.root().join(layout::REPORT_FILE),
        engine: match &files.model {
            Some(m) => format!("{} · {m}", spec.engine.label()),
            None => spec.engine.label().to_owned(),
        },
        counts,
        papers: paper_lines(&files.papers, &files.results, &files.failures, &files.stale),
        agent,
        status,
        lookups: None,
    })
}

/// The lookups' outcome; a cancelled review does not wait for them (what was
/// answered is cached for the next run), and a failed lookup only loses the
/// lookups: the review stands on what the PDFs say.
async fn finish_lookups(
    task: tokio::task::JoinHandle<Result<EnrichOutcome, ReviewError>>,
    cancel: &CancellationToken,
) -> Option<EnrichOutcome> {
    let abort = task.abort_handle();
    let joined = tokio::select! {
        joined = task => joined,
        () = cancel.cancelled() => {
            abort.abort();
            return None;
        }
    };
    match joined {
        Ok(Ok(outcome)) => Some(outcome),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the scholarly lookups failed; keeping what the PDFs say");
            None
        }
        Err(e) => {
            tracing::warn!(error = %e, "the scholarly lookups stopped");
            None
        }
    }
}

fn paper_lines(
    papers: &[PaperRecord],
    results: &BTreeMap<PaperId, PaperResult>,
    failures: &BTreeMap<PaperId, PaperFailure>,
    stale: &BTreeMap<PaperId, String>,
) -> Vec<PaperLine> {
    let mut lines = Vec::new();
    for p in papers {
        let result = results.get(&p.id);
        lines.push(PaperLine {
            file: p.file.clone(),
            sha256: p.sha256.clone(),
            status: p.status.as_str().to_owned(),
            reason: p.reason.clone(),
            title: p.title.clone(),
            meta: p.meta.clone(),
            score: result.map(|r| r.score),
            verdict: result.map(|r| r.verdict),
            not_scored: (p.status.is_readable() && result.is_none()).then(|| {
                match (stale.get(&p.id), failures.get(&p.id)) {
                    (Some(why), _) => format!("stale, {why}: read again on the next run"),
                    (None, Some(f)) => f.reason.clone(),
                    (None, None) => report::NOT_READ.to_owned(),
                }
            }),
            stale: stale.get(&p.id).cloned(),
        });
        for copy in &p.duplicates {
            lines.push(PaperLine {
                file: copy.clone(),
                sha256: p.sha256.clone(),
                status: "duplicate".into(),
                reason: Some(format!("same content as {}", p.file.display())),
                title: p.title.clone(),
                meta: p.meta.clone(),
                score: None,
                verdict: None,
                not_scored: None,
                stale: None,
            });
        }
    }
    lines.sort_by(|a, b| a.file.cmp(&b.file));
    lines
}
