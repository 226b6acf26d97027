//! Tool failures: a stable code, a message written for the model, and what
//! the caller is to do about it ([`Recovery`]).

use crate::workspace::WorkspaceError;

/// What a failed call leaves the agent loop to do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// The model can fix it by calling differently: tell it, and go on.
    Retry,
    /// Nothing the model does can fix it (the disk failed, the workspace is
    /// gone): the task stops.
    Fatal,
    /// A spending cap would be crossed: the task stops, resumable with a
    /// higher cap.
    Exhausted,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    /// Stable, snake_case; part of the agent contract.
    pub code: String,
    pub message: String,
    pub recovery: Recovery,
}

/// The code of a call refused because a spending cap would be crossed.
pub const BUDGET_EXHAUSTED: &str = "budget_exhausted";

impl ToolError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            recovery: Recovery::Retry,
        }
    }

    pub fn fatal(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
            recovery: Recovery::Fatal,
        }
    }

    /// Refused because a spending cap would be crossed.
    pub fn exhausted(message: impl Into<String>) -> Self {
        Self {
            code: BUDGET_EXHAUSTED.to_owned(),
            message: message.into(),
            recovery: Recovery::Exhausted,
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
            recovery: if fatal {
                Recovery::Fatal
            } else {
                Recovery::Retry
            },
        }
    }
}
