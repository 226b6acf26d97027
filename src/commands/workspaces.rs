//! Workspace commands: create one for a folder of PDFs, list them, rebuild the index.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{AppContext, CommandError};
use crate::blocking::blocking;
use crate::index::{RebuildReport, WorkspaceRow, WorkspaceSnapshot};
use crate::pdf::find_pdfs;
use crate::review::ReviewError;
use crate::review::imports::{import_read, is_records_source};
use crate::review::source::{canonical_source, register_papers};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{TaskMeta, Workspace, WorkspaceId};

/// A workspace as the recent-reviews list shows it.
pub type WorkspaceSummary = WorkspaceRow;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WorkspaceCreateParams {
    /// A folder of PDFs (searched recursively) or a single PDF file.
    pub folder: PathBuf,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WorkspaceListResponse {
    pub workspaces: Vec<WorkspaceSummary>,
    /// Set when the list had to be read from the workspace folders because the
    /// index could not be used; says why.
    pub notice: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRebuildResponse {
    pub workspaces: usize,
    pub papers: usize,
    pub runs: usize,
    pub skipped: Vec<String>,
}

/// Create the workspace for a folder, or bring back the one that already exists
/// for it, registering any PDFs added since. Dropping a folder and choosing it in
/// the dialog both end here.
pub async fn workspace_create(
    ctx: &AppContext,
    params: WorkspaceCreateParams,
) -> Result<WorkspaceSummary, CommandError> {
    let ctx = ctx.clone();
    blocking(move || create(&ctx, &params.folder)).await
}

/// Recent workspaces, most recently used first. Never fails because of the index:
/// if it cannot be used the workspace folders are read directly.
pub async fn workspace_list(ctx: &AppContext) -> Result<WorkspaceListResponse, CommandError> {
    let ctx = ctx.clone();
    blocking(
        move || match ctx.with_index(|index| Ok(index.workspaces()?)) {
            Ok(workspaces) => Ok(WorkspaceListResponse {
                workspaces,
                notice: None,
            }),
            Err(e) => {
                tracing::warn!(error = %e, "index unavailable; listing workspace folders directly");
                let mut workspaces: Vec<_> = scan_workspaces(&ctx.paths().workspaces_root())
                    .iter()
                    .map(WorkspaceRow::from_snapshot)
                    .collect();
                workspaces.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(a.id.cmp(&b.id)));
                Ok(WorkspaceListResponse {
                    workspaces,
                    notice: Some(e.message),
                })
            }
        },
    )
    .await
}

/// Recreate the index from the workspace folders under the default root and `extra_roots`.
pub async fn index_rebuild(
    ctx: &AppContext,
    extra_roots: Vec<PathBuf>,
) -> Result<IndexRebuildResponse, CommandError> {
    let ctx = ctx.clone();
    blocking(move || {
        let mut roots = vec![ctx.paths().workspaces_root()];
        roots.extend(extra_roots);
        let report: RebuildReport = ctx.with_index(|index| Ok(index.rebuild(&roots)?))?;
        Ok(IndexRebuildResponse {
            workspaces: report.workspaces,
            papers: report.papers,
            runs: report.runs,
            skipped: report
                .skipped
                .iter()
                .map(|(p, why)| format!("{}: {why}", p.display()))
                .collect(),
        })
    })
    .await
}

/// What a review's source holds.
enum Found {
    Pdfs(Vec<crate::pdf::FoundPdf>),
    Records(crate::records::Export),
}

fn create(ctx: &AppContext, folder: &Path) -> Result<WorkspaceSummary, CommandError> {
    let source = canonical_source(folder)?;
    // A search export's records, or a folder's PDFs; read before any
    // workspace is made, so an unreadable source leaves nothing behind.
    let found = if is_records_source(&source) {
        Found::Records(crate::records::read_file(&source).map_err(ReviewError::from)?)
    } else {
        Found::Pdfs(find_pdfs(&source)?)
    };
    let workspace = match existing_workspace_for(ctx, &source) {
        Some(root) => Workspace::open(&root)?,
        None => new_workspace(ctx, &source)?,
    };
    match found {
        Found::Pdfs(pdfs) => register_papers(&workspace, &pdfs)?,
        Found::Records(export) => {
            let mut known = workspace
                .papers()?
                .into_iter()
                .map(|p| (p.id.clone(), p))
                .collect();
            import_read(&workspace, &mut known, &source, &export, &mut Vec::new())?;
        }
    }
    let mut task = workspace.task()?;
    task.updated_at = now_rfc3339();
    workspace.save_task(&task)?;

    let snapshot = WorkspaceSnapshot::of(&workspace)?;
    // The files are written; a failing index only makes the list stale until the
    // next rebuild, so it must not fail the command.
    if let Err(e) = ctx.with_index(|index| Ok(index.upsert(&snapshot)?)) {
        tracing::warn!(error = %e, "could not update the index; it will be rebuilt on next use");
        ctx.mark_index_stale();
    }
    tracing::info!(workspace = %snapshot.root.display(), papers = snapshot.papers.len(), "workspace ready");
    Ok(WorkspaceRow::from_snapshot(&snapshot))
}

pub(crate) fn existing_workspace_for(ctx: &AppContext, source: &Path) -> Option<PathBuf> {
    let from_index = ctx.with_index(|index| Ok(index.workspace_for_source(source)?));
    match from_index {
        Ok(found) => found
            .map(|row| PathBuf::from(row.root))
            .filter(|root| root.exists()),
        Err(_) => scan_workspaces(&ctx.paths().workspaces_root())
            .into_iter()
            .find(|s| s.task.source.as_deref() == Some(source))
            .map(|s| s.root),
    }
}

pub(crate) fn new_workspace(ctx: &AppContext, source: &Path) -> Result<Workspace, CommandError> {
    let root = new_workspace_root(ctx, source);
    let id = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let task = TaskMeta::new(WorkspaceId(id), source_title(source), source);
    Ok(Workspace::create(&root, &task)?)
}

/// Where a new workspace for `source` goes: a folder named after it under the
/// data folder, with a random suffix.
pub(crate) fn new_workspace_root(ctx: &AppContext, source: &Path) -> PathBuf {
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    let id = format!("{}-{}", slug(&source_title(source)), &suffix[..8]);
    ctx.paths().workspaces_root().join(id)
}

fn source_title(source: &Path) -> String {
    if let Some(title) = crate::records::zotero::review_title(source) {
        return title;
    }
    source
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| source.display().to_string())
}

fn scan_workspaces(root: &Path) -> Vec<WorkspaceSnapshot> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| WorkspaceSnapshot::read(&e.path()).ok())
        .collect()
}

/// A folder-name-safe, lowercase form of `title`, at most 40 characters.
fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
        if out.chars().count() >= 40 {
            break;
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "review".to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slug_keeps_letters_and_digits_and_folds_the_rest() {
        assert_eq!(slug("My Papers (2024)"), "my-papers-2024");
        assert_eq!(slug("..."), "review");
        assert_eq!(slug("Überblick"), "überblick");
        assert!(slug(&"a".repeat(100)).chars().count() <= 40);
    }
}
