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

/// The paper's label, if the researcher gave one, under whatever question.
/// What decides anything is [`Current::load`]'s.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<Label>, WorkspaceError> {
    ws.read_paper_file(id, PaperFile::Label)
}

/// The labels a review counts now: those given under its question and
/// criteria as they stand (and those from before labels kept their
/// question). A label given under an earlier question stays the
/// researcher's and is shown as such, but it decides nothing (PRISMA's
/// rows, the queue's training and its stopping rule, Zotero's `screen:`
/// tags, the exports) until it is given again. Every reader of labels
/// reads them through this one loader.
#[derive(Clone, Debug)]
pub struct Current {
    question: Option<String>,
}

impl Current {
    /// The labels `ws` counts, by its task's question and criteria now.
    pub fn of(ws: &Workspace) -> Result<Self, WorkspaceError> {
        let task = ws.task()?;
        Ok(Self {
            question: task
                .question
                .as_deref()
                .filter(|q| !q.trim().is_empty())
                .map(|q| super::inputs::question_key(q, &task.criteria)),
        })
    }

    /// Whether `label` counts now.
    pub fn counts(&self, label: &Label) -> bool {
        match (&label.question, &self.question) {
            (Some(given), Some(now)) => given == now,
            _ => true,
        }
    }

    /// The paper's label, if it counts now.
    pub fn load(&self, ws: &Workspace, id: &PaperId) -> Result<Option<Label>, WorkspaceError> {
        Ok(load(ws, id)?.filter(|l| self.counts(l)))
    }

    /// A label as read, parted into (the label that counts now, one given
    /// under an earlier question).
    pub fn split(&self, label: Option<Label>) -> (Option<Label>, Option<Label>) {
        match label {
            Some(l) if !self.counts(&l) => (None, Some(l)),
            other => (other, None),
        }
    }

    /// The paper's label given under an earlier question, if that is the
    /// one it has: kept, shown as such, counted nowhere.
    pub fn earlier(&self, ws: &Workspace, id: &PaperId) -> Result<Option<Label>, WorkspaceError> {
        Ok(load(ws, id)?.filter(|l| !self.counts(l)))
    }
}

pub fn save(ws: &Workspace, id: &PaperId, label: &Label) -> Result<(), WorkspaceError> {
    ws.write_paper_file(id, PaperFile::Label, label)
}

/// Take the paper's label away (the researcher's undo); the engine's result
/// stands again.
pub fn clear(ws: &Workspace, id: &PaperId) -> Result<(), WorkspaceError> {
    ws.remove_paper_file(id, PaperFile::Label)
}
