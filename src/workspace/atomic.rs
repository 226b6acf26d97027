//! Crash-safe file replacement.
//!
//! A reader must never see half a file, even if the writer is killed mid-write.
//! The recipe: write a temp file in the same directory (so the rename cannot cross
//! filesystems), `fsync` it, `rename` it over the target (atomic on POSIX), then
//! `fsync` the directory so the rename itself survives a power cut. A killed
//! writer leaves at most a temp file, which [`sweep_temp_files`] removes later.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use cap_std::fs::{Dir, OpenOptions};

use super::layout::TEMP_PREFIX;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replace `name` inside `parent` with `bytes`, atomically.
pub(crate) fn replace(parent: &Dir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = format!(
        "{TEMP_PREFIX}{}-{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let result = write_then_rename(parent, &tmp, name, bytes);
    if result.is_err() {
        let _ = parent.remove_file(&tmp);
    }
    result
}

fn write_then_rename(parent: &Dir, tmp: &str, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    let mut file = parent.open_with(tmp, &options)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    parent.rename(tmp, parent, name)?;
    sync_dir(parent)
}

/// Make a directory's entries (a rename, a new file) durable.
pub(crate) fn sync_dir(dir: &Dir) -> std::io::Result<()> {
    // Windows cannot fsync a directory handle and does not need to.
    if cfg!(windows) {
        return Ok(());
    }
    // cap-std's directory handles are `O_PATH`, which cannot be synced; open the
    // directory itself for reading to get a handle that can.
    dir.open(".")?.sync_all()
}

/// Remove temp files a killed writer left behind, anywhere under `dir`.
/// Only called while holding the workspace lock, so no live writer owns them.
/// Whether this process opens the workspace at `root` for the first time
/// (and so should sweep what a dead writer left).
pub(crate) fn first_open_in_process(root: &std::path::Path) -> bool {
    static SWEPT: std::sync::Mutex<Option<std::collections::HashSet<std::path::PathBuf>>> =
        std::sync::Mutex::new(None);
    let mut swept = SWEPT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    swept
        .get_or_insert_with(Default::default)
        .insert(root.to_path_buf())
}

pub(crate) fn sweep_temp_files(dir: &Dir, depth: usize) -> std::io::Result<usize> {
    let mut removed = 0;
    for entry in dir.entries()? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let kind = entry.file_type()?;
        if kind.is_file() && name.starts_with(TEMP_PREFIX) {
            dir.remove_file(name)?;
            removed += 1;
        } else if kind.is_dir() && depth > 0 {
            removed += sweep_temp_files(&entry.open_dir()?, depth - 1)?;
        }
    }
    Ok(removed)
}
