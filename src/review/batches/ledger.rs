//! The ledger of a workspace's batches: `batches/ledger.jsonl`, one line per
//! step, each synced before the step after it is taken.
//!
//! A round's request files are written, every shard of it, then `round` is
//! recorded with them all in one line: a kill before that leaves no shard of
//! the round, and its requests are sharded again; a kill never leaves half a
//! round, whose other half would go out as the next round with one try
//! fewer. Each shard is
//! uploaded (`uploaded`, with the file id), then a batch is created over it
//! (`created`, with the batch id). A kill between the upload and `created`
//! cannot tell whether the batch exists: the driver asks the API for a batch
//! whose metadata names this run and shard before it creates one. Anthropic's
//! batches take their requests inline and carry no metadata: `submitting`
//! (with the time) is recorded before the create, and a batch created since
//! then with the shard's number of requests is the one. Its results
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
    /// Every shard of a round is written to its request file.
    Round {
        round: u32,
        shards: Vec<ShardSize>,
    },
    /// One shard's request file is written (as ledgers recorded shards one
    /// by one before rounds were recorded whole; still read).
    Sharded {
        shard: String,
        round: u32,
        requests: usize,
    },
    Uploaded {
        shard: String,
        file_id: String,
    },
    /// A create is about to be sent with the requests inline (Anthropic),
    /// at this time (seconds since the epoch).
    Submitting {
        shard: String,
        at: u64,
    },
    Created {
        shard: String,
        batch_id: String,
        /// Found at the API after a kill rather than created by this run
        /// (Anthropic's batches, which carry no metadata): it is taken as
        /// the shard's only once its results answer the shard's requests.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        adopted: bool,
    },
    /// A batch found for the shard answered other requests than its own:
    /// someone else's. Nothing of it is kept and it is left alone at the
    /// provider; the shard's requests go in the next round.
    Disowned {
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

/// A shard of a round, as its `round` step names it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardSize {
    pub shard: String,
    pub requests: usize,
}

/// What the ledger knows of one shard.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shard {
    pub name: String,
    pub round: u32,
    pub requests: usize,
    pub file_id: Option<String>,
    /// When a create with the requests inline was about to be sent.
    pub submitting: Option<u64>,
    pub batch_id: Option<String>,
    /// Its batch was found again, not created: not yet proven the shard's.
    pub adopted: bool,
    pub finished: Option<String>,
}

/// A workspace's ledger as read, with its answers.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    /// The folder it is kept in ([`BATCHES_DIR`] for the review's readings).
    pub dir: String,
    pub run: Option<String>,
    /// In the order they were sharded.
    pub shards: Vec<Shard>,
    /// The last outcome of each request id.
    pub outcomes: BTreeMap<String, LineOutcome>,
    /// How many results each request id has had (one a batch it was in).
    pub attempts: BTreeMap<String, u32>,
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
    /// The ledger and answers of the review's readings in `ws` (empty when
    /// it has none).
    pub fn load(ws: &Workspace) -> Result<Self, WorkspaceError> {
        Self::load_in(ws, BATCHES_DIR)
    }

    /// The ledger and answers kept in `dir` of `ws`.
    pub fn load_in(ws: &Workspace, dir: &str) -> Result<Self, WorkspaceError> {
        let read = |p: &WsPath| match ws.read_string(p) {
            Ok(text) => Ok(text),
            Err(WorkspaceError::NotFound { .. }) => Ok(String::new()),
            Err(e) => Err(e),
        };
        let mut ledger = Ledger {
            dir: dir.to_owned(),
            ..Ledger::default()
        };
        for line in whole_lines(&read(&ledger.path("ledger.jsonl")?)?) {
            let Ok(step) = serde_json::from_str::<Step>(line) else {
                tracing::warn!(%line, "a ledger line that is not a step is skipped");
                continue;
            };
            ledger.apply(&step);
        }
        for line in whole_lines(&read(&ledger.path("answers.jsonl")?)?) {
            match parse_result_line(line) {
                Ok((id, outcome)) => {
                    *ledger.attempts.entry(id.clone()).or_default() += 1;
                    ledger.outcomes.insert(id, outcome);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "an answers line that cannot be read is skipped")
                }
            }
        }
        Ok(ledger)
    }

    fn path(&self, name: &str) -> Result<WsPath, WorkspaceError> {
        WsPath::parse(&format!("{}/{name}", self.dir))
    }

    /// Where a shard's request file is.
    pub fn shard_path(&self, shard: &str) -> Result<WsPath, WorkspaceError> {
        self.path(&format!("{shard}.jsonl"))
    }

    fn shard_mut(&mut self, name: &str) -> Option<&mut Shard> {
        self.shards.iter_mut().find(|s| s.name == name)
    }

    /// What `step` changes in the ledger as held in memory.
    pub fn apply(&mut self, step: &Step) {
        match step {
            Step::Started { run } => self.run = Some(run.clone()),
            Step::Round { round, shards } => {
                for s in shards {
                    self.shards.push(Shard {
                        name: s.shard.clone(),
                        round: *round,
                        requests: s.requests,
                        ..Shard::default()
                    });
                }
            }
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
            Step::Submitting { shard, at } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.submitting = Some(*at);
                }
            }
            Step::Created {
                shard,
                batch_id,
                adopted,
            } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.batch_id = Some(batch_id.clone());
                    s.adopted = *adopted;
                }
            }
            Step::Disowned { shard, .. } => {
                if let Some(s) = self.shard_mut(shard) {
                    s.finished = Some("not this run's batch: it answered other requests".into());
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
        let ledger = self.path("ledger.jsonl")?;
        let line = serde_json::to_string(&step).map_err(|e| WorkspaceError::Corrupt {
            path: ledger.to_string(),
            reason: e.to_string(),
        })?;
        ws.create_dir_all(&WsPath::parse(&self.dir)?)?;
        ws.append_line(&ledger, &line)?;
        self.apply(&step);
        Ok(())
    }

    /// Keep a result file's lines (synced) and their outcomes: how many
    /// were answered, and how many not.
    pub fn keep_results(
        &mut self,
        ws: &Workspace,
        text: &str,
    ) -> Result<(usize, usize), WorkspaceError> {
        let mut kept = (0, 0);
        let mut block = String::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            match parse_result_line(line) {
                Ok((id, outcome)) => {
                    match outcome {
                        LineOutcome::Answered(_) => kept.0 += 1,
                        _ => kept.1 += 1,
                    }
                    *self.attempts.entry(id.clone()).or_default() += 1;
                    self.outcomes.insert(id, outcome);
                    block.push_str(line);
                    block.push('\n');
                }
                Err(e) => {
                    tracing::warn!(error = %e, "a result line that cannot be read is dropped")
                }
            }
        }
        if !block.is_empty() {
            // One append for the file: one sync, not one per line.
            ws.create_dir_all(&WsPath::parse(&self.dir)?)?;
            ws.append_line(&self.path("answers.jsonl")?, block.trim_end())?;
        }
        Ok(kept)
    }

    /// The round last sharded (0 before any).
    pub fn last_round(&self) -> u32 {
        self.shards.iter().map(|s| s.round).max().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_recorded_whole_and_shards_recorded_one_by_one_load_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let whole = Workspace::open_or_init(&dir.path().join("whole")).unwrap();
        let mut ledger = Ledger::load(&whole).unwrap();
        let sizes = [("r1-0", 10), ("r1-1", 4)];
        let shards = sizes
            .iter()
            .map(|(shard, requests)| ShardSize {
                shard: (*shard).into(),
                requests: *requests,
            })
            .collect();
        ledger
            .record(&whole, Step::Round { round: 1, shards })
            .unwrap();

        let older = Workspace::open_or_init(&dir.path().join("older")).unwrap();
        let mut one_by_one = Ledger::load(&older).unwrap();
        for (shard, requests) in sizes {
            let step = Step::Sharded {
                shard: shard.into(),
                round: 1,
                requests,
            };
            one_by_one.record(&older, step).unwrap();
        }
        let loaded = Ledger::load(&whole).unwrap().shards;
        assert_eq!(loaded, Ledger::load(&older).unwrap().shards);
        let names: Vec<(&str, u32, usize)> = loaded
            .iter()
            .map(|s| (s.name.as_str(), s.round, s.requests))
            .collect();
        assert_eq!(names, [("r1-0", 1, 10), ("r1-1", 1, 4)]);
        let text = std::fs::read_to_string(dir.path().join("whole/batches/ledger.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 1, "a round is one line");
    }
}
