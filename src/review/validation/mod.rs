//! Validation of the engine's screening against the researcher's own labels.
//!
//! Quire proposes a stratified random sample to label blind. Only the
//! sample's labels speak for the papers nobody labelled: recall for the
//! whole review with its interval, the relevant papers the engine excludes,
//! WSS@95 and whether automatic exclusion is supported are estimated from
//! them, weighted by each paper's inclusion probability ([`estimate`]).
//! Labels given while browsing the results are the researcher's calls on
//! those papers (shown on them, and among the lost evidence) and enter no
//! estimate: the papers a researcher picks to label are not a sample.
//!
//! Cut-offs are fitted to a target recall on one half of the sample and
//! checked on the other; a maybe cut-off above the default (more papers
//! excluded unread) is proposed only when the held-out half supports it, and
//! once applied, the labels it was fitted on count in no estimate at it.
//! When the labels are too few for a claim, the assessment says how many
//! more and in which score bands.
//!
//! `validation.json` (reserved to Quire) holds the sample, its design and the
//! cut-offs in force; the labels stay in `papers/<id>/label.json`. The
//! engine's own verdict stays in `result.json`: applied cut-offs change what
//! the report, the exports and the app show, never the record.

pub mod calibrate;
pub mod estimate;
pub mod metrics;
pub mod sample;

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::inputs::{Inputs, InputsFile, question_key};
use super::labels::Label;
use crate::review_model::{PaperResult, Verdict};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, Workspace, WorkspaceError, WsPath, layout};
pub use calibrate::Cutoffs;
pub use estimate::{MoreLabels, Range, RecallEstimate};
pub use metrics::{Confusion, Judged, Proportion, kappa_text};
use sample::Frame;

/// The sample size proposed when the researcher does not pick one.
pub const DEFAULT_SAMPLE: usize = 30;
/// The recall the cut-offs are calibrated to when the researcher does not say.
pub const DEFAULT_TARGET: f64 = 0.95;

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
    /// The sample's papers they were fitted on: no estimate at these
    /// cut-offs counts their labels.
    #[serde(default)]
    pub fitted_on: Vec<String>,
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
    /// How the sample was drawn: its bands and each band's draws. None for a
    /// sample drawn before Quire kept it (no estimate can weigh it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame: Option<Frame>,
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
    /// are any, else the engine's own. Cut-offs are on relevance: an
    /// exclusion by a criterion stands whatever they are.
    pub fn shown_verdict(
        &self,
        score: f64,
        engine_verdict: Verdict,
        by_criterion: bool,
    ) -> Verdict {
        match &self.applied {
            _ if by_criterion => Verdict::Exclude,
            Some(applied) => applied.cutoffs.verdict(score),
            None => engine_verdict,
        }
    }

    /// Set every result's verdict to the one shown.
    pub fn show_verdicts(&self, results: &mut BTreeMap<PaperId, PaperResult>) {
        for result in results.values_mut() {
            result.verdict =
                self.shown_verdict(result.score, result.verdict, result.excluded_by.is_some());
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
                by_criterion: result.excluded_by.is_some(),
            })
        })
        .collect()
}

/// A higher maybe cut-off one half of the sample asked for, which the other
/// half did not support.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RaiseRefused {
    pub maybe: f64,
    /// Why, in words.
    pub reason: String,
}

/// Whether the sample supports letting the engine exclude papers unread at
/// the cut-offs in force, and if not, what would.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Support {
    pub target: f64,
    /// Recall's one-sided 95% lower bound for the whole review is at or
    /// above the target.
    pub supported: bool,
    /// More labels that would bring the bound to the target if they turn out
    /// as the sample's have so far, by score band; empty when supported.
    pub more: Vec<MoreLabels>,
    /// No number of labels would: the estimate itself is below the target.
    pub beyond_reach: bool,
}

/// What the labels say of the engine, as the report, the CLI and the app show it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Assessment {
    /// Labelled papers with a score under the current question, and of
    /// them those in the sample and those labelled while browsing.
    pub labelled: usize,
    pub sample_labelled: usize,
    pub browsing_labelled: usize,
    /// Relevant among the sample's labels the figures rest on.
    pub relevant: usize,
    /// The sample's papers still to label.
    pub to_label: Vec<String>,
    pub sample_size: usize,
    /// The cut-offs in force, and whether they were calibrated.
    pub cutoffs: Cutoffs,
    pub calibrated: bool,
    /// The sample's labels the applied cut-offs were fitted on: counted in
    /// no figure at them.
    pub fitted_labels: usize,
    /// The sample's labels the figures rest on against the engine's
    /// decisions, unweighted: agreement on these papers.
    pub confusion: Confusion,
    pub kappa: Option<f64>,
    /// Why kappa is not defined, in words, when it is not.
    pub kappa_undefined: Option<String>,
    /// Recall and the relevant papers for the whole review at the cut-offs
    /// in force, weighted back from the sample.
    pub estimate: Option<RecallEstimate>,
    /// Why there is no estimate, in words, when there is none.
    pub no_estimate: Option<String>,
    /// Work saved over sampling at 95% recall, for the whole review.
    pub wss_at_95: Option<f64>,
    /// Relevant by the researcher (any label), excluded by the engine, best
    /// score first.
    pub lost: Vec<String>,
    /// The cut-offs the sample supports at the target recall.
    pub proposed: Option<Cutoffs>,
    pub raise_refused: Option<RaiseRefused>,
    pub support: Support,
    /// Labels given under an earlier question: kept (the researcher's),
    /// counted nowhere in these figures.
    pub earlier_labels: usize,
    /// When cut-offs set on earlier inputs' scores were applied: on record,
    /// not in force.
    pub stale_cutoffs: Option<String>,
}

/// The scored papers (id, score), as the sample's frame sees them.
fn scored(results: &BTreeMap<PaperId, PaperResult>) -> Vec<(String, f64)> {
    results
        .iter()
        .map(|(id, r)| (id.0.clone(), r.score))
        .collect()
}

/// The papers the engine excluded by a criterion: excluded at any cut-off.
fn barred(results: &BTreeMap<PaperId, PaperResult>) -> HashSet<&str> {
    results
        .iter()
        .filter(|(_, r)| r.excluded_by.is_some())
        .map(|(id, _)| id.0.as_str())
        .collect()
}

/// The sample as estimates can use it: its frame, unless the scores moved
/// since the draw (then why not).
fn usable_frame<'a>(
    file: &'a ValidationFile,
    papers: &[(String, f64)],
) -> Result<&'a Frame, String> {
    let frame = file
        .frame
        .as_ref()
        .ok_or("no validation sample has been drawn; propose one and label it")?;
    match frame.mismatch(papers) {
        Some(why) => Err(format!("{why}; propose a new sample")),
        None => Ok(frame),
    }
}

/// "no label of the sample yet describes the 40 papers scoring 0.0-2.0 or
/// the 12 scoring 2.0-4.0 that the engine excludes".
fn unobserved_text(bands: &[estimate::Unobserved]) -> String {
    let side = |kept: bool| {
        let parts: Vec<String> = bands
            .iter()
            .filter(|b| b.kept == kept)
            .enumerate()
            .map(|(i, b)| {
                let what = match (i, b.papers) {
                    (0, 1) => "paper",
                    (0, _) => "papers",
                    _ => "",
                };
                let what = if what.is_empty() {
                    String::new()
                } else {
                    format!(" {what}")
                };
                format!(
                    "{}{what} scoring {:.1}-{:.1}",
                    b.papers,
                    b.from.max(0.0),
                    b.to.min(10.0)
                )
            })
            .collect();
        (!parts.is_empty()).then(|| {
            format!(
                "the {} that the engine {}",
                parts.join(" or the "),
                if kept { "keeps" } else { "excludes" }
            )
        })
    };
    let sides: Vec<String> = [side(false), side(true)].into_iter().flatten().collect();
    format!(
        "no label of the sample yet describes {}",
        sides.join(", nor ")
    )
}

/// What the labels `labels` (sample papers only) say at `cut`: the estimate
/// (or why none) and whether it supports exclusion at `target`.
fn weigh(
    frame: &Frame,
    papers: &[(String, f64)],
    barred: &HashSet<&str>,
    labels: &[&Judged],
    cut: f64,
    target: f64,
    ask_more: bool,
) -> (Result<RecallEstimate, String>, Support) {
    let pairs: Vec<(&str, bool)> = labels.iter().map(|j| (j.id.as_str(), j.relevant)).collect();
    let cells = estimate::cells(frame, papers, barred, &pairs, cut);
    let found = estimate::estimate(frame, &cells, cut).map_err(|bands| unobserved_text(&bands));
    let supported = found.as_ref().is_ok_and(|e| e.lower_bound >= target);
    let more = if supported || !ask_more {
        None
    } else {
        estimate::more_needed(frame, &cells, target)
    };
    let support = Support {
        target,
        supported,
        beyond_reach: !supported && more.is_none(),
        more: more.unwrap_or_default(),
    };
    (found, support)
}

/// The cut-offs one half of the sample fits, kept if they raise the maybe
/// cut-off only as far as the other half supports.
fn propose_cutoffs(
    frame: &Frame,
    papers: &[(String, f64)],
    barred: &HashSet<&str>,
    sample: &[&Judged],
    target: f64,
) -> (Option<Cutoffs>, Option<RaiseRefused>, Vec<String>) {
    let (fit, check): (Vec<&Judged>, Vec<&Judged>) =
        sample.iter().partition(|j| frame.in_fit_half(&j.id));
    let fitted_on = fit.iter().map(|j| j.id.clone()).collect();
    let fit: Vec<Judged> = fit.into_iter().cloned().collect();
    let Some(fitted) = calibrate::calibrate(&fit, target) else {
        return (None, None, fitted_on);
    };
    if fitted.maybe <= Cutoffs::DEFAULT.maybe {
        return (Some(fitted), None, fitted_on);
    }
    let (held_out, support) = weigh(frame, papers, barred, &check, fitted.maybe, target, false);
    if support.supported {
        return (Some(fitted), None, fitted_on);
    }
    let reason = match held_out {
        Err(why) => format!("the half of the sample it was not fitted on cannot check it: {why}"),
        Ok(e) => format!(
            "on the half of the sample it was not fitted on, recall's lower bound there is {:.2}, below {target:.2}",
            e.lower_bound
        ),
    };
    let refused = RaiseRefused {
        maybe: fitted.maybe,
        reason,
    };
    (Some(Cutoffs::DEFAULT), Some(refused), fitted_on)
}

/// Assess the engine on the labelled papers, at the cut-offs in force.
pub fn assess(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &ValidationFile,
) -> Assessment {
    let barred = barred(results);
    let mut assessment = assess_scored(
        &scored(results),
        &barred,
        &judged(results, labels, file),
        file,
    );
    assessment.earlier_labels = labels
        .values()
        .filter(|l| !file.counts(l) && relevant(l).is_some())
        .count();
    assessment
}

/// [`assess`] on the scored papers (id, score), those the engine excluded
/// by a criterion, and the labelled ones.
pub fn assess_scored(
    papers: &[(String, f64)],
    barred: &HashSet<&str>,
    judged: &[Judged],
    file: &ValidationFile,
) -> Assessment {
    let cutoffs = file.cutoffs();
    let target = file.target();
    let in_sample = |id: &str| file.frame.as_ref().is_some_and(|f| f.holds(id));
    let sample: Vec<&Judged> = judged.iter().filter(|j| in_sample(&j.id)).collect();
    let fitted: &[String] = file.applied.as_ref().map_or(&[], |a| &a.fitted_on);
    let evaluated: Vec<&Judged> = sample
        .iter()
        .copied()
        .filter(|j| !fitted.contains(&j.id))
        .collect();
    let owned: Vec<Judged> = evaluated.iter().map(|j| (*j).clone()).collect();
    let confusion = Confusion::of(&owned, cutoffs.maybe);
    let mut lost: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.relevant && j.score < cutoffs.maybe)
        .collect();
    lost.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
    let labelled_ids: Vec<&str> = judged.iter().map(|j| j.id.as_str()).collect();
    let no_support = Support {
        target,
        supported: false,
        more: Vec::new(),
        beyond_reach: false,
    };
    let (estimate, no_estimate, support, wss, proposed, raise_refused) =
        match usable_frame(file, papers) {
            Err(why) => (None, Some(why), no_support, None, None, None),
            Ok(frame) => {
                let (found, support) = weigh(
                    frame,
                    papers,
                    barred,
                    &evaluated,
                    cutoffs.maybe,
                    target,
                    true,
                );
                let pairs: Vec<(&str, bool)> =
                    sample.iter().map(|j| (j.id.as_str(), j.relevant)).collect();
                let (proposed, refused, _) =
                    propose_cutoffs(frame, papers, barred, &sample, target);
                let (estimate, why) = match found {
                    Ok(e) => (Some(e), None),
                    Err(why) => (None, Some(why)),
                };
                let wss = estimate::wss_at_95(frame, papers, &pairs);
                (estimate, why, support, wss, proposed, refused)
            }
        };
    Assessment {
        labelled: judged.len(),
        sample_labelled: sample.len(),
        browsing_labelled: judged.len() - sample.len(),
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
        fitted_labels: sample.len() - evaluated.len(),
        confusion,
        kappa: confusion.kappa(),
        kappa_undefined: confusion
            .kappa_undefined()
            .map(|k| k.describe("the researcher", "the engine")),
        estimate,
        no_estimate,
        wss_at_95: wss,
        lost: lost.into_iter().map(|j| j.id.clone()).collect(),
        proposed,
        raise_refused,
        support,
        earlier_labels: 0,
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
    file.seed = now_rfc3339();
    file.target = Some(target);
    let (frame, queue) = sample::propose(&scored(results), size, &file.cutoffs(), &file.seed);
    file.frame = Some(frame);
    file.sample = queue;
}

/// Draw into the sample the further labels the assessment asks for (those
/// the sample already holds unlabelled count towards them). Returns how
/// many papers were added.
pub fn extend_sample(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &mut ValidationFile,
) -> Result<usize, String> {
    let papers = scored(results);
    usable_frame(file, &papers)?;
    let assessment = assess(results, labels, file);
    if assessment.support.more.is_empty() {
        return Err(if assessment.support.supported {
            "the sample already supports automatic exclusion at these cut-offs".to_owned()
        } else {
            "more labels would not support automatic exclusion at these cut-offs".to_owned()
        });
    }
    let Some(frame) = file.frame.as_mut() else {
        return Err("no validation sample has been drawn".to_owned());
    };
    let score = |id: &str| papers.iter().find(|p| p.0 == id).map(|p| p.1);
    let mut more = vec![0usize; frame.strata.len()];
    for band in &assessment.support.more {
        let waiting = assessment
            .to_label
            .iter()
            .filter(|id| score(id).is_some_and(|s| frame.stratum_of(s) == band.stratum))
            .count();
        more[band.stratum] = band.count.saturating_sub(waiting);
    }
    let added = sample::extend(frame, &papers, &more, &file.seed);
    let count = added.len();
    file.sample.extend(added);
    Ok(count)
}

/// Apply the cut-offs the sample supports; the verdicts shown follow them.
/// Refused, with the reason, when the sample sets none.
pub fn apply(
    results: &BTreeMap<PaperId, PaperResult>,
    labels: &BTreeMap<PaperId, Label>,
    file: &mut ValidationFile,
    inputs: &InputsFile,
) -> Result<AppliedCutoffs, String> {
    let papers = scored(results);
    let barred = barred(results);
    let frame = usable_frame(file, &papers)?;
    let judged = judged(results, labels, file);
    let sample: Vec<&Judged> = judged.iter().filter(|j| frame.holds(&j.id)).collect();
    let (proposed, _, fitted_on) = propose_cutoffs(frame, &papers, &barred, &sample, file.target());
    let cutoffs = proposed.ok_or(format!(
        "the cut-offs are fitted on half of the validation sample, which needs at least {} papers you \
         labelled include or maybe; label more of the sample first",
        calibrate::MIN_RELEVANT
    ))?;
    let fit: Vec<&&Judged> = sample
        .iter()
        .filter(|j| fitted_on.contains(&j.id))
        .collect();
    let applied = AppliedCutoffs {
        cutoffs,
        target: file.target(),
        labelled: fit.len(),
        relevant: fit.iter().filter(|j| j.relevant).count(),
        at: now_rfc3339(),
        fitted_on,
        inputs: inputs.current.as_ref().map(Inputs::fingerprint),
    };
    file.stale_applied = None;
    file.applied = Some(applied.clone());
    Ok(applied)
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
            queued: false,
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
                fitted_on: Vec::new(),
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

    fn results_of(scores: &[(String, f64)]) -> BTreeMap<PaperId, PaperResult> {
        scores
            .iter()
            .map(|(id, score)| {
                let json = format!(
                    r#"{{"summary":[],"keyPoints":[],"score":{score},"verdict":"include","rationale":"r",
                    "evidence":[],"provenance":{{"engine":"offline","inputHash":"h","extractor":null,
                    "startedAt":"t","finishedAt":"t"}}}}"#
                );
                (PaperId(id.clone()), serde_json::from_str(&json).unwrap())
            })
            .collect()
    }

    /// 400 papers over the score range; relevant: all from 7.9 up (the 80
    /// obvious ones), and one in four of those scoring 1.0-4.0 (relevant
    /// papers the engine scores low, as a real review has).
    /// Papers with their score and whether they are truly relevant.
    type Truth = Vec<(String, f64, bool)>;

    fn review_of_400() -> (Truth, BTreeMap<PaperId, PaperResult>) {
        let truth: Vec<(String, f64, bool)> = (0..400)
            .map(|i| {
                let score = if i < 80 {
                    7.9 + (i % 20) as f64 / 10.0
                } else {
                    (i % 79) as f64 / 10.0
                };
                let relevant = i < 80 || ((1.0..4.0).contains(&score) && i % 4 == 0);
                (format!("p{i:03}"), score, relevant)
            })
            .collect();
        let scores: Vec<(String, f64)> = truth.iter().map(|t| (t.0.clone(), t.1)).collect();
        (truth, results_of(&scores))
    }

    fn labelled(
        truth: &[(String, f64, bool)],
        pick: impl Fn(&str) -> bool,
    ) -> BTreeMap<PaperId, Label> {
        truth
            .iter()
            .filter(|t| pick(&t.0))
            .map(|t| {
                let verdict = if t.2 {
                    Verdict::Include
                } else {
                    Verdict::Exclude
                };
                (PaperId(t.0.clone()), label(verdict, None))
            })
            .collect()
    }

    #[test]
    fn eighty_obvious_includes_labelled_while_browsing_neither_raise_the_cut_nor_claim_support() {
        let (truth, results) = review_of_400();
        let top: Vec<String> = truth
            .iter()
            .filter(|t| t.1 >= 7.9)
            .map(|t| t.0.clone())
            .collect();
        assert_eq!(top.len(), 80);
        let labels = labelled(&truth, |id| top.iter().any(|t| t == id));
        let mut file = ValidationFile::default();
        let a = assess(&results, &labels, &file);
        assert_eq!(
            (a.labelled, a.browsing_labelled, a.sample_labelled),
            (80, 80, 0)
        );
        assert_eq!(a.proposed, None);
        assert!(!a.support.supported);
        assert!(a.estimate.is_none() && a.no_estimate.is_some());
        assert!(apply(&results, &labels, &mut file, &inputs_for("Q")).is_err());
        assert_eq!(file.cutoffs(), Cutoffs::DEFAULT);

        // A sample of 30 labelled as well: the 80 still count in no estimate,
        // and the sample does not let the cut rise or exclusion be claimed.
        new_sample(&results, &mut file, 30, DEFAULT_TARGET);
        let sample = file.sample.clone();
        let labels = labelled(&truth, |id| {
            top.iter().any(|t| t == id) || sample.iter().any(|s| s == id)
        });
        let a = assess(&results, &labels, &file);
        assert_eq!(a.sample_labelled, 30);
        assert_eq!(a.browsing_labelled, labels.len() - 30);
        assert!(
            a.proposed.is_none_or(|p| p.maybe <= Cutoffs::DEFAULT.maybe),
            "{:?}",
            a.proposed
        );
        assert!(!a.support.supported, "{:?}", a.estimate);
        // What would: more labels, and most of them below the cut.
        assert!(a.support.beyond_reach || !a.support.more.is_empty());
        let shown = crate::review::report::validation::support_line(&a);
        assert!(
            shown.starts_with("Automatic exclusion: not supported"),
            "{shown}"
        );
        // Whatever the sample fits, it only lowers the cut (keeps more).
        if let Ok(applied) = apply(&results, &labels, &mut file, &inputs_for("Q")) {
            assert!(applied.cutoffs.maybe <= Cutoffs::DEFAULT.maybe);
        }
    }

    #[test]
    fn a_sample_too_small_for_the_claim_says_how_many_more_and_where_and_draws_them() {
        // 1,000 papers, relevant exactly from 7.0 up; a sample of 30 finds
        // no relevant paper below the cut, but 30 labels cannot show the
        // hundreds below it hold none.
        let truth: Vec<(String, f64, bool)> = (0..1000)
            .map(|i| {
                let score = (i % 100) as f64 / 10.0;
                (format!("p{i:04}"), score, score >= 7.0)
            })
            .collect();
        let scores: Vec<(String, f64)> = truth.iter().map(|t| (t.0.clone(), t.1)).collect();
        let results = results_of(&scores);
        let mut file = ValidationFile::default();
        new_sample(&results, &mut file, 30, DEFAULT_TARGET);
        let sample = file.sample.clone();
        let labels = labelled(&truth, |id| sample.iter().any(|s| s == id));
        let a = assess(&results, &labels, &file);
        assert_eq!(a.estimate.unwrap().recall.unwrap().value, 1.0);
        assert!(
            !a.support.supported && !a.support.beyond_reach,
            "{:?}",
            a.support
        );
        let asked: usize = a.support.more.iter().map(|m| m.count).sum();
        // Most of them below the cut, where the unread papers are.
        let below: usize = a
            .support
            .more
            .iter()
            .filter(|m| m.to <= 4.0)
            .map(|m| m.count)
            .sum();
        assert!(below * 2 > asked, "{:?}", a.support.more);
        let added = extend_sample(&results, &labels, &mut file).unwrap();
        assert_eq!((added, file.sample.len()), (asked, 30 + asked));
        // Labelled as asked (and, as the truth has it, none relevant below),
        // the bound reaches the target.
        let sample = file.sample.clone();
        let labels = labelled(&truth, |id| sample.iter().any(|s| s == id));
        let a = assess(&results, &labels, &file);
        let bound = a.estimate.unwrap().lower_bound;
        assert!(bound >= 0.94, "{bound} after {asked} more");
    }

    #[test]
    fn a_raised_cut_is_checked_on_the_half_it_was_not_fitted_on_and_its_fit_labels_then_count_for_nothing()
     {
        // Relevant exactly from 7.0 up, nothing scored 5.0-6.9: a clean
        // review where a raised cut is right. A census sample: every band
        // labelled in full.
        let truth: Vec<(String, f64, bool)> = (0..200)
            .map(|i| {
                let score = if i % 2 == 0 {
                    (i % 50) as f64 / 10.0
                } else {
                    7.0 + (i % 30) as f64 / 10.0
                };
                (format!("p{i:03}"), score, score >= 7.0)
            })
            .collect();
        let scores: Vec<(String, f64)> = truth.iter().map(|t| (t.0.clone(), t.1)).collect();
        let results = results_of(&scores);
        let mut file = ValidationFile::default();
        new_sample(&results, &mut file, 200, DEFAULT_TARGET);
        let labels = labelled(&truth, |_| true);
        let a = assess(&results, &labels, &file);
        let proposed = a.proposed.unwrap();
        assert!(proposed.maybe > Cutoffs::DEFAULT.maybe, "{a:?}");
        assert!(a.raise_refused.is_none());
        let applied = apply(&results, &labels, &mut file, &inputs_for("Q")).unwrap();
        assert_eq!(applied.cutoffs, proposed);
        assert_eq!(applied.labelled, applied.fitted_on.len());
        let after = assess(&results, &labels, &file);
        assert_eq!(after.fitted_labels, applied.fitted_on.len());
        let e = after.estimate.unwrap();
        assert_eq!(e.labels, 200 - applied.fitted_on.len());
        assert_eq!(after.confusion.total(), e.labels);
        // Held out and read in full, the truth is known: nothing lost.
        assert_eq!(e.recall.unwrap().value, 1.0);
    }

    /// A labelled paper for the metric tests.
    pub(crate) fn judged_paper(score: f64, relevant: bool) -> Judged {
        Judged {
            id: format!("{score}-{relevant}"),
            score,
            relevant,
            by_criterion: false,
        }
    }
}
