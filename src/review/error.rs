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
    /// A search export that cannot be read as records.
    #[error(transparent)]
    Records(#[from] crate::records::RecordsError),
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
    #[error(transparent)]
    Blocking(#[from] BlockingFailed),
    /// A write failed mid-run (a full disk): the run stopped, what was saved
    /// is kept, and the same review resumes once there is room.
    #[error("{}", write_failed(.cause))]
    WriteFailed { cause: String },
    #[error("no readable paper id starts with {id:?}")]
    NoSuchPaper { id: String },
    #[error("several paper ids start with {id:?}; give more of it")]
    AmbiguousPaper { id: String },
    #[error("the question is empty")]
    EmptyQuestion,
    /// Nothing in the source can be read (no PDF, or none with text): the
    /// engine is not started and no model is called.
    #[error("no paper to review in {}: {why}; nothing was sent to a model", .path.display())]
    NoReadablePaper { path: PathBuf, why: String },
    /// A paper that cannot be set aside as a copy of the one named.
    #[error("{why}")]
    NotADuplicate { why: String },
}

/// What a run that could not write says: the cause, that nothing more was
/// spent, and how to go on.
pub fn write_failed(cause: &str) -> String {
    format!(
        "the workspace could not be written ({cause}); the run stopped before spending more. What was saved is kept: make room on the disk (or fix the folder's permissions) and run the review again to resume"
    )
}

impl ReviewError {
    /// The error of a write of the run's outputs: an I/O failure there
    /// leaves the results in place, so it says how to resume.
    pub fn on_write(self) -> Self {
        match self {
            Self::Workspace(e) if e.code() == "io_error" => Self::WriteFailed {
                cause: e.to_string(),
            },
            other => other,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::SourceNotFound { .. } => "folder_not_found",
            Self::SourceUnreadable { .. } => "io_error",
            Self::Scan(e) => e.code(),
            Self::Records(_) => "records_unreadable",
            Self::Workspace(e) => e.code(),
            Self::Runtime(e) => e.code(),
            Self::Blocking(_) => "internal_error",
            Self::WriteFailed { .. } => "write_failed",
            Self::NoSuchPaper { .. } => "paper_not_found",
            Self::AmbiguousPaper { .. } => "paper_ambiguous",
            Self::EmptyQuestion => "empty_question",
            Self::NoReadablePaper { .. } => "no_readable_paper",
            Self::NotADuplicate { .. } => "not_a_duplicate",
        }
    }
}

impl From<crate::review::batches::ahead::AheadError> for ReviewError {
    fn from(e: crate::review::batches::ahead::AheadError) -> Self {
        use crate::review::batches::ahead::AheadError;
        match e {
            AheadError::Workspace(e) => Self::Workspace(e),
            AheadError::Batch(why) => Self::Runtime(RuntimeError::Batch(why)),
        }
    }
}
