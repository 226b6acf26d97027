//! Validation of the engine's screening against the researcher's own labels:
//! a proposed sample to label blind, the metrics the labels give (recall with
//! its interval, specificity, precision, kappa, WSS@95, the relevant papers
//! the engine would exclude), cut-offs calibrated to a target recall and
//! applied only when the researcher says so, and whether the sample supports
//! letting the engine exclude papers on its own.
//!
//! `validation.json` (reserved to Quire) holds the sample and the cut-offs in
//! force; the labels stay in `papers/<id>/label.json`. The engine's own
//! verdict stays in `result.json`: applied cut-offs change what the report,
//! the exports and the app show, never the record.

pub mod calibrate;
pub mod metrics;
pub mod sample;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::inputs::{Inputs, InputsFile, question_key};
use super::labels::Label;
use crate::review_model::{PaperResult, Verdict};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, Workspace, WorkspaceError, WsPath, layout};
pub use calibrate::{Cutoffs, StoppingRule};
pub use metrics::{Confusion, Proportion, kappa_text};

/// The sample size proposed when the researcher does not pick one.
pub const DEFAULT_SAMPLE: usize = 30;
/// The recall the cut-offs are calibrated to when the researcher does not say.
pub const DEFAULT_TARGET: f64 = 0.95;

/// One labelled, scored paper: the engine's score and the researcher's call.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    pub id: String,
    pub score: f64,
    /// Labelled include or maybe.
    pub relevant: bool,
}

/// Cut-offs the researcher applied, and what they were set from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppliedCutoffs {
    #[serde(flatten)]
    pub cutoffs: Cutoffs,
    pub target: f64,
    /// Labelled papers (and of them relevant) they were calibrated on.
    pub labelled: usize,
    pub relevant: usize,
    pub at: String,
    /// The fingerprint of the review's inputs whose scores they were set
    /// on: under other inputs they are not in force.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<String>,
}

/// `validation.json`: the sample to label and the cut-offs in force.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationFile {
    /// The proposed papers, in the order to label them.
    #[serde(default)]
    pub sample: Vec<String>,
    #[serde(default)]
    pub seed: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied: Option<AppliedCutoffs>,
    /// The key of the current question ([`Self::follow`]): labels given
    /// under another are not counted.
    #[serde(skip)]
    pub question: Option<String>,
    /// Cut-offs applied under earlier inputs ([`Self::follow`]): on record,
    /// not in force.
    #[serde(skip)]
    pub stale_applied: Option<AppliedCutoffs>,
}

fn file_path() -> Result<WsPath, WorkspaceError> {
    WsPath::parse(layout::VALIDATION_FILE)
}

impl ValidationFile {
    /// The workspace's validation, or an empty one before any.
    pub fn load(ws: &Workspace) -> Result<Self, WorkspaceError> {
        Ok(ws.read_json_if_any(&file_path()?)?.unwrap_or_default())
    }

    pub fn save(&self, ws: &Workspace) -> Result<(), WorkspaceError> {
        // Cut-offs set aside by `follow` stay on record: going back to the
        // inputs they were set under puts them in force again.
        let mut on_record = self.clone();
        if on_record.applied.is_none() {
            on_record.applied = self.stale_applied.clone();
        }
        ws.write_json(&file_path()?, &on_record)
    }

    /// Follow the review's current inputs: cut-offs set on earlier inputs'
    /// scores are set aside, and only labels given under the current
    /// question count.
    pub fn follow(&mut self, inputs: &InputsFile) {
        let Some(current) = &inputs.current else {
            return;
        };
        self.question = Some(question_key(&current.question, &current.criteria));
        let fingerprint = current.fingerprint();
        if self
            .applied
            .as_ref()
            .is_some_and(|a| a.inputs.as_ref().is_some_and(|made| *made != fingerprint))
        {
            self.stale_applied = self.applied.take();
        }
    }

    /// Whether `label` was given under the current question (a label from
    /// before the question was kept counts).
    fn counts(&self, label: &Label) -> bool {
        match (&self.question, &label.question) {
            (Some(current), Some(given)) => current == given,
            _ => true,
        }
    }

    /// The cut-offs verdicts are shown by: the applied ones, else the defaults.
    pub fn cutoffs(&self) -> Cutoffs {
        self.applied
            .as_ref()
            .map_or(Cutoffs::DEFAULT, |a| a.cutoffs)
    }

    pub fn target(&self) -> f64 {
        self.target.unwrap_or(DEFAULT_TARGET)
    }

    /// The verdict shown for a result: by the applied cut-offs when there
    /// are any, else the engine's own.
    pub fn shown_verdict(&self, score: f64, engine_verdict: Verdict) -> Verdict {
        match &self.applied {
            Some(applied) => applied.cutoffs.verdict(score),
            None => engine_verdict,
        }
    }

    /// Set every result's verdict to the one shown.
    pub fn show_verdicts(&self, results: &mut BTreeMap<PaperId, PaperResult>) {
        for result in results.values_mut() {
            result.verdict = self.shown_verdict(result.score, result.verdict);
        }
    }
}

/// Whether a label says the paper is relevant; `None` for a note alone.
fn relevant(label: &Label) -> Option<bool> {
    match (label.verdict, label.score) {
        (Some(verdict), _) => Some(verdict != Verdict::Exclude),
        (None, Some(score)) => Some(Cutoffs::DEFAULT.verdict(score) != Verdict::Exclude),
        (None, None) => None,
    }
}

/// Every paper with both an engine score and a researcher's call.
pub fn judged(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &ValidationFile,
) -> Vec<Judged> {
    results
        .iter()
        .filter_map(|(id, result)| {
            let label = labels.get(id).filter(|l| file.counts(l))?;
            let relevant = relevant(label)?;
            Some(Judged {
                id: id.0.clone(),
                score: result.score,
                relevant,
            })
        })
        .collect()
}

/// What the labels say of the engine, as the report, the CLI and the app show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Assessment {
    /// Labelled papers with a score, and how many of them are relevant.
    pub labelled: usize,
    pub relevant: usize,
    /// The sample's papers still to label.
    pub to_label: Vec<String>,
    pub sample_size: usize,
    /// The cut-offs in force, and whether they were calibrated.
    pub cutoffs: Cutoffs,
    pub calibrated: bool,
    pub confusion: Confusion,
    pub recall: Option<Proportion>,
    pub specificity: Option<Proportion>,
    pub precision: Option<Proportion>,
    pub kappa: Option<f64>,
    /// Why kappa is not defined, in words, when it is not.
    pub kappa_undefined: Option<String>,
    pub wss_at_95: Option<f64>,
    /// Relevant by the researcher, excluded by the engine, best score first.
    pub lost: Vec<String>,
    /// The cut-offs the labels support at the target recall.
    pub proposed: Option<Cutoffs>,
    pub stopping: StoppingRule,
    /// Labels given under an earlier question: kept (the researcher's),
    /// counted nowhere in these figures.
    pub earlier_labels: usize,
    /// When cut-offs set on earlier inputs' scores were applied: on record,
    /// not in force.
    pub stale_cutoffs: Option<String>,
}

/// Assess the engine on the labelled papers, at the cut-offs in force.
pub fn assess(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &ValidationFile,
) -> Assessment {
    let judged = judged(results, labels, file);
    let cutoffs = file.cutoffs();
    let confusion = Confusion::of(&judged, cutoffs.maybe);
    let mut lost: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.relevant && j.score < cutoffs.maybe)
        .collect();
    lost.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    let labelled_ids: Vec<&str> = judged.iter().map(|j| j.id.as_str()).collect();
    Assessment {
        labelled: judged.len(),
        relevant: confusion.relevant(),
        to_label: file
            .sample
            .iter()
            .filter(|id| !labelled_ids.contains(&id.as_str()))
            .cloned()
            .collect(),
        sample_size: file.sample.len(),
        cutoffs,
        calibrated: file.applied.is_some(),
        confusion,
        recall: confusion.recall(),
        specificity: confusion.specificity(),
        precision: confusion.precision(),
        kappa: confusion.kappa(),
        kappa_undefined: confusion
            .kappa_undefined()
            .map(|k| k.describe("the researcher", "the engine")),
        wss_at_95: metrics::wss_at_95(&judged),
        lost: lost.into_iter().map(|j| j.id.clone()).collect(),
        proposed: calibrate::supported(&judged, file.target()),
        stopping: calibrate::stopping_rule(&judged, cutoffs.maybe, file.target()),
        earlier_labels: labels
            .values()
            .filter(|l| !file.counts(l) && relevant(l).is_some())
            .count(),
        stale_cutoffs: file.stale_applied.as_ref().map(|a| a.at.clone()),
    }
}

/// Propose a new sample of `size` from the scored papers (a fresh seed), with
/// `target` as the recall to calibrate to.
pub fn new_sample(
    results: &BTreeMap<PaperId, PaperResult>,
    file: &mut ValidationFile,
    size: usize,
    target: f64,
) {
    let scored: Vec<(String, f64)> = results
        .iter()
        .map(|(id, r)| (id.0.clone(), r.score))
        .collect();
    file.seed = now_rfc3339();
    file.target = Some(target);
    file.sample = sample::propose(&scored, size, &file.cutoffs(), &file.seed);
}

/// Apply the cut-offs the labels support; the verdicts shown follow them.
/// `None` with fewer than [`calibrate::MIN_RELEVANT`] relevant labels to set them by.
pub fn apply(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &mut ValidationFile,
    inputs: &InputsFile,
) -> Option<AppliedCutoffs> {
    let judged = judged(results, labels, file);
    let cutoffs = calibrate::supported(&judged, file.target())?;
    let applied = AppliedCutoffs {
        cutoffs,
        target: file.target(),
        labelled: judged.len(),
        relevant: judged.iter().filter(|j| j.relevant).count(),
        at: now_rfc3339(),
        inputs: inputs.current.as_ref().map(Inputs::fingerprint),
    };
    file.stale_applied = None;
    file.applied = Some(applied.clone());
    Some(applied)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::review::ReviewSpec;
    use crate::review_model::EngineKind;

    fn inputs_for(question: &str) -> InputsFile {
        let spec = ReviewSpec {
            question: question.into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        };
        InputsFile {
            current: Some(Inputs::new(&spec, None)),
            earlier: Vec::new(),
        }
    }

    fn label(verdict: Verdict, question: Option<&str>) -> Label {
        Label {
            verdict: Some(verdict),
            score: None,
            note: None,
            at: "2026-12-03T12:00:00Z".into(),
            question: question.map(|q| question_key(q, &[])),
        }
    }

    #[test]
    fn labels_of_an_earlier_question_and_cut_offs_of_earlier_inputs_count_for_nothing() {
        let scored = r#"{"summary":[],"keyPoints":[],"score":8,"verdict":"include","rationale":"r",
            "evidence":[],"provenance":{"engine":"offline","inputHash":"h","extractor":null,
            "startedAt":"t","finishedAt":"t"}}"#;
        let results: BTreeMap<PaperId, PaperResult> = ["a", "b", "c"]
            .into_iter()
            .map(|id| (PaperId(id.into()), serde_json::from_str(scored).unwrap()))
            .collect();
        let labels: BTreeMap<PaperId, Label> = [
            ("a", label(Verdict::Include, Some("Q2"))),
            ("b", label(Verdict::Exclude, Some("Q1"))),
            // Given before labels kept their question: it counts.
            ("c", label(Verdict::Include, None)),
        ]
        .into_iter()
        .map(|(id, l)| (PaperId(id.into()), l))
        .collect();
        let mut file = ValidationFile {
            applied: Some(AppliedCutoffs {
                cutoffs: Cutoffs::DEFAULT,
                target: 0.95,
                labelled: 10,
                relevant: 5,
                at: "2026-12-01".into(),
                inputs: inputs_for("Q1").current.map(|c| c.fingerprint()),
            }),
            ..ValidationFile::default()
        };
        file.follow(&inputs_for("Q2"));
        let a = assess(&results, &labels, &file);
        assert_eq!((a.labelled, a.earlier_labels), (2, 1));
        assert_eq!(a.confusion.false_positive, 0, "Q1's exclude is not judged");
        assert!(!a.calibrated);
        assert_eq!(a.stale_cutoffs.as_deref(), Some("2026-12-01"));
        // Back under the first question, its cut-offs are in force again.
        let mut again = file.clone();
        again.applied = again.stale_applied.take();
        again.follow(&inputs_for("Q1"));
        assert!(again.applied.is_some() && again.stale_applied.is_none());
    }

    /// A labelled paper for the metric tests.
    pub(crate) fn judged_paper(score: f64, relevant: bool) -> Judged {
        Judged {
            id: format!("{score}-{relevant}"),
            score,
            relevant,
        }
    }
}
