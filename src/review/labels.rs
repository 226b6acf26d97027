//! The researcher's own judgement of a paper, `papers/<id>/label.json`: a
//! verdict and/or a score with a note. No engine ever writes or overwrites it;
//! the report and exports show it beside (and above) the engine's result.

use serde::{Deserialize, Serialize};

use super::Verdict;
use crate::workspace::{PaperFile, PaperId, Workspace, WorkspaceError};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Label {
    #[serde(default)]
    pub verdict: Option<Verdict>,
    /// 0-10, overriding the engine's score.
    #[serde(default)]
    pub score: Option<f64>,
    #[serde(default)]
    pub note: Option<String>,
    pub at: String,
    /// The key of the question (and criteria) the label was given under
    /// ([`super::inputs::question_key`]); none on labels from before it was
    /// kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// Given to a paper the screening queue had just served (in its order),
    /// not one picked by hand: only these count as a sample for the
    /// stopping criterion ([`crate::screening::stopping`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub queued: bool,
}

/// The paper's label, if the researcher gave one.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<Label>, WorkspaceError> {
    ws.read_paper_file(id, PaperFile::Label)
}

pub fn save(ws: &Workspace, id: &PaperId, label: &Label) -> Result<(), WorkspaceError> {
    ws.write_paper_file(id, PaperFile::Label, label)
}

/// Take the paper's label away (the researcher's undo); the engine's result
/// stands again.
pub fn clear(ws: &Workspace, id: &PaperId) -> Result<(), WorkspaceError> {
    ws.remove_paper_file(id, PaperFile::Label)
}
