//! A paper's files under `papers/<id>/`, one typed way in: every layer of a
//! paper (extraction's record, the engine's result and failure, a lookup's
//! record, the researcher's corrections and label) is read, written and
//! removed the same way, with one policy for a file that is not there or torn.
//!
//! The policy: a missing file is `None`. A torn one (which Quire's atomic
//! writes never leave; only an edit from outside can) is also `None`, with a
//! warning naming it, so one bad file never stops a report; it stays in
//! place until the layer is next written.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{PaperId, Workspace, WorkspaceError, WsPath, layout};

/// One of a paper's JSON files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaperFile {
    /// `paper.json`: what extraction found.
    Record,
    /// `result.json`: the engine's result (the first reading).
    Result,
    /// `result.b.json`: the second, independent reading (dual reading).
    SecondResult,
    /// `result.c.json`: the third reading that breaks a tie (dual reading).
    TiebreakResult,
    /// `failure.json`: why the engine could not score it.
    Failure,
    /// `lookup.json`: what a scholarly index said.
    Lookup,
    /// `corrections.json`: the researcher's corrections to its metadata.
    Corrections,
    /// `label.json`: the researcher's own verdict.
    Label,
}

impl PaperFile {
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Record => "paper.json",
            Self::Result => "result.json",
            Self::SecondResult => "result.b.json",
            Self::TiebreakResult => "result.c.json",
            Self::Failure => "failure.json",
            Self::Lookup => "lookup.json",
            Self::Corrections => "corrections.json",
            Self::Label => "label.json",
        }
    }

    /// Where this file of paper `id` lives.
    pub fn path(self, id: &PaperId) -> Result<WsPath, WorkspaceError> {
        WsPath::from_parts([layout::PAPERS_DIR, &id.0, self.file_name()])
    }
}

impl Workspace {
    /// Paper `id`'s `file`, or `None` when it is missing or torn.
    pub fn read_paper_file<T: DeserializeOwned>(
        &self,
        id: &PaperId,
        file: PaperFile,
    ) -> Result<Option<T>, WorkspaceError> {
        match self.read_json(&file.path(id)?) {
            Ok(value) => Ok(Some(value)),
            Err(WorkspaceError::NotFound { .. }) => Ok(None),
            Err(e @ WorkspaceError::Corrupt { .. }) => {
                tracing::warn!(error = %e, "a paper's file does not parse; read as absent");
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    pub fn write_paper_file<T: Serialize>(
        &self,
        id: &PaperId,
        file: PaperFile,
        value: &T,
    ) -> Result<(), WorkspaceError> {
        self.write_json(&file.path(id)?, value)
    }

    /// Take paper `id`'s `file` away; one that is not there is fine.
    pub fn remove_paper_file(&self, id: &PaperId, file: PaperFile) -> Result<(), WorkspaceError> {
        self.remove_file(&file.path(id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{TaskMeta, WorkspaceId};

    #[test]
    fn a_missing_or_torn_file_reads_as_none_and_a_written_one_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let task = TaskMeta::new(WorkspaceId("t".into()), "t".into(), dir.path());
        let ws = Workspace::create(&dir.path().join("ws"), &task).unwrap();
        let id = PaperId("0123456789abcdef".into());
        let read = |ws: &Workspace| ws.read_paper_file::<serde_json::Value>(&id, PaperFile::Label);
        assert_eq!(read(&ws).unwrap(), None);
        ws.write_paper_file(
            &id,
            PaperFile::Label,
            &serde_json::json!({"verdict": "include"}),
        )
        .unwrap();
        assert_eq!(read(&ws).unwrap().unwrap()["verdict"], "include");
        ws.write(&PaperFile::Label.path(&id).unwrap(), b"{\"verdict\": ")
            .unwrap();
        assert_eq!(read(&ws).unwrap(), None);
        ws.remove_paper_file(&id, PaperFile::Label).unwrap();
        ws.remove_paper_file(&id, PaperFile::Label).unwrap();
        assert_eq!(read(&ws).unwrap(), None);
    }
}
