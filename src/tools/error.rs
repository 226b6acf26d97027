//! Tool failures: a stable code plus a message written for the model.

use crate::workspace::WorkspaceError;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// Stable, snake_case; part of the agent contract.
    pub code: String,
    pub message: String,
    /// True when the model cannot fix it by calling differently (the disk failed,
    /// the workspace is gone): the run should stop rather than retry.
    pub fatal: bool,
}

impl ToolError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            fatal: false,
        }
    }

    pub fn fatal(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            fatal: true,
        }
    }

    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new("invalid_arguments", message)
    }
}

impl From<crate::blocking::BlockingFailed> for ToolError {
    fn from(e: crate::blocking::BlockingFailed) -> Self {
        Self::fatal("internal_error", e.to_string())
    }
}

impl From<WorkspaceError> for ToolError {
    fn from(err: WorkspaceError) -> Self {
        let fatal = matches!(
            err,
            WorkspaceError::Io { .. }
                | WorkspaceError::Locked { .. }
                | WorkspaceError::NotAWorkspace { .. }
        );
        Self {
            code: err.code().to_owned(),
            message: err.to_string(),
            fatal,
        }
    }
}
