//! The review's protocol: how the question and each criterion will be judged
//! and what the scores 0-10 mean, drafted before any paper is read, edited
//! and approved by the researcher, and given to the reader with every paper.
//!
//! `protocol.json` (Quire's, not the agents') keeps every version in order:
//! each draft, each approval (with whether the researcher edited the draft),
//! and each pilot run under an approved text. An approval holds for the
//! question and criteria it was given for; a changed question needs a new
//! one. The approved text's hash is part of every result's cache key, so
//! papers read under an older protocol are read again under the new one.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::ReviewSpec;
use crate::llm::{ChatRequest, LlmError, Message, ModelClient};
use crate::review_model::ApprovedProtocol;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

/// Bumped when the drafting prompt changes.
pub const DRAFT_PROMPT_VERSION: &str = "protocol-1";

/// The longest protocol kept: a reader gets it with every part of every
/// paper, so it must stay a page, not a chapter.
pub const MAX_CHARS: usize = 6_000;

/// What the planner is told when it drafts a protocol.
pub const DRAFT_PROMPT: &str = "You are the planner of a systematic literature review. Before any paper is read, you draft the review's protocol: the researcher reads it, edits it and approves it, and then every paper is read and scored by it, one paper at a time, by a reader that sees only that paper and this protocol.

Write Markdown with exactly these sections and nothing else:
## Question
What the question asks, in one or two sentences, and the words and synonyms a relevant paper may use.
## Criteria
One bullet per criterion: what meets it, what does not, and how to judge a paper that does not say. If there are no criteria, say that relevance to the question alone decides.
## Scores
What the scores 0-10 mean for this question, one line each for 9-10, 7-8, 5-6, 3-4 and 0-2. Papers scoring 6.5 or more are included and 4 or more are kept as maybe.
## Borderline cases
Two or three kinds of paper that are hard to call for this question, and how to call each.

Stay under 400 words. Say nothing about particular papers: you have not read any.";

/// How a version of the protocol came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ProtocolOrigin"))]
pub enum Origin {
    /// Drafted by the model.
    Drafted,
    /// Written by Quire from the question and criteria: no model drafted it
    /// (none asked, or its answer could not serve).
    Template,
    /// The researcher's text (an edited draft, or a file they gave).
    Researcher,
}

/// What happened to the protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ProtocolEvent"))]
pub enum Event {
    Drafted,
    Approved,
}

/// One version of the protocol, as `protocol.json` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ProtocolVersion"))]
pub struct Version {
    pub event: Event,
    pub origin: Origin,
    pub text: String,
    /// The text's hash (hex), as the report and each result name it.
    pub hash: String,
    /// The question and criteria it was written for.
    pub question: String,
    pub criteria: Vec<String>,
    /// The model that drafted it ([`Origin::Drafted`]).
    #[serde(default)]
    pub model: Option<String>,
    /// Why Quire's template stands in for a model's draft.
    #[serde(default)]
    pub note: Option<String>,
    pub at: String,
}

impl Version {
    fn is_for(&self, spec: &ReviewSpec) -> bool {
        self.question.trim() == spec.question.trim() && self.criteria == spec.criteria
    }
}

/// A pilot: some papers read under an approved protocol before the rest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ProtocolPilot"))]
pub struct Pilot {
    /// The approved protocol's hash.
    pub hash: String,
    pub papers: Vec<String>,
    pub at: String,
}

/// `protocol.json`: every draft, approval and pilot, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolFile {
    #[serde(default)]
    pub history: Vec<Version>,
    #[serde(default)]
    pub pilots: Vec<Pilot>,
}

fn file_path() -> Result<WsPath, WorkspaceError> {
    WsPath::parse(layout::PROTOCOL_FILE)
}

/// The hash a protocol text is named by.
pub fn hash(text: &str) -> String {
    hex::encode(&Sha256::digest(text.trim().as_bytes())[..8])
}

impl ProtocolFile {
    /// The workspace's protocol history, or an empty one before any.
    pub fn load(ws: &Workspace) -> Result<Self, WorkspaceError> {
        Ok(ws.read_json_if_any(&file_path()?)?.unwrap_or_default())
    }

    pub fn save(&self, ws: &Workspace) -> Result<(), WorkspaceError> {
        ws.write_json(&file_path()?, self)
    }

    /// The latest approval for `spec`'s question and criteria.
    pub fn approved_for(&self, spec: &ReviewSpec) -> Option<&Version> {
        self.history
            .iter()
            .rev()
            .find(|v| v.event == Event::Approved && v.is_for(spec))
    }

    /// The latest draft for `spec`, if none was approved after it.
    pub fn draft_for(&self, spec: &ReviewSpec) -> Option<&Version> {
        let last = self.history.iter().rev().find(|v| v.is_for(spec))?;
        (last.event == Event::Drafted).then_some(last)
    }

    /// The approved text for `spec`, as the reader gets it.
    pub fn approved(&self, spec: &ReviewSpec) -> Option<ApprovedProtocol> {
        self.approved_for(spec).map(|v| ApprovedProtocol {
            text: v.text.clone(),
            hash: v.hash.clone(),
        })
    }

    /// Whether the approval in force was preceded by a draft the
    /// researcher changed.
    pub fn edited(&self, spec: &ReviewSpec) -> bool {
        self.approved_for(spec)
            .is_some_and(|v| v.origin == Origin::Researcher)
    }

    /// Keep a draft.
    pub fn record_draft(&mut self, spec: &ReviewSpec, draft: Draft) -> Version {
        let version = Version {
            event: Event::Drafted,
            origin: draft.origin,
            hash: hash(&draft.text),
            text: draft.text,
            question: spec.question.trim().to_owned(),
            criteria: spec.criteria.clone(),
            model: draft.model,
            note: draft.note,
            at: now_rfc3339(),
        };
        self.history.push(version.clone());
        version
    }

    /// Approve `text` for `spec`. Its origin is the draft's when the text is
    /// the latest draft's, else the researcher's.
    pub fn approve(&mut self, spec: &ReviewSpec, text: &str) -> Result<Version, ProtocolError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(ProtocolError::Empty);
        }
        if text.chars().count() > MAX_CHARS {
            return Err(ProtocolError::TooLong {
                chars: text.chars().count(),
            });
        }
        let hash = hash(text);
        let drafted = self.draft_for(spec).filter(|d| d.hash == hash).cloned();
        let version = Version {
            event: Event::Approved,
            origin: drafted.as_ref().map_or(Origin::Researcher, |d| d.origin),
            text: text.to_owned(),
            hash,
            question: spec.question.trim().to_owned(),
            criteria: spec.criteria.clone(),
            model: drafted.and_then(|d| d.model),
            note: None,
            at: now_rfc3339(),
        };
        self.history.push(version.clone());
        Ok(version)
    }

    /// The approval in force for `spec`, with what led to it, as the report
    /// states it.
    pub fn in_force(&self, spec: &ReviewSpec) -> Option<InForce> {
        let approved = self.approved_for(spec)?.clone();
        let versions = self.history.iter().filter(|v| v.is_for(spec)).count();
        let pilot_papers = self
            .pilots_under(&approved.hash)
            .flat_map(|p| p.papers.iter())
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let drafted_by = self
            .history
            .iter()
            .filter(|v| v.is_for(spec) && v.event == Event::Drafted && v.origin == Origin::Drafted)
            .find_map(|v| v.model.clone());
        Some(InForce {
            approved,
            versions,
            pilot_papers,
            drafted_by,
        })
    }

    /// Keep that these papers were read as a pilot under `hash`.
    pub fn record_pilot(&mut self, hash: &str, papers: Vec<String>) {
        self.pilots.push(Pilot {
            hash: hash.to_owned(),
            papers,
            at: now_rfc3339(),
        });
    }

    /// The pilots run under the protocol `hash`.
    pub fn pilots_under(&self, hash: &str) -> impl Iterator<Item = &Pilot> {
        self.pilots.iter().filter(move |p| p.hash == hash)
    }
}

/// The protocol a review's results were read by, and its story.
#[derive(Clone, Debug, PartialEq)]
pub struct InForce {
    pub approved: Version,
    /// Drafts and approvals for the question, this one included.
    pub versions: usize,
    /// Papers read in pilots under it.
    pub pilot_papers: usize,
    /// The model that drafted a version for this question, if one did.
    pub drafted_by: Option<String>,
}

impl InForce {
    /// Who wrote the approved text, in words.
    pub fn authorship(&self) -> String {
        let approved = &self.approved;
        match (approved.origin, &self.drafted_by) {
            (Origin::Drafted, _) => format!(
                "drafted by {} and approved by the researcher as drafted",
                approved.model.as_deref().unwrap_or("the model")
            ),
            (Origin::Template, _) => {
                "Quire's template, approved by the researcher as written".to_owned()
            }
            (Origin::Researcher, Some(model)) => {
                format!("drafted by {model}, edited and approved by the researcher")
            }
            (Origin::Researcher, None) => "written and approved by the researcher".to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    #[error("the protocol is empty")]
    Empty,
    #[error(
        "the protocol is {chars} characters long; keep it under {MAX_CHARS}, since the reader gets it with every paper"
    )]
    TooLong { chars: usize },
}

/// A drafted protocol, before it is kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Draft {
    pub text: String,
    pub origin: Origin,
    pub model: Option<String>,
    pub note: Option<String>,
}

/// Ask the model for a draft; Quire's template stands in when its answer
/// cannot serve (empty, JSON, cut off, far too long), and says why. A
/// failed call is the caller's to report: nothing is drafted then.
pub async fn draft(
    client: &ModelClient,
    spec: &ReviewSpec,
    cancel: &CancellationToken,
) -> Result<Draft, LlmError> {
    let request = ChatRequest {
        messages: vec![
            Message::system(DRAFT_PROMPT),
            Message::user(format!(
                "{}\nDraft the protocol for this review.",
                spec.question_block()
            )),
        ],
        max_tokens: Some(client.settings().max_output_tokens.min(1_500)),
        stream: client.settings().stream,
        ..ChatRequest::default()
    };
    let answer = client.complete(&request, "protocol", cancel).await?;
    let cut = answer.finish_reason == Some(crate::llm::FinishReason::Length);
    let model = Some(client.settings().model.clone());
    Ok(match usable_draft(&answer.text) {
        Ok(text) if !cut => Draft {
            text,
            origin: Origin::Drafted,
            model,
            note: None,
        },
        outcome => {
            let why = match outcome {
                Err(why) => why,
                Ok(_) => "it was cut off at the answer's token limit",
            };
            Draft {
                text: template(spec),
                origin: Origin::Template,
                model,
                note: Some(format!(
                    "the model's draft could not serve ({why}); this is Quire's template, edit it"
                )),
            }
        }
    })
}

/// The model's answer as a protocol, or why it cannot be one.
fn usable_draft(answer: &str) -> Result<String, &'static str> {
    let text = match answer.rfind("</think>") {
        Some(end) => &answer[end + "</think>".len()..],
        None => answer,
    };
    let text = text.trim();
    let text = text
        .strip_prefix("```markdown")
        .or_else(|| text.strip_prefix("```md"))
        .or_else(|| text.strip_prefix("```"))
        .map_or(text, |inner| inner.trim_end().trim_end_matches("```"))
        .trim();
    if text.len() < 80 {
        return Err("it was empty or a line long");
    }
    if text.starts_with('{') || text.starts_with('[') {
        return Err("it was JSON, not a protocol");
    }
    if text.chars().count() > MAX_CHARS {
        return Err("it was longer than a protocol may be");
    }
    if !text.to_lowercase().contains("score") {
        return Err("it did not say what the scores mean");
    }
    Ok(text.to_owned())
}

/// Quire's own draft from the question and criteria: what holds with no
/// model, and the ground the researcher edits from.
pub fn template(spec: &ReviewSpec) -> String {
    let mut text = format!(
        "## Question\n{}\nA paper is relevant when it studies this question itself, not only a neighbouring one, and says so in its own text.\n\n## Criteria\n",
        spec.question.trim()
    );
    if spec.criteria.is_empty() {
        text.push_str("- No criteria: relevance to the question alone decides.\n");
    }
    for criterion in &spec.criteria {
        text.push_str(&format!(
            "- {criterion} Met when the paper states it; not met when it states otherwise; unclear when it does not say.\n"
        ));
    }
    text.push_str(
        "\n## Scores\n\
         - 9-10: the paper answers the question directly, with its own evidence.\n\
         - 7-8: the question is a main concern of the paper.\n\
         - 5-6: the paper bears on the question in part (a section, a case, a secondary result).\n\
         - 3-4: the paper touches the question in passing.\n\
         - 0-2: the paper is about something else.\n\
         Papers scoring 6.5 or more are included and 4 or more are kept as maybe.\n\
         \n## Borderline cases\n\
         - A paper that mentions the question's terms only in its related work or outlook: 3-4.\n\
         - A paper that meets the question but fails a criterion: it is excluded, whatever its score.\n",
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::EngineKind;

    fn spec(question: &str, criteria: &[&str]) -> ReviewSpec {
        ReviewSpec {
            question: question.into(),
            criteria: criteria.iter().map(|c| c.to_string()).collect(),
            engine: EngineKind::Agent,
            protocol: None,
        }
    }

    fn drafted(text: &str) -> Draft {
        Draft {
            text: text.into(),
            origin: Origin::Drafted,
            model: Some("m".into()),
            note: None,
        }
    }

    #[test]
    fn an_approval_holds_for_its_question_and_criteria_only() {
        let mut file = ProtocolFile::default();
        let gc = spec("How do collectors pause?", &["Measured pauses."]);
        file.record_draft(&gc, drafted("## Scores\nthe draft"));
        assert!(file.approved(&gc).is_none());
        assert!(file.draft_for(&gc).is_some());
        let approved = file.approve(&gc, "## Scores\nthe draft").unwrap();
        assert_eq!(approved.origin, Origin::Drafted);
        assert_eq!(approved.model.as_deref(), Some("m"));
        assert!(!file.edited(&gc));
        assert!(file.draft_for(&gc).is_none(), "the draft was approved");
        assert_eq!(
            file.approved(&gc).unwrap().hash,
            hash("## Scores\nthe draft")
        );
        assert!(
            file.approved(&spec("How do collectors pause?", &[]))
                .is_none()
        );
        assert!(
            file.approved(&spec("Another question", &["Measured pauses."]))
                .is_none()
        );
    }

    #[test]
    fn an_edited_draft_is_the_researchers_and_the_history_keeps_both() {
        let mut file = ProtocolFile::default();
        let s = spec("Q?", &[]);
        file.record_draft(&s, drafted("## Scores\nfirst"));
        let approved = file.approve(&s, "## Scores\nfirst, edited").unwrap();
        assert_eq!(approved.origin, Origin::Researcher);
        assert!(file.edited(&s));
        let events: Vec<Event> = file.history.iter().map(|v| v.event).collect();
        assert_eq!(events, [Event::Drafted, Event::Approved]);
        assert_ne!(file.history[0].hash, file.history[1].hash);
        assert_eq!(file.approve(&s, "  \n"), Err(ProtocolError::Empty));
        let long = "x".repeat(MAX_CHARS + 1);
        assert!(matches!(
            file.approve(&s, &long),
            Err(ProtocolError::TooLong { .. })
        ));
    }

    #[test]
    fn a_models_answer_serves_only_as_a_protocol() {
        let good = "## Question\nWhat pauses collectors take.\n## Scores\n- 9-10: measures pauses directly on real workloads.";
        assert_eq!(usable_draft(good).unwrap(), good);
        let wrapped = format!("<think>let me see</think>\n```markdown\n{good}\n```");
        assert_eq!(usable_draft(&wrapped).unwrap(), good);
        assert!(usable_draft("OK.").is_err());
        assert!(usable_draft(&format!("{{\"protocol\": \"{}\"}}", "a".repeat(90))).is_err());
        assert!(usable_draft(&"words without the key section. ".repeat(5)).is_err());
    }

    #[test]
    fn the_template_states_every_criterion_and_the_cut_offs() {
        let text = template(&spec("Q?", &["Peer reviewed.", "After 2010."]));
        assert!(text.contains("- Peer reviewed. Met when"));
        assert!(text.contains("- After 2010. Met when"));
        assert!(text.contains("6.5 or more are included"));
        assert!(
            usable_draft(&text).is_ok(),
            "the template is a protocol itself"
        );
    }
}
