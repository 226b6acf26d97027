//! The error every command returns, serialisable as `{kind, code, message}`:
//! `kind` is one of a few [`ErrorKind`]s the UI matches exhaustively (what the
//! researcher can do about it), `code` the stable snake_case detail
//! (`folder_not_found`, `workspace_locked`), `message` one sentence to show.

use serde::Serialize;

use crate::agent::RuntimeError;
use crate::index::IndexError;
use crate::llm::LlmError;
use crate::llm::secrets::SecretError;
use crate::llm::settings::SettingsError;
use crate::pdf::ScanError;
use crate::review::ReviewError;
use crate::workspace::WorkspaceError;

/// What kind of thing went wrong, as far as the researcher can act on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ErrorKind {
    /// What was asked cannot be done as given: fix the input (a path that is
    /// not a folder of PDFs, an empty question, a cap that cannot be kept).
    InvalidInput,
    /// What was named does not exist (a folder, a paper, a workspace).
    NotFound,
    /// Another run or process holds it; try again when it is done.
    Busy,
    /// No model, or its settings or key are wrong: open the model settings.
    ModelSetup,
    /// The model server failed, refused or could not be reached.
    ModelServer,
    /// A file could not be read or written (a full disk, permissions).
    Storage,
    /// The researcher stopped it.
    Cancelled,
    /// A fault in Quire itself.
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CommandError {
    pub kind: ErrorKind,
    /// Stable snake_case code, e.g. `folder_not_found`, `workspace_locked`.
    pub code: String,
    /// One sentence for a person.
    pub message: String,
}

impl CommandError {
    pub fn new(kind: ErrorKind, code: &str, message: impl Into<String>) -> Self {
        Self {
            kind,
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// Input that cannot be used as given.
    pub fn invalid(code: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidInput, code, message)
    }

    /// A file that could not be read or written.
    pub fn storage(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Storage, "io_error", message)
    }

    pub(crate) fn internal(what: impl std::fmt::Display) -> Self {
        Self::new(
            ErrorKind::Internal,
            "internal_error",
            format!("internal error: {what}"),
        )
    }
}

impl From<crate::blocking::BlockingFailed> for CommandError {
    fn from(e: crate::blocking::BlockingFailed) -> Self {
        Self::internal(e)
    }
}

impl From<ReviewError> for CommandError {
    fn from(e: ReviewError) -> Self {
        let kind = match &e {
            ReviewError::SourceNotFound { .. } => ErrorKind::NotFound,
            ReviewError::SourceUnreadable { .. } | ReviewError::WriteFailed { .. } => {
                ErrorKind::Storage
            }
            ReviewError::Scan(e) => scan_kind(e),
            ReviewError::Workspace(e) => workspace_kind(e),
            ReviewError::Runtime(e) => runtime_kind(e),
            ReviewError::Blocking(_) => ErrorKind::Internal,
            ReviewError::NoSuchPaper { .. } => ErrorKind::NotFound,
            ReviewError::AmbiguousPaper { .. }
            | ReviewError::EmptyQuestion
            | ReviewError::Records(_)
            | ReviewError::NoReadablePaper { .. }
            | ReviewError::NotADuplicate { .. } => ErrorKind::InvalidInput,
        };
        Self::new(kind, e.code(), e.to_string())
    }
}

impl From<RuntimeError> for CommandError {
    fn from(e: RuntimeError) -> Self {
        Self::new(runtime_kind(&e), e.code(), e.to_string())
    }
}

impl From<WorkspaceError> for CommandError {
    fn from(e: WorkspaceError) -> Self {
        Self::new(workspace_kind(&e), e.code(), e.to_string())
    }
}

impl From<ScanError> for CommandError {
    fn from(e: ScanError) -> Self {
        Self::new(scan_kind(&e), e.code(), e.to_string())
    }
}

impl From<IndexError> for CommandError {
    fn from(e: IndexError) -> Self {
        let (kind, code) = match e {
            IndexError::Busy { .. } => (ErrorKind::Busy, "index_busy"),
            _ => (ErrorKind::Storage, "index_error"),
        };
        Self::new(kind, code, e.to_string())
    }
}

impl From<LlmError> for CommandError {
    fn from(e: LlmError) -> Self {
        let kind = match e {
            LlmError::Auth { .. } | LlmError::Config(_) => ErrorKind::ModelSetup,
            _ => ErrorKind::ModelServer,
        };
        Self::new(kind, e.code(), e.to_string())
    }
}

impl From<SettingsError> for CommandError {
    fn from(e: SettingsError) -> Self {
        let code = match e {
            SettingsError::NoProfile { .. } => "no_model_configured",
            SettingsError::UnknownProfile { .. } => "unknown_model_profile",
            _ => "model_settings_invalid",
        };
        Self::new(ErrorKind::ModelSetup, code, e.to_string())
    }
}

impl From<SecretError> for CommandError {
    fn from(e: SecretError) -> Self {
        Self::new(ErrorKind::ModelSetup, "api_key_unavailable", e.to_string())
    }
}

fn workspace_kind(e: &WorkspaceError) -> ErrorKind {
    match e {
        WorkspaceError::NotFound { .. } => ErrorKind::NotFound,
        WorkspaceError::Locked { .. } => ErrorKind::Busy,
        WorkspaceError::Io { .. } | WorkspaceError::Corrupt { .. } => ErrorKind::Storage,
        _ => ErrorKind::InvalidInput,
    }
}

fn scan_kind(e: &ScanError) -> ErrorKind {
    match e {
        ScanError::NotFound { .. } => ErrorKind::NotFound,
        ScanError::NotPdfOrFolder { .. } => ErrorKind::InvalidInput,
        ScanError::Io { .. } => ErrorKind::Storage,
    }
}

fn runtime_kind(e: &RuntimeError) -> ErrorKind {
    match e {
        RuntimeError::Agent(_) => ErrorKind::InvalidInput,
        RuntimeError::Workspace(e) => workspace_kind(e),
        RuntimeError::NoModel { .. } => ErrorKind::ModelSetup,
        RuntimeError::Internal(_) => ErrorKind::Internal,
        RuntimeError::Batch(_) => ErrorKind::ModelServer,
    }
}
