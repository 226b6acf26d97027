//! The researcher's own judgement of a paper, `papers/<id>/label.json`: a
//! verdict and/or a score with a note. No engine ever writes or overwrites it;
//! the report and exports show it beside (and above) the engine's result.

use serde::{Deserialize, Serialize};

use super::Verdict;
use crate::workspace::{PaperId, Workspace, WorkspaceError, WsPath, layout};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Label {
    #[serde(default)]
    pub verdict: Option<Verdict>,
    /// 0-10, overriding the engine's score.
    #[serde(default)]
    pub score: Option<f64>,
    #[serde(default)]
    pub note: Option<String>,
    pub at: String,
}

pub fn label_path(id: &PaperId) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::PAPERS_DIR, &id.0, "label.json"])
}

/// The paper's label, if the researcher gave one.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<Label>, WorkspaceError> {
    match ws.read_json(&label_path(id)?) {
        Ok(label) => Ok(Some(label)),
        Err(WorkspaceError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

pub fn save(ws: &Workspace, id: &PaperId, label: &Label) -> Result<(), WorkspaceError> {
    ws.write_json(&label_path(id)?, label)
}

/// Take the paper's label away (the researcher's undo); the engine's result
/// stands again.
pub fn clear(ws: &Workspace, id: &PaperId) -> Result<(), WorkspaceError> {
    ws.remove_file(&label_path(id)?)
}
