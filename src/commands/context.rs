//! What every command needs: where Quire keeps its data, the index, and the
//! reviews running in this process.

use super::ErrorKind;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::CommandError;
use crate::index::{Index, OpenOutcome};
use crate::pdf::ingest::IngestOptions;

/// Where Quire keeps its data (`QUIRE_DATA_DIR`, else `~/.local/share/quire` on
/// Linux) and its settings (`QUIRE_CONFIG_DIR`, else `~/.config/quire`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AppPaths {
    pub data_dir: PathBuf,
    pub config_dir: PathBuf,
}

impl AppPaths {
    /// Everything under one folder: data at its root, settings in `config/`.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        let data_dir = data_dir.into();
        Self {
            config_dir: data_dir.join("config"),
            data_dir,
        }
    }

    /// From `QUIRE_DATA_DIR` and `QUIRE_CONFIG_DIR`, else the platform's folders.
    pub fn from_env() -> Result<Self, CommandError> {
        let data_dir = match std::env::var_os("QUIRE_DATA_DIR").filter(|d| !d.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => dirs::data_dir().map(|d| d.join("quire")).ok_or_else(|| {
                CommandError::new(
                    ErrorKind::Storage,
                    "no_data_dir",
                    "cannot find a data folder; set QUIRE_DATA_DIR",
                )
            })?,
        };
        Ok(Self {
            data_dir,
            config_dir: crate::llm::settings::config_dir()?,
        })
    }

    /// Where new workspaces are created, one folder each.
    pub fn workspaces_root(&self) -> PathBuf {
        self.data_dir.join("workspaces")
    }

    pub fn index_path(&self) -> PathBuf {
        self.data_dir.join("index.sqlite3")
    }
}

/// Shared by all commands of one process. Cheap to clone.
#[derive(Clone, Debug)]
pub struct AppContext {
    paths: AppPaths,
    /// Opened on first use; `None` until then or after it failed to open.
    index: Arc<Mutex<Option<Index>>>,
    /// Set when a write to the index failed: the next use rebuilds it from the
    /// workspaces, so a moment of contention cannot leave the list stale.
    stale: Arc<AtomicBool>,
    /// The reviews running in this process, by workspace root; the condvar is
    /// told each time one ends, for [`AppContext::stop_runs`].
    runs: Arc<(Mutex<HashMap<PathBuf, CancellationToken>>, Condvar)>,
    /// The binary extraction workers run from; `None` is this process's own.
    worker_exe: Option<PathBuf>,
    /// The screening queues built in this process.
    queues: super::screening::QueueCache,
    /// The rows of the review last opened, for the table's pages.
    rows: super::review_rows::RowCache,
}

impl AppContext {
    pub fn new(paths: AppPaths) -> Self {
        Self {
            paths,
            index: Arc::new(Mutex::new(None)),
            stale: Arc::new(AtomicBool::new(false)),
            runs: Arc::default(),
            worker_exe: None,
            queues: Default::default(),
            rows: Default::default(),
        }
    }

    /// The rows of the review last opened, for the table's pages.
    pub(crate) fn rows(&self) -> &super::review_rows::RowCache {
        &self.rows
    }

    /// The screening queues built in this process.
    pub(crate) fn queues(&self) -> &super::screening::QueueCache {
        &self.queues
    }

    /// Start extraction workers from `exe` (a binary whose main calls
    /// `run_worker_if_requested`) instead of this process's own binary: for
    /// hosts that are not such a binary, such as a test harness.
    pub fn with_worker_exe(mut self, exe: impl Into<PathBuf>) -> Self {
        self.worker_exe = Some(exe.into());
        self
    }

    pub fn paths(&self) -> &AppPaths {
        &self.paths
    }

    /// Run `work` with the index, opening it first if needed (and rebuilding it
    /// from the workspaces when it is new or was damaged). Blocking: call from the
    /// blocking pool.
    pub(crate) fn with_index<T>(
        &self,
        work: impl FnOnce(&mut Index) -> Result<T, CommandError>,
    ) -> Result<T, CommandError> {
        let mut guard = self
            .index
            .lock()
            .map_err(|_| CommandError::internal("index mutex poisoned"))?;
        if guard.is_none() {
            *guard = Some(open_index(
                &self.paths.index_path(),
                &self.paths.workspaces_root(),
            )?);
        }
        let Some(index) = guard.as_mut() else {
            return Err(CommandError::internal("index not open"));
        };
        if self.stale.load(Ordering::Acquire) {
            index.rebuild(&[self.paths.workspaces_root()])?;
            self.stale.store(false, Ordering::Release);
        }
        work(index)
    }

    /// How this process extracts PDFs: in workers started from its own binary
    /// (which must call `run_worker_if_requested` first thing), with the text
    /// cache in the data folder.
    pub fn ingest_options(&self) -> Result<IngestOptions, CommandError> {
        let exe = match &self.worker_exe {
            Some(exe) => exe.clone(),
            None => std::env::current_exe().map_err(|e| {
                CommandError::new(
                    ErrorKind::Storage,
                    "io_error",
                    format!("cannot find this program's binary: {e}"),
                )
            })?,
        };
        let mut ingest = IngestOptions::new(exe);
        ingest.cache_dir = Some(self.paths.data_dir.join("cache").join("text"));
        Ok(ingest)
    }

    /// Note that `root` has a run in this process; false when it already had one.
    pub(crate) fn claim_run(&self, root: &Path, cancel: CancellationToken) -> bool {
        let mut runs = self.runs.0.lock().unwrap_or_else(PoisonError::into_inner);
        if runs.contains_key(root) {
            return false;
        }
        runs.insert(root.to_path_buf(), cancel);
        true
    }

    /// Run `work` with a cancellation token held under `key` (one at a time
    /// per key, stopped with the app's other runs); `busy` when one is
    /// already held there.
    pub(crate) async fn held<T, F>(
        &self,
        key: &Path,
        busy: (&str, &str),
        work: impl FnOnce(CancellationToken) -> F,
    ) -> Result<T, CommandError>
    where
        F: std::future::Future<Output = Result<T, CommandError>>,
    {
        let cancel = CancellationToken::new();
        if !self.claim_run(key, cancel.clone()) {
            return Err(CommandError::new(super::ErrorKind::Busy, busy.0, busy.1));
        }
        let done = work(cancel).await;
        self.release_run(key);
        done
    }

    pub(crate) fn release_run(&self, root: &Path) {
        let (runs, ended) = &*self.runs;
        runs.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(root);
        ended.notify_all();
    }

    /// Cancel every run in this process and wait up to `grace` for them to
    /// write their state and end, so quitting the app leaves each review
    /// cancelled (resumable) rather than cut off mid-write. Blocking: the runs
    /// end on the async runtime's threads, never on the caller's. Returns how
    /// many were still running when the grace ran out.
    pub fn stop_runs(&self, grace: Duration) -> usize {
        let (runs, ended) = &*self.runs;
        let mut runs = runs.lock().unwrap_or_else(PoisonError::into_inner);
        for token in runs.values() {
            token.cancel();
        }
        let deadline = Instant::now() + grace;
        while !runs.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            runs = ended
                .wait_timeout(runs, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        runs.len()
    }

    /// The cancellation token of the run in `root`, if one is running.
    pub fn run_in(&self, root: &Path) -> Option<CancellationToken> {
        self.runs
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(root)
            .cloned()
    }

    /// Cancel the run held under `key`; false when none is.
    pub fn cancel_run(&self, key: &Path) -> bool {
        self.run_in(key).map(|token| token.cancel()).is_some()
    }

    /// Note that the index missed a change; see [`AppContext::with_index`].
    pub(crate) fn mark_index_stale(&self) {
        self.stale.store(true, Ordering::Release);
    }
}

fn open_index(path: &Path, workspaces_root: &Path) -> Result<Index, CommandError> {
    let (mut index, outcome) = Index::open(path)?;
    if outcome == OpenOutcome::Fresh {
        let report = index.rebuild(&[workspaces_root.to_path_buf()])?;
        tracing::info!(
            workspaces = report.workspaces,
            papers = report.papers,
            "index rebuilt from workspaces"
        );
    }
    Ok(index)
}
