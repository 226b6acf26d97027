//! Run events: what a run tells whoever watches it (the CLI's progress display,
//! the desktop app's status board), through one narrow seam, [`EventSink`].
//!
//! The sink is deliberately small: it receives events and nothing else. It
//! cannot steer the run (that is the cancellation token's job), cannot read
//! the workspace, and must not block: hosts forward events over a channel.
//! A run's state is entirely in its workspace, so a sink that drops events
//! loses only progress display, never work.

use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

/// Where a paper stands in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum PaperPhase {
    Queued,
    Extracting,
    Reading,
    Scored,
    Failed,
}

/// One thing that happened in a run. Wire names are camelCase with a `type` tag.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum RunEvent {
    RunStarted {
        run_id: String,
        engine: String,
        papers: usize,
    },
    /// Extraction begins: `to_extract` of `papers` need it (the rest are cached).
    ExtractionStarted {
        papers: usize,
        to_extract: usize,
    },
    /// One paper's text is extracted (or found unreadable, with its status).
    Extracted {
        paper: String,
        status: String,
        from_cache: bool,
    },
    /// A paper moved on (extraction, reading, scoring).
    PaperStatus {
        paper: String,
        phase: PaperPhase,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        detail: Option<String>,
    },
    /// An agent is about to call its model for `step`.
    AgentStep {
        task: String,
        agent: String,
        step: u64,
        prompt_tokens: u64,
        /// Of those, the prefix that repeats byte for byte from step to step
        /// (system prompt, tool specs, task): what provider caches reuse.
        stable_tokens: u64,
        consolidation: bool,
    },
    /// An agent called a tool.
    ToolCall {
        task: String,
        agent: String,
        step: u64,
        tool: String,
        ok: bool,
        summary: String,
    },
    /// An agent task ended (finished, stopped at its limit, failed).
    AgentDone {
        task: String,
        agent: String,
        status: String,
    },
    /// Tokens and cost so far in this run (cost `None` while unpriced).
    Usage {
        input_tokens: u64,
        output_tokens: u64,
        cost_usd: Option<f64>,
        model_calls: u64,
    },
    /// The scholarly lookups began, beside the engine, for `papers` readable papers.
    LookupsStarted {
        papers: usize,
    },
    /// The lookups ended: an index knew `matched` of the `looked_up` papers
    /// that print an identifier or a title.
    LookupsDone {
        looked_up: usize,
        matched: usize,
        /// What the researcher should know: an allowance spent, a key refused.
        notices: Vec<String>,
    },
    /// A batch of reading calls (`shard`) as last polled: the Batch API's
    /// status (`submitted` before its first poll) and its requests done.
    BatchProgress {
        shard: String,
        status: String,
        completed: u64,
        failed: u64,
        total: u64,
    },
    Finished {
        covered_by_agent: usize,
        covered_by_sweep: usize,
    },
    Failed {
        kind: String,
        message: String,
    },
    Cancelled,
}

/// Receives a run's events. Must return quickly and never block.
pub trait EventSink: Send + Sync {
    fn emit(&self, event: RunEvent);
}

/// Drops every event.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: RunEvent) {}
}

/// Keeps every event, for tests and for hosts that poll.
#[derive(Default)]
pub struct EventLog {
    events: Mutex<Vec<RunEvent>>,
}

impl EventLog {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    pub fn events(&self) -> Vec<RunEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl EventSink for EventLog {
    fn emit(&self, event: RunEvent) {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(event);
    }
}

/// Forwards events into a tokio channel (what the CLI and the app use).
impl EventSink for tokio::sync::mpsc::UnboundedSender<RunEvent> {
    fn emit(&self, event: RunEvent) {
        // A closed channel means nobody is watching any more; the run goes on.
        let _ = self.send(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_with_a_type_tag_and_camel_case_fields() {
        let event = RunEvent::AgentStep {
            task: "t1".into(),
            agent: "reviewer".into(),
            step: 3,
            prompt_tokens: 1200,
            stable_tokens: 800,
            consolidation: false,
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "agentStep");
        assert_eq!(json["promptTokens"], 1200);
    }
}
