//! What the app shows of a review: its state and one row per paper for the
//! status board and the results table, one paper's full result for the detail
//! pane, the paper's PDF for the viewer, the researcher's labels, and the
//! exports rendered from the files as they stand (labels included).
//!
//! Everything here reads the workspace's files; nothing calls a model.

use super::ErrorKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

pub use super::review_rows::PaperRow;
use super::review_rows::{self, Kept, RowQuery, RowsPage};
use super::{AppContext, CommandError};
use crate::agent::NoEvents;
use crate::blocking::blocking;
use crate::review::corrections;
use crate::review::dual::{DualFile, Policy};
use crate::review::failures::{self, PaperFailure};
use crate::review::imports::{Candidate, DuplicateGroup, duplicate_groups_of};
use crate::review::labels::{self, Label};
use crate::review::outputs::{ExportFormat, ReviewFiles};
use crate::review::report::prisma::Flow;
use crate::review::run::extract_papers;
use crate::review::verdicts::Verdicts;
use crate::review::verdicts::{ResultHead, result_head_of, result_of, with_label};
use crate::review::{EngineKind, PaperResult};
use crate::workspace::{PaperId, PaperMeta, PaperRecord, TaskStatus, Workspace};

/// Where a review stands, for the screen that opens it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ReviewState {
    /// No run yet.
    New,
    /// A run is going on in this process.
    Running,
    /// A run was going when the app quit or crashed; starting again resumes.
    Interrupted,
    Done,
    Cancelled,
    /// Stopped at a cap; starting again resumes.
    Stopped,
    /// A pilot read some papers under the approved protocol; starting again
    /// reads the rest.
    Pilot,
    Failed,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ReviewView {
    pub root: PathBuf,
    pub title: String,
    pub source: Option<PathBuf>,
    pub question: Option<String>,
    pub criteria: Vec<String>,
    pub state: ReviewState,
    /// The engine of the latest run.
    pub engine: Option<EngineKind>,
    /// The dual-reading policy of the latest run, and its second profile.
    pub dual: Option<Policy>,
    pub second_profile: Option<String>,
    /// The first rows in the table's first order (score, highest first),
    /// with every paper counted; the rest come a page at a time from
    /// [`review_rows`].
    pub first_rows: RowsPage,
    /// Papers found to be one work (DOI, PMID, else title, year and first
    /// author), never merged: the researcher decides.
    pub duplicate_groups: Vec<DuplicateGroup>,
    /// The search exports the review's records came from (a Zotero
    /// library and citation searching aside), in name order: what a newer
    /// export of a search is matched against.
    pub searches: Vec<SearchExport>,
}

/// One search export of the review, as its records say.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SearchExport {
    /// The file as the review knows it (shown lossily when not UTF-8).
    pub file: String,
    pub format: String,
    /// Its records in the review, those that left the search included.
    pub records: usize,
    /// Of those, records a newer export of it no longer held.
    pub left: usize,
}

/// The search exports `rows` came from.
fn searches_of(rows: &[PaperRow]) -> Vec<SearchExport> {
    let mut searches: std::collections::BTreeMap<&str, SearchExport> = Default::default();
    for row in rows {
        let Some(imported) = &row.imported else {
            continue;
        };
        if imported.zotero.is_some() || imported.citation.is_some() {
            continue;
        }
        let search = searches
            .entry(row.file.as_str())
            .or_insert_with(|| SearchExport {
                file: row.file.clone(),
                format: imported.format.clone(),
                records: 0,
                left: 0,
            });
        search.records += 1;
        search.left += usize::from(imported.left_search);
    }
    searches.into_values().collect()
}

/// The detail pane's paper.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperDetail {
    pub paper: PaperRow,
    /// The whole bibliographic record: venue, DOI, arXiv id, abstract, and
    /// where each field came from (the PDF, an index, a correction).
    pub meta: PaperMeta,
    /// The reading that stands (dual reading: the reconciled one).
    pub result: Option<PaperResult>,
    /// The first reading, as read (dual reading).
    pub first_reading: Option<PaperResult>,
    /// The second, independent reading (dual reading).
    pub second_reading: Option<PaperResult>,
    /// The third reading that broke a tie (tie-breaker policy).
    pub third_reading: Option<PaperResult>,
    /// The dual-reading policy the readings were reconciled under.
    pub policy: Option<Policy>,
    /// The reading made under earlier inputs, when it is stale (`paper.stale`
    /// says why): shown as such, never as the review's.
    pub stale_reading: Option<PaperResult>,
}

/// The review in `workspace`: its state, its papers counted and the first
/// page of rows. The rows are what the files say now (a paper whose folder
/// has not changed since the last look is not read again) and are kept for
/// the pages asked next.
pub async fn review_open(ctx: &AppContext, workspace: PathBuf) -> Result<ReviewView, CommandError> {
    let running = ctx.run_in(&workspace).is_some();
    let (view, _) = with_rows_now(ctx, workspace, move |ws, kept| view(ws, running, kept)).await?;
    Ok(view)
}

/// Build the rows of the review in `workspace` ahead of its open (the app
/// does this for the review it lists first), so the open finds them ready.
pub async fn review_warm(ctx: &AppContext, workspace: PathBuf) -> Result<(), CommandError> {
    with_rows_now(ctx, workspace, |_, _| Ok(())).await?;
    Ok(())
}

/// A page of the review's rows under the table's filters and order, from
/// the rows its last open built (built now if it was not opened).
pub async fn review_rows(
    ctx: &AppContext,
    workspace: PathBuf,
    query: RowQuery,
) -> Result<RowsPage, CommandError> {
    let kept = match ctx.rows().kept(&workspace) {
        Some(kept) => kept,
        None => with_rows_now(ctx, workspace, |_, _| Ok(())).await?.1,
    };
    blocking(move || Ok(review_rows::page(&kept.rows, &query))).await
}

/// Open the workspace, bring its rows up to date from what this process
/// kept of them (keeping them again), and run `then` with both.
async fn with_rows_now<T: Send + 'static>(
    ctx: &AppContext,
    workspace: PathBuf,
    then: impl FnOnce(&Workspace, &Kept) -> Result<T, CommandError> + Send + 'static,
) -> Result<(T, Arc<Kept>), CommandError> {
    let cache = ctx.rows().clone();
    let building = cache.building().await;
    blocking(move || {
        let _building = building;
        let ws = Workspace::open_read_only(&workspace)?;
        let kept = rows_now(&ws, cache.kept(ws.root()))?;
        cache.keep(kept.clone());
        Ok((then(&ws, &kept)?, kept))
    })
    .await
}

/// Extract every paper of `workspace` not extracted yet, so the new-review
/// screen lists each file's status (and why a file cannot be read) before
/// anything is spent. No model is called.
pub async fn review_prepare(
    ctx: &AppContext,
    workspace: PathBuf,
) -> Result<ReviewView, CommandError> {
    if ctx.run_in(&workspace).is_some() {
        return review_open(ctx, workspace).await;
    }
    let options = ctx.ingest_options()?;
    let root = workspace.clone();
    let (ws, papers) = blocking(move || {
        let ws = Workspace::open(&root)?;
        let papers = ws.papers()?;
        Ok::<_, CommandError>((ws, papers))
    })
    .await?;
    extract_papers(&ws, papers, &options, Arc::new(NoEvents)).await?;
    drop(ws); // release the workspace lock before reading it back
    ctx.queues().forget(&workspace);
    review_open(ctx, workspace).await
}

/// One paper with its full result.
pub async fn paper_detail(workspace: PathBuf, paper: String) -> Result<PaperDetail, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let record = find_paper(&ws, &paper)?;
        let verdicts = Verdicts::load(&ws)?;
        let read = result_of(&ws, &record.id)?;
        let stale = read.as_ref().and_then(|r| verdicts.stale(r));
        let stale_reading = read.clone().filter(|_| stale.is_some());
        let (result, readings) = verdicts.shown(&ws, &record.id, read)?;
        let (label, earlier_label) = verdicts.labels.split(labels::load(&ws, &record.id)?);
        let failure = match &result {
            None if record.status.is_readable() => failures::load(&ws, &record.id)?,
            _ => None,
        };
        let mut paper = row(
            &record,
            result.as_ref().map(|r| ResultHead {
                score: r.score,
                verdict: r.verdict,
                excluded_by: r.excluded_by.clone(),
                provenance: Default::default(),
            }),
            label,
            failure,
        );
        paper.disagreed = readings.as_ref().is_some_and(|r| r.disagreed);
        paper.stale = stale;
        paper.earlier_label = earlier_label;
        Ok(PaperDetail {
            paper,
            meta: record.meta.clone(),
            result,
            first_reading: readings.as_ref().map(|r| r.first.clone()),
            second_reading: readings.as_ref().and_then(|r| r.second.clone()),
            third_reading: readings.and_then(|r| r.third),
            policy: verdicts.dual.map(|d| d.policy),
            stale_reading,
        })
    })
    .await
}

/// The bytes of a paper's PDF, for the built-in viewer: only a file the
/// workspace lists as one of its papers can be read this way.
pub async fn paper_pdf(workspace: PathBuf, paper: String) -> Result<Vec<u8>, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let record = find_paper(&ws, &paper)?;
        if let Some(from) = &record.imported {
            return Err(CommandError::new(
                ErrorKind::NotFound,
                "no_pdf",
                format!(
                    "this paper is a {} record (title and abstract) with no PDF",
                    from.format
                ),
            ));
        }
        let mut candidates = std::iter::once(&record.file).chain(record.duplicates.iter());
        let bytes = candidates
            .find_map(|file| std::fs::read(file).ok())
            .ok_or_else(|| {
                CommandError::new(
                    ErrorKind::NotFound,
                    "file_not_found",
                    format!("{} is no longer there", record.file.display()),
                )
            })?;
        Ok(bytes)
    })
    .await
}

/// A label from the app: a verdict and/or a score, or `clear` to take the
/// label away (undo).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperLabelParams {
    #[serde(flatten)]
    pub label: super::reviews::LabelParams,
    #[serde(default)]
    pub clear: bool,
}

/// Set or clear a paper's label; returns its row as the review now shows it
/// (and as the table's next page will).
pub async fn paper_label(
    ctx: &AppContext,
    params: PaperLabelParams,
) -> Result<PaperRow, CommandError> {
    let label = params.label;
    let workspace = label.workspace.clone();
    let paper = label.paper.clone();
    if params.clear {
        let (workspace, paper) = (workspace.clone(), paper.clone());
        blocking(move || {
            let ws = Workspace::open(&workspace)?;
            let record = find_paper(&ws, &paper)?;
            labels::clear(&ws, &record.id)?;
            Ok::<_, CommandError>(())
        })
        .await?;
    } else {
        super::reviews::label_set(label).await?;
    }
    let row = paper_row(workspace.clone(), paper).await?;
    ctx.rows().replace(&workspace, &row);
    Ok(row)
}

/// One paper's row as the review now shows it.
pub async fn paper_row(workspace: PathBuf, paper: String) -> Result<PaperRow, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let record = find_paper(&ws, &paper)?;
        rows_of(&ws, &[record])?
            .pop()
            .ok_or_else(|| CommandError::internal("no row for the paper"))
    })
    .await
}

/// The detail pane's metadata edit: the fields to correct, or `clear` to
/// take every correction away.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperMetaParams {
    #[serde(flatten)]
    pub meta: super::metadata::MetaSetParams,
    #[serde(default)]
    pub clear: bool,
}

/// Correct (or un-correct) a paper's metadata; returns its detail as it now
/// reads, corrections applied (and its row in the table's next page).
pub async fn paper_meta(
    ctx: &AppContext,
    params: PaperMetaParams,
) -> Result<PaperDetail, CommandError> {
    let workspace = params.meta.workspace.clone();
    let paper = params.meta.paper.clone();
    if params.clear {
        super::metadata::meta_clear(workspace.clone(), paper.clone()).await?;
    } else {
        super::metadata::meta_set(params.meta).await?;
    }
    let row = paper_row(workspace.clone(), paper.clone()).await?;
    ctx.rows().replace(&workspace, &row);
    paper_detail(workspace, paper).await
}

/// The review rendered in `format` from its files as they are now.
pub async fn review_render(
    workspace: PathBuf,
    format: ExportFormat,
) -> Result<String, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let engine = latest_engine(&ws)?.unwrap_or(EngineKind::Offline);
        Ok(ReviewFiles::read(&ws, engine)?.render(format))
    })
    .await
}

/// The review's PRISMA 2020 flow, from its files as they stand (labels included).
pub async fn review_flow(workspace: PathBuf) -> Result<Flow, CommandError> {
    blocking(move || {
        let ws = Workspace::open_read_only(&workspace)?;
        let engine = latest_engine(&ws)?.unwrap_or(EngineKind::Offline);
        Ok(ReviewFiles::read(&ws, engine)?.flow())
    })
    .await
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ExportWritten {
    pub path: PathBuf,
    pub bytes: usize,
}

/// Render the review in `format` and write it to `dest` (the path the save
/// dialog returned), replacing the file atomically.
pub async fn review_export(
    workspace: PathBuf,
    format: ExportFormat,
    dest: PathBuf,
) -> Result<ExportWritten, CommandError> {
    if !dest.is_absolute() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "bad_path",
            format!("{} is not an absolute path", dest.display()),
        ));
    }
    let body = review_render(workspace, format).await?;
    blocking(move || {
        write_replacing(&dest, body.as_bytes())?;
        Ok(ExportWritten {
            path: dest,
            bytes: body.len(),
        })
    })
    .await
}

pub(crate) fn write_replacing(dest: &Path, bytes: &[u8]) -> Result<(), CommandError> {
    let io = |e: std::io::Error| {
        CommandError::new(
            ErrorKind::Storage,
            "io_error",
            format!("cannot write {}: {e}", dest.display()),
        )
    };
    let Some(dir) = dest.parent().filter(|d| d.is_dir()) else {
        return Err(CommandError::new(
            ErrorKind::NotFound,
            "folder_not_found",
            format!("the folder of {} does not exist", dest.display()),
        ));
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    std::io::Write::write_all(&mut tmp, bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(dest).map_err(|e| io(e.error))?;
    Ok(())
}

fn view(ws: &Workspace, running: bool, kept: &Kept) -> Result<ReviewView, CommandError> {
    let task = ws.task()?;
    let engine = latest_engine(ws)?;
    let state = if running {
        ReviewState::Running
    } else {
        match task.status {
            TaskStatus::Running => ReviewState::Interrupted,
            TaskStatus::Done => ReviewState::Done,
            TaskStatus::Cancelled => ReviewState::Cancelled,
            TaskStatus::Stopped => ReviewState::Stopped,
            TaskStatus::Pilot => ReviewState::Pilot,
            TaskStatus::Failed => ReviewState::Failed,
            _ if engine.is_some() => ReviewState::Interrupted,
            _ => ReviewState::New,
        }
    };
    let dual = DualFile::load(ws)?;
    let view = ReviewView {
        root: ws.root().to_path_buf(),
        title: task.title,
        source: task.source,
        question: task.question,
        criteria: task.criteria,
        state,
        engine,
        second_profile: dual.as_ref().and_then(|d| d.second_profile.clone()),
        dual: dual.map(|d| d.policy),
        first_rows: review_rows::page(&kept.rows, &RowQuery::default()),
        duplicate_groups: duplicate_groups_of(kept.candidates.iter().flatten()),
        searches: searches_of(&kept.rows),
    };
    Ok(view)
}

/// The review's rows as its files say now. A paper whose folder has not
/// moved since `kept` was built keeps its record and row from it; the rest
/// are read again: every one when the workspace's own folders moved (the
/// task, the verdicts, validation can change every row). Each paper read is
/// a few small files (its record, looked-up record, corrections, result,
/// label), read on every core.
fn rows_now(ws: &Workspace, kept: Option<Arc<Kept>>) -> Result<Arc<Kept>, CommandError> {
    // The times come first: a file written while the rows are read moves
    // its folder past them, and the next look reads it again.
    let times = ws.folder_times()?;
    let kept = kept.filter(|k| k.times.own == times.own);
    if let Some(kept) = kept.as_ref().filter(|k| k.times == times) {
        return Ok(kept.clone());
    }
    let now: HashMap<&PaperId, Option<SystemTime>> =
        times.papers.iter().map(|(id, time)| (id, *time)).collect();
    let unchanged: HashMap<&PaperId, usize> = match &kept {
        Some(kept) => {
            let at: HashMap<&str, usize> = kept
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| (r.id.as_str(), i))
                .collect();
            kept.times
                .papers
                .iter()
                .filter(|(id, time)| time.is_some() && now.get(id) == Some(time))
                .filter_map(|(id, _)| Some((id, *at.get(id.0.as_str())?)))
                .collect()
        }
        None => HashMap::new(),
    };
    let to_read: Vec<&PaperId> = times
        .papers
        .iter()
        .map(|(id, _)| id)
        .filter(|id| !unchanged.contains_key(id))
        .collect();
    let read: Vec<PaperRecord> =
        crate::blocking::on_every_core(&to_read, |id| match ws.paper(id)? {
            Some(record) => Ok::<_, CommandError>(Some(corrections::corrected_paper(ws, record)?)),
            None => Ok(None),
        })?
        .into_iter()
        .flatten()
        .collect();
    let read_rows = rows_of(ws, &read)?;
    let mut fresh: HashMap<PaperId, (PaperRow, Option<Candidate>)> = read
        .iter()
        .zip(read_rows)
        .map(|(record, row)| (record.id.clone(), (row, Candidate::of(record))))
        .collect();
    let (mut rows, mut candidates) = (Vec::new(), Vec::new());
    for (id, _) in &times.papers {
        let (row, candidate) = match (unchanged.get(id), &kept) {
            (Some(&at), Some(kept)) => (kept.rows[at].clone(), kept.candidates[at].clone()),
            _ => match fresh.remove(id) {
                Some(both) => both,
                None => continue,
            },
        };
        rows.push(row);
        candidates.push(candidate);
    }
    Ok(Arc::new(Kept {
        root: ws.root().to_path_buf(),
        times,
        rows: Arc::new(rows),
        candidates: Arc::new(candidates),
    }))
}

/// Every paper's row, in order, from the records corrected: each needs its
/// result, label and (unread) failure, read on every core.
fn rows_of(ws: &Workspace, records: &[PaperRecord]) -> Result<Vec<PaperRow>, CommandError> {
    let verdicts = Verdicts::load(ws)?;
    crate::blocking::on_every_core(records, |record| {
        let read = result_head_of(ws, &record.id)?;
        let stale = read.as_ref().and_then(|r| verdicts.stale(r));
        let (head, readings) = verdicts.shown(ws, &record.id, read)?;
        let disagreed = readings.is_some_and(|r| r.disagreed);
        let (label, earlier_label) = verdicts.labels.split(labels::load(ws, &record.id)?);
        // Only a readable paper with no result can have failed: the rest
        // cost no extra file read.
        let failure = match head {
            None if record.status.is_readable() => failures::load(ws, &record.id)?,
            _ => None,
        };
        let mut row = row(record, head, label, failure);
        row.disagreed = disagreed;
        row.stale = stale;
        row.earlier_label = earlier_label;
        Ok(row)
    })
}

fn latest_engine(ws: &Workspace) -> Result<Option<EngineKind>, CommandError> {
    Ok(ws
        .runs()?
        .last()
        .and_then(|run| EngineKind::parse(&run.engine)))
}

fn row(
    record: &PaperRecord,
    result: Option<ResultHead>,
    label: Option<Label>,
    failure: Option<PaperFailure>,
) -> PaperRow {
    let shown = with_label(label.as_ref(), result.as_ref());
    PaperRow {
        id: record.id.0.clone(),
        file: record.file.to_string_lossy().into_owned(),
        title: record.title.clone(),
        authors: record.meta.authors.iter().map(|a| a.display()).collect(),
        year: record.meta.year,
        status: record.status.as_str().to_owned(),
        reason: record.reason.clone(),
        pages: record.pages,
        imported: record.imported.clone(),
        ocr: record.ocr,
        duplicates: record.duplicates.len(),
        full_text: record.full_text.as_ref().map(|id| id.0.clone()),
        full_text_of: record.full_text_of.as_ref().map(|id| id.0.clone()),
        score: result.as_ref().map(|r| r.score),
        verdict: result.as_ref().map(|r| r.verdict),
        shown_score: shown.0,
        shown_verdict: shown.1,
        label,
        failure,
        disagreed: false,
        stale: None,
        earlier_label: None,
    }
}

fn find_paper(ws: &Workspace, id: &str) -> Result<PaperRecord, CommandError> {
    // The one paper's files, not the whole review's: this runs on every
    // click in the table.
    let record = ws.paper(&PaperId(id.to_owned()))?.ok_or_else(|| {
        CommandError::new(
            ErrorKind::NotFound,
            "paper_not_found",
            format!("no paper {id} in this review"),
        )
    })?;
    Ok(corrections::corrected_paper(ws, record)?)
}
