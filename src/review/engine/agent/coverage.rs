//! Which readable papers have a valid result, which are open, which failed:
//! the runtime's guarantee that every paper is covered rests on this.
//!
//! It is loaded from the files when a run starts (a result is valid when its
//! cache key matches the paper, question, criteria and reader), and updated as
//! the reading tools write results, so the counters in every prompt cost no
//! file reads. Only the reading tools write results; the file tools cannot.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use crate::review::dual::Slot;
use crate::review::{PaperResult, ReviewSpec, labels};
use crate::workspace::{PaperFile, PaperId, PaperRecord, Workspace, WorkspaceError, WsPath};

/// A paper that failed this many reads is reported, not retried by the reviewer.
pub const MAX_ATTEMPTS: u32 = 2;

#[derive(Clone, Debug, Default)]
pub struct Coverage {
    /// Readable papers by id.
    pub readable: BTreeMap<PaperId, PaperRecord>,
    pub done: BTreeSet<PaperId>,
    /// Failed reads: attempts and the last reason.
    pub failed: BTreeMap<PaperId, (u32, String)>,
    /// Being read right now (a batch in flight).
    pub reading: BTreeSet<PaperId>,
    pub labelled: usize,
    pub unreadable: BTreeMap<String, usize>,
    pub by_agent: usize,
    pub by_sweep: usize,
    pub by_pilot: usize,
}

pub fn result_path(id: &PaperId) -> Result<WsPath, WorkspaceError> {
    PaperFile::Result.path(id)
}

/// Everything a paper's agent result depends on.
pub fn result_key(paper: &PaperRecord, spec: &ReviewSpec, reader: &str) -> String {
    let mut hasher = Sha256::new();
    for part in [
        paper.sha256.as_str(),
        paper.extractor.as_deref().unwrap_or(""),
        spec.question.as_str(),
        spec.engine.name(),
        reader,
    ] {
        hasher.update(part.as_bytes());
        hasher.update(b"\0");
    }
    for c in &spec.criteria {
        hasher.update(c.as_bytes());
        hasher.update(b"\0criterion\0");
    }
    // A paper read under another protocol (or none) is read again.
    if let Some(protocol) = &spec.protocol {
        hasher.update(protocol.hash.as_bytes());
        hasher.update(b"\0protocol\0");
    }
    hex::encode(&hasher.finalize()[..16])
}

impl Coverage {
    /// The first readings' coverage.
    pub fn load(ws: &Workspace, spec: &ReviewSpec, reader: &str) -> Result<Self, WorkspaceError> {
        Self::load_slot(ws, spec, reader, Slot::First)
    }

    /// One reading's coverage: a paper is done when that reading's file
    /// holds a result for `reader`.
    pub fn load_slot(
        ws: &Workspace,
        spec: &ReviewSpec,
        reader: &str,
        slot: Slot,
    ) -> Result<Self, WorkspaceError> {
        let mut coverage = Self::default();
        let current = labels::Current::of(ws)?;
        for paper in ws.papers()? {
            if !paper.status.is_readable() {
                *coverage
                    .unreadable
                    .entry(paper.status.as_str().to_owned())
                    .or_default() += 1;
                continue;
            }
            let key = result_key(&paper, spec, reader);
            let valid = matches!(
                ws.read_paper_file::<PaperResult>(&paper.id, slot.file())?,
                Some(r) if r.provenance.input_hash == key
            );
            if valid {
                coverage.done.insert(paper.id.clone());
            }
            if current.load(ws, &paper.id).ok().flatten().is_some() {
                coverage.labelled += 1;
            }
            coverage.readable.insert(paper.id.clone(), paper);
        }
        Ok(coverage)
    }

    /// Readable papers with no valid result, not being read, not given up on.
    pub fn open(&self) -> Vec<&PaperRecord> {
        self.readable
            .values()
            .filter(|p| {
                !self.done.contains(&p.id)
                    && !self.reading.contains(&p.id)
                    && self.failed.get(&p.id).is_none_or(|f| f.0 < MAX_ATTEMPTS)
            })
            .collect()
    }

    /// Readable papers with no valid result at all (given up on included).
    pub fn missing(&self) -> Vec<&PaperRecord> {
        self.readable
            .values()
            .filter(|p| !self.done.contains(&p.id))
            .collect()
    }

    pub fn given_up(&self) -> usize {
        self.failed
            .iter()
            .filter(|(id, f)| f.0 >= MAX_ATTEMPTS && !self.done.contains(*id))
            .count()
    }

    /// The progress lines of a prompt's snapshot.
    pub fn progress(&self) -> Vec<String> {
        let mut lines = vec![format!(
            "Papers: {} readable, {} reviewed, {} open, {} failed twice",
            self.readable.len(),
            self.done.len(),
            self.open().len(),
            self.given_up()
        )];
        if !self.unreadable.is_empty() {
            let parts: Vec<String> = self
                .unreadable
                .iter()
                .map(|(status, n)| format!("{status} {n}"))
                .collect();
            lines.push(format!(
                "Unreadable, not to be reviewed: {}",
                parts.join(", ")
            ));
        }
        if self.labelled > 0 {
            lines.push(format!(
                "{} papers carry the researcher's own label (their verdict stands; read them anyway)",
                self.labelled
            ));
        }
        lines
    }
}
