//! Many files written as one change: all of them, or none.
//!
//! [`Workspace::write`] makes each file durable on its own (two syncs a
//! file), which is right for one file and far too slow for ten thousand
//! (an import's records). A [`Batch`] stages its files under
//! `.quire/batch/` unsynced, makes them durable with one file-system sync,
//! then commits: it writes a journal naming every move, renames the staged
//! files into place and removes the journal. A kill before the journal
//! leaves the workspace as it was (the staging is swept on the next open);
//! a kill after it is finished on the next open ([`recover`]), whose moves
//! are idempotent. Either way a reader of the workspace after a crash sees
//! the batch whole or not at all.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;

use cap_std::fs::{Dir, OpenOptions};
use serde::{Deserialize, Serialize};

use super::{Result, Workspace, WorkspaceError, WsPath, atomic, layout};

/// Where a batch's files wait, inside [`layout::PRIVATE_DIR`].
const STAGING_DIR: &str = ".quire/batch";
/// The journal of a batch being committed.
const JOURNAL: &str = "batch-commit.json";

/// What a commit does, written before it does it.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Journal {
    /// Staged file name → its place in the workspace.
    moves: Vec<(String, String)>,
    /// Files the batch takes away.
    removes: Vec<String>,
}

/// Files to write and remove as one change ([`Workspace::batch`]).
pub struct Batch<'a> {
    ws: &'a Workspace,
    staging: Dir,
    /// The folders files are staged in, one for each folder they go to,
    /// so a folder new to the workspace moves into place in one rename.
    dirs: Vec<StagedDir>,
    by_target: HashMap<String, usize>,
    removes: Vec<String>,
}

/// The files staged for one folder of the workspace.
struct StagedDir {
    /// The folder, relative to the root ("" for the root itself).
    target: String,
    names: BTreeSet<String>,
}

impl Workspace {
    /// A new, empty batch of writes to this workspace.
    pub fn batch(&self) -> Result<Batch<'_>> {
        self.check_writable(&WsPath::root())?;
        let io = |e| WorkspaceError::from_io(&STAGING_DIR, e);
        // An earlier batch that failed mid-commit is finished first; one
        // that never journalled is no change anyone made.
        recover(&self.inner.dir).map_err(io)?;
        self.inner.dir.create_dir_all(STAGING_DIR).map_err(io)?;
        let staging = self.inner.dir.open_dir(STAGING_DIR).map_err(io)?;
        Ok(Batch {
            ws: self,
            staging,
            dirs: Vec::new(),
            by_target: HashMap::new(),
            removes: Vec::new(),
        })
    }
}

impl Batch<'_> {
    /// Stage `bytes` as the new content of `path`.
    pub fn write(&mut self, path: &WsPath, bytes: &[u8]) -> Result<()> {
        let io = |e| WorkspaceError::from_io(path, e);
        let full = path.to_string();
        let (target, name) = full.rsplit_once('/').unwrap_or(("", full.as_str()));
        let k = match self.by_target.get(target) {
            Some(&k) => k,
            None => {
                let k = self.dirs.len();
                self.staging.create_dir(k.to_string()).map_err(io)?;
                self.dirs.push(StagedDir {
                    target: target.to_owned(),
                    names: BTreeSet::new(),
                });
                self.by_target.insert(target.to_owned(), k);
                k
            }
        };
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        let mut file = self
            .staging
            .open_with(format!("{k}/{name}"), &options)
            .map_err(io)?;
        file.write_all(bytes).map_err(io)?;
        self.dirs[k].names.insert(name.to_owned());
        Ok(())
    }

    /// Stage `value` as `path`'s JSON, as [`Workspace::write_json`] writes it.
    pub fn write_json<T: Serialize>(&mut self, path: &WsPath, value: &T) -> Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| WorkspaceError::Corrupt {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        bytes.push(b'\n');
        self.write(path, &bytes)
    }

    /// Take `path` away with the batch (one that is not there is fine).
    pub fn remove(&mut self, path: &WsPath) {
        self.removes.push(path.to_string());
    }

    /// The workspace the batch writes to (to read what it holds now).
    pub fn workspace(&self) -> &Workspace {
        self.ws
    }

    /// Whether nothing is staged.
    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty() && self.removes.is_empty()
    }

    /// What the commit will do: a staged folder whose folder is new to the
    /// workspace moves whole, else its files one by one.
    fn journal(&self) -> Journal {
        let dir = &self.ws.inner.dir;
        let mut moves = Vec::new();
        // A folder before the folders inside it: one moved whole must not
        // find its place taken by a folder made for a deeper move.
        let mut order: Vec<(usize, &StagedDir)> = self.dirs.iter().enumerate().collect();
        order.sort_by(|a, b| a.1.target.cmp(&b.1.target));
        for (k, staged) in order {
            if !staged.target.is_empty() && !dir.exists(&staged.target) {
                moves.push((k.to_string(), staged.target.clone()));
                continue;
            }
            for name in &staged.names {
                let target = if staged.target.is_empty() {
                    name.clone()
                } else {
                    format!("{}/{name}", staged.target)
                };
                moves.push((format!("{k}/{name}"), target));
            }
        }
        Journal {
            moves,
            removes: self.removes.clone(),
        }
    }

    /// Make the batch the workspace's, whole.
    pub fn commit(self) -> Result<()> {
        let dir = &self.ws.inner.dir;
        let io = |e| WorkspaceError::from_io(&STAGING_DIR, e);
        if self.is_empty() {
            return clear_staging(dir).map_err(io);
        }
        self.sync_staged().map_err(io)?;
        let journal = self.journal();
        let bytes = serde_json::to_vec(&journal).map_err(|e| WorkspaceError::Corrupt {
            path: JOURNAL.to_owned(),
            reason: e.to_string(),
        })?;
        let private = dir.open_dir(layout::PRIVATE_DIR).map_err(io)?;
        atomic::replace(&private, JOURNAL, &bytes).map_err(io)?;
        apply(dir, &journal).map_err(io)?;
        finish(dir, &private).map_err(io)
    }

    /// Make every staged file durable: one sync of the file system where
    /// the system has one, else each file and folder.
    fn sync_staged(&self) -> std::io::Result<()> {
        if cfg!(target_os = "linux") {
            return sync_file_system(&self.ws.inner.dir);
        }
        for (k, staged) in self.dirs.iter().enumerate() {
            let folder = self.staging.open_dir(k.to_string())?;
            for name in &staged.names {
                folder.open(name)?.sync_all()?;
            }
            atomic::sync_dir(&folder)?;
        }
        atomic::sync_dir(&self.staging)
    }
}

/// Finish a batch a killed process journalled, or sweep one it had not:
/// called on every open, under the lock (it costs one failed open when
/// there is nothing to do). Whether a batch was finished.
pub(crate) fn recover(dir: &Dir) -> std::io::Result<bool> {
    let Ok(private) = dir.open_dir(layout::PRIVATE_DIR) else {
        return Ok(false);
    };
    let journal: Option<Journal> = match private.read(JOURNAL) {
        Ok(bytes) => serde_json::from_slice(&bytes).ok(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    match journal {
        Some(journal) => {
            apply(dir, &journal)?;
            finish(dir, &private)?;
            Ok(true)
        }
        None => {
            clear_staging(dir)?;
            Ok(false)
        }
    }
}

/// Move each staged file or folder into place and remove what the batch
/// removes. Run again after a kill, a move already made is skipped.
fn apply(dir: &Dir, journal: &Journal) -> std::io::Result<()> {
    let staging = dir.open_dir(STAGING_DIR)?;
    for (staged, target) in &journal.moves {
        if !staging.exists(staged) {
            continue;
        }
        if let Some((parent, _)) = target.rsplit_once('/') {
            dir.create_dir_all(parent)?;
        }
        staging.rename(staged, dir, target)?;
    }
    for target in &journal.removes {
        match dir.remove_file(target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

/// Make the moves durable, then forget the journal and the staging.
fn finish(dir: &Dir, private: &Dir) -> std::io::Result<()> {
    sync_file_system(dir)?;
    private.remove_file(JOURNAL)?;
    atomic::sync_dir(private)?;
    clear_staging(dir)
}

fn clear_staging(dir: &Dir) -> std::io::Result<()> {
    match dir.remove_dir_all(STAGING_DIR) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// `syncfs(2)` on the workspace's file system (Linux); elsewhere the
/// workspace folder's own sync.
fn sync_file_system(dir: &Dir) -> std::io::Result<()> {
    let root = dir.open(".")?;
    #[cfg(target_os = "linux")]
    {
        rustix::fs::syncfs(&root).map_err(std::io::Error::from)
    }
    #[cfg(not(target_os = "linux"))]
    {
        root.sync_all()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{TaskMeta, WorkspaceId};

    fn workspace(dir: &std::path::Path) -> Workspace {
        let task = TaskMeta::new(WorkspaceId("t".into()), "t".into(), dir);
        Workspace::create(&dir.join("ws"), &task).unwrap()
    }

    #[test]
    fn a_batch_is_seen_whole_after_commit_and_not_at_all_before() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let old = WsPath::parse("papers/a/paper.json").unwrap();
        ws.write(&old, b"old").unwrap();
        let gone = WsPath::parse("papers/a/result.json").unwrap();
        ws.write(&gone, b"read before").unwrap();
        let new = WsPath::parse("papers/b/paper.json").unwrap();

        let mut batch = ws.batch().unwrap();
        batch.write(&old, b"new").unwrap();
        batch.write(&new, b"{}").unwrap();
        batch.remove(&gone);
        assert_eq!(
            ws.read(&old).unwrap(),
            b"old",
            "nothing shows before commit"
        );
        assert!(ws.read(&new).is_err());
        batch.commit().unwrap();
        assert_eq!(ws.read(&old).unwrap(), b"new");
        assert_eq!(ws.read(&new).unwrap(), b"{}");
        assert!(ws.read(&gone).is_err());
        assert!(!ws.root().join(STAGING_DIR).exists());
    }

    #[test]
    fn new_folders_staged_deepest_first_all_land() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let deep = WsPath::parse("papers/e/readings/one.json").unwrap();
        let shallow = WsPath::parse("papers/e/paper.json").unwrap();
        let mut batch = ws.batch().unwrap();
        batch.write(&deep, b"deep").unwrap();
        batch.write(&shallow, b"shallow").unwrap();
        batch.commit().unwrap();
        assert_eq!(ws.read(&deep).unwrap(), b"deep");
        assert_eq!(ws.read(&shallow).unwrap(), b"shallow");
    }

    #[test]
    fn a_journalled_batch_is_finished_and_an_unjournalled_one_swept() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let target = WsPath::parse("papers/c/paper.json").unwrap();

        // Killed before its journal: swept, nothing of it seen.
        let mut batch = ws.batch().unwrap();
        batch.write(&target, b"half").unwrap();
        std::mem::forget(batch);
        assert!(!recover(&ws.inner.dir).unwrap());
        assert!(ws.read(&target).is_err());
        assert!(!ws.root().join(STAGING_DIR).exists());

        // Killed after its journal, one move made: the rest is made.
        let mut batch = ws.batch().unwrap();
        let other = WsPath::parse("papers/d/paper.json").unwrap();
        batch.write(&target, b"one").unwrap();
        batch.write(&other, b"two").unwrap();
        let journal = batch.journal();
        assert_eq!(journal.moves[0], ("0".to_owned(), "papers/c".to_owned()));
        let private = ws.inner.dir.open_dir(layout::PRIVATE_DIR).unwrap();
        atomic::replace(&private, JOURNAL, &serde_json::to_vec(&journal).unwrap()).unwrap();
        batch
            .staging
            .rename("0", &ws.inner.dir, "papers/c")
            .unwrap();
        std::mem::forget(batch);
        assert!(recover(&ws.inner.dir).unwrap());
        assert_eq!(ws.read(&target).unwrap(), b"one");
        assert_eq!(ws.read(&other).unwrap(), b"two");
        assert!(!ws.root().join(".quire").join(JOURNAL).exists());
    }
}
