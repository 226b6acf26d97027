//! Criteria that can exclude: a paper on the question that fails a
//! criterion is excluded by it, whatever its relevance score, naming the
//! criterion and quoting the passage that fails it; cut-offs never bring it
//! back, and the report's PRISMA flow gives the criterion as the reason.

use quire::agent::EventLog;
use quire::review::validation::{AppliedCutoffs, Cutoffs, ValidationFile};
use quire::review::verdicts::result_of;
use quire::review::{CriterionOutcome, ReviewStatus, Verdict};
use quire::workspace::Workspace;
use testkit::ServerOptions;

use super::agent_review::Rig;
use super::support::dev_pdfs;

#[tokio::test]
async fn on_topic_papers_that_fail_a_criterion_are_excluded_by_it_with_the_passage() {
    // Four papers on the question; one of them (ZooKeeper's broadcast
    // protocol) studies leader election, which the criterion rules out.
    let pdfs = dev_pdfs("distributed-systems", 4);
    let mut rig = Rig::new(&pdfs, ServerOptions::default()).await;
    let criterion = "Does not study leader election";
    rig.criteria = vec![criterion.to_owned()];
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    let ws = Workspace::open(&rig.workspace()).unwrap();
    let papers = ws.papers().unwrap();
    let mut by_criterion = Vec::new();
    for paper in &papers {
        let result = result_of(&ws, &paper.id)
            .unwrap()
            .expect("every paper is read");
        let Some(by) = &result.excluded_by else {
            continue;
        };
        assert_eq!(by, criterion);
        assert_eq!(result.verdict, Verdict::Exclude);
        let failed = result.criteria.iter().find(|c| &c.criterion == by).unwrap();
        assert_eq!(failed.outcome, CriterionOutcome::NotMet);
        // The passage is on the page it cites (an independent check: the
        // page's text, whitespace aside, holds the quote's words).
        let quote = failed.evidence.as_ref().expect("the passage that fails it");
        let pages = quire::review::paper_text::load(&ws, &paper.id)
            .unwrap()
            .unwrap();
        let squash = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            squash(&pages[quote.page - 1]).contains(&squash(&quote.text)),
            "{quote:?}"
        );
        assert!(quote.text.to_lowercase().contains("leader"), "{quote:?}");
        // Coherent as it stands: not asked again to break the protocol.
        assert!(
            result.provenance.reasked.is_none(),
            "{:?}",
            result.provenance.reasked
        );
        by_criterion.push((paper.id.clone(), result.score));
    }
    assert_eq!(
        by_criterion.len(),
        1,
        "only the paper that studies leader election"
    );
    let (excluded, score) = by_criterion[0].clone();
    assert!(score >= Cutoffs::DEFAULT.maybe, "on the question: {score}");

    // Cut-offs that keep every score keep it excluded.
    let mut file = ValidationFile::load(&ws).unwrap();
    file.applied = Some(AppliedCutoffs {
        cutoffs: Cutoffs {
            include: 0.0,
            maybe: 0.0,
        },
        target: 0.95,
        labelled: 0,
        relevant: 0,
        at: "2026-12-03T12:00:00Z".into(),
        fitted_on: Vec::new(),
        inputs: None,
    });
    let mut results = std::collections::BTreeMap::new();
    results.insert(
        excluded.clone(),
        result_of(&ws, &excluded).unwrap().unwrap(),
    );
    file.show_verdicts(&mut results);
    assert_eq!(results[&excluded].verdict, Verdict::Exclude);

    // PRISMA's "excluded, with reasons" names the criterion.
    let report = std::fs::read_to_string(rig.workspace().join("report.md")).unwrap();
    assert!(report.contains(&format!("| {criterion} | 1 |")), "{report}");
}
