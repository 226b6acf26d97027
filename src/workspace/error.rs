//! The one error type of the workspace boundary, each variant with a stable code.
//!
//! Codes are part of the agent contract: they reach the model in tool errors and
//! the CLI prints them on stderr, so they never change once published.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error("path leads outside the workspace: {path}")]
    PathOutsideWorkspace { path: String },
    #[error("absolute paths are not allowed, use a path relative to the workspace root: {path}")]
    PathAbsolute { path: String },
    #[error("path contains a NUL byte: {path}")]
    PathHasNul { path: String },
    #[error("path or file name is too long: {path}")]
    PathTooLong { path: String },
    #[error("path is not valid UTF-8 or has an unsupported component: {path}")]
    PathInvalid { path: String },
    #[error("{path} is maintained by Quire and cannot be changed by tools")]
    PathReadOnly { path: String },
    #[error("no such file or directory: {path}")]
    NotFound { path: String },
    #[error("{path} is a directory, not a file")]
    NotAFile { path: String },
    #[error("{path} is not a directory")]
    NotADirectory { path: String },
    #[error("too many levels of symbolic links at {path}")]
    SymlinkLoop { path: String },
    #[error("workspace {root} is in use {}", holder_note(.holder))]
    Locked { root: PathBuf, holder: Option<u32> },
    #[error("{root} is not a Quire workspace (no task.json)")]
    NotAWorkspace { root: PathBuf },
    #[error("{path} is damaged: {reason}")]
    Corrupt { path: String, reason: String },
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// Who holds the lock, in words: this very process (another task of the
/// same app, such as reading the files) or another Quire.
fn holder_note(holder: &Option<u32>) -> String {
    match holder {
        Some(pid) if *pid == std::process::id() => {
            "by another task of this Quire (reading its files, or a run); try again when it has finished".to_owned()
        }
        Some(pid) => format!("by another Quire process (pid {pid})"),
        None => "by another Quire process".to_owned(),
    }
}

impl WorkspaceError {
    /// The stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::PathOutsideWorkspace { .. } => "path_outside_workspace",
            Self::PathAbsolute { .. } => "path_absolute",
            Self::PathHasNul { .. } => "path_has_nul",
            Self::PathTooLong { .. } => "path_too_long",
            Self::PathInvalid { .. } => "path_invalid",
            Self::PathReadOnly { .. } => "path_read_only",
            Self::NotFound { .. } => "file_not_found",
            Self::NotAFile { .. } => "not_a_file",
            Self::NotADirectory { .. } => "not_a_directory",
            Self::SymlinkLoop { .. } => "symlink_loop",
            Self::Locked { .. } => "workspace_locked",
            Self::NotAWorkspace { .. } => "not_a_workspace",
            Self::Corrupt { .. } => "workspace_corrupt",
            Self::Io { .. } => "io_error",
        }
    }

    /// Translate an I/O error from a confined operation on `path`.
    ///
    /// cap-std reports any attempt to leave the root (a `..` in a symlink target,
    /// an absolute link, a chain that ends outside) as `PermissionDenied` with a
    /// fixed message; that is the one case we must not confuse with a real
    /// permission problem.
    pub(crate) fn from_io(path: &impl ToString, source: std::io::Error) -> Self {
        use std::io::ErrorKind;
        let path = path.to_string();
        let escaped = source.kind() == ErrorKind::PermissionDenied
            && source.to_string().contains("outside of the filesystem");
        if escaped {
            return Self::PathOutsideWorkspace { path };
        }
        match source.kind() {
            ErrorKind::NotFound => Self::NotFound { path },
            ErrorKind::IsADirectory => Self::NotAFile { path },
            ErrorKind::NotADirectory => Self::NotADirectory { path },
            _ if source.raw_os_error() == Some(ELOOP) => Self::SymlinkLoop { path },
            _ => Self::Io { path, source },
        }
    }
}

/// `ELOOP`, "too many levels of symbolic links" (40 on Linux, 62 on macOS and the BSDs).
#[cfg(target_os = "linux")]
const ELOOP: i32 = 40;
#[cfg(not(target_os = "linux"))]
const ELOOP: i32 = 62;
