//! The error every command returns: serialisable as `{kind, message}` so the UI can
//! branch on `kind` and show `message` as it is.

use serde::Serialize;

use crate::index::IndexError;
use crate::llm::LlmError;
use crate::llm::secrets::SecretError;
use crate::llm::settings::SettingsError;
use crate::pdf::ScanError;
use crate::workspace::WorkspaceError;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct CommandError {
    /// Stable snake_case code, e.g. `folder_not_found`, `workspace_locked`.
    pub kind: String,
    /// One sentence for a person.
    pub message: String,
}

impl CommandError {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        Self {
            kind: kind.to_owned(),
            message: message.into(),
        }
    }

    pub(crate) fn internal(what: impl std::fmt::Display) -> Self {
        Self::new("internal_error", format!("internal error: {what}"))
    }
}

impl From<crate::blocking::BlockingFailed> for CommandError {
    fn from(e: crate::blocking::BlockingFailed) -> Self {
        Self::internal(e)
    }
}

impl From<crate::review::ReviewError> for CommandError {
    fn from(e: crate::review::ReviewError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<crate::agent::RuntimeError> for CommandError {
    fn from(e: crate::agent::RuntimeError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<WorkspaceError> for CommandError {
    fn from(e: WorkspaceError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<ScanError> for CommandError {
    fn from(e: ScanError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<IndexError> for CommandError {
    fn from(e: IndexError) -> Self {
        let kind = match e {
            IndexError::Busy { .. } => "index_busy",
            _ => "index_error",
        };
        Self::new(kind, e.to_string())
    }
}

impl From<LlmError> for CommandError {
    fn from(e: LlmError) -> Self {
        Self::new(e.code(), e.to_string())
    }
}

impl From<SettingsError> for CommandError {
    fn from(e: SettingsError) -> Self {
        let kind = match e {
            SettingsError::NoProfile { .. } => "no_model_configured",
            SettingsError::UnknownProfile { .. } => "unknown_model_profile",
            _ => "model_settings_invalid",
        };
        Self::new(kind, e.to_string())
    }
}

impl From<SecretError> for CommandError {
    fn from(e: SecretError) -> Self {
        Self::new("api_key_unavailable", e.to_string())
    }
}
