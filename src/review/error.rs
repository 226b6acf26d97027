//! What can stop a review, as the hosts report it.

use std::path::PathBuf;

use crate::agent::RuntimeError;
use crate::blocking::BlockingFailed;
use crate::pdf::ScanError;
use crate::workspace::WorkspaceError;

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{} does not exist", .path.display())]
    SourceNotFound { path: PathBuf },
    #[error("cannot open {}: {reason}", .path.display())]
    SourceUnreadable { path: PathBuf, reason: String },
    #[error(transparent)]
    Scan(#[from] ScanError),
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error(transparent)]
    Blocking(#[from] BlockingFailed),
}

impl ReviewError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::SourceNotFound { .. } => "folder_not_found",
            Self::SourceUnreadable { .. } => "io_error",
            Self::Scan(e) => e.code(),
            Self::Workspace(e) => e.code(),
            Self::Runtime(e) => e.code(),
            Self::Blocking(_) => "internal_error",
        }
    }
}
