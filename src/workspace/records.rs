//! The typed files Quire itself keeps in a workspace: task metadata, one record per
//! paper, one per run. They are the record of truth the index is rebuilt from, so
//! every field the index shows lives here first.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Version of the on-disk record format; bumped on incompatible changes.
pub const FORMAT_VERSION: u32 = 1;

/// Identifies a workspace; also the name of its folder under the default root.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WorkspaceId(pub String);

/// Identifies a paper within a workspace: the first 16 hex digits of its sha256,
/// so the same file always gets the same id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PaperId(pub String);

/// Identifies one run of an engine over a workspace.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Created, no run started yet.
    New,
    Running,
    Done,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// `task.json`: what the review is about and where its papers came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMeta {
    pub format: u32,
    pub id: WorkspaceId,
    pub title: String,
    /// The folder (or file) the papers were taken from.
    #[serde(default)]
    pub source: Option<PathBuf>,
    #[serde(default)]
    pub question: Option<String>,
    pub status: TaskStatus,
    pub created_at: String,
    pub updated_at: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaperStatus {
    /// Found, not read yet.
    Pending,
}

impl PaperStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
        }
    }
}

/// `papers/<id>/paper.json`: one source file and what is known of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperRecord {
    pub id: PaperId,
    /// Absolute path of the source file when it was found.
    pub file: PathBuf,
    pub sha256: String,
    pub size: u64,
    pub status: PaperStatus,
    #[serde(default)]
    pub title: Option<String>,
    /// Other files with identical bytes, listed under this one.
    #[serde(default)]
    pub duplicates: Vec<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Done,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// `runs/<id>.json`: one pass of an engine over the workspace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub id: RunId,
    pub engine: String,
    pub status: RunStatus,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
}

/// Now, as an RFC 3339 UTC timestamp with seconds precision.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
