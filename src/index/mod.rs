//! The SQLite index: workspaces, papers and runs, for fast listing in the UI.
//!
//! It is only a cache. The workspace files are the record of truth, and
//! [`Index::rebuild`] recreates every row from them. So a missing or corrupt
//! database is moved aside and rebuilt, and a locked one is reported as
//! [`IndexError::Busy`] so the caller can fall back to reading the workspaces.
//! The API is synchronous; async callers run it with `spawn_blocking`.

mod migrations;
mod rows;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, params};

use crate::workspace::{ModelCallRecord, Workspace, WorkspaceError, layout};

pub use rows::{
    IndexDump, ModelCallRow, ModelUsage, PaperRow, RunRow, WorkspaceRow, WorkspaceSnapshot,
};

/// How long a writer waits for another process's transaction before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(3);

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("the index at {path} is busy (another Quire process holds it); try again")]
    Busy { path: PathBuf },
    #[error(
        "the index at {path} was created by a newer Quire (schema {found}, this build knows {known})"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("index error at {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("could not set aside the damaged index {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What opening the index found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpenOutcome {
    /// An existing, healthy database that a rebuild has filled.
    Existing,
    /// A database no rebuild has filled yet: none existed, a damaged one was
    /// set aside, or the process that created it stopped before its first
    /// rebuild committed. The caller should [`Index::rebuild`] it.
    Fresh,
}

pub struct Index {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).finish()
    }
}

impl Index {
    /// Open (or create) the index at `path`. A damaged file is renamed to
    /// `<name>.corrupt-<time>` and replaced by an empty database.
    pub fn open(path: &Path) -> Result<(Self, OpenOutcome), IndexError> {
        match Self::open_checked(path) {
            Ok(index) => {
                let outcome = if index.was_rebuilt()? {
                    OpenOutcome::Existing
                } else {
                    OpenOutcome::Fresh
                };
                Ok((index, outcome))
            }
            Err(IndexError::Sqlite { source, .. }) if is_corruption(&source) => {
                let aside = set_aside(path)?;
                tracing::warn!(index = %path.display(), moved_to = %aside.display(), error = %source,
                    "index database is damaged; starting a fresh one");
                Ok((Self::open_checked(path)?, OpenOutcome::Fresh))
            }
            Err(e) => Err(e),
        }
    }

    fn open_checked(path: &Path) -> Result<Self, IndexError> {
        let sqlite = |source| classify(path, source);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|source| IndexError::Io {
                path: parent.into(),
                source,
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(sqlite)?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
        // Reading the schema is the first touch of the file's content: a garbage
        // file fails here with NOTADB, a damaged one with CORRUPT.
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sqlite)?;
        if version > migrations::LATEST {
            return Err(IndexError::TooNew {
                path: path.into(),
                found: version,
                known: migrations::LATEST,
            });
        }
        let check: String = conn
            .pragma_query_value(None, "quick_check", |r| r.get(0))
            .map_err(sqlite)?;
        if check != "ok" {
            return Err(IndexError::Sqlite {
                path: path.into(),
                source: rusqlite::Error::SqliteFailure(
                    rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                    Some(check),
                ),
            });
        }
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "foreign_keys", true)
            .map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        migrations::apply(&mut conn).map_err(sqlite)?;
        Ok(Self {
            conn,
            path: path.into(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Insert or replace one workspace with its papers and runs.
    pub fn upsert(&mut self, snapshot: &WorkspaceSnapshot) -> Result<(), IndexError> {
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| classify(&path, e))?;
        rows::write_snapshot(&tx, snapshot).map_err(|e| classify(&path, e))?;
        tx.commit().map_err(|e| classify(&path, e))
    }

    /// Forget one workspace (its folder is gone).
    pub fn remove(&mut self, workspace_id: &str) -> Result<(), IndexError> {
        self.conn
            .execute(
                "DELETE FROM workspaces WHERE id = ?1",
                params![workspace_id],
            )
            .map(|_| ())
            .map_err(|e| classify(&self.path, e))
    }

    /// Workspaces, most recently updated first.
    pub fn workspaces(&self) -> Result<Vec<WorkspaceRow>, IndexError> {
        rows::list_workspaces(&self.conn).map_err(|e| classify(&self.path, e))
    }

    /// The id of the workspace whose source is `source`, if any.
    pub fn workspace_for_source(&self, source: &Path) -> Result<Option<WorkspaceRow>, IndexError> {
        let id: Option<String> = self
            .conn
            .query_row(
                "SELECT id FROM workspaces WHERE source = ?1 ORDER BY updated_at DESC LIMIT 1",
                params![source.to_string_lossy()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| classify(&self.path, e))?;
        let Some(id) = id else { return Ok(None) };
        Ok(self.workspaces()?.into_iter().find(|w| w.id == id))
    }

    /// Add one model call of a workspace: the `seq`-th line (from 1) of its
    /// `model-calls.jsonl`. Idempotent, so a rebuild that already read the line
    /// is not doubled.
    pub fn record_model_call(
        &mut self,
        workspace_id: &str,
        seq: u64,
        call: &ModelCallRecord,
    ) -> Result<(), IndexError> {
        rows::insert_model_call(&self.conn, workspace_id, seq as i64, call)
            .map_err(|e| classify(&self.path, e))
    }

    /// Token and cost totals of a workspace's model calls.
    pub fn model_usage(&self, workspace_id: &str) -> Result<ModelUsage, IndexError> {
        rows::model_usage(&self.conn, workspace_id).map_err(|e| classify(&self.path, e))
    }

    /// Every row of every table, sorted: what rebuild-equality tests compare.
    pub fn dump(&self) -> Result<IndexDump, IndexError> {
        rows::dump(&self.conn).map_err(|e| classify(&self.path, e))
    }

    /// Whether a rebuild has ever committed into this database: one that was
    /// only created (or whose first rebuild was cut short) is not yet complete.
    fn was_rebuilt(&self) -> Result<bool, IndexError> {
        self.conn
            .query_row(
                "SELECT 1 FROM index_state WHERE key = 'rebuilt'",
                [],
                |_| Ok(()),
            )
            .optional()
            .map(|found| found.is_some())
            .map_err(|e| classify(&self.path, e))
    }

    /// Replace the whole index with what the workspaces under `roots` say. Folders
    /// that are not workspaces are skipped; damaged ones are reported, not fatal.
    pub fn rebuild(&mut self, roots: &[PathBuf]) -> Result<RebuildReport, IndexError> {
        let mut report = RebuildReport::default();
        let mut snapshots = Vec::new();
        for root in roots {
            for folder in workspace_folders(root) {
                match WorkspaceSnapshot::read(&folder) {
                    Ok(snapshot) => snapshots.push(snapshot),
                    Err(WorkspaceError::NotAWorkspace { .. }) => {}
                    Err(e) => report.skipped.push((folder, e.to_string())),
                }
            }
        }
        let path = self.path.clone();
        let tx = self.conn.transaction().map_err(|e| classify(&path, e))?;
        tx.execute_batch(
            "DELETE FROM model_calls; DELETE FROM runs; DELETE FROM papers; DELETE FROM workspaces;",
        )
            .map_err(|e| classify(&path, e))?;
        for snapshot in &snapshots {
            rows::write_snapshot(&tx, snapshot).map_err(|e| classify(&path, e))?;
            report.workspaces += 1;
            report.papers += snapshot.papers.len();
            report.runs += snapshot.runs.len();
        }
        tx.execute(
            "INSERT OR REPLACE INTO index_state (key, value) VALUES ('rebuilt', datetime('now'))",
            [],
        )
        .map_err(|e| classify(&path, e))?;
        tx.commit().map_err(|e| classify(&path, e))?;
        Ok(report)
    }
}

/// What [`Index::rebuild`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RebuildReport {
    pub workspaces: usize,
    pub papers: usize,
    pub runs: usize,
    /// Folders that looked like workspaces but could not be read, with why.
    pub skipped: Vec<(PathBuf, String)>,
}

impl WorkspaceSnapshot {
    /// Read what the index keeps of one workspace, without taking its lock.
    pub fn read(root: &Path) -> Result<Self, WorkspaceError> {
        let ws = Workspace::open_read_only(root)?;
        Self::of(&ws)
    }

    /// What the index keeps of an open workspace.
    pub fn of(ws: &Workspace) -> Result<Self, WorkspaceError> {
        Ok(Self {
            root: ws.root().to_path_buf(),
            task: ws.task()?,
            papers: ws.papers()?,
            runs: ws.runs()?,
            model_calls: ws.model_calls()?,
        })
    }
}

/// Sub-folders of `root` holding a `task.json`, sorted. A missing root has none.
fn workspace_folders(root: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.join(layout::TASK_FILE).is_file())
        .collect();
    out.sort();
    out
}

fn is_corruption(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

fn classify(path: &Path, source: rusqlite::Error) -> IndexError {
    match source.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            IndexError::Busy { path: path.into() }
        }
        _ => IndexError::Sqlite {
            path: path.into(),
            source,
        },
    }
}

/// Rename a damaged database (and its WAL files) out of the way, keeping it for
/// inspection rather than deleting what might be someone's only copy.
fn set_aside(path: &Path) -> Result<PathBuf, IndexError> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    let aside = PathBuf::from(format!("{}.corrupt-{stamp}", path.display()));
    std::fs::rename(path, &aside).map_err(|source| IndexError::Io {
        path: path.into(),
        source,
    })?;
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    Ok(aside)
}
