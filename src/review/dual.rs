//! Dual reading: every paper read twice, independently, and the two readings
//! reconciled by the policy the researcher chose. The first reading stays in
//! `result.json`, the second in `result.b.json`, a tie-breaking third in
//! `result.c.json`, each with its provenance; `dual.json` says which policy
//! the review runs under. What the report, exports and app show is the
//! reconciled verdict; how far the readers agreed (Cohen's kappa, maybe
//! counting as include) is reported beside it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::validation::Confusion;
use super::{PaperResult, Verdict};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperFile, PaperId, Workspace, WorkspaceError, WsPath, layout};

/// How two readings that disagree are reconciled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "DualPolicy"))]
pub enum Policy {
    /// A paper is excluded only when both readings exclude it.
    AgreeToExclude,
    /// A third reading decides when the two disagree: the majority stands.
    TieBreaker,
    /// A disagreement is shown as maybe and left to the researcher.
    Flag,
}

impl Policy {
    pub const ALL: [Self; 3] = [Self::AgreeToExclude, Self::TieBreaker, Self::Flag];

    pub fn name(self) -> &'static str {
        match self {
            Self::AgreeToExclude => "agree-to-exclude",
            Self::TieBreaker => "tie-breaker",
            Self::Flag => "flag",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The policy in words, as the report and Methods state it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::AgreeToExclude => "a paper was excluded only when both readings excluded it",
            Self::TieBreaker => {
                "a third independent reading decided where the two disagreed, by majority"
            }
            Self::Flag => "disagreements were marked maybe and left to the researcher",
        }
    }
}

/// Which reading of a paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    First,
    Second,
    Tiebreak,
}

impl Slot {
    /// The file this reading is kept in.
    pub fn file(self) -> PaperFile {
        match self {
            Self::First => PaperFile::Result,
            Self::Second => PaperFile::SecondResult,
            Self::Tiebreak => PaperFile::TiebreakResult,
        }
    }

    /// What the reader is told besides its own instructions: the second and
    /// third readers come at the paper another way, so their readings are
    /// independent of the first's wording, not copies of it.
    pub fn instructions(self) -> &'static str {
        match self {
            Self::First => "",
            Self::Second => {
                "\n\nYou are the second of two independent screeners. Judge the paper from what it did and found (its methods, experiments and results) before its abstract's claims, and score it on your own reading."
            }
            Self::Tiebreak => {
                "\n\nTwo independent screeners disagreed about this paper. You are a third, independent screener: read the whole paper and judge it on its own evidence."
            }
        }
    }

    /// How a reading's provenance names who read it.
    pub fn covered_by(self) -> Option<&'static str> {
        match self {
            Self::First => None,
            Self::Second => Some("second reading"),
            Self::Tiebreak => Some("tie-breaking reading"),
        }
    }
}

/// `dual.json`: the policy a review's papers are read twice under.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DualFile {
    pub policy: Policy,
    /// The second reading's model.
    #[serde(default)]
    pub second_model: Option<String>,
    /// The second reading's profile, when it is not the first's.
    #[serde(default)]
    pub second_profile: Option<String>,
    pub at: String,
}

fn file_path() -> Result<WsPath, WorkspaceError> {
    WsPath::parse(layout::DUAL_FILE)
}

impl DualFile {
    pub fn new(
        policy: Policy,
        second_model: Option<String>,
        second_profile: Option<String>,
    ) -> Self {
        Self {
            policy,
            second_model,
            second_profile,
            at: now_rfc3339(),
        }
    }

    /// The review's dual reading, if it has one.
    pub fn load(ws: &Workspace) -> Result<Option<Self>, WorkspaceError> {
        ws.read_json_if_any(&file_path()?)
    }

    pub fn save(&self, ws: &Workspace) -> Result<(), WorkspaceError> {
        ws.write_json(&file_path()?, self)
    }

    /// The review reads each paper once from now on.
    pub fn remove(ws: &Workspace) -> Result<(), WorkspaceError> {
        let path = file_path()?;
        match ws.entry(&path) {
            Ok(_) => ws.remove_file(&path),
            Err(WorkspaceError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Whether a verdict keeps the paper (maybe counts as include).
fn kept(verdict: Verdict) -> bool {
    verdict != Verdict::Exclude
}

/// Which reading's result stands for a paper, and with what verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Consensus {
    pub verdict: Verdict,
    /// The reading whose result is shown.
    pub shown: Slot,
    /// The readings disagreed (include or maybe against exclude).
    pub disagreed: bool,
}

/// Reconcile a paper's readings' verdicts under `policy`. Readings agree
/// when both keep the paper or both exclude it (the screening decision);
/// include against maybe is not a disagreement.
pub fn consensus(
    policy: Policy,
    first: Verdict,
    second: Option<Verdict>,
    third: Option<Verdict>,
) -> Consensus {
    let agreed = Consensus {
        verdict: first,
        shown: Slot::First,
        disagreed: false,
    };
    let Some(second) = second else {
        return agreed;
    };
    if kept(first) == kept(second) {
        return agreed;
    }
    // The reading that keeps the paper.
    let keeper = if kept(first) {
        (Slot::First, first)
    } else {
        (Slot::Second, second)
    };
    let (verdict, shown) = match policy {
        Policy::AgreeToExclude => (keeper.1, keeper.0),
        Policy::Flag => (Verdict::Maybe, keeper.0),
        Policy::TieBreaker => match third {
            // The third sides with one of the two: two of three decide.
            Some(third) if kept(third) => (keeper.1, keeper.0),
            Some(third) => (third, Slot::Tiebreak),
            // No third reading yet (it failed, or the run stopped): kept as
            // maybe until one decides.
            None => (Verdict::Maybe, keeper.0),
        },
    };
    Consensus {
        verdict,
        shown,
        disagreed: true,
    }
}

/// How the two readings compared across a review.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Agreement {
    /// Papers read twice.
    pub pairs: usize,
    /// Both kept or both excluded.
    pub agreed: usize,
    /// Cohen's kappa between the two readings (maybe counts as include);
    /// `None` when it is not defined, and `kappa_undefined` says why.
    pub kappa: Option<f64>,
    pub kappa_undefined: Option<String>,
    /// Papers whose readings disagreed, by id.
    pub disagreements: Vec<String>,
    /// Disagreements a third reading decided.
    pub tie_broken: usize,
}

/// The shown results of a dual-read review: each paper's result replaced by
/// the reading that stands, with the reconciled verdict; and how the
/// readings compared. Papers without a second reading keep their first.
pub fn reconcile(
    policy: Policy,
    results: &mut ByPaper,
    seconds: &ByPaper,
    thirds: &ByPaper,
) -> Agreement {
    let mut agreement = Agreement::default();
    let mut pairs = Confusion::default();
    for (id, first) in results.iter_mut() {
        let Some(second) = seconds.get(id) else {
            continue;
        };
        let third = thirds.get(id);
        let decided = consensus(
            policy,
            first.verdict,
            Some(second.verdict),
            third.map(|t| t.verdict),
        );
        agreement.pairs += 1;
        // Reader A as the reference, B as the rater: the matrix is
        // symmetric in what kappa makes of it.
        match (kept(first.verdict), kept(second.verdict)) {
            (true, true) => pairs.true_positive += 1,
            (true, false) => pairs.false_negative += 1,
            (false, true) => pairs.false_positive += 1,
            (false, false) => pairs.true_negative += 1,
        }
        if decided.disagreed {
            agreement.disagreements.push(id.0.clone());
            if third.is_some() && policy == Policy::TieBreaker {
                agreement.tie_broken += 1;
            }
        } else {
            agreement.agreed += 1;
        }
        let mut shown = match decided.shown {
            Slot::First => first.clone(),
            Slot::Second => second.clone(),
            Slot::Tiebreak => third.cloned().unwrap_or_else(|| first.clone()),
        };
        shown.verdict = decided.verdict;
        *first = shown;
    }
    agreement.kappa = pairs.kappa();
    agreement.kappa_undefined = pairs
        .kappa_undefined()
        .map(|k| k.describe("the first reading", "the second reading"));
    agreement
}

/// Readings by paper.
pub type ByPaper = BTreeMap<PaperId, PaperResult>;

/// The second and third readings on file, by paper.
pub fn load_readings(
    ws: &Workspace,
    ids: impl Iterator<Item = PaperId>,
) -> Result<(ByPaper, ByPaper), WorkspaceError> {
    let (mut seconds, mut thirds) = (ByPaper::new(), ByPaper::new());
    for id in ids {
        if let Some(r) = ws.read_paper_file::<PaperResult>(&id, PaperFile::SecondResult)? {
            seconds.insert(id.clone(), r);
        }
        if let Some(r) = ws.read_paper_file::<PaperResult>(&id, PaperFile::TiebreakResult)? {
            thirds.insert(id, r);
        }
    }
    Ok((seconds, thirds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::report::tests::result;

    fn read(verdict: Verdict, score: f64) -> PaperResult {
        let mut r = result(score, "a quote");
        r.verdict = verdict;
        r
    }

    use Verdict::{Exclude, Include, Maybe};

    #[test]
    fn agreeing_readings_stand_under_every_policy() {
        for policy in Policy::ALL {
            let c = consensus(policy, Include, Some(Maybe), None);
            assert_eq!(
                (c.verdict, c.shown, c.disagreed),
                (Include, Slot::First, false)
            );
            let c = consensus(policy, Exclude, Some(Exclude), None);
            assert_eq!((c.verdict, c.disagreed), (Exclude, false));
        }
    }

    #[test]
    fn a_disagreement_is_settled_by_the_policy() {
        let agree = consensus(Policy::AgreeToExclude, Exclude, Some(Include), None);
        assert_eq!((agree.verdict, agree.shown), (Include, Slot::Second));
        assert!(agree.disagreed);
        let flag = consensus(Policy::Flag, Include, Some(Exclude), None);
        assert_eq!((flag.verdict, flag.shown), (Maybe, Slot::First));
        // The third reading's side wins; until it is there, maybe.
        let tie = consensus(Policy::TieBreaker, Include, Some(Exclude), Some(Exclude));
        assert_eq!((tie.verdict, tie.shown), (Exclude, Slot::Tiebreak));
        let tie = consensus(Policy::TieBreaker, Include, Some(Exclude), Some(Maybe));
        assert_eq!((tie.verdict, tie.shown), (Include, Slot::First));
        let pending = consensus(Policy::TieBreaker, Include, Some(Exclude), None);
        assert_eq!(pending.verdict, Maybe);
    }

    #[test]
    fn reconciling_counts_agreement_and_kappa_and_shows_the_standing_reading() {
        let id = |s: &str| PaperId(s.to_owned());
        let mut results = BTreeMap::from([
            (id("a"), read(Include, 8.0)),
            (id("b"), read(Verdict::Exclude, 1.0)),
            (id("c"), read(Verdict::Exclude, 2.0)),
            (id("d"), read(Verdict::Include, 7.0)),
            (id("e"), read(Verdict::Maybe, 5.0)),
        ]);
        let seconds = BTreeMap::from([
            (id("a"), read(Verdict::Include, 9.0)),
            (id("b"), read(Verdict::Exclude, 0.0)),
            (id("c"), read(Verdict::Maybe, 4.5)),
            (id("d"), read(Verdict::Include, 8.0)),
        ]);
        let agreement = reconcile(
            Policy::AgreeToExclude,
            &mut results,
            &seconds,
            &BTreeMap::new(),
        );
        assert_eq!(agreement.pairs, 4);
        assert_eq!(agreement.agreed, 3);
        assert_eq!(agreement.disagreements, ["c"]);
        // Observed 3/4; A keeps 2/4, B keeps 3/4: chance 0.5, kappa 0.5.
        assert!((agreement.kappa.unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(results[&id("c")].verdict, Verdict::Maybe);
        assert_eq!(results[&id("c")].score, 4.5, "the keeping reading is shown");
        assert_eq!(
            results[&id("e")].score,
            5.0,
            "no second reading: the first stands"
        );
    }
}
