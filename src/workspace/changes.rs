//! What changed in a workspace since a reader last looked, told by its
//! folders' times without reading a file. Every write is a rename into its
//! folder and every removal an unlink from it (see [`super::atomic`]), and
//! each sets the folder's modification time; so a paper whose folder time
//! has not moved still has the files it had. Appended logs (the model calls,
//! the ledgers) do not move a time; nothing a paper's row shows is appended.

use std::time::SystemTime;

use super::{PaperId, Result, Workspace, WorkspaceError, layout};

/// The times of a workspace's folders at one moment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FolderTimes {
    /// The workspace's own folder and its folders other than the papers'
    /// (the task, the verdicts, validation): a change there can touch
    /// every paper's row.
    pub own: Vec<(String, Option<SystemTime>)>,
    /// Each paper's folder, by id.
    pub papers: Vec<(PaperId, Option<SystemTime>)>,
}

impl Workspace {
    /// The times of the workspace's folders now. A time the file system
    /// does not keep is `None`, which never matches a later look.
    pub fn folder_times(&self) -> Result<FolderTimes> {
        let dir = &self.inner.dir;
        fn io(what: &str) -> impl Fn(std::io::Error) -> WorkspaceError + '_ {
            move |e| WorkspaceError::from_io(&what, e)
        }
        let time_of = |meta: cap_std::fs::Metadata| meta.modified().ok().map(|t| t.into_std());
        let mut own = vec![(
            String::from("."),
            time_of(dir.dir_metadata().map_err(io("."))?),
        )];
        for entry in dir.entries().map_err(io("."))? {
            let entry = entry.map_err(io("."))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == layout::PAPERS_DIR || !entry.file_type().map_err(io(&name))?.is_dir() {
                continue;
            }
            own.push((name, entry.metadata().ok().and_then(time_of)));
        }
        own.sort();
        let mut papers = Vec::new();
        if let Ok(folders) = dir.read_dir(layout::PAPERS_DIR) {
            for entry in folders {
                let entry = entry.map_err(io(layout::PAPERS_DIR))?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if !entry.file_type().map_err(io(&name))?.is_dir() {
                    continue;
                }
                papers.push((PaperId(name), entry.metadata().ok().and_then(time_of)));
            }
        }
        papers.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(FolderTimes { own, papers })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{PaperFile, PaperRecord, TaskMeta, WorkspaceId};

    const A: &str = "aaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbb";

    fn paper(id: &str) -> PaperRecord {
        serde_json::from_value(serde_json::json!({
            "id": id, "file": format!("/p/{id}.pdf"), "sha256": "00", "size": 1, "status": "ok"
        }))
        .unwrap()
    }

    #[test]
    fn a_write_or_a_removal_moves_its_folders_time_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let task = TaskMeta::new(WorkspaceId("t".into()), "t".into(), dir.path());
        let ws = Workspace::create(&dir.path().join("ws"), &task).unwrap();
        ws.save_paper(&paper(A)).unwrap();
        ws.save_paper(&paper(B)).unwrap();
        let before = ws.folder_times().unwrap();
        assert_eq!(before.papers.len(), 2);
        assert_eq!(
            ws.folder_times().unwrap(),
            before,
            "looking changes nothing"
        );

        let label = serde_json::json!({ "verdict": "include", "at": "now" });
        ws.write_paper_file(&PaperId(B.into()), PaperFile::Label, &label)
            .unwrap();
        let after = ws.folder_times().unwrap();
        assert_eq!(after.papers[0], before.papers[0], "a's folder is as it was");
        assert_ne!(after.papers[1], before.papers[1], "b's folder moved");
        assert_eq!(after.own, before.own);

        ws.remove_paper_file(&PaperId(B.into()), PaperFile::Label)
            .unwrap();
        assert_ne!(ws.folder_times().unwrap().papers[1], after.papers[1]);
    }
}
