//! One process at a time per workspace.
//!
//! The lock is an OS file lock (`flock` on Unix, `LockFileEx` on Windows) on
//! `.quire/lock`, so it dies with the process: a killed run never leaves a stale
//! lock behind. The holder writes its pid into the file so the refusal can say who
//! holds it.

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use cap_std::fs::{Dir, OpenOptions};

use super::{WorkspaceError, layout};

/// Held for as long as a [`super::Workspace`] is open; dropping it releases the lock.
#[derive(Debug)]
pub(crate) struct WorkspaceLock {
    _file: File,
}

pub(crate) fn acquire(dir: &Dir, root: &Path) -> Result<WorkspaceLock, WorkspaceError> {
    let lock_path = format!("{}/{}", layout::PRIVATE_DIR, layout::LOCK_FILE);
    let io = |e| WorkspaceError::from_io(&lock_path, e);
    dir.create_dir_all(layout::PRIVATE_DIR).map_err(io)?;
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true);
    let mut file = dir.open_with(&lock_path, &options).map_err(io)?.into_std();
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut text = String::new();
            let holder = file
                .read_to_string(&mut text)
                .ok()
                .and_then(|_| text.trim().parse().ok());
            return Err(WorkspaceError::Locked {
                root: root.to_path_buf(),
                holder,
            });
        }
        Err(TryLockError::Error(e)) => return Err(io(e)),
    }
    // Best effort: the pid only improves the message a second process shows.
    let _ = file
        .set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| write!(file, "{}", std::process::id()));
    Ok(WorkspaceLock { _file: file })
}
