//! One owner of the verdict a paper shows. A paper's engine result (its
//! `result.json`, which keeps the engine's own verdict) is shown by the
//! cut-offs the researcher applied, then, in a dual-read review, reconciled
//! with its second (and tie-breaking) reading under the chosen policy; the
//! researcher's label stands above all of it. The app's rows and detail pane,
//! Ask's and the table's "papers the review keeps", the synthesis, the report,
//! PRISMA and the exports all ask here, so none of them puts the verdict
//! together by hand.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::dual::{self, Agreement, DualFile};
use super::inputs::InputsFile;
use super::labels;
use super::validation::ValidationFile;
use super::{PaperResult, ReviewError, Verdict};
use crate::workspace::{PaperFile, PaperId, PaperRecord, Workspace};

/// A paper's result; `None` when it has none yet. A torn or foreign file
/// counts as none (the next run writes it again), never as an error.
pub fn result_of(ws: &Workspace, id: &PaperId) -> Result<Option<PaperResult>, ReviewError> {
    read_result(ws, id)
}

/// A result's score and verdict only (and what it was made under): what a
/// list of many papers needs, without decoding summaries and quotes.
#[derive(Clone, Debug, Deserialize)]
pub struct ResultHead {
    pub score: f64,
    pub verdict: Verdict,
    #[serde(default, rename = "excludedBy")]
    pub excluded_by: Option<String>,
    #[serde(default)]
    pub provenance: Made,
}

/// What a reading was made under: its inputs' fingerprint and its model.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Made {
    #[serde(default)]
    pub inputs: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
}

pub fn result_head_of(ws: &Workspace, id: &PaperId) -> Result<Option<ResultHead>, ReviewError> {
    read_result(ws, id)
}

fn read_result<T: DeserializeOwned>(
    ws: &Workspace,
    id: &PaperId,
) -> Result<Option<T>, ReviewError> {
    Ok(ws.read_paper_file(id, PaperFile::Result)?)
}

/// The score and verdict the review shows for a paper: the researcher's
/// label, field by field, over the reading's.
pub fn with_label(
    label: Option<&labels::Label>,
    reading: Option<&ResultHead>,
) -> (Option<f64>, Option<Verdict>) {
    (
        label.and_then(|l| l.score).or(reading.map(|r| r.score)),
        label.and_then(|l| l.verdict).or(reading.map(|r| r.verdict)),
    )
}

/// What every verdict of a review is shown by: its applied cut-offs, its
/// dual-reading policy and its current inputs (a stale reading is never
/// shown as a verdict), read once for many papers.
pub struct Verdicts {
    pub validation: ValidationFile,
    pub dual: Option<DualFile>,
    pub inputs: InputsFile,
    /// The researcher's labels that count now.
    pub labels: labels::Current,
}

impl Verdicts {
    pub fn load(ws: &Workspace) -> Result<Self, ReviewError> {
        let inputs = InputsFile::load(ws)?;
        let mut validation = ValidationFile::load(ws)?;
        validation.follow(&inputs);
        Ok(Self {
            validation,
            dual: DualFile::load(ws)?,
            inputs,
            labels: labels::Current::of(ws)?,
        })
    }

    /// Why a paper's first reading is stale (made under earlier inputs, or
    /// by another model); `None` when it is current.
    pub fn stale<T: HasVerdict>(&self, first: &T) -> Option<String> {
        let expected = self
            .inputs
            .current
            .as_ref()
            .and_then(|c| c.model.as_deref());
        self.stale_by(first, expected)
    }

    fn stale_by<T: HasVerdict>(&self, reading: &T, model: Option<&str>) -> Option<String> {
        let made = reading.made();
        self.inputs
            .staleness(made.inputs.as_deref(), made.model.as_deref(), model)
    }

    /// Take the stale results out of `results` (they count nowhere as
    /// current), and find the stale readings of the other readable papers
    /// of `papers` (a run hands over only what it made). Returns each stale
    /// paper with why.
    pub fn take_stale(
        &self,
        ws: &Workspace,
        papers: &[PaperRecord],
        results: &mut BTreeMap<PaperId, PaperResult>,
    ) -> Result<BTreeMap<PaperId, String>, ReviewError> {
        let mut stale: BTreeMap<PaperId, String> = results
            .iter()
            .filter_map(|(id, r)| self.stale(r).map(|why| (id.clone(), why)))
            .collect();
        results.retain(|id, _| !stale.contains_key(id));
        for paper in papers {
            if !paper.status.is_readable() || results.contains_key(&paper.id) {
                continue;
            }
            let why = result_head_of(ws, &paper.id)?.and_then(|head| self.stale(&head));
            if let Some(why) = why {
                stale.insert(paper.id.clone(), why);
            }
        }
        Ok(stale)
    }

    /// A paper's first reading as the review shows it (by the applied
    /// cut-offs, reconciled under dual reading), and its readings side by
    /// side when it was read twice.
    pub fn shown<T>(
        &self,
        ws: &Workspace,
        id: &PaperId,
        first: Option<T>,
    ) -> Result<(Option<T>, Option<PaperReadings<T>>), ReviewError>
    where
        T: DeserializeOwned + Clone + HasVerdict,
    {
        let Some(mut first) = first.filter(|f| self.stale(f).is_none()) else {
            return Ok((None, None));
        };
        first.show_by(&self.validation);
        match &self.dual {
            Some(dual) => {
                let readings = reconcile_paper(ws, id, self, dual, first)?;
                Ok((Some(readings.shown.clone()), Some(readings)))
            }
            None => Ok((Some(first), None)),
        }
    }

    /// The verdict the review shows for a paper: the researcher's label,
    /// else its shown reading's; `None` when it has neither.
    pub fn of_paper(&self, ws: &Workspace, id: &PaperId) -> Result<Option<Verdict>, ReviewError> {
        let label = self.labels.load(ws, id)?;
        if let Some(verdict) = label.as_ref().and_then(|l| l.verdict) {
            return Ok(Some(verdict));
        }
        let (shown, _) = self.shown::<ResultHead>(ws, id, result_head_of(ws, id)?)?;
        Ok(with_label(label.as_ref(), shown.as_ref()).1)
    }

    /// Every result set to the reading the review shows (engine verdicts by
    /// the applied cut-offs, reconciled under dual reading); with dual
    /// reading, the file and how far the readers agreed.
    pub fn show_all(
        &self,
        ws: &Workspace,
        results: &mut BTreeMap<PaperId, PaperResult>,
    ) -> Result<Option<(DualFile, Agreement)>, ReviewError> {
        self.validation.show_verdicts(results);
        let Some(file) = &self.dual else {
            return Ok(None);
        };
        let (mut seconds, mut thirds) = dual::load_readings(ws, results.keys().cloned())?;
        seconds.retain(|_, r| self.stale_by(r, file.second_model.as_deref()).is_none());
        thirds.retain(|_, r| self.stale_by(r, None).is_none());
        self.validation.show_verdicts(&mut seconds);
        self.validation.show_verdicts(&mut thirds);
        let agreement = dual::reconcile(file.policy, results, &seconds, &thirds);
        Ok(Some((file.clone(), agreement)))
    }
}

/// A paper's readings under a dual-read review, each verdict set by the
/// cut-offs in force, and which one stands.
#[derive(Clone, Debug)]
pub struct PaperReadings<T> {
    /// The reading that stands, with the reconciled verdict.
    pub shown: T,
    pub first: T,
    pub second: Option<T>,
    pub third: Option<T>,
    pub disagreed: bool,
}

/// Reconcile one paper's readings (a full result, or its head) under the
/// dual file's policy; a stale later reading counts as none.
fn reconcile_paper<T>(
    ws: &Workspace,
    id: &PaperId,
    verdicts: &Verdicts,
    dual: &DualFile,
    first: T,
) -> Result<PaperReadings<T>, ReviewError>
where
    T: serde::de::DeserializeOwned + Clone + HasVerdict,
{
    let read = |file: PaperFile, model: Option<&str>| -> Result<Option<T>, ReviewError> {
        Ok(ws
            .read_paper_file::<T>(id, file)?
            .filter(|r| verdicts.stale_by(r, model).is_none())
            .map(|mut r| {
                r.show_by(&verdicts.validation);
                r
            }))
    };
    let second = read(PaperFile::SecondResult, dual.second_model.as_deref())?;
    let third = read(PaperFile::TiebreakResult, None)?;
    let policy = dual.policy;
    let decided = dual::consensus(
        policy,
        first.verdict(),
        second.as_ref().map(HasVerdict::verdict),
        third.as_ref().map(HasVerdict::verdict),
    );
    let mut shown = match decided.shown {
        dual::Slot::Second => second.clone(),
        dual::Slot::Tiebreak => third.clone(),
        dual::Slot::First => None,
    }
    .unwrap_or_else(|| first.clone());
    shown.set_verdict(decided.verdict);
    Ok(PaperReadings {
        shown,
        first,
        second,
        third,
        disagreed: decided.disagreed,
    })
}

/// A reading's score and verdict, whole or in head only.
pub trait HasVerdict {
    fn score(&self) -> f64;
    fn made(&self) -> Made;
    fn verdict_mut(&mut self) -> &mut Verdict;

    fn verdict(&self) -> Verdict;

    /// The criterion the reading excluded the paper by, if it did.
    fn excluded_by(&self) -> Option<&str>;

    fn set_verdict(&mut self, verdict: Verdict) {
        *self.verdict_mut() = verdict;
    }

    /// The verdict by the cut-offs in force.
    fn show_by(&mut self, validation: &ValidationFile) {
        let shown =
            validation.shown_verdict(self.score(), self.verdict(), self.excluded_by().is_some());
        self.set_verdict(shown);
    }
}

impl HasVerdict for PaperResult {
    fn score(&self) -> f64 {
        self.score
    }
    fn made(&self) -> Made {
        Made {
            inputs: self.provenance.inputs.clone(),
            model: self.provenance.model.clone(),
        }
    }
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn excluded_by(&self) -> Option<&str> {
        self.excluded_by.as_deref()
    }
    fn verdict_mut(&mut self) -> &mut Verdict {
        &mut self.verdict
    }
}

impl HasVerdict for ResultHead {
    fn score(&self) -> f64 {
        self.score
    }
    fn made(&self) -> Made {
        self.provenance.clone()
    }
    fn verdict(&self) -> Verdict {
        self.verdict
    }
    fn excluded_by(&self) -> Option<&str> {
        self.excluded_by.as_deref()
    }
    fn verdict_mut(&mut self) -> &mut Verdict {
        &mut self.verdict
    }
}
