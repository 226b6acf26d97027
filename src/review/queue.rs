//! The screening queue: a review's readable papers (a search record's title
//! and abstract; a PDF's title and abstract, else its first page) ordered by
//! the ranking that learns from the researcher's labels
//! ([`crate::screening`]), the most likely to be kept first, again after
//! every label. A label of include or maybe keeps a paper for full text and
//! counts as relevant to the learner; exclude counts as irrelevant. The
//! ranking and the labels it learned from are kept in `screening.json`
//! (Quire's): the same labels give the same order. It is the researcher's
//! ranking, apart from any engine's verdict, and no engine reads it.
//!
//! Beside the order stands the stopping criterion
//! ([`crate::screening::stopping`]): how sure it is that the target share
//! of the relevant papers has been found, from the labels given to papers
//! the queue served. Its samples must be the ranking's own picks, not the
//! researcher's, or the test proves nothing: each serve names the one paper
//! at the top of the order with a fresh token ([`Served`]), and a label is a
//! sample only when it carries that token for that paper
//! ([`take_serve`]), once. A list of the next papers, a search or the
//! results table serves nothing; a label given there counts as found before
//! any sample.

use serde::{Deserialize, Serialize};

use super::labels::{self, Label};
use super::{ReviewError, Verdict, corrections, paper_text};
use crate::screening::Ranker;
use crate::screening::stopping::stopping;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperRecord, Workspace, WsPath, layout};

/// What orders the queue, in words for the Methods section and the app.
pub const RANKER: &str = "TF-IDF of words and word pairs, a linear SVM (squared hinge loss) trained again on every label, the review question counted as one more include";

/// The stopping criterion's recall target and confidence: Callaghan and
/// Müller-Hansen's example, and what most screening studies report (WSS@95).
pub const TARGET_RECALL: f64 = 0.95;
pub const CONFIDENCE: f64 = 0.95;

/// The stopping criterion, named for the Methods section and the app.
pub const STOPPING_RULE: &str = "the statistical stopping criterion of Callaghan and Müller-Hansen (2020, doi:10.1186/s13643-020-01521-4)";

/// How much of a PDF's first page stands in for a missing abstract.
const FIRST_PAGE_CHARS: usize = 3000;

/// What the order rests on, as it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Basis {
    /// No question and no label: the records' own order.
    RecordOrder,
    /// Likeness to the question and the papers kept so far: no exclude yet
    /// (or neither a keep nor a question) to learn a boundary from.
    Likeness,
    /// A classifier trained on the labels (and the question).
    Learned,
}

/// One paper as the queue serves it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct QueueItem {
    pub paper: String,
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub year: Option<u16>,
    pub venue: Option<String>,
    #[serde(rename = "abstract")]
    pub abstract_text: Option<String>,
    /// "RIS record", "PDF", …
    pub kind: String,
    /// The ranking's score (higher: more likely kept); comparable within
    /// one order only.
    pub score: f64,
}

/// One point of the curve: papers screened so far and, of them, kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CurvePoint {
    pub screened: usize,
    pub kept: usize,
}

/// Where screening stands and what comes next.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ScreeningView {
    /// Readable papers in the queue, labelled or not.
    pub total: usize,
    /// Labelled by the researcher.
    pub screened: usize,
    /// Labelled include or maybe.
    pub kept: usize,
    pub excluded: usize,
    /// The next papers to screen, best first.
    pub next: Vec<QueueItem>,
    /// Kept against screened, in the order the labels were given.
    pub curve: Vec<CurvePoint>,
    pub basis: Basis,
    pub ranker: String,
    pub stopping: StoppingView,
    /// Papers not yet labelled that hold every word searched for (when
    /// asked): for labelling a paper the researcher already knows.
    pub found: Vec<QueueItem>,
    /// The token of this serve of `next[0]`: a label of that paper given
    /// with it is a sample for the stopping criterion. None when nothing is
    /// left, or when the serve could not be kept (a run holds the review).
    pub serve: Option<String>,
}

/// Whether screening may stop: the criterion's test of "fewer than
/// `target` of the relevant papers are found" on the labels given in the
/// queue's order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct StoppingView {
    pub target: f64,
    pub confidence: f64,
    /// Labels given to papers as the queue served them; the rest (picked
    /// by hand, or before the queue) count as found before any sample.
    pub in_order: usize,
    /// The chance of what was seen were the target missed; none before the
    /// first label given in the queue's order.
    pub p: Option<f64>,
    /// `p` is below `1 - confidence`: the target is shown met.
    pub met: bool,
    /// The greatest recall shown at `confidence` (1% steps from 99% down
    /// to 50%).
    pub recall_at_least: Option<f64>,
    /// Papers screened in order since the last one kept.
    pub since_last_kept: usize,
    pub rule: String,
}

/// `screening.json`: the order the labels gave, for anyone to check that
/// the same labels give it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RankingFile {
    pub ranker: String,
    pub at: String,
    /// The labels learned from: paper id and kept (true) or excluded.
    pub labels: Vec<(String, bool)>,
    pub basis: Basis,
    /// The papers not labelled, best first.
    pub order: Vec<String>,
    /// How many of `order`'s first papers the queue last served: a label
    /// given to one of them was given in the queue's order.
    #[serde(default)]
    pub served: usize,
    /// The stopping criterion as it stood then (none in files written
    /// before it was kept).
    #[serde(default)]
    pub stopping: Option<StoppingView>,
    /// The paper this serve put first, and its token, until a label takes
    /// it.
    #[serde(default)]
    pub serve: Option<Served>,
}

/// One serve of the queue: the paper at the top of its order, and the
/// token a label of it must carry to be a sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Served {
    pub paper: String,
    pub token: String,
}

impl StoppingView {
    /// Where stopping stands, in one line for the command line.
    pub fn summary(&self) -> String {
        let percent = |share: f64| format!("{:.0}%", share * 100.0);
        let Some(p) = self.p else {
            return "no label given in the queue's order yet, so no stopping rule applies"
                .to_owned();
        };
        let shown = self.recall_at_least.map_or_else(
            || "not even 50% shown found".to_owned(),
            |r| format!("at least {} shown found", percent(r)),
        );
        if self.met {
            format!(
                "you may stop: with {} confidence at least {} of the relevant papers are found (p = {p:.3}, {} labels in the queue's order)",
                percent(self.confidence),
                percent(self.target),
                self.in_order
            )
        } else {
            format!(
                "keep screening: {} recall is not shown yet (p = {p:.3}, needs < {:.2}; {shown}); {} screened since the last kept",
                percent(self.target),
                1.0 - self.confidence,
                self.since_last_kept
            )
        }
    }
}

/// A review's papers, their screening text's features and their ranker.
pub struct Queue {
    papers: Vec<PaperRecord>,
    ranker: Ranker,
    has_question: bool,
}

impl Queue {
    /// The queue of `ws`'s readable papers, under its question (if any).
    pub fn build(ws: &Workspace) -> Result<Self, ReviewError> {
        let question = ws.task()?.question.filter(|q| !q.trim().is_empty());
        // A PDF attached to a record is screened as that record; a paper set
        // aside as a duplicate is not screened at all.
        let mut papers: Vec<PaperRecord> = corrections::corrected(ws)?
            .into_iter()
            .filter(|p| p.status.is_readable() && p.is_screened_itself())
            .collect();
        // The order with nothing to go by is the export's (and a folder's
        // file names'), not the ids'.
        papers.sort_by(|a, b| {
            let place = |p: &PaperRecord| p.imported.as_ref().map_or(0, |i| i.position);
            a.file.cmp(&b.file).then(place(a).cmp(&place(b)))
        });
        let texts = papers
            .iter()
            .map(|p| screening_text(ws, p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            ranker: Ranker::new(&texts, question.as_deref()),
            papers,
            has_question: question.is_some(),
        })
    }

    pub fn len(&self) -> usize {
        self.papers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.papers.is_empty()
    }

    /// Each paper's label that counts now ([`labels::Current`]): one given
    /// under an earlier question neither trains the order nor samples for
    /// the stopping rule, and the paper is served again.
    pub fn labels(&self, ws: &Workspace) -> Result<Vec<Option<Label>>, ReviewError> {
        let current = labels::Current::of(ws)?;
        Ok(crate::blocking::on_every_core(&self.papers, |p| {
            current.load(ws, &p.id)
        })?)
    }

    /// Where screening stands under `given` (one per paper, as
    /// [`Queue::labels`] reads them), with the next `count` papers; and the
    /// ranking as `screening.json` keeps it. The order is computed once for
    /// both.
    pub fn view(&self, given: &[Option<Label>], count: usize) -> (ScreeningView, RankingFile) {
        let learned: Vec<Option<bool>> = given.iter().map(|l| kept(l.as_ref())).collect();
        let scores = self.ranker.scores(&learned);
        let mut order: Vec<usize> = (0..self.len()).filter(|&i| learned[i].is_none()).collect();
        // Best first, ties by the queue's order (as `Ranker::order`).
        order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        let screened = learned.iter().filter(|l| l.is_some()).count();
        let kept_now = learned.iter().filter(|l| **l == Some(true)).count();
        let basis = self.basis(&learned);
        let stopping = self.stopping(given);
        let view = ScreeningView {
            total: self.len(),
            screened,
            kept: kept_now,
            excluded: screened - kept_now,
            next: order
                .iter()
                .take(count)
                .map(|&i| item(&self.papers[i], f64::from(scores[i])))
                .collect(),
            curve: curve(given),
            basis,
            ranker: RANKER.to_owned(),
            stopping: stopping.clone(),
            found: Vec::new(),
            serve: None,
        };
        let serve = order.first().map(|&i| Served {
            paper: self.papers[i].id.0.clone(),
            token: uuid::Uuid::new_v4().simple().to_string(),
        });
        let view = ScreeningView {
            serve: serve.as_ref().map(|s| s.token.clone()),
            ..view
        };
        let ranking = RankingFile {
            ranker: RANKER.to_owned(),
            at: now_rfc3339(),
            labels: learned
                .iter()
                .zip(&self.papers)
                .filter_map(|(l, p)| l.map(|k| (p.id.0.clone(), k)))
                .collect(),
            basis,
            order: order.iter().map(|&i| self.papers[i].id.0.clone()).collect(),
            served: count,
            stopping: Some(stopping),
            serve,
        };
        (view, ranking)
    }

    /// Papers not labelled under `given` whose title or abstract holds
    /// every word of `query`, those with the most of them in the title
    /// first (then the queue's order), at most `count`. A label given to
    /// one is picked by hand: it teaches the ranking like any other, and
    /// counts as found before any sample for the stopping criterion.
    pub fn find(&self, given: &[Option<Label>], query: &str, count: usize) -> Vec<QueueItem> {
        let words: Vec<String> = query
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() {
            return Vec::new();
        }
        let mut hits: Vec<(usize, usize)> = self
            .papers
            .iter()
            .enumerate()
            .filter(|(i, _)| kept(given[*i].as_ref()).is_none())
            .filter_map(|(i, p)| {
                let title = p.title.as_deref().unwrap_or_default().to_lowercase();
                let abstract_text = p
                    .meta
                    .abstract_text
                    .as_deref()
                    .unwrap_or_default()
                    .to_lowercase();
                let all = words
                    .iter()
                    .all(|w| title.contains(w.as_str()) || abstract_text.contains(w.as_str()));
                all.then(|| {
                    (
                        i,
                        words.iter().filter(|w| title.contains(w.as_str())).count(),
                    )
                })
            })
            .collect();
        hits.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.into_iter()
            .take(count)
            .map(|(i, in_title)| item(&self.papers[i], in_title as f64))
            .collect()
    }

    /// The stopping criterion on `given`: labels given in the queue's
    /// order are the samples, in the order given; the others count as
    /// found before them.
    fn stopping(&self, given: &[Option<Label>]) -> StoppingView {
        let mut prior = Vec::new();
        let mut in_order: Vec<(&str, bool)> = Vec::new();
        for label in given.iter().flatten() {
            let Some(k) = kept(Some(label)) else { continue };
            if label.queued {
                in_order.push((label.at.as_str(), k));
            } else {
                prior.push(k);
            }
        }
        in_order.sort_by(|a, b| a.0.cmp(b.0));
        let ordered: Vec<bool> = in_order.iter().map(|(_, k)| *k).collect();
        let s = stopping(&prior, &ordered, self.len(), TARGET_RECALL, CONFIDENCE);
        StoppingView {
            target: TARGET_RECALL,
            confidence: CONFIDENCE,
            in_order: ordered.len(),
            p: s.p,
            met: s.p.is_some_and(|p| p < 1.0 - CONFIDENCE),
            recall_at_least: s.recall_at_least,
            since_last_kept: s.since_last_relevant,
            rule: STOPPING_RULE.to_owned(),
        }
    }

    fn basis(&self, learned: &[Option<bool>]) -> Basis {
        if self.ranker.learns(learned) {
            Basis::Learned
        } else if self.has_question || learned.contains(&Some(true)) {
            Basis::Likeness
        } else {
            Basis::RecordOrder
        }
    }
}

/// Save the ranking in `screening.json`.
pub fn save_ranking(ws: &Workspace, ranking: &RankingFile) -> Result<(), ReviewError> {
    ws.write_json(&WsPath::parse(layout::SCREENING_FILE)?, ranking)?;
    Ok(())
}

/// The ranking last saved, if any.
pub fn load_ranking(ws: &Workspace) -> Result<Option<RankingFile>, ReviewError> {
    Ok(ws.read_json_if_any(&WsPath::parse(layout::SCREENING_FILE)?)?)
}

/// Whether a label of `paper` given with `token` is one of the queue's
/// samples: the queue's last serve put `paper` first and gave `token`. The
/// serve is used up (a second label with it, after an undo, is none).
pub fn take_serve(ws: &Workspace, paper: &str, token: &str) -> Result<bool, ReviewError> {
    let Some(mut ranking) = load_ranking(ws)? else {
        return Ok(false);
    };
    let matches = ranking
        .serve
        .as_ref()
        .is_some_and(|s| s.paper == paper && s.token == token);
    if matches {
        ranking.serve = None;
        save_ranking(ws, &ranking)?;
    }
    Ok(matches)
}

/// What a label teaches: kept (include or maybe), excluded, or nothing (a
/// label with a score or note only).
fn kept(label: Option<&Label>) -> Option<bool> {
    label.and_then(|l| l.verdict).map(|v| v != Verdict::Exclude)
}

/// Kept against screened, by the time each label was given (ties by the
/// papers' order, which is stable).
fn curve(given: &[Option<Label>]) -> Vec<CurvePoint> {
    let mut decided: Vec<(&str, bool)> = given
        .iter()
        .flatten()
        .filter_map(|l| kept(Some(l)).map(|k| (l.at.as_str(), k)))
        .collect();
    decided.sort_by(|a, b| a.0.cmp(b.0));
    let mut kept_so_far = 0;
    decided
        .iter()
        .enumerate()
        .map(|(i, (_, k))| {
            kept_so_far += usize::from(*k);
            CurvePoint {
                screened: i + 1,
                kept: kept_so_far,
            }
        })
        .collect()
}

/// What screening reads of a paper: its title and abstract; a PDF with no
/// abstract found gives the start of its first page instead.
fn screening_text(ws: &Workspace, paper: &PaperRecord) -> Result<String, ReviewError> {
    let title = paper.title.clone().unwrap_or_default();
    if let Some(abstract_text) = &paper.meta.abstract_text {
        return Ok(format!("{title}\n{abstract_text}"));
    }
    if paper.is_record() {
        return Ok(title);
    }
    let first_page = paper_text::load(ws, &paper.id)?
        .and_then(|pages| pages.into_iter().next())
        .unwrap_or_default();
    let cut = first_page
        .char_indices()
        .nth(FIRST_PAGE_CHARS)
        .map_or(first_page.len(), |(i, _)| i);
    Ok(format!("{title}\n{}", &first_page[..cut]))
}

fn item(paper: &PaperRecord, score: f64) -> QueueItem {
    QueueItem {
        paper: paper.id.0.clone(),
        title: paper.title.clone(),
        authors: paper.meta.authors.iter().map(|a| a.display()).collect(),
        year: paper.meta.year,
        venue: paper.meta.venue.clone(),
        abstract_text: paper.meta.abstract_text.clone(),
        kind: match &paper.imported {
            Some(from) => format!("{} record", from.format),
            None => "PDF".to_owned(),
        },
        score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::imports::import_files;
    use crate::workspace::{TaskMeta, WorkspaceId};

    const RIS: &str = "TY  - JOUR
TI  - Methylphenidate for attention deficit hyperactivity disorder in children
AB  - A randomised trial of a stimulant drug.
ER  - 

TY  - JOUR
TI  - Stock market volatility and interest rates
AB  - Bond prices move with rates.
ER  - 

TY  - JOUR
TI  - Atomoxetine versus methylphenidate in attention deficit disorder
AB  - Two drugs compared in a trial.
ER  - 

TY  - JOUR
TI  - Interest rates and bond prices in emerging markets
AB  - Markets and rates.
ER  - 
";

    fn label(verdict: Verdict, at: &str) -> Option<Label> {
        Some(Label {
            verdict: Some(verdict),
            score: None,
            note: None,
            at: at.into(),
            question: None,
            queued: true,
        })
    }

    #[test]
    fn labels_reorder_the_queue_the_curve_follows_them_and_the_ranking_is_reproducible() {
        let dir = tempfile::tempdir().unwrap();
        let task = TaskMeta::new(WorkspaceId("t".into()), "t".into(), dir.path());
        let ws = Workspace::create(&dir.path().join("ws"), &task).unwrap();
        let ris = dir.path().join("s.ris");
        std::fs::write(&ris, RIS).unwrap();
        import_files(&ws, &[ris]).unwrap();
        let queue = Queue::build(&ws).unwrap();
        assert_eq!(queue.len(), 4);
        let title_of = |view: &ScreeningView| view.next[0].title.clone().unwrap();

        let none = vec![None; 4];
        let (view, _) = queue.view(&none, 10);
        assert_eq!(view.basis, Basis::RecordOrder);
        // A paper the researcher knows, found by its words (title first).
        let found = queue.find(&none, "methylphenidate ATTENTION", 10);
        let titles: Vec<&str> = found.iter().map(|f| f.title.as_deref().unwrap()).collect();
        assert_eq!(
            titles,
            [
                "Methylphenidate for attention deficit hyperactivity disorder in children",
                "Atomoxetine versus methylphenidate in attention deficit disorder"
            ]
        );
        assert!(queue.find(&none, "rates drug", 10).is_empty());
        assert!(queue.find(&none, " , ", 10).is_empty());
        assert_eq!((view.screened, view.next.len()), (0, 4));

        let mut given = none.clone();
        let adhd = queue
            .papers
            .iter()
            .position(|p| p.title.as_deref().unwrap().starts_with("Methylphenidate"))
            .unwrap();
        let stocks = queue
            .papers
            .iter()
            .position(|p| p.title.as_deref().unwrap().starts_with("Stock"))
            .unwrap();
        given[adhd] = label(Verdict::Maybe, "2026-12-04T10:00:01Z");
        // A labelled paper is not found again.
        assert_eq!(queue.find(&given, "methylphenidate", 10).len(), 1);
        let (view, _) = queue.view(&given, 10);
        assert_eq!(view.basis, Basis::Likeness);
        assert!(title_of(&view).starts_with("Atomoxetine"), "{view:?}");
        given[stocks] = label(Verdict::Exclude, "2026-12-04T10:00:00Z");
        let (view, _) = queue.view(&given, 10);
        assert_eq!(view.basis, Basis::Learned);
        assert!(title_of(&view).starts_with("Atomoxetine"), "{view:?}");
        assert_eq!(view.next.len(), 2);
        assert_eq!((view.screened, view.kept, view.excluded), (2, 1, 1));
        // Both labels were given in the queue's order: the stopping
        // criterion has its samples; a kept paper ended the run of excludes.
        assert_eq!(view.stopping.in_order, 2);
        assert_eq!(view.stopping.since_last_kept, 0);
        assert!(
            view.stopping.p.is_some() && !view.stopping.met,
            "{:?}",
            view.stopping
        );
        // The exclude was given first.
        assert_eq!(
            view.curve,
            [
                CurvePoint {
                    screened: 1,
                    kept: 0
                },
                CurvePoint {
                    screened: 2,
                    kept: 1
                }
            ]
        );
        let (_, ranking) = queue.view(&given, 10);
        save_ranking(&ws, &ranking).unwrap();
        let (_, again) = Queue::build(&ws).unwrap().view(&given, 0);
        assert_eq!(load_ranking(&ws).unwrap().unwrap().order, again.order);
        assert_eq!(again.labels.len(), 2);
    }
}
