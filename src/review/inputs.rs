//! What a review's results are made from, and whether a result is still
//! current. Each run records its inputs (question, criteria, the approved
//! protocol, engine, model, the reader's prompt version) in `inputs.json`;
//! every result records the fingerprint of the inputs it was made under
//! (`provenance.inputs`). A result whose fingerprint or model is not the
//! current one was made for an earlier question, protocol, engine or model:
//! the review shows it as stale, never counts it as current, and the next run
//! reads its paper again. The inputs of a few earlier runs are kept, so a
//! stale result can say what changed since it was made.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{EngineKind, ReviewSpec};
use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

/// Earlier inputs kept to explain a stale result.
const EARLIER_KEPT: usize = 16;

/// The inputs a run made its results from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inputs {
    pub question: String,
    #[serde(default)]
    pub criteria: Vec<String>,
    /// The approved protocol's hash (agent engine).
    #[serde(default)]
    pub protocol: Option<String>,
    pub engine: EngineKind,
    /// The first reader's model (agent engine). Not in the fingerprint: a
    /// result names its own model, and a second reading has another.
    #[serde(default)]
    pub model: Option<String>,
    /// The reader's prompt version (agent engine).
    #[serde(default)]
    pub prompt: Option<String>,
}

impl Inputs {
    pub fn new(spec: &ReviewSpec, model: Option<&str>) -> Self {
        let agent = spec.engine == EngineKind::Agent;
        Self {
            question: spec.question.trim().to_owned(),
            criteria: spec.criteria.clone(),
            protocol: spec.protocol.as_ref().map(|p| p.hash.clone()),
            engine: spec.engine,
            model: model.filter(|_| agent).map(str::to_owned),
            prompt: agent.then(|| super::reading::PROMPT_VERSION.to_owned()),
        }
    }

    /// The fingerprint a result made under these inputs records.
    pub fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        let protocol = self.protocol.as_deref().unwrap_or("");
        let prompt = self.prompt.as_deref().unwrap_or("");
        for part in [self.question.as_str(), self.engine.name(), protocol, prompt] {
            hasher.update(part.as_bytes());
            hasher.update(b"\0");
        }
        for c in &self.criteria {
            hasher.update(c.as_bytes());
            hasher.update(b"\0criterion\0");
        }
        hex::encode(&hasher.finalize()[..8])
    }

    /// What changed between `earlier` and these inputs, in words.
    fn changed_since(&self, earlier: &Inputs) -> Vec<&'static str> {
        [
            (self.question != earlier.question, "the question"),
            (self.criteria != earlier.criteria, "the criteria"),
            (self.protocol != earlier.protocol, "the protocol"),
            (self.engine != earlier.engine, "the engine"),
            (self.prompt != earlier.prompt, "the reader's prompt"),
        ]
        .into_iter()
        .filter_map(|(changed, what)| changed.then_some(what))
        .collect()
    }
}

/// The key of a question and its criteria: what a researcher's label was
/// given under (a label says what is relevant to one question).
pub fn question_key(question: &str, criteria: &[String]) -> String {
    let block = crate::review_model::question_block(question, criteria);
    hex::encode(&Sha256::digest(block.as_bytes())[..8])
}

/// The fingerprint of a spec's inputs: what every engine writes on a result.
pub fn fingerprint_of(spec: &ReviewSpec) -> String {
    Inputs::new(spec, None).fingerprint()
}

/// `inputs.json`: the current inputs and a few earlier ones.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputsFile {
    #[serde(default)]
    pub current: Option<Inputs>,
    /// Earlier runs' inputs, newest last.
    #[serde(default)]
    pub earlier: Vec<Inputs>,
}

fn file_path() -> Result<WsPath, WorkspaceError> {
    WsPath::parse(layout::INPUTS_FILE)
}

impl InputsFile {
    pub fn load(ws: &Workspace) -> Result<Self, WorkspaceError> {
        Ok(ws.read_json_if_any(&file_path()?)?.unwrap_or_default())
    }

    /// A run starts with `inputs`: they become the current ones. Returns
    /// whether they differ from the previous run's (model included).
    pub fn record(ws: &Workspace, inputs: Inputs) -> Result<bool, WorkspaceError> {
        let mut file = Self::load(ws)?;
        if file.current.as_ref() == Some(&inputs) {
            return Ok(false);
        }
        let changed = file.current.is_some();
        if let Some(previous) = file.current.take() {
            let fingerprint = previous.fingerprint();
            file.earlier.retain(|e| e.fingerprint() != fingerprint);
            file.earlier.push(previous);
            let over = file.earlier.len().saturating_sub(EARLIER_KEPT);
            file.earlier.drain(..over);
        }
        file.current = Some(inputs);
        ws.write_json(&file_path()?, &file)?;
        Ok(changed)
    }

    /// Why a reading made under `made` (its fingerprint) by `model` is not
    /// current, when `expected_model` should have made it; `None` when it
    /// is current, or cannot be told (no inputs recorded, on either side,
    /// before this was kept).
    pub fn staleness(
        &self,
        made: Option<&str>,
        model: Option<&str>,
        expected_model: Option<&str>,
    ) -> Option<String> {
        let current = self.current.as_ref()?;
        let made = made?;
        if made != current.fingerprint() {
            let changed = self
                .earlier
                .iter()
                .rev()
                .find(|e| e.fingerprint() == made)
                .map(|earlier| current.changed_since(earlier))
                .filter(|changed| !changed.is_empty());
            return Some(match changed {
                Some(changed) => format!("made before {} changed", join(&changed)),
                None => "made under earlier inputs".to_owned(),
            });
        }
        match (model, expected_model) {
            (Some(made_by), Some(expected)) if made_by != expected => Some(format!(
                "read by {made_by}; the review now reads with {expected}"
            )),
            _ => None,
        }
    }
}

fn join(parts: &[&str]) -> String {
    match parts {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(question: &str) -> ReviewSpec {
        ReviewSpec {
            question: question.into(),
            criteria: vec!["Peer reviewed".into()],
            engine: EngineKind::Agent,
            protocol: None,
        }
    }

    #[test]
    fn a_result_of_the_current_inputs_is_current_and_one_of_earlier_ones_says_what_changed() {
        let mut file = InputsFile {
            current: Some(Inputs::new(&spec("Does sleep help memory?"), Some("m1"))),
            earlier: vec![],
        };
        let old = fingerprint_of(&spec("Does sleep help memory?"));
        assert_eq!(file.staleness(Some(&old), Some("m1"), Some("m1")), None);
        assert_eq!(
            file.staleness(Some(&old), Some("m0"), Some("m1"))
                .as_deref(),
            Some("read by m0; the review now reads with m1")
        );
        let previous = file
            .current
            .replace(Inputs::new(&spec("Does caffeine help?"), Some("m1")));
        file.earlier.push(previous.unwrap());
        assert_eq!(
            file.staleness(Some(&old), Some("m1"), Some("m1"))
                .as_deref(),
            Some("made before the question changed")
        );
        assert_eq!(
            file.staleness(Some("0000"), None, None).as_deref(),
            Some("made under earlier inputs")
        );
        // A result from before fingerprints were kept cannot be told stale.
        assert_eq!(file.staleness(None, None, None), None);
    }

    #[test]
    fn the_fingerprint_follows_question_criteria_protocol_and_engine_not_the_model() {
        let base = Inputs::new(&spec("Q"), Some("m1"));
        assert_eq!(
            base.fingerprint(),
            Inputs::new(&spec("Q"), Some("m2")).fingerprint()
        );
        let mut other = spec("Q");
        other.criteria.push("English".into());
        assert_ne!(base.fingerprint(), fingerprint_of(&other));
        let mut offline = spec("Q");
        offline.engine = EngineKind::Offline;
        assert_ne!(base.fingerprint(), fingerprint_of(&offline));
        let mut protocol = spec("Q");
        protocol.protocol = Some(crate::review::ApprovedProtocol {
            text: "t".into(),
            hash: "h".into(),
        });
        assert_ne!(base.fingerprint(), fingerprint_of(&protocol));
    }
}
