//! Where a review's papers come from: the folder (or file) the researcher
//! chose, and registering its PDFs in a workspace. Shared by the review and the
//! workspace commands, so both treat a folder the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ReviewError;
use crate::pdf::{FoundPdf, sha256_file};
use crate::workspace::{PaperId, PaperRecord, PaperStatus, Workspace};

/// The source's canonical path, or a clear error when it is missing.
pub fn canonical_source(path: &Path) -> Result<PathBuf, ReviewError> {
    std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ReviewError::SourceNotFound {
            path: path.to_path_buf(),
        },
        _ => ReviewError::SourceUnreadable {
            path: path.to_path_buf(),
            reason: e.to_string(),
        },
    })
}

/// Record every PDF not yet known. Identical files (same SHA-256) share one record;
/// the later copies are listed in its `duplicates`.
pub fn register_papers(workspace: &Workspace, pdfs: &[FoundPdf]) -> Result<(), ReviewError> {
    let mut papers: BTreeMap<PaperId, PaperRecord> = workspace
        .papers()?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    let mut changed = Vec::new();
    for pdf in pdfs {
        let sha256 = sha256_file(&pdf.path).map_err(|e| ReviewError::SourceUnreadable {
            path: pdf.path.clone(),
            reason: e.to_string(),
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
                        ocr: false,
                        meta: Default::default(),
                        imported: None,
                        full_text_of: None,
                        full_text: None,
                        duplicate_of: None,
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

/// Make `pdf` the full text of `record`, in both papers' records. Saved
/// from the papers as stored, not as corrected: corrections live in their
/// own file.
pub fn link_full_text(ws: &Workspace, record: &PaperId, pdf: &PaperId) -> Result<(), ReviewError> {
    if let Some(mut stored) = ws.paper(pdf)? {
        stored.full_text_of = Some(record.clone());
        ws.save_paper(&stored)?;
    }
    if let Some(mut stored) = ws.paper(record)? {
        stored.full_text = Some(pdf.clone());
        ws.save_paper(&stored)?;
    }
    Ok(())
}
