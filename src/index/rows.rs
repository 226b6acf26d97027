//! Rows of the index and the SQL that reads and writes them.

use std::path::PathBuf;

use rusqlite::{Connection, Row, Transaction, params};
use serde::Serialize;

use crate::workspace::{ModelCallRecord, PaperRecord, RunRecord, TaskMeta};

/// What the index keeps of one workspace, as read from its files.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkspaceSnapshot {
    pub root: PathBuf,
    pub task: TaskMeta,
    pub papers: Vec<PaperRecord>,
    pub runs: Vec<RunRecord>,
    pub model_calls: Vec<ModelCallRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct WorkspaceRow {
    pub id: String,
    pub root: String,
    pub title: String,
    pub source: Option<String>,
    pub question: Option<String>,
    pub status: String,
    pub created_at: String,
    pub updated_at: String,
    /// Distinct papers found (identical files count once).
    pub paper_count: i64,
    /// Files that were byte-identical copies of a counted paper.
    pub duplicate_count: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperRow {
    pub workspace_id: String,
    pub id: String,
    pub file: String,
    pub sha256: String,
    pub size: i64,
    pub status: String,
    pub title: Option<String>,
    pub duplicate_count: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRow {
    pub workspace_id: String,
    pub id: String,
    pub engine: String,
    pub status: String,
    pub started_at: String,
    pub finished_at: Option<String>,
}

/// One model call as the index keeps it: the workspace's record plus its
/// position in the workspace's log.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCallRow {
    pub workspace_id: String,
    pub seq: i64,
    pub record: ModelCallRecord,
}

/// Totals of a workspace's model calls.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelUsage {
    pub calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    /// Sum over the calls that have a price; `None` when none has.
    pub cost_usd: Option<f64>,
}

/// Every row of the index, sorted by key.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct IndexDump {
    pub workspaces: Vec<WorkspaceRow>,
    pub papers: Vec<PaperRow>,
    pub runs: Vec<RunRow>,
    pub model_calls: Vec<ModelCallRow>,
}

pub(crate) fn write_snapshot(tx: &Transaction<'_>, s: &WorkspaceSnapshot) -> rusqlite::Result<()> {
    let id = &s.task.id.0;
    // Cascades clear this workspace's papers and runs; a row for another id at the
    // same root (the folder was re-created) goes too.
    tx.execute(
        "DELETE FROM workspaces WHERE id = ?1 OR root = ?2",
        params![id, s.root.to_string_lossy()],
    )?;
    tx.execute(
        "INSERT INTO workspaces (id, root, title, source, question, status, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            id,
            s.root.to_string_lossy(),
            s.task.title,
            s.task
                .source
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            s.task.question,
            s.task.status.as_str(),
            s.task.created_at,
            s.task.updated_at,
        ],
    )?;
    let mut insert_paper = tx.prepare(
        "INSERT INTO papers (workspace_id, id, file, sha256, size, status, title, duplicate_count)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for p in &s.papers {
        insert_paper.execute(params![
            id,
            p.id.0,
            p.file.to_string_lossy(),
            p.sha256,
            p.size as i64,
            p.status.as_str(),
            p.title,
            p.duplicates.len() as i64,
        ])?;
    }
    let mut insert_run = tx.prepare(
        "INSERT INTO runs (workspace_id, id, engine, status, started_at, finished_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for r in &s.runs {
        insert_run.execute(params![
            id,
            r.id.0,
            r.engine,
            r.status.as_str(),
            r.started_at,
            r.finished_at
        ])?;
    }
    for (seq, call) in s.model_calls.iter().enumerate() {
        insert_model_call(tx, id, seq as i64 + 1, call)?;
    }
    Ok(())
}

pub(crate) fn insert_model_call(
    conn: &Connection,
    workspace_id: &str,
    seq: i64,
    c: &ModelCallRecord,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO model_calls (workspace_id, seq, at, profile, protocol, model, purpose, attempt,
             outcome, streamed, input_tokens, output_tokens, tokens_estimated, latency_ms, cost_usd, endpoint)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
        params![
            workspace_id,
            seq,
            c.at,
            c.profile,
            c.protocol,
            c.model,
            c.purpose,
            c.attempt,
            c.outcome,
            c.streamed,
            c.input_tokens as i64,
            c.output_tokens as i64,
            c.tokens_estimated,
            c.latency_ms as i64,
            c.cost_usd,
            c.endpoint,
        ],
    )?;
    Ok(())
}

pub(crate) fn model_usage(conn: &Connection, workspace_id: &str) -> rusqlite::Result<ModelUsage> {
    conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0), SUM(cost_usd)
         FROM model_calls WHERE workspace_id = ?1",
        params![workspace_id],
        |r| {
            Ok(ModelUsage {
                calls: r.get(0)?,
                input_tokens: r.get(1)?,
                output_tokens: r.get(2)?,
                cost_usd: r.get(3)?,
            })
        },
    )
}

const WORKSPACE_COLUMNS: &str =
    "w.id, w.root, w.title, w.source, w.question, w.status, w.created_at, w.updated_at,
    (SELECT COUNT(*) FROM papers p WHERE p.workspace_id = w.id),
    (SELECT COALESCE(SUM(p.duplicate_count), 0) FROM papers p WHERE p.workspace_id = w.id)";

fn workspace_row(r: &Row<'_>) -> rusqlite::Result<WorkspaceRow> {
    Ok(WorkspaceRow {
        id: r.get(0)?,
        root: r.get(1)?,
        title: r.get(2)?,
        source: r.get(3)?,
        question: r.get(4)?,
        status: r.get(5)?,
        created_at: r.get(6)?,
        updated_at: r.get(7)?,
        paper_count: r.get(8)?,
        duplicate_count: r.get(9)?,
    })
}

pub(crate) fn list_workspaces(conn: &Connection) -> rusqlite::Result<Vec<WorkspaceRow>> {
    let sql =
        format!("SELECT {WORKSPACE_COLUMNS} FROM workspaces w ORDER BY w.updated_at DESC, w.id");
    let mut stmt = conn.prepare(&sql)?;
    stmt.query_map([], workspace_row)?.collect()
}

pub(crate) fn dump(conn: &Connection) -> rusqlite::Result<IndexDump> {
    let sql = format!("SELECT {WORKSPACE_COLUMNS} FROM workspaces w ORDER BY w.id");
    let workspaces = conn
        .prepare(&sql)?
        .query_map([], workspace_row)?
        .collect::<Result<_, _>>()?;
    let papers = conn
        .prepare(
            "SELECT workspace_id, id, file, sha256, size, status, title, duplicate_count
             FROM papers ORDER BY workspace_id, id",
        )?
        .query_map([], |r| {
            Ok(PaperRow {
                workspace_id: r.get(0)?,
                id: r.get(1)?,
                file: r.get(2)?,
                sha256: r.get(3)?,
                size: r.get(4)?,
                status: r.get(5)?,
                title: r.get(6)?,
                duplicate_count: r.get(7)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let runs = conn
        .prepare(
            "SELECT workspace_id, id, engine, status, started_at, finished_at
             FROM runs ORDER BY workspace_id, id",
        )?
        .query_map([], |r| {
            Ok(RunRow {
                workspace_id: r.get(0)?,
                id: r.get(1)?,
                engine: r.get(2)?,
                status: r.get(3)?,
                started_at: r.get(4)?,
                finished_at: r.get(5)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    let model_calls = conn
        .prepare(
            "SELECT workspace_id, seq, at, profile, protocol, model, purpose, attempt, outcome,
                 streamed, input_tokens, output_tokens, tokens_estimated, latency_ms, cost_usd, endpoint
             FROM model_calls ORDER BY workspace_id, seq",
        )?
        .query_map([], |r| {
            Ok(ModelCallRow {
                workspace_id: r.get(0)?,
                seq: r.get(1)?,
                record: ModelCallRecord {
                    at: r.get(2)?,
                    profile: r.get(3)?,
                    protocol: r.get(4)?,
                    model: r.get(5)?,
                    purpose: r.get(6)?,
                    attempt: r.get(7)?,
                    outcome: r.get(8)?,
                    streamed: r.get(9)?,
                    input_tokens: r.get::<_, i64>(10)? as u64,
                    output_tokens: r.get::<_, i64>(11)? as u64,
                    tokens_estimated: r.get(12)?,
                    latency_ms: r.get::<_, i64>(13)? as u64,
                    cost_usd: r.get(14)?,
                    endpoint: r.get(15)?,
                },
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(IndexDump {
        workspaces,
        papers,
        runs,
        model_calls,
    })
}

impl WorkspaceRow {
    /// The row a snapshot becomes, computed without a database: the listing falls
    /// back to this when the index cannot be used.
    pub fn from_snapshot(s: &WorkspaceSnapshot) -> Self {
        Self {
            id: s.task.id.0.clone(),
            root: s.root.to_string_lossy().into_owned(),
            title: s.task.title.clone(),
            source: s
                .task
                .source
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            question: s.task.question.clone(),
            status: s.task.status.as_str().to_owned(),
            created_at: s.task.created_at.clone(),
            updated_at: s.task.updated_at.clone(),
            paper_count: s.papers.len() as i64,
            duplicate_count: s.papers.iter().map(|p| p.duplicates.len() as i64).sum(),
        }
    }
}
