//! The review model both engines share, below both of them: what a review
//! asks and what it found per paper. Results are files in the workspace
//! (`papers/<id>/result.json`), the record of truth; the index and the reports
//! are derived from them.

use serde::{Deserialize, Serialize};

/// Which engine produced a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum EngineKind {
    /// Classical IR (BM25 relevance, extractive summaries): no language model.
    Offline,
    /// The agent hierarchy reading every paper with a language model.
    Agent,
}

impl EngineKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Offline => "offline",
            Self::Agent => "agent",
        }
    }

    /// How the engine is labelled wherever results are shown.
    pub fn label(self) -> &'static str {
        match self {
            Self::Offline => "offline (no language model)",
            Self::Agent => "agent (language model)",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "offline" => Some(Self::Offline),
            "agent" => Some(Self::Agent),
            _ => None,
        }
    }
}

/// What the review asks.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewSpec {
    pub question: String,
    /// Inclusion/exclusion criteria, one sentence each.
    #[serde(default)]
    pub criteria: Vec<String>,
    pub engine: EngineKind,
    /// The protocol the researcher approved for this question (agent
    /// engine): the reader judges every paper by it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ApprovedProtocol>,
}

/// The protocol text the researcher approved, and its hash: what a reading
/// depends on besides the paper, the question and the reader.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovedProtocol {
    pub text: String,
    pub hash: String,
}

impl ReviewSpec {
    /// The question and criteria as every prompt states them.
    pub fn question_block(&self) -> String {
        question_block(&self.question, &self.criteria)
    }
}

/// `Review question: …` and, when there are any, the criteria one per line.
pub fn question_block(question: &str, criteria: &[String]) -> String {
    let mut text = format!("Review question: {}\n", question.trim());
    if !criteria.is_empty() {
        text.push_str("Criteria:\n");
        for c in criteria {
            text.push_str(&format!("- {c}\n"));
        }
    }
    text
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Verdict {
    Include,
    Maybe,
    Exclude,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Include => "include",
            Self::Maybe => "maybe",
            Self::Exclude => "exclude",
        }
    }

    /// The verdict a score on the 0-10 scale earns.
    pub fn from_score(score: f64) -> Self {
        if score >= 6.5 {
            Self::Include
        } else if score >= 4.0 {
            Self::Maybe
        } else {
            Self::Exclude
        }
    }
}

/// A passage of a paper with the page it is on (1-based).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Quote {
    pub text: String,
    /// 1-based. A summary sentence (a paraphrase) no page retells has 0,
    /// and is shown without a page.
    pub page: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum CriterionOutcome {
    Met,
    NotMet,
    Unclear,
}

impl CriterionOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Met => "met",
            Self::NotMet => "not met",
            Self::Unclear => "unclear",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CriterionVerdict {
    pub criterion: String,
    pub outcome: CriterionOutcome,
    /// Why, with the passage it rests on when there is one.
    pub note: String,
    #[serde(default)]
    pub evidence: Option<Quote>,
}

impl CriterionVerdict {
    /// Not met, with the passage that shows it (kept only once verified on
    /// its page): enough to exclude a paper by.
    pub fn fails_with_passage(&self) -> bool {
        self.outcome == CriterionOutcome::NotMet && self.evidence.is_some()
    }
}

/// Where a result came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Provenance {
    pub engine: EngineKind,
    /// The language model, when one was used.
    #[serde(default)]
    pub model: Option<String>,
    /// Hash of the inputs that decide the result; equal hash = up to date.
    pub input_hash: String,
    /// The fingerprint of the review's inputs the result was made under
    /// (question, criteria, protocol, engine, prompt version): a result
    /// whose fingerprint is not the current one is stale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
    pub extractor: Option<String>,
    pub started_at: String,
    pub finished_at: String,
    /// Hash of the reader's prompt (agent engine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_hash: Option<String>,
    /// Evidence quotes checked against their cited page and kept / dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotes_verified: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quotes_dropped: Option<usize>,
    /// Why the reader was asked again, once, before its answer stood (a
    /// quote not on its page, a rationale that was not in words...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasked: Option<String>,
    /// Who covered the paper: the reviewer agent itself or the final sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covered_by: Option<String>,
}

impl Provenance {
    /// A result's provenance with what every engine records; the agent's
    /// reading details (prompt hash, quote counts, re-asks) start empty.
    pub fn new(
        engine: EngineKind,
        model: Option<String>,
        input_hash: String,
        extractor: Option<String>,
        started_at: String,
        finished_at: String,
    ) -> Self {
        Self {
            engine,
            model,
            input_hash,
            inputs: None,
            extractor,
            started_at,
            finished_at,
            prompt_hash: None,
            quotes_verified: None,
            quotes_dropped: None,
            reasked: None,
            covered_by: None,
        }
    }
}

/// One paper's review.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperResult {
    /// Three to five sentences, each with its page.
    pub summary: Vec<Quote>,
    pub key_points: Vec<String>,
    /// 0-10.
    pub score: f64,
    pub verdict: Verdict,
    pub rationale: String,
    pub evidence: Vec<Quote>,
    #[serde(default)]
    pub criteria: Vec<CriterionVerdict>,
    /// The criterion the reader excluded the paper by, whatever its score:
    /// one of `criteria`, not met, with its passage verified on its page.
    /// The verdict is relevance *and* criteria, so cut-offs never move it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excluded_by: Option<String>,
    /// What the researcher should check before trusting the reading, each
    /// in words: the paper's text holds an instruction to the model, the
    /// evidence quoted uses none of the question's terms, the passage an
    /// exclusion rests on none of its criterion's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub doubts: Vec<String>,
    pub provenance: Provenance,
    /// The title and authors the reader read on page one, as far as page
    /// one bears them out; laid over what extraction found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front_matter: Option<FrontMatter>,
}

/// A paper's title and authors as a reader read them on its first page.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FrontMatter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub authors: Vec<String>,
}
