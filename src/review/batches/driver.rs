//! Sending a run's requests through a Batch API and getting every answer
//! back, across kills and restarts.
//!
//! The driver is given the requests the run needs (their ids derive from what
//! they send, so a restart builds the same ones). It reads the ledger first:
//! shards already sharded are taken up where they stopped, a batch that may
//! exist is looked for by its metadata before one is created, and requests
//! already answered are not sent again. What is left is sharded under the
//! provider's limits and submitted; every open batch is polled until it ends;
//! its results are kept. Requests that failed in a way worth another try (a
//! 5xx, a 429, the window closing) go into a new round, up to `max_rounds`;
//! what is still unanswered then is returned with the reason, for the caller
//! to ask interactively or to report. Once a batch's results are kept, its
//! files (the papers' text, the answers) or the batch itself are deleted at
//! the provider.
//!
//! OpenAI's batches are created over an uploaded file and carry metadata
//! naming the run and the shard, by which they are found again. Anthropic's
//! take their requests inline and carry none: the ledger records when a
//! create was about to be sent, and a batch created since then holding the
//! shard's number of requests, not yet any other shard's, is followed as
//! its. Such a batch may be someone else's (another program on the same
//! account), so it is proven before anything of it is kept: its results
//! must answer exactly the shard's requests, by their ids. One that does
//! not is disowned: none of its answers is kept, it is not deleted, and the
//! shard's requests go in the next round.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::ledger::{Ledger, Shard, ShardSize, Step};
use crate::llm::batch::{BatchLine, BatchService, Limits, LineOutcome, Polled, shard};
use crate::llm::{ChatResponse, LlmError};
use crate::workspace::{Workspace, WorkspaceError};

/// Metadata keys every batch carries, to be found again by.
pub const RUN_KEY: &str = "quire_run";
pub const SHARD_KEY: &str = "quire_shard";

/// How far a batch's creation time may read before the moment its create
/// was recorded as about to be sent: the provider's timestamps and ours are
/// both whole-second or finer, so only rounding.
const CLOCK_ROUNDING_SECS: u64 = 1;

/// A batch as last polled, for the progress shown per shard (and sent as
/// is to the app in a question's or a fill's progress).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "BatchProgress"))]
pub struct Progress {
    pub shard: String,
    /// The API's status: validating, in_progress, finalizing, completed…
    pub status: String,
    pub completed: u64,
    pub failed: u64,
    pub total: u64,
}

/// What the driver tells its caller as it goes.
pub enum Seen<'a> {
    /// A step was recorded in the ledger.
    Step(&'a Step),
    /// A batch was polled.
    Polled(&'a Progress),
}

/// Every request answered, and why the others were not.
#[derive(Clone, Debug, Default)]
pub struct Settled {
    pub answers: BTreeMap<String, ChatResponse>,
    pub unresolved: BTreeMap<String, String>,
    /// Batches created over the whole run (every round, every restart).
    pub batches: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum DriveError {
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error("the Batch API: {0}")]
    Api(#[from] LlmError),
    #[error("the batches were cancelled")]
    Cancelled,
}

pub struct BatchDriver<'a> {
    pub ws: &'a Workspace,
    /// The folder of `ws` the run's ledger is kept in.
    pub dir: &'a str,
    pub api: &'a BatchService,
    pub limits: Limits,
    pub poll_every: Duration,
    pub max_rounds: u32,
}

impl BatchDriver<'_> {
    /// Get answers to `lines` through batches; see the module's doc.
    pub async fn run(
        &self,
        lines: &[BatchLine],
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<Settled, DriveError> {
        let mut ledger = Ledger::load_in(self.ws, self.dir)?;
        let run = match ledger.run.clone() {
            Some(run) => run,
            None => {
                let run = uuid::Uuid::new_v4().simple().to_string();
                self.record(&mut ledger, Step::Started { run: run.clone() }, seen)?;
                run
            }
        };
        let wanted: BTreeSet<&str> = lines.iter().map(|l| l.custom_id.as_str()).collect();
        // Shards this run wrote: no batch of theirs can exist at the API
        // yet, so none is looked for.
        let mut fresh = BTreeSet::new();
        // Rounds sharded by this call: a request that never gets a result
        // (its batch refused whole) is not sent on and on.
        let mut rounds_here = 0;
        loop {
            self.submit_open(&mut ledger, &run, &fresh, seen, cancel)
                .await?;
            self.follow_open(&mut ledger, seen, cancel).await?;
            // A request is sent again while its last result is worth another
            // try and it has had fewer than `max_rounds`: counted per
            // request, so a later run's new requests (papers added to a
            // review) get their own tries.
            let outstanding: Vec<BatchLine> = lines
                .iter()
                .filter(|l| {
                    let tries = ledger.attempts.get(&l.custom_id).copied().unwrap_or(0);
                    tries < self.max_rounds
                        && ledger
                            .outcomes
                            .get(&l.custom_id)
                            .is_none_or(LineOutcome::is_retryable)
                })
                .cloned()
                .collect();
            if outstanding.is_empty() || rounds_here >= self.max_rounds {
                return Ok(settle(&ledger, &wanted));
            }
            rounds_here += 1;
            // The round's shards are written, then recorded in one line.
            let round = ledger.last_round() + 1;
            let mut shards = Vec::new();
            for requests in shard(outstanding, self.limits) {
                let name = format!("r{round}-{}", ledger.shards.len() + shards.len());
                let mut file = String::new();
                for line in &requests {
                    file.push_str(&line.to_json_line());
                    file.push('\n');
                }
                self.ws.write(&ledger.shard_path(&name)?, file.as_bytes())?;
                fresh.insert(name.clone());
                shards.push(ShardSize {
                    shard: name,
                    requests: requests.len(),
                });
            }
            self.record(&mut ledger, Step::Round { round, shards }, seen)?;
        }
    }

    fn record(
        &self,
        ledger: &mut Ledger,
        step: Step,
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
    ) -> Result<(), DriveError> {
        ledger.record(self.ws, step.clone())?;
        seen(Seen::Step(&step));
        Ok(())
    }

    /// Every shard without a batch gets one: found again when a kill came
    /// between creating it and recording it, else created (after an upload,
    /// unless the upload was recorded).
    async fn submit_open(
        &self,
        ledger: &mut Ledger,
        run: &str,
        fresh: &BTreeSet<String>,
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<(), DriveError> {
        let open: Vec<Shard> = ledger
            .shards
            .iter()
            .filter(|s| s.batch_id.is_none() && s.finished.is_none())
            .cloned()
            .collect();
        if open.is_empty() {
            return Ok(());
        }
        // A shard an earlier run wrote may have a batch that run created
        // but did not live to record.
        let existing = if open.iter().all(|s| fresh.contains(&s.name)) {
            BTreeMap::new()
        } else {
            self.existing(ledger, run, &open).await?
        };
        for shard in open {
            if cancel.is_cancelled() {
                return Err(DriveError::Cancelled);
            }
            let (batch_id, adopted) = match existing.get(&shard.name) {
                Some(found) => (found.clone(), true),
                None => (self.create(ledger, run, &shard, seen).await?, false),
            };
            let step = Step::Created {
                shard: shard.name.clone(),
                batch_id,
                // OpenAI's are found by the run's own metadata: proven.
                adopted: adopted && matches!(self.api, BatchService::Anthropic(_)),
            };
            self.record(ledger, step, seen)?;
        }
        Ok(())
    }

    /// The batches of `open` shards that exist at the API, by shard.
    async fn existing(
        &self,
        ledger: &Ledger,
        run: &str,
        open: &[Shard],
    ) -> Result<BTreeMap<String, String>, DriveError> {
        let mut found = BTreeMap::new();
        match self.api {
            BatchService::OpenAi(api) => {
                for batch in api.find(RUN_KEY, run).await? {
                    if let Some(shard) = batch.meta(SHARD_KEY) {
                        found.entry(shard.to_owned()).or_insert(batch.id.clone());
                    }
                }
            }
            BatchService::Anthropic(api) => {
                let Some(since) = open.iter().filter_map(|s| s.submitting).min() else {
                    return Ok(found);
                };
                let mut batches = api
                    .created_since(since.saturating_sub(CLOCK_ROUNDING_SECS))
                    .await?;
                // Oldest first: each shard takes the first batch of its size
                // created after it began to submit.
                batches.reverse();
                // Batches held by a shard, or disowned by one, are not
                // candidates again.
                let mut claimed: BTreeSet<String> = ledger
                    .shards
                    .iter()
                    .filter_map(|s| s.batch_id.clone())
                    .collect();
                for shard in open {
                    let Some(at) = shard.submitting else { continue };
                    let batch = batches.iter().find(|b| {
                        !claimed.contains(&b.id)
                            && b.total() == shard.requests as u64
                            && b.created_unix()
                                .is_some_and(|t| t + CLOCK_ROUNDING_SECS >= at)
                    });
                    if let Some(batch) = batch {
                        claimed.insert(batch.id.clone());
                        found.insert(shard.name.clone(), batch.id.clone());
                    }
                }
            }
        }
        Ok(found)
    }

    /// Create the batch of `shard`; its id. Each step before the create is
    /// recorded, so a kill during it is followed by a search, not a guess.
    async fn create(
        &self,
        ledger: &mut Ledger,
        run: &str,
        shard: &Shard,
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
    ) -> Result<String, DriveError> {
        match self.api {
            BatchService::OpenAi(api) => {
                let file_id = match &shard.file_id {
                    Some(id) => id.clone(),
                    None => {
                        let requests = self.shard_lines(ledger, &shard.name)?;
                        let name = format!("quire-{run}-{}.jsonl", shard.name);
                        let id = api.upload(&name, &requests).await?;
                        let step = Step::Uploaded {
                            shard: shard.name.clone(),
                            file_id: id.clone(),
                        };
                        self.record(ledger, step, seen)?;
                        id
                    }
                };
                let metadata = BTreeMap::from([
                    (RUN_KEY.to_owned(), run.to_owned()),
                    (SHARD_KEY.to_owned(), shard.name.clone()),
                ]);
                Ok(api.create(&file_id, &metadata).await?.id)
            }
            BatchService::Anthropic(api) => {
                let requests = self.shard_lines(ledger, &shard.name)?;
                let at = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                let step = Step::Submitting {
                    shard: shard.name.clone(),
                    at,
                };
                self.record(ledger, step, seen)?;
                Ok(api.create(&requests).await?.id)
            }
        }
    }

    /// The requests of the shard named `name`, from its file.
    fn shard_lines(&self, ledger: &Ledger, name: &str) -> Result<Vec<BatchLine>, DriveError> {
        let text = self.ws.read_string(&ledger.shard_path(name)?)?;
        Ok(text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .map(|v| BatchLine {
                custom_id: v["custom_id"].as_str().unwrap_or_default().to_owned(),
                body: v["body"].clone(),
            })
            .collect())
    }

    /// Whether the result files `texts` answer exactly the requests of the
    /// shard `name`, each once, by their ids.
    fn answers_the_shard(
        &self,
        ledger: &Ledger,
        name: &str,
        texts: &[String],
    ) -> Result<bool, DriveError> {
        let ours: BTreeSet<String> = self
            .shard_lines(ledger, name)?
            .into_iter()
            .map(|l| l.custom_id)
            .collect();
        let mut theirs = BTreeSet::new();
        for line in texts.iter().flat_map(|t| t.lines()) {
            if line.trim().is_empty() {
                continue;
            }
            let id = serde_json::from_str::<serde_json::Value>(line)
                .ok()
                .and_then(|v| v["custom_id"].as_str().map(str::to_owned));
            match id {
                Some(id) if ours.contains(&id) && theirs.insert(id.clone()) => {}
                _ => return Ok(false),
            }
        }
        Ok(theirs == ours)
    }

    /// Poll every open batch until each has ended, keeping its results.
    /// Cancelled, the open batches are cancelled too.
    async fn follow_open(
        &self,
        ledger: &mut Ledger,
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
        cancel: &CancellationToken,
    ) -> Result<(), DriveError> {
        loop {
            let open: Vec<(String, String)> = ledger
                .shards
                .iter()
                .filter(|s| s.finished.is_none())
                .filter_map(|s| s.batch_id.clone().map(|b| (s.name.clone(), b)))
                .collect();
            if open.is_empty() {
                return Ok(());
            }
            if cancel.is_cancelled() {
                // A batch found again but not yet proven ours may be
                // someone else's: it is left to run.
                let proven =
                    |name: &str| ledger.shards.iter().any(|s| s.name == name && !s.adopted);
                for (_, batch) in open.iter().filter(|(name, _)| proven(name)) {
                    if let Err(e) = self.api.cancel(batch).await {
                        tracing::warn!(batch, error = %e, "could not cancel a batch");
                    }
                }
                return Err(DriveError::Cancelled);
            }
            for (name, batch_id) in open {
                let batch = self.api.retrieve(&batch_id).await?;
                seen(Seen::Polled(&Progress {
                    shard: name.clone(),
                    status: batch.status.clone(),
                    completed: batch.counts.completed,
                    failed: batch.counts.failed,
                    total: batch.counts.total,
                }));
                if batch.finished {
                    self.finish(ledger, &name, &batch, seen).await?;
                }
            }
            if ledger
                .shards
                .iter()
                .any(|s| s.batch_id.is_some() && s.finished.is_none())
            {
                tokio::select! {
                    _ = cancel.cancelled() => {}
                    _ = tokio::time::sleep(self.poll_every) => {}
                }
            }
        }
    }

    async fn finish(
        &self,
        ledger: &mut Ledger,
        name: &str,
        batch: &Polled,
        seen: &(dyn Fn(Seen<'_>) + Send + Sync),
    ) -> Result<(), DriveError> {
        let mut texts = Vec::with_capacity(batch.results.len());
        for from in &batch.results {
            texts.push(self.api.results(from).await?);
        }
        let adopted = ledger
            .shards
            .iter()
            .find(|s| s.name == name)
            .filter(|s| s.adopted)
            .and_then(|s| s.batch_id.clone());
        if let Some(batch_id) = adopted
            && !self.answers_the_shard(ledger, name, &texts)?
        {
            tracing::warn!(
                shard = name,
                batch = %batch_id,
                "a batch found after a restart answered other requests than the shard's: it is someone else's, left alone, and the shard is sent again"
            );
            let step = Step::Disowned {
                shard: name.to_owned(),
                batch_id,
            };
            return self.record(ledger, step, seen);
        }
        let (mut answered, mut failed) = (0, 0);
        for text in &texts {
            let (yes, no) = ledger.keep_results(self.ws, text)?;
            answered += yes;
            failed += no;
        }
        let status = match &batch.failure {
            Some(why) => format!("failed: {why}"),
            None => batch.status.clone(),
        };
        let step = Step::Finished {
            shard: name.to_owned(),
            status,
            answered,
            failed,
        };
        self.record(ledger, step, seen)?;
        // Kept: the provider need not hold the papers or the answers any
        // longer. A kill before this leaves them, which is all it costs.
        for leftover in &batch.leftovers {
            if let Err(e) = self.api.discard(leftover).await {
                tracing::warn!(leftover, error = %e, "could not delete a batch's files at the provider");
            }
        }
        Ok(())
    }
}

/// The answers to `wanted`, and a reason for each request without one.
fn settle(ledger: &Ledger, wanted: &BTreeSet<&str>) -> Settled {
    let mut settled = Settled {
        batches: ledger
            .shards
            .iter()
            .filter(|s| s.batch_id.is_some())
            .count(),
        ..Settled::default()
    };
    let last_failure = ledger
        .shards
        .iter()
        .rev()
        .filter_map(|s| s.finished.as_deref())
        .find(|status| status.starts_with("failed"));
    for id in wanted {
        match ledger.outcomes.get(*id) {
            Some(LineOutcome::Answered(answer)) => {
                settled.answers.insert((*id).to_owned(), answer.clone());
            }
            Some(LineOutcome::Failed { status, message }) => {
                let reason = format!("refused by the batch (HTTP {status}): {message}");
                settled.unresolved.insert((*id).to_owned(), reason);
            }
            Some(LineOutcome::NotRun { code, message }) => {
                let reason = format!("not run by the batch ({code}): {message}");
                settled.unresolved.insert((*id).to_owned(), reason);
            }
            None => {
                let reason = match last_failure {
                    Some(status) => format!("no result: the batch {status}"),
                    None => "no result came back from the batches".to_owned(),
                };
                settled.unresolved.insert((*id).to_owned(), reason);
            }
        }
    }
    settled
}
