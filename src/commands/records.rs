//! Search records into a review: `quire import` and the app's *Add records*.
//! The files are read and their records become papers of the review
//! ([`crate::review::imports`]); a file that cannot be read is named with
//! why, and the rest still go in. And their full text: a folder of PDFs
//! attached to the review, each matched to its record
//! ([`crate::review::fulltext`]).

use std::path::PathBuf;
use std::sync::Arc;

use serde::Deserialize;

use super::reviews::{index_workspace, paper_by_prefix};
use super::{AppContext, CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::review::fulltext::{FullTextSummary, attach_folder};
use crate::review::imports::{
    DuplicateGroup, ImportProgress, ImportSummary, ReadExport, duplicate_groups, import_exports,
    read_exports, set_aside,
};
use crate::workspace::{TaskMeta, Workspace, WorkspaceId, layout};

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportParams {
    /// The review's workspace folder; made when it is not one yet.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// The search exports (RIS, PubMed/MEDLINE, BibTeX, CSV).
    #[cfg_attr(test, ts(type = "string[]"))]
    pub files: Vec<PathBuf>,
    /// The earlier export of the same search that the one file of `files`
    /// is a newer run of: its records are matched to the earlier ones,
    /// which keep their labels. A file imported before is matched against
    /// itself without it.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "string | null"))]
    pub replaces: Option<PathBuf>,
}

/// Import `params.files` into the review, saying where it is to
/// `progress`; the summary says what each file gave, which could not be
/// read and why, and the review's duplicates.
pub async fn records_import(
    ctx: &AppContext,
    params: ImportParams,
    progress: Arc<dyn Fn(ImportProgress) + Send + Sync>,
) -> Result<ImportSummary, CommandError> {
    let Some(first) = params.files.first().cloned() else {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "no_files",
            "name at least one search export (RIS, PubMed/MEDLINE, BibTeX or CSV)",
        ));
    };
    if params.replaces.is_some() && params.files.len() != 1 {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "replaces_one_file",
            "a newer export replaces an earlier one file for file: name one file with it",
        ));
    }
    let root = params.workspace.clone();
    let summary = blocking(move || {
        // Read first, write after: files that all fail make no review.
        let mut exports = read_exports(&params.files);
        if let Some(earlier) = &params.replaces {
            exports = exports.into_iter().map(|e| e.replacing(earlier)).collect();
        }
        let is_review = params.workspace.join(layout::TASK_FILE).is_file();
        if !is_review && exports.iter().all(|e| e.read.is_err()) {
            return Err(nothing_readable(&exports));
        }
        let ws = if is_review {
            Workspace::open(&params.workspace)?
        } else {
            Workspace::create(&params.workspace, &task_for(&params.workspace, &first))?
        };
        Ok::<_, CommandError>(import_exports(&ws, &exports, &*progress)?)
    })
    .await?;
    index_workspace(ctx, root).await;
    Ok(summary)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AttachParams {
    /// The review's workspace folder.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// A folder of PDFs (or one PDF): the records' full text.
    #[cfg_attr(test, ts(type = "string"))]
    pub folder: PathBuf,
}

/// Attach a folder of PDFs to the review: they are read (no model is
/// called) and matched to its records by DOI, else title; the summary says
/// which records have full text and which PDFs matched none, and why.
pub async fn records_attach(
    ctx: &AppContext,
    params: AttachParams,
) -> Result<FullTextSummary, CommandError> {
    if ctx.run_in(&params.workspace).is_some() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "review_running",
            "a run is reading this review; attach full text when it has finished",
        ));
    }
    let options = ctx.ingest_options()?;
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open(&root)?)).await?;
    let summary = attach_folder(
        &ws,
        &params.folder,
        &options,
        std::sync::Arc::new(crate::agent::NoEvents),
    )
    .await?;
    drop(ws); // release the workspace lock before the index reads it
    ctx.queues().forget(&params.workspace);
    index_workspace(ctx, params.workspace).await;
    Ok(summary)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct SetAsideParams {
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// The paper to set aside (an id, or a unique prefix of one).
    pub paper: String,
    /// The paper it is a copy of; none puts it back.
    pub of: Option<String>,
}

/// Set a paper aside as a copy of another (removed before screening, as
/// PRISMA counts duplicates, and never read), or put it back; the review's
/// duplicate groups as they are then.
pub async fn paper_set_aside(
    ctx: &AppContext,
    params: SetAsideParams,
) -> Result<Vec<DuplicateGroup>, CommandError> {
    let root = params.workspace.clone();
    let groups = blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let paper = paper_by_prefix(&ws, &params.paper)?;
        let of = params
            .of
            .as_deref()
            .map(|of| paper_by_prefix(&ws, of))
            .transpose()?;
        set_aside(&ws, &paper, of.as_ref())?;
        Ok::<_, CommandError>(duplicate_groups(&ws)?)
    })
    .await?;
    ctx.queues().forget(&root);
    index_workspace(ctx, root).await;
    Ok(groups)
}

/// A new review named after its folder, sourced from the first export.
/// Why an import into a new review made none: each file and why it could
/// not be read.
fn nothing_readable(exports: &[ReadExport]) -> CommandError {
    let why: Vec<String> = exports
        .iter()
        .filter_map(|e| {
            let error = e.read.as_ref().err()?;
            Some(format!("{}: {error}", e.given.display()))
        })
        .collect();
    CommandError::new(
        ErrorKind::InvalidInput,
        "records_unreadable",
        format!(
            "no review was made: none of the files could be read ({})",
            why.join("; ")
        ),
    )
}

fn task_for(dir: &std::path::Path, first: &std::path::Path) -> TaskMeta {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "review".into());
    let source = std::fs::canonicalize(first).unwrap_or_else(|_| first.to_owned());
    TaskMeta::new(WorkspaceId(name.clone()), name, &source)
}
