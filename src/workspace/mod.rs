//! The task workspace: one directory that is the authoritative record of a task.
//!
//! Everything a run knows lives here as files (see `docs/workspace.md`); the
//! prompt, the index and the UI are views of it. This module owns the directory:
//! its layout, the exclusive lock, crash-safe writes, and confinement: every
//! access goes through a cap-std [`Dir`] handle opened on the root, which refuses
//! any path or symlink that resolves outside it, and every agent path is first
//! checked lexically by [`WsPath`]. It knows nothing of tools, models or PDFs.

mod actions;
mod atomic;
pub(crate) mod author;
mod batch;
mod changes;
mod error;
pub mod layout;
mod lock;
pub mod os_path;
mod paper_files;
mod path;
pub mod records;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use actions::{ActionRecord, MAX_LOGGED_ARGS_BYTES, MAX_PREVIEW_BYTES};
pub use author::Author;
pub use batch::Batch;
pub use changes::FolderTimes;
pub use error::WorkspaceError;
pub use paper_files::PaperFile;
pub use path::{MAX_NAME_BYTES, MAX_PATH_BYTES, WsPath};
pub use records::{
    CitationFound, Direction, FoundVia, ImportedFrom, MetaField, ModelCallRecord, OpenCopy, Origin,
    PaperId, PaperMeta, PaperRecord, PaperStatus, RunId, RunRecord, RunStatus, TaskMeta,
    TaskStatus, WorkspaceId, ZoteroItem,
};

pub type Result<T, E = WorkspaceError> = std::result::Result<T, E>;

/// What a directory entry is, without following symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Dir,
    Symlink,
    Other,
}

/// One entry of a directory listing or a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub path: WsPath,
    pub kind: EntryKind,
    pub size: u64,
}

/// An open, locked workspace. Cheap to clone; the lock is released when the last
/// clone is dropped.
#[derive(Clone, Debug)]
pub struct Workspace {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    dir: Dir,
    /// `None` for a read-only view, which never writes and never blocks on the lock.
    lock: Option<lock::WorkspaceLock>,
}

impl Workspace {
    /// Create a new workspace at `root` (made if missing) for `task`.
    pub fn create(root: &Path, task: &TaskMeta) -> Result<Self> {
        let ws = Self::init(root)?;
        ws.save_task(task)?;
        Ok(ws)
    }

    /// Open an existing workspace; refuses a folder without `task.json`.
    pub fn open(root: &Path) -> Result<Self> {
        if !root.join(layout::TASK_FILE).is_file() {
            return Err(WorkspaceError::NotAWorkspace {
                root: root.to_path_buf(),
            });
        }
        Self::init(root)
    }

    /// Open `root` as a workspace, creating the folder and its layout if needed but
    /// leaving `task.json` alone. This is what `quire tool` uses: the tools need no
    /// task metadata.
    pub fn open_or_init(root: &Path) -> Result<Self> {
        Self::init(root)
    }

    fn init(root: &Path) -> Result<Self> {
        let io = |e| WorkspaceError::from_io(&root.display(), e);
        std::fs::create_dir_all(root).map_err(io)?;
        let root = std::fs::canonicalize(root).map_err(io)?;
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(io)?;
        let lock = lock::acquire(&dir, &root)?;
        for sub in layout::DIRS {
            dir.create_dir_all(sub)
                .map_err(|e| WorkspaceError::from_io(&sub, e))?;
        }
        if batch::recover(&dir).map_err(io)? {
            tracing::info!(root = %root.display(), "finished a batch of writes a stopped process had begun");
        }
        // Safe now that we hold the lock: no other writer can own these. A
        // temp file is left only by a writer that died, so one sweep a
        // process is enough; a walk of every paper's folder on every open
        // would cost a big review a fifth of a second each time.
        if atomic::first_open_in_process(&root) {
            let swept = atomic::sweep_temp_files(&dir, 8).map_err(io)?;
            if swept > 0 {
                tracing::info!(root = %root.display(), swept, "removed temp files of an interrupted write");
            }
        }
        Ok(Self {
            inner: Arc::new(Inner {
                root,
                dir,
                lock: Some(lock),
            }),
        })
    }

    /// A read-only view of an existing workspace that does not take the lock, for
    /// readers such as the index rebuild that must work while a run is writing.
    /// Atomic writes guarantee it never sees a torn file; writing through it fails.
    pub fn open_read_only(root: &Path) -> Result<Self> {
        let io = |e| WorkspaceError::from_io(&root.display(), e);
        if !root.join(layout::TASK_FILE).is_file() {
            return Err(WorkspaceError::NotAWorkspace {
                root: root.to_path_buf(),
            });
        }
        let root = std::fs::canonicalize(root).map_err(io)?;
        let dir = Dir::open_ambient_dir(&root, ambient_authority()).map_err(io)?;
        Ok(Self {
            inner: Arc::new(Inner {
                root,
                dir,
                lock: None,
            }),
        })
    }

    fn check_writable(&self, path: &WsPath) -> Result<()> {
        if self.inner.lock.is_none() {
            return Err(WorkspaceError::PathReadOnly {
                path: path.to_string(),
            });
        }
        Ok(())
    }

    /// The workspace's absolute, canonical root.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// Read a whole file.
    pub fn read(&self, path: &WsPath) -> Result<Vec<u8>> {
        let io = |e| WorkspaceError::from_io(path, e);
        let mut file = self.inner.dir.open(path.to_relative()).map_err(io)?;
        if file.metadata().map_err(io)?.is_dir() {
            return Err(WorkspaceError::NotAFile {
                path: path.to_string(),
            });
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        Ok(bytes)
    }

    /// Read a whole file as UTF-8 (invalid sequences replaced).
    pub fn read_string(&self, path: &WsPath) -> Result<String> {
        Ok(String::from_utf8_lossy(&self.read(path)?).into_owned())
    }

    /// Replace (or create) a file atomically, creating its parent folders.
    pub fn write(&self, path: &WsPath, bytes: &[u8]) -> Result<()> {
        self.check_writable(path)?;
        let Some(name) = path.file_name() else {
            return Err(WorkspaceError::NotAFile {
                path: path.to_string(),
            });
        };
        let parent = self.open_parent(path, true)?;
        atomic::replace(&parent, name, bytes).map_err(|e| WorkspaceError::from_io(path, e))
    }

    /// Remove a file; a file that is already gone is not an error.
    pub fn remove_file(&self, path: &WsPath) -> Result<()> {
        self.check_writable(path)?;
        match self.inner.dir.remove_file(path.to_relative()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(WorkspaceError::from_io(path, e)),
        }
    }

    /// Append one line to a file (created if missing), synced before returning.
    /// A last line left torn by a crash (no newline) is closed first, so it
    /// stays one bad line readers skip and does not swallow this one.
    pub fn append_line(&self, path: &WsPath, line: &str) -> Result<()> {
        self.check_writable(path)?;
        let io = |e| WorkspaceError::from_io(path, e);
        let mut options = OpenOptions::new();
        options.read(true).append(true).create(true);
        let mut file = self
            .inner
            .dir
            .open_with(path.to_relative(), &options)
            .map_err(io)?;
        let mut buf = String::new();
        let len = file.metadata().map_err(io)?.len();
        if len > 0 {
            use std::io::{Read, Seek, SeekFrom};
            let mut last = [0u8; 1];
            file.seek(SeekFrom::Start(len - 1)).map_err(io)?;
            file.read_exact(&mut last).map_err(io)?;
            if last[0] != b'\n' {
                buf.push('\n');
            }
        }
        buf.push_str(line.trim_end_matches('\n'));
        buf.push('\n');
        file.write_all(buf.as_bytes()).map_err(io)?;
        file.sync_data().map_err(io)
    }

    /// Create a folder and its parents.
    pub fn create_dir_all(&self, path: &WsPath) -> Result<()> {
        if path.is_root() {
            return Ok(());
        }
        self.check_writable(path)?;
        self.inner
            .dir
            .create_dir_all(path.to_relative())
            .map_err(|e| {
                // A file standing where a folder is needed.
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    return WorkspaceError::NotADirectory {
                        path: path.to_string(),
                    };
                }
                WorkspaceError::from_io(path, e)
            })
    }

    /// Describe one path (following symlinks that stay inside the workspace).
    pub fn entry(&self, path: &WsPath) -> Result<Entry> {
        let meta = self
            .inner
            .dir
            .metadata(path.to_relative())
            .map_err(|e| WorkspaceError::from_io(path, e))?;
        Ok(Entry {
            path: path.clone(),
            kind: kind_of(meta.file_type()),
            size: meta.len(),
        })
    }

    /// The visible entries of a folder, sorted by name.
    pub fn list_dir(&self, path: &WsPath) -> Result<Vec<Entry>> {
        self.list(path, true)
    }

    /// [`Workspace::list_dir`] without file sizes (no `stat` per file): for
    /// walks that only count names, as the prompt's folded folders do.
    pub fn list_names(&self, path: &WsPath) -> Result<Vec<Entry>> {
        self.list(path, false)
    }

    fn list(&self, path: &WsPath, sizes: bool) -> Result<Vec<Entry>> {
        let io = |e| WorkspaceError::from_io(path, e);
        let dir = self.open_dir(path)?;
        let mut out = Vec::new();
        for entry in dir.entries().map_err(io)? {
            let entry = entry.map_err(io)?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            if layout::is_hidden_entry(&name, path.is_root()) {
                continue;
            }
            let kind = kind_of(entry.file_type().map_err(io)?);
            let size = if sizes && kind == EntryKind::File {
                entry.metadata().map(|m| m.len()).unwrap_or(0)
            } else {
                0
            };
            out.push(Entry {
                path: path.join(&name)?,
                kind,
                size,
            });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// All visible files under `start`, depth first, sorted; symlinks are not
    /// followed (a link cannot make the walk loop or leave the workspace). Stops
    /// after `limit` files and says so.
    pub fn walk_files(&self, start: &WsPath, limit: usize) -> Result<Walk> {
        let mut walk = Walk::default();
        let mut stack = vec![start.clone()];
        while let Some(dir_path) = stack.pop() {
            let entries = match self.list_dir(&dir_path) {
                Ok(entries) => entries,
                Err(WorkspaceError::NotADirectory { .. }) if dir_path == *start => {
                    walk.files.push(self.entry(start)?);
                    break;
                }
                Err(e) => return Err(e),
            };
            let mut subdirs = Vec::new();
            for entry in entries {
                match entry.kind {
                    EntryKind::File => {
                        if walk.files.len() >= limit {
                            walk.truncated = true;
                            return Ok(walk);
                        }
                        walk.files.push(entry);
                    }
                    EntryKind::Dir => subdirs.push(entry.path),
                    EntryKind::Symlink | EntryKind::Other => {}
                }
            }
            stack.extend(subdirs.into_iter().rev());
        }
        walk.files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(walk)
    }

    /// Record one action in the workspace's own append-only log.
    pub fn log_action(&self, record: &ActionRecord) -> Result<()> {
        self.append_record(layout::ACTIONS_FILE, record)
    }

    /// Record one action in the action log at `log` (an agent task's own log).
    pub fn append_action(&self, log: &WsPath, record: &ActionRecord) -> Result<()> {
        let line = serde_json::to_string(record).map_err(|e| WorkspaceError::Corrupt {
            path: log.to_string(),
            reason: e.to_string(),
        })?;
        self.append_line(log, &line)
    }

    /// The workspace's action log, oldest first.
    pub fn actions(&self) -> Result<Vec<ActionRecord>> {
        self.records(layout::ACTIONS_FILE)
    }

    /// The last `n` records of the action log at `log`, oldest first, read from
    /// the end of the file; a missing log has none.
    pub fn last_actions(&self, log: &WsPath, n: usize) -> Result<Vec<ActionRecord>> {
        let mut file = match self.inner.dir.open(log.to_relative()) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(WorkspaceError::from_io(log, e)),
        };
        let lines =
            actions::tail_lines(&mut file, n).map_err(|e| WorkspaceError::from_io(log, e))?;
        Ok(lines
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect())
    }

    /// Record one model call in `model-calls.jsonl`.
    pub fn log_model_call(&self, record: &ModelCallRecord) -> Result<()> {
        self.append_record(layout::MODEL_CALLS_FILE, record)
    }

    /// Every model call made for this workspace, oldest first.
    pub fn model_calls(&self) -> Result<Vec<ModelCallRecord>> {
        self.records(layout::MODEL_CALLS_FILE)
    }

    fn append_record<T: Serialize>(&self, file: &str, record: &T) -> Result<()> {
        let line = serde_json::to_string(record).map_err(|e| WorkspaceError::Corrupt {
            path: file.to_owned(),
            reason: e.to_string(),
        })?;
        self.append_line(&WsPath::parse(file)?, &line)
    }

    /// The lines of an append-only log; a missing log is empty.
    fn records<T: DeserializeOwned>(&self, file: &str) -> Result<Vec<T>> {
        match self.read_string(&WsPath::parse(file)?) {
            Ok(text) => Ok(actions::parse_log(&text)),
            Err(WorkspaceError::NotFound { .. }) => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    pub fn task(&self) -> Result<TaskMeta> {
        self.read_json(&WsPath::parse(layout::TASK_FILE)?)
    }

    pub fn save_task(&self, task: &TaskMeta) -> Result<()> {
        self.write_json(&WsPath::parse(layout::TASK_FILE)?, task)
    }

    pub fn save_paper(&self, paper: &PaperRecord) -> Result<()> {
        self.write_paper_file(&paper.id, PaperFile::Record, paper)
    }

    /// One paper's record, `None` when the workspace has no paper of that id
    /// (an id that cannot name a folder here included).
    pub fn paper(&self, id: &PaperId) -> Result<Option<PaperRecord>> {
        let Ok(path) = WsPath::from_parts([layout::PAPERS_DIR, &id.0, "paper.json"]) else {
            return Ok(None);
        };
        match self.read_json(&path) {
            Ok(paper) => Ok(Some(paper)),
            Err(WorkspaceError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Every paper record, sorted by id. A damaged record is an error naming it.
    pub fn papers(&self) -> Result<Vec<PaperRecord>> {
        let papers_dir = WsPath::parse(layout::PAPERS_DIR)?;
        let folders: Vec<WsPath> = self
            .list_dir(&papers_dir)?
            .into_iter()
            .filter(|entry| entry.kind == EntryKind::Dir)
            .map(|entry| entry.path)
            .collect();
        // A thousand small files: read on every core.
        let read = crate::blocking::on_every_core(&folders, |folder| {
            match self.read_json::<PaperRecord>(&folder.join("paper.json")?) {
                Ok(paper) => Ok(Some(paper)),
                Err(WorkspaceError::NotFound { .. }) => Ok(None),
                Err(e) => Err(e),
            }
        })?;
        let mut out: Vec<PaperRecord> = read.into_iter().flatten().collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }

    pub fn save_run(&self, run: &RunRecord) -> Result<()> {
        let path = WsPath::from_parts([layout::RUNS_DIR, &format!("{}.json", run.id.0)])?;
        self.write_json(&path, run)
    }

    /// Every run record, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>> {
        let mut out: Vec<RunRecord> = Vec::new();
        for entry in self.list_dir(&WsPath::parse(layout::RUNS_DIR)?)? {
            if entry.kind == EntryKind::File && entry.path.to_string().ends_with(".json") {
                out.push(self.read_json(&entry.path)?);
            }
        }
        out.sort_by(|a, b| (&a.started_at, &a.id).cmp(&(&b.started_at, &b.id)));
        Ok(out)
    }

    pub fn read_json<T: DeserializeOwned>(&self, path: &WsPath) -> Result<T> {
        let bytes = self.read(path)?;
        serde_json::from_slice(&bytes).map_err(|e| WorkspaceError::Corrupt {
            path: path.to_string(),
            reason: e.to_string(),
        })
    }

    /// The JSON file at `path`, or `None` when there is none.
    pub fn read_json_if_any<T: DeserializeOwned>(&self, path: &WsPath) -> Result<Option<T>> {
        match self.read_json(path) {
            Ok(value) => Ok(Some(value)),
            Err(WorkspaceError::NotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    pub fn write_json<T: Serialize>(&self, path: &WsPath, value: &T) -> Result<()> {
        let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| WorkspaceError::Corrupt {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        bytes.push(b'\n');
        self.write(path, &bytes)
    }

    fn open_dir(&self, path: &WsPath) -> Result<Dir> {
        let dir = if path.is_root() {
            self.inner.dir.try_clone()
        } else {
            self.inner.dir.open_dir(path.to_relative())
        };
        dir.map_err(|e| WorkspaceError::from_io(path, e))
    }

    fn open_parent(&self, path: &WsPath, create: bool) -> Result<Dir> {
        let parent = path.parent().unwrap_or_else(WsPath::root);
        if create {
            self.create_dir_all(&parent)?;
        }
        self.open_dir(&parent)
    }
}

/// The result of [`Workspace::walk_files`].
#[derive(Clone, Debug, Default)]
pub struct Walk {
    pub files: Vec<Entry>,
    /// True when the walk stopped at its limit.
    pub truncated: bool,
}

fn kind_of(file_type: cap_std::fs::FileType) -> EntryKind {
    if file_type.is_symlink() {
        EntryKind::Symlink
    } else if file_type.is_dir() {
        EntryKind::Dir
    } else if file_type.is_file() {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}
