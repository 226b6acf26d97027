//! Tauri-free command handlers shared by the desktop shell and the CLI.
//!
//! Each handler is `async fn(&AppContext, Params) -> Result<Response, CommandError>`;
//! the desktop shell wraps each in a three-line `#[tauri::command]`. Blocking work
//! (SQLite, hashing, file scans) runs on the blocking pool, and the index lock is
//! never held across an `.await`. Errors cross the UI boundary as `{kind, message}`.

pub mod agents;
pub mod asks;
mod context;
mod error;
#[cfg(test)]
mod ipc_types;
pub mod metadata;
pub mod models;
pub mod openalex;
pub mod protocol;
pub mod records;
pub mod review_rows;
pub mod review_view;
pub mod reviews;
pub mod run_model;
pub mod screening;
pub mod snowball;
pub mod table;
pub mod validation;
pub(crate) mod workspaces;
pub mod zotero;

pub use context::{AppContext, AppPaths};
pub use error::{CommandError, ErrorKind};
pub use workspaces::{
    IndexRebuildResponse, WorkspaceCreateParams, WorkspaceListResponse, WorkspaceSummary,
    index_rebuild, workspace_create, workspace_list,
};
