//! Workspace commands: create one for a folder of PDFs, list them, rebuild the index.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{AppContext, CommandError};
use crate::index::{RebuildReport, WorkspaceRow, WorkspaceSnapshot};
use crate::pdf::{FoundPdf, find_pdfs, sha256_file};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, PaperRecord, PaperStatus, TaskMeta, Workspace, WorkspaceId};

/// A workspace as the recent-reviews list shows it.
pub type WorkspaceSummary = WorkspaceRow;

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceCreateParams {
    /// A folder of PDFs (searched recursively) or a single PDF file.
    pub folder: PathBuf,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
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
    run_blocking(move || create(&ctx, &params.folder)).await
}

/// Recent workspaces, most recently used first. Never fails because of the index:
/// if it cannot be used the workspace folders are read directly.
pub async fn workspace_list(ctx: &AppContext) -> Result<WorkspaceListResponse, CommandError> {
    let ctx = ctx.clone();
    run_blocking(
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
    run_blocking(move || {
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

fn create(ctx: &AppContext, folder: &Path) -> Result<WorkspaceSummary, CommandError> {
    let source = std::fs::canonicalize(folder).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => CommandError::new(
            "folder_not_found",
            format!("{} does not exist", folder.display()),
        ),
        _ => CommandError::new("io_error", format!("cannot open {}: {e}", folder.display())),
    })?;
    let pdfs = find_pdfs(&source)?;
    let workspace = match existing_workspace_for(ctx, &source) {
        Some(root) => Workspace::open(&root)?,
        None => new_workspace(ctx, &source)?,
    };
    register_papers(&workspace, &pdfs)?;
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
    let title = source
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| source.display().to_string());
    let suffix = uuid::Uuid::new_v4().simple().to_string();
    let id = format!("{}-{}", slug(&title), &suffix[..8]);
    let task = TaskMeta::new(WorkspaceId(id.clone()), title, source);
    Ok(Workspace::create(
        &ctx.paths().workspaces_root().join(&id),
        &task,
    )?)
}

/// Record every PDF not yet known. Identical files (same SHA-256) share one record;
/// the later copies are listed in its `duplicates`.
pub(crate) fn register_papers(
    workspace: &Workspace,
    pdfs: &[FoundPdf],
) -> Result<(), CommandError> {
    let mut papers: BTreeMap<PaperId, PaperRecord> = workspace
        .papers()?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let mut changed = Vec::new();
    for pdf in pdfs {
        let sha256 = sha256_file(&pdf.path).map_err(|e| {
            CommandError::new(
                "io_error",
                format!("cannot read {}: {e}", pdf.path.display()),
            )
        })?;
        let id = PaperId(sha256[..16].to_owned());
        match papers.get_mut(&id) {
            Some(known) if known.file == pdf.path || known.duplicates.contains(&pdf.path) => {}
            Some(known) => {
                known.duplicates.push(pdf.path.clone());
                changed.push(id);
            }
            None => {
                papers.insert(
                    id.clone(),
                    PaperRecord {
                        id: id.clone(),
                        file: pdf.path.clone(),
                        sha256,
                        size: pdf.size,
                        status: PaperStatus::Pending,
                        title: None,
                        duplicates: Vec::new(),
                        reason: None,
                        pages: 0,
                        extractor: None,
                        meta: Default::default(),
                    },
                );
                changed.push(id);
            }
        }
    }
    changed.dedup();
    for id in changed {
        if let Some(paper) = papers.get(&id) {
            workspace.save_paper(paper)?;
        }
    }
    Ok(())
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

async fn run_blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CommandError> + Send + 'static,
) -> Result<T, CommandError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(CommandError::internal)?
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
