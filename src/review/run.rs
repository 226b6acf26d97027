//! Running a review over a folder: workspace, ingestion, engine, results,
//! reports. Everything it decides is written to the workspace first; a second
//! run on the same workspace reuses every extraction and every result whose
//! inputs have not changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{
    EngineKind, PaperResult, Provenance, ReviewSpec, Verdict, exports, paper_text, report,
};
use crate::commands::workspaces::{existing_workspace_for, new_workspace, register_papers};
use crate::commands::{AppContext, CommandError};
use crate::index::WorkspaceSnapshot;
use crate::offline;
use crate::pdf::find_pdfs;
use crate::pdf::ingest::{CHAIN_VERSION, IngestOptions, extract_all};
use crate::pdf::metadata::read_metadata;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{
    PaperId, PaperRecord, PaperStatus, RunId, RunRecord, RunStatus, TaskMeta, TaskStatus,
    Workspace, WorkspaceId, WsPath, layout,
};

/// What to review and how.
#[derive(Clone, Debug)]
pub struct ReviewRequest {
    /// A folder of PDFs or one PDF.
    pub source: PathBuf,
    pub spec: ReviewSpec,
    /// Use (or create) this workspace instead of the default one for `source`.
    pub workspace: Option<PathBuf>,
    pub ingest: IngestOptions,
}

/// Progress, for bars and the UI.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum ReviewEvent {
    Started {
        workspace: PathBuf,
        papers: usize,
        to_extract: usize,
    },
    Extracted {
        file: PathBuf,
        status: PaperStatus,
        from_cache: bool,
    },
    Reviewed {
        papers: usize,
    },
    Finished,
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
}

/// One file of the review.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperLine {
    pub file: PathBuf,
    pub sha256: String,
    pub status: String,
    pub reason: Option<String>,
    pub title: Option<String>,
    pub score: Option<f64>,
    pub verdict: Option<Verdict>,
}

pub async fn run_review(
    ctx: &AppContext,
    request: ReviewRequest,
    on_event: impl Fn(ReviewEvent) + Send + Sync + 'static,
) -> Result<ReviewSummary, CommandError> {
    let on_event = Arc::new(on_event);
    let (workspace, papers) = {
        let ctx = ctx.clone();
        let request = request.clone();
        blocking(move || prepare(&ctx, &request)).await?
    };
    let to_extract: Vec<PaperRecord> = papers
        .iter()
        .filter(|p| needs_extraction(&workspace, p))
        .cloned()
        .collect();
    on_event(ReviewEvent::Started {
        workspace: workspace.root().to_path_buf(),
        papers: papers.len(),
        to_extract: to_extract.len(),
    });

    let files: Vec<(PathBuf, String)> = to_extract
        .iter()
        .map(|p| (p.file.clone(), p.sha256.clone()))
        .collect();
    let progress = on_event.clone();
    let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
    let extracted = extract_all(files, &request.ingest, move |index, ex| {
        progress(ReviewEvent::Extracted {
            file: paths.get(index).cloned().unwrap_or_default(),
            status: ex.status,
            from_cache: ex.from_cache,
        })
    })
    .await;

    let ws = workspace.clone();
    let spec = request.spec.clone();
    let summary = blocking(move || {
        for (mut paper, ex) in to_extract.into_iter().zip(extracted) {
            let metadata = read_metadata(&ex.info, &ex.pages);
            paper.status = ex.status;
            paper.reason = ex.reason.clone();
            paper.pages = ex.pages.len();
            paper.extractor = Some(format!(
                "{} ({CHAIN_VERSION})",
                ex.extractor().unwrap_or_else(|| "none".into())
            ));
            paper.title = metadata.title.or_else(|| Some(file_title(&paper.file)));
            paper.meta = metadata.meta;
            if !ex.pages.is_empty() {
                paper_text::save(&ws, &paper.id, &ex.pages)?;
            }
            ws.save_paper(&paper)?;
        }
        review_and_report(&ws, &spec)
    })
    .await?;
    on_event(ReviewEvent::Reviewed {
        papers: summary.counts.screened,
    });

    let snapshot = {
        let ws = workspace.clone();
        blocking(move || Ok(WorkspaceSnapshot::of(&ws)?)).await?
    };
    let ctx2 = ctx.clone();
    let indexed = blocking(move || ctx2.with_index(|index| Ok(index.upsert(&snapshot)?))).await;
    if let Err(e) = indexed {
        tracing::warn!(error = %e, "could not update the index; it will be rebuilt on next use");
        ctx.mark_index_stale();
    }
    on_event(ReviewEvent::Finished);
    Ok(summary)
}

/// Open or create the workspace, register the source's PDFs, record the question.
fn prepare(
    ctx: &AppContext,
    request: &ReviewRequest,
) -> Result<(Workspace, Vec<PaperRecord>), CommandError> {
    let source = std::fs::canonicalize(&request.source).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CommandError::new(
            "folder_not_found",
            format!("{} does not exist", request.source.display()),
        ),
        _ => CommandError::new(
            "io_error",
            format!("cannot open {}: {e}", request.source.display()),
        ),
    })?;
    let pdfs = find_pdfs(&source)?;
    let workspace = match &request.workspace {
        Some(dir) if dir.join(layout::TASK_FILE).is_file() => Workspace::open(dir)?,
        Some(dir) => Workspace::create(dir, &task_for(&source, dir))?,
        None => match existing_workspace_for(ctx, &source) {
            Some(root) => Workspace::open(&root)?,
            None => new_workspace(ctx, &source)?,
        },
    };
    register_papers(&workspace, &pdfs)?;
    let mut task = workspace.task()?;
    task.question = Some(request.spec.question.clone());
    task.criteria = request.spec.criteria.clone();
    task.status = TaskStatus::Running;
    task.updated_at = now_rfc3339();
    workspace.save_task(&task)?;
    // Only the files of this source take part, even if the workspace knew others.
    let wanted: std::collections::HashSet<&Path> = pdfs.iter().map(|p| p.path.as_path()).collect();
    let papers = workspace
        .papers()?
        .into_iter()
        .filter(|p| {
            wanted.contains(p.file.as_path())
                || p.duplicates.iter().any(|d| wanted.contains(d.as_path()))
        })
        .collect();
    Ok((workspace, papers))
}

fn task_for(source: &Path, dir: &Path) -> TaskMeta {
    let id = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "review".into());
    TaskMeta::new(WorkspaceId(id), file_title(source), source)
}

fn file_title(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Extract again unless this chain already produced the record (and its text).
fn needs_extraction(ws: &Workspace, paper: &PaperRecord) -> bool {
    let current = paper
        .extractor
        .as_deref()
        .is_some_and(|e| e.contains(CHAIN_VERSION));
    !current
        || (paper.status.is_readable() && !matches!(paper_text::load(ws, &paper.id), Ok(Some(_))))
}

/// Score every readable paper (reusing results whose inputs are unchanged), then
/// write the report and exports.
fn review_and_report(ws: &Workspace, spec: &ReviewSpec) -> Result<ReviewSummary, CommandError> {
    let started_at = now_rfc3339();
    // Time for sorting by eye, a random suffix because two runs can start within
    // the same second.
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    let run_id = RunId(format!(
        "run-{}-{}",
        started_at.replace([':', '-'], ""),
        &suffix[..8]
    ));
    ws.save_run(&RunRecord {
        id: run_id.clone(),
        engine: spec.engine.name().into(),
        status: RunStatus::Running,
        started_at: started_at.clone(),
        finished_at: None,
    })?;
    let papers = ws.papers()?;
    let readable: Vec<&PaperRecord> = papers.iter().filter(|p| p.status.is_readable()).collect();
    let input_hash = input_hash(spec, &readable);
    let mut results: BTreeMap<PaperId, PaperResult> = BTreeMap::new();
    let stale: Vec<&PaperRecord> = readable
        .iter()
        .copied()
        .filter(|p| match load_result(ws, &p.id) {
            Some(r) if r.provenance.input_hash == input_hash => {
                results.insert(p.id.clone(), r);
                false
            }
            _ => true,
        })
        .collect();
    if !stale.is_empty() {
        // Relevance is relative to the collection, so all readable papers are scored
        // together; only the stale ones are written.
        let texts: Vec<Vec<String>> = readable
            .iter()
            .map(|p| paper_text::load(ws, &p.id).map(Option::unwrap_or_default))
            .collect::<Result<_, _>>()?;
        let offline_papers: Vec<offline::Paper<'_>> = readable
            .iter()
            .zip(&texts)
            .map(|(p, pages)| offline::Paper {
                title: p.title.as_deref(),
                pages,
            })
            .collect();
        let findings = match spec.engine {
            EngineKind::Offline => offline::review(&spec.question, &spec.criteria, &offline_papers),
        };
        let finished_at = now_rfc3339();
        for (paper, f) in readable.iter().zip(findings) {
            if results.contains_key(&paper.id) {
                continue;
            }
            let result = PaperResult {
                summary: f.summary,
                key_points: f.key_points,
                score: f.score,
                verdict: f.verdict,
                rationale: f.rationale,
                evidence: f.evidence,
                criteria: f.criteria,
                provenance: Provenance {
                    engine: spec.engine,
                    model: None,
                    input_hash: input_hash.clone(),
                    extractor: paper.extractor.clone(),
                    started_at: started_at.clone(),
                    finished_at: finished_at.clone(),
                },
            };
            ws.write_json(&result_path(&paper.id)?, &result)?;
            results.insert(paper.id.clone(), result);
        }
    }

    let mut task = ws.task()?;
    let date = started_at.clone();
    let data = report::ReportData {
        task: &task,
        spec,
        papers: &papers,
        results: &results,
        date: &date,
    };
    let markdown = report::render(&data);
    ws.write(&WsPath::parse(layout::REPORT_FILE)?, markdown.as_bytes())?;
    for (name, body) in [
        ("report.bib", exports::bibtex(&data)),
        ("report.csv", exports::csv(&data)),
        ("report.ris", exports::ris(&data)),
    ] {
        ws.write(&WsPath::parse(name)?, body.as_bytes())?;
    }

    let counts = data.counts();
    let finished_at = now_rfc3339();
    ws.save_run(&RunRecord {
        id: run_id,
        engine: spec.engine.name().into(),
        status: RunStatus::Done,
        started_at,
        finished_at: Some(finished_at.clone()),
    })?;
    task.status = TaskStatus::Done;
    task.updated_at = finished_at;
    ws.save_task(&task)?;

    Ok(ReviewSummary {
        workspace: ws.root().to_path_buf(),
        report: ws.root().join(layout::REPORT_FILE),
        engine: spec.engine.label().to_owned(),
        counts,
        papers: paper_lines(&papers, &results),
    })
}

fn paper_lines(papers: &[PaperRecord], results: &BTreeMap<PaperId, PaperResult>) -> Vec<PaperLine> {
    let mut lines = Vec::new();
    for p in papers {
        let result = results.get(&p.id);
        lines.push(PaperLine {
            file: p.file.clone(),
            sha256: p.sha256.clone(),
            status: p.status.as_str().to_owned(),
            reason: p.reason.clone(),
            title: p.title.clone(),
            score: result.map(|r| r.score),
            verdict: result.map(|r| r.verdict),
        });
        for copy in &p.duplicates {
            lines.push(PaperLine {
                file: copy.clone(),
                sha256: p.sha256.clone(),
                status: "duplicate".into(),
                reason: Some(format!("same content as {}", p.file.display())),
                title: p.title.clone(),
                score: None,
                verdict: None,
            });
        }
    }
    lines.sort_by(|a, b| a.file.cmp(&b.file));
    lines
}

fn result_path(id: &PaperId) -> Result<WsPath, crate::workspace::WorkspaceError> {
    WsPath::from_parts([layout::PAPERS_DIR, &id.0, "result.json"])
}

fn load_result(ws: &Workspace, id: &PaperId) -> Option<PaperResult> {
    ws.read_json(&result_path(id).ok()?).ok()
}

/// Everything a result depends on: the question, criteria, engine, and which text
/// of which papers it was computed over.
fn input_hash(spec: &ReviewSpec, readable: &[&PaperRecord]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(spec.question.as_bytes());
    for c in &spec.criteria {
        hasher.update(b"\0criterion\0");
        hasher.update(c.as_bytes());
    }
    hasher.update(spec.engine.name().as_bytes());
    for p in readable {
        hasher.update(p.sha256.as_bytes());
        hasher.update(p.extractor.as_deref().unwrap_or("").as_bytes());
    }
    hex::encode(&hasher.finalize()[..16])
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(CommandError::internal)?
}
