//! The ledger of a workspace's batches: `batches/ledger.jsonl`, one line per
//! step, each synced before the step after it is taken.
//!
//! A shard's request file is written, then `sharded` is recorded: a kill
//! before that leaves no shard, and the requests are sharded again. It is
//! uploaded (`uploaded`, with the file id), then a batch is created over it
//! (`created`, with the batch id). A kill between the upload and `created`
//! cannot tell whether the batch exists: the driver asks the API for a batch
//! whose metadata names this run and shard before it creates one. Its results
//! are appended to `batches/answers.jsonl`, then `finished` is recorded: a
//! kill between the two reads them again, and the duplicates say the same.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::llm::batch::LineOutcome;
use crate::llm::batch::lines::parse_result_line;
use crate::workspace::layout::BATCHES_DIR;
use crate::workspace::{Workspace, WorkspaceError, WsPath};

/// One step of the ledger.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// The run's id, named in every batch's metadata: the first line.
    Started {
        run: String,
    },
    /// A shard's request file is written.
    Sharded {
        shard: String,
        round: u32,
        requests: usize,
    },
    Uploaded {
        shard: String,
        file_id: String,
    },
    Created {
        shard: String,
        batch_id: String,
    },
    /// Its results are in `answers.jsonl`.
    Finished {
        shard: String,
        status: String,
        answered: usize,
        failed: usize,
    },
}

/// What the ledger knows of one shard.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shard {
    pub name: String,
    pub round: u32,
    pub requests: usize,
    pub file_id: Option<String>,
    pub batch_id: Option<String>,
    pub finished: Option<String>,
}

/// A workspace's ledger as read, with its answers.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    pub run: Option<String>,
    /// In the order they were sharded.
    pub shards: Vec<Shard>,
    /// The last outcome of each request id.
    pub outcomes: BTreeMap<String, LineOutcome>,
}

fn path(name: &str) -> Result<WsPath, WorkspaceError> {
    WsPath::parse(&format!("{BATCHES_DIR}/{name}"))
}

pub fn ledger_path() -> Result<WsPath, WorkspaceError> {
    path("ledger.jsonl")
}

pub fn answers_path() -> Result<WsPath, WorkspaceError> {
    path("answers.jsonl")
}

/// Where a shard's request file is.
pub fn shard_path(shard: &str) -> Result<WsPath, WorkspaceError> {
    path(&format!("{shard}.jsonl"))
}

/// Lines of `text`, a torn last one (a kill mid-write) left out.
fn whole_lines(text: &str) -> impl Iterator<Item = &str> {
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete.lines().filter(|l| !l.trim().is_empty())
}

impl Ledger {
    /// The ledger and answers of `ws` (empty when it has none).
    pub fn load(ws: &Workspace) -> Result<Self, WorkspaceError> {
        let read = |p: &WsPath| match ws.read_string(p) {
            Ok(text) => Ok(text),
            Err(WorkspaceError::NotFound { .. }) => Ok(String::new()),
            Err(e) => Err(e),
        };
        let mut ledger = Ledger::default();
        for line in whole_lines(&read(&ledger_path()?)?) {
            let Ok(step) = serde_json::from_str::<Step>(line) else {
                tracing::warn!(%line, "a ledger line that is not a step is skipped");
                continue;
            };
            ledger.apply(&step);
        }
        for line in whole_lines(&read(&answers_path()?)?) {
            match parse_result_line(line) {
                Ok((id, outcome)) => {
                    ledger.outcomes.insert(id, outcome);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "an answers line that cannot be read is skipped")
                }
            }
        }
        Ok(ledger)
    }

    fn shard_mut(&mut self, name: &str) -> Option<&mut Shard> {
        self.shards.iter_mut().find(|s| s.name == name)
    }

    /// What `step` changes in the ledger as held in memory.
    pub fn apply(&mut self, step: &Step) {
        match step {
            Step::Started { run } => self.run = Some(run.clone()),
            Step::Sharded {
                shard,
                round,
                requests,
            } => self.shards.push(Shard {
                name: shard.clone(),
                round: *round,
                requests: *requests,
                ..Shard::default()
            }),
            Step::Uploaded { shard, file_id } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.file_id = Some(file_id.clone());
                }
            }
            Step::Created { shard, batch_id } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.batch_id = Some(batch_id.clone());
                }
            }
            Step::Finished { shard, status, .. } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.finished = Some(status.clone());
                }
            }
        }
    }

    /// Record `step` (synced), then hold it.
    pub fn record(&mut self, ws: &Workspace, step: Step) -> Result<(), WorkspaceError> {
        let ledger = ledger_path()?;
        let line = serde_json::to_string(&step).map_err(|e| WorkspaceError::Corrupt {
            path: ledger.to_string(),
            reason: e.to_string(),
        })?;
        ws.create_dir_all(&WsPath::parse(BATCHES_DIR)?)?;
        ws.append_line(&ledger, &line)?;
        self.apply(&step);
        Ok(())
    }

    /// Keep a result file's lines (synced) and their outcomes.
    pub fn keep_results(&mut self, ws: &Workspace, text: &str) -> Result<usize, WorkspaceError> {
        let mut kept = 0;
        let mut block = String::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match parse_result_line(line) {
                Ok((id, outcome)) => {
                    self.outcomes.insert(id, outcome);
                    block.push_str(line);
                    block.push('\n');
                    kept += 1;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "a result line that cannot be read is dropped")
                }
            }
        }
        if !block.is_empty() {
            // One append for the file: one sync, not one per line.
            ws.create_dir_all(&WsPath::parse(BATCHES_DIR)?)?;
            ws.append_line(&answers_path()?, block.trim_end())?;
        }
        Ok(kept)
    }

    /// The round last sharded (0 before any).
    pub fn last_round(&self) -> u32 {
        self.shards.iter().map(|s| s.round).max().unwrap_or(0)
    }
}
