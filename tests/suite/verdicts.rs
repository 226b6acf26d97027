//! The verdict a paper shows is put together in one place: the researcher's
//! label over the engine's reading, and everything that picks "included"
//! papers (the synthesis, Ask's and the table's "papers the review keeps")
//! follows it rather than the engine's own verdict.

use quire::agent::EventLog;
use quire::review::labels::{self, Label};
use quire::review::verdicts::{Verdicts, result_of};
use quire::review::{ReviewStatus, Verdict};
use quire::workspace::Workspace;
use testkit::ServerOptions;

use super::agent_review::Rig;
use super::support::dev_pdfs;

#[tokio::test]
async fn a_label_decides_the_verdict_shown_and_what_the_synthesis_includes() {
    let mut pdfs = dev_pdfs("distributed-systems", 2);
    pdfs.extend(dev_pdfs("machine-learning", 2));
    let rig = Rig::new(&pdfs, ServerOptions::default()).await;
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    let ws = Workspace::open(&rig.workspace()).unwrap();
    let papers = ws.papers().unwrap();
    let engine = |id| result_of(&ws, id).unwrap().map(|r| r.verdict);
    let included = || -> Vec<String> {
        quire::review::engine::agent::synthesis::included(&ws, &papers)
            .into_iter()
            .map(|(p, _)| p.id.0)
            .collect()
    };
    let kept = papers
        .iter()
        .find(|p| engine(&p.id) == Some(Verdict::Include))
        .expect("the engine includes a paper on the question");
    let dropped = papers
        .iter()
        .find(|p| engine(&p.id) == Some(Verdict::Exclude))
        .expect("the engine excludes an off-topic paper");
    assert!(included().contains(&kept.id.0));
    assert!(!included().contains(&dropped.id.0));

    // The researcher disagrees with both.
    for (paper, verdict) in [(kept, Verdict::Exclude), (dropped, Verdict::Include)] {
        let label = Label {
            verdict: Some(verdict),
            score: None,
            note: None,
            at: "2026-12-03T12:00:00Z".into(),
            question: None,
            queued: false,
        };
        labels::save(&ws, &paper.id, &label).unwrap();
    }
    let verdicts = Verdicts::load(&ws).unwrap();
    assert_eq!(
        verdicts.of_paper(&ws, &kept.id).unwrap(),
        Some(Verdict::Exclude)
    );
    assert_eq!(
        verdicts.of_paper(&ws, &dropped.id).unwrap(),
        Some(Verdict::Include)
    );
    assert!(!included().contains(&kept.id.0), "the label excludes it");
    assert!(included().contains(&dropped.id.0), "the label includes it");
    // The engine's own verdict stays in its result.
    assert_eq!(engine(&kept.id), Some(Verdict::Include));
}
