//! Why a readable paper has no result: `papers/<id>/failure.json`, written by
//! the agent engine when a model could not read the paper (an answer that
//! could not stand, twice; a window too small; a server that kept failing),
//! and removed when a later read succeeds. The report, `--json` and the app
//! show it, so a paper that could not be scored is a stated failure with its
//! reason, never a silent gap in the counts.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::workspace::{PaperFile, PaperId, PaperRecord, Workspace, WorkspaceError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperFailure {
    /// A stable code (`incoherent_answer`, `window_too_small`, `malformed_answer`,
    /// an HTTP error's code...).
    pub code: String,
    /// What went wrong, in words a researcher can act on.
    pub reason: String,
    /// The model that could not read it.
    #[serde(default)]
    pub model: Option<String>,
    /// Reads tried in the run that wrote this.
    pub attempts: u32,
    pub at: String,
}

/// The paper's failure, if its last read failed.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<PaperFailure>, WorkspaceError> {
    ws.read_paper_file(id, PaperFile::Failure)
}

pub fn save(ws: &Workspace, id: &PaperId, failure: &PaperFailure) -> Result<(), WorkspaceError> {
    ws.write_paper_file(id, PaperFile::Failure, failure)
}

/// The paper was read after all: its failure is history.
pub fn clear(ws: &Workspace, id: &PaperId) -> Result<(), WorkspaceError> {
    ws.remove_paper_file(id, PaperFile::Failure)
}

/// The failures of those readable `papers` that have no result in `results`.
pub fn of_unscored<R>(
    ws: &Workspace,
    papers: &[PaperRecord],
    results: &BTreeMap<PaperId, R>,
) -> Result<BTreeMap<PaperId, PaperFailure>, WorkspaceError> {
    let mut failures = BTreeMap::new();
    for paper in papers {
        if paper.status.is_readable()
            && !results.contains_key(&paper.id)
            && let Some(failure) = load(ws, &paper.id)?
        {
            failures.insert(paper.id.clone(), failure);
        }
    }
    Ok(failures)
}
