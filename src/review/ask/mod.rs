//! Ask the papers: a free question answered across a review's papers, every
//! claim citing a quote verified on its page.
//!
//! A question's run: choose candidates from every paper in scope (BM25 over
//! their text plus their review results, [`candidates`]), read each in an
//! isolated call that sees only that paper and returns claims with quotes
//! ([`paper`], cached per paper, question, model and prompt version), drop
//! every quote not on its page, and compose the answer from the per-paper
//! answers alone ([`compose`], in groups above a budget, so it stays bounded
//! however many papers answer). With no model, the best-matching passages
//! with their pages are the result, labelled as passages, not an answer.
//!
//! Each question is kept in `asks/<id>/` (`ask.json` and `answer.md`); the
//! id is the question's and scope's hash, so asking again resumes from the
//! per-paper answers already read.

pub mod candidates;
pub mod compose;
pub mod estimate;
pub mod paper;
mod render;
pub mod run;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::review::inputs::InputsFile;
use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

pub use render::markdown;

/// Bumped when the per-paper or composing prompts change what an answer means.
pub const PROMPT_VERSION: &str = "ask-1";

/// Which papers a question is asked of.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "ids")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskScope"))]
pub enum Scope {
    /// The papers the review keeps (include or maybe, the researcher's label
    /// first); all readable papers when nothing was reviewed yet.
    Included,
    All,
    /// These papers (ids or unique prefixes).
    Papers(Vec<String>),
}

impl Scope {
    /// `included`, `all`, or paper ids (or unique prefixes), comma-separated.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "included" => Self::Included,
            "all" => Self::All,
            ids => Self::Papers(
                ids.split(',')
                    .map(|id| id.trim().to_owned())
                    .filter(|id| !id.is_empty())
                    .collect(),
            ),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Self::Included => "the papers the review keeps".into(),
            Self::All => "all readable papers".into(),
            Self::Papers(ids) => format!("{} chosen papers", ids.len()),
        }
    }
}

/// What the result is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskMode"))]
pub enum Mode {
    /// An answer a model composed from the papers' verified claims.
    Answer,
    /// No model: the best-matching passages, not an answer.
    Passages,
}

/// How a question's run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskStatus"))]
pub enum Status {
    Running,
    Done,
    Cancelled,
    /// A cap stopped it; asking again resumes.
    Stopped,
    /// Every paper read failed (cut prompts, a server down): no answer.
    Failed,
}

/// A cited source: `[n]` in the answer is this quote, on this page.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskSource"))]
pub struct Source {
    pub n: usize,
    pub paper: String,
    pub title: String,
    pub page: usize,
    pub quote: String,
    /// What the paper's reader said the quote supports.
    pub claim: String,
    /// The paper is a search record: the quote is in its title and
    /// abstract, not on a page of a PDF.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub record: bool,
}

impl Source {
    /// Where the quote is, for a citation: "p. 3" or "title/abstract".
    pub fn place(&self) -> String {
        crate::review::paper_text::place(self.record, self.page)
    }
}

/// How many papers the question went to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskCoverage"))]
pub struct Coverage {
    /// Papers in scope.
    pub considered: usize,
    /// Papers read for it (or searched, offline).
    pub read: usize,
    /// Papers with at least one verified claim (or passage) in the result.
    pub contributed: usize,
    /// Papers whose reading failed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Quotes not found on the page they cite, dropped.
    pub quotes_dropped: usize,
    /// Sentences of the composed answer that cite no source, marked.
    pub unsupported: usize,
    /// Model calls that composed the answer, and how many ran one after
    /// another (the groups, then each level of merges).
    #[serde(default)]
    pub composing_calls: u32,
    #[serde(default)]
    pub composing_rounds: u32,
}

/// One question and its result: `asks/<id>/ask.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskRecord"))]
pub struct AskRecord {
    pub id: String,
    pub question: String,
    pub scope: Scope,
    /// Every paper in scope was read, not only the candidates.
    pub read_all: bool,
    pub mode: Mode,
    pub status: Status,
    /// Markdown, citing sources as `[n]`.
    pub answer: String,
    pub sources: Vec<Source>,
    /// The papers read (their titles), so "none of them answers" says which.
    pub papers_read: Vec<String>,
    pub coverage: Coverage,
    pub model: Option<String>,
    pub prompt_version: String,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// Why it ended before an answer, when it did: a cap, or the cause
    /// every paper read failed for.
    pub stopped: Option<String>,
    /// The researcher asked for it in the review's report.
    #[serde(default)]
    pub in_report: bool,
    /// The fingerprint of the review's inputs when it was asked: the papers
    /// the review keeps follow them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_inputs: Option<String>,
    /// Why the answer is stale, when it read the papers the review kept
    /// under earlier inputs. Worked out on reading (what a file says is
    /// overwritten).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
}

/// Why an answer over the papers the review keeps no longer reads those
/// papers: the review's inputs changed since it was asked. An answer over
/// all papers or named ones does not depend on them.
fn staleness(record: &AskRecord, inputs: &InputsFile) -> Option<String> {
    if record.scope != Scope::Included {
        return None;
    }
    let current = inputs.current.as_ref()?.fingerprint();
    let asked_under = record.review_inputs.as_ref()?;
    (*asked_under != current).then(|| {
        "asked before the review's inputs changed: the papers it read may not be those the review keeps now; \
         ask again"
            .to_owned()
    })
}

/// A question's id: the same question over the same papers is the same ask.
pub fn ask_id(question: &str, scope: &Scope, read_all: bool) -> String {
    let mut hasher = Sha256::new();
    hasher.update(question.trim().to_lowercase().as_bytes());
    hasher.update(serde_json::to_string(scope).unwrap_or_default().as_bytes());
    hasher.update([u8::from(read_all)]);
    hex::encode(&hasher.finalize()[..6])
}

fn record_path(id: &str) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::ASKS_DIR, id, "ask.json"])
}

fn answer_path(id: &str) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::ASKS_DIR, id, "answer.md"])
}

/// Keep a question's record and its Markdown.
pub fn save(ws: &Workspace, record: &AskRecord) -> Result<(), WorkspaceError> {
    ws.write_json(&record_path(&record.id)?, record)?;
    ws.write(&answer_path(&record.id)?, markdown(record).as_bytes())
}

pub fn load(ws: &Workspace, id: &str) -> Result<Option<AskRecord>, WorkspaceError> {
    let record: Option<AskRecord> = ws.read_json_if_any(&record_path(id)?)?;
    let inputs = InputsFile::load(ws)?;
    Ok(record.map(|mut r| {
        r.stale = staleness(&r, &inputs);
        r
    }))
}

/// Put a question (and its answer) in the review's report, or take it out.
pub fn set_in_report(ws: &Workspace, id: &str, include: bool) -> Result<AskRecord, WorkspaceError> {
    let mut record = load(ws, id)?.ok_or_else(|| WorkspaceError::NotFound {
        path: format!("{}/{id}", layout::ASKS_DIR),
    })?;
    record.in_report = include;
    save(ws, &record)?;
    Ok(record)
}

/// Every question asked of the review, newest first.
pub fn history(ws: &Workspace) -> Result<Vec<AskRecord>, WorkspaceError> {
    let dir = WsPath::parse(layout::ASKS_DIR)?;
    let entries = match ws.list_dir(&dir) {
        Ok(entries) => entries,
        Err(WorkspaceError::NotFound { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut records = Vec::new();
    for entry in entries {
        let name = entry.path.to_string();
        let Some(id) = name.rsplit('/').next() else {
            continue;
        };
        if id == paper::CACHE_DIR {
            continue;
        }
        if let Some(record) = load(ws, id)? {
            records.push(record);
        }
    }
    records.sort_by(|a, b| b.started_at.cmp(&a.started_at));
    Ok(records)
}
