//! Agent reviews against a fallible reader, over real HTTP: the paths a real
//! model takes every day. A bad quote is dropped and counted, a noisy or
//! contradictory answer is asked again once with its reason, a malformed
//! answer is retried, a paper that stays bad ends with a reason on record,
//! and the flow of papers always adds up.

use std::collections::BTreeMap;

use quire::agent::EventLog;
use quire::review::ReviewStatus;
use quire::review::engine::agent::result_path;
use quire::review::failures;
use quire::review::reading::verify::quote_on_page;
use quire::review::{PaperResult, Verdict};
use quire::workspace::Workspace;
use testkit::{Mistake, Policy, ScriptedServer, ServerOptions, Step};

use super::agent_review::{Rig, results};
use super::support::{dev_pdfs, folder_of, quire_review, scripted_config};

fn papers() -> Vec<std::path::PathBuf> {
    let mut papers = dev_pdfs("distributed-systems", 4);
    papers.extend(dev_pdfs("databases", 3));
    papers
}

/// The text of every reading request's follow-up turns (re-asks, retries).
fn reader_turns(server: &ScriptedServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| {
            r.turns()
                .iter()
                .map(|t| t.text.clone())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .filter(|text| text.contains("=== page 1 ===") && text.starts_with("You read one paper"))
        .collect()
}

/// A result a reviewer could stand behind: every quote on its page, a score
/// on the scale that agrees with the verdict, a rationale in words.
fn assert_coherent(title: &str, result: &PaperResult, pages: &[String]) {
    for q in &result.evidence {
        assert!(
            quote_on_page(&q.text, q.page, pages),
            "{title}: {:?} is not on page {}",
            q.text,
            q.page
        );
    }
    assert!(
        (0.0..=10.0).contains(&result.score),
        "{title}: {}",
        result.score
    );
    let contradicts = match result.verdict {
        Verdict::Include => result.score < 4.0,
        Verdict::Exclude => result.score >= 6.5,
        Verdict::Maybe => false,
    };
    assert!(
        !contradicts,
        "{title}: {} with {}",
        result.verdict.as_str(),
        result.score
    );
    assert!(
        result.rationale.split_whitespace().count() >= 3,
        "{title}: rationale {:?}",
        result.rationale
    );
    if result.score >= 4.0 {
        assert!(
            !result.evidence.is_empty(),
            "{title}: a score with no quote"
        );
    }
}

#[tokio::test]
async fn a_fallible_readers_mistakes_are_caught_counted_and_never_reach_a_result() {
    let rig = Rig::new(
        &papers(),
        ServerOptions {
            policy: Policy::Fallible {
                seed: 11,
                rate: 0.6,
                only: &[],
            },
            ..ServerOptions::default()
        },
    )
    .await;
    let summary = rig.run(EventLog::new()).await;
    let mistakes = rig.server.mistakes();
    assert!(mistakes.len() >= 3, "the reader erred: {mistakes:?}");

    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let results = results(&ws);
    for (title, result, pages) in &results {
        assert_coherent(title, result, pages);
    }

    // Every readable paper is scored or has a failure with its reason, and
    // the flow adds up.
    let c = &summary.counts;
    assert_eq!(c.screened, papers().len());
    assert_eq!(
        c.screened,
        c.included + c.maybe + c.excluded + c.not_scored,
        "{c:?}"
    );
    assert_eq!(results.len() + c.not_scored, c.screened);
    let papers_on_record = ws.papers().unwrap();
    let scored: BTreeMap<_, PaperResult> = papers_on_record
        .iter()
        .filter_map(|p| {
            let result = ws.read_json(&result_path(&p.id).unwrap()).ok()?;
            Some((p.id.clone(), result))
        })
        .collect();
    assert_eq!(scored.len(), results.len());
    let failed = failures::of_unscored(&ws, &papers_on_record, &scored).unwrap();
    assert_eq!(failed.len(), c.not_scored, "{failed:?}");
    for line in summary.papers.iter().filter(|p| p.score.is_none()) {
        assert!(
            line.not_scored.as_deref().is_some_and(|r| !r.is_empty()),
            "{line:?}"
        );
    }
    let expected_status = if c.not_scored == 0 {
        ReviewStatus::Done
    } else {
        ReviewStatus::Incomplete
    };
    assert_eq!(summary.status, expected_status);

    // Quotes the reader spoiled were dropped, and counted in the report.
    let turns = reader_turns(&rig.server);
    let dropped: usize = results
        .iter()
        .map(|(_, r, _)| r.provenance.quotes_dropped.unwrap_or(0))
        .sum();
    let verified: usize = results
        .iter()
        .map(|(_, r, _)| r.provenance.quotes_verified.unwrap_or(0))
        .sum();
    let report = std::fs::read_to_string(&summary.report).unwrap();
    assert!(
        report.contains(&format!(
            "{verified} verified, {dropped} not found on their page and dropped"
        )),
        "{report}"
    );
    if mistakes.iter().any(|m| m.spoils_quotes()) {
        assert!(
            dropped > 0 || c.not_scored > 0,
            "spoiled quotes were dropped: {mistakes:?}"
        );
    }

    // A re-ask carries its reason, and happens at most once per reading.
    let reasks = turns
        .iter()
        .filter(|t| t.contains("You were asked about this paper before."))
        .count();
    let spoiled_content = mistakes
        .iter()
        .filter(|m| {
            m.spoils_quotes()
                || matches!(
                    m,
                    Mistake::ScoreOutOfRange
                        | Mistake::NoiseRationale
                        | Mistake::ContradictoryVerdict
                )
        })
        .count();
    assert!(reasks >= 1 || spoiled_content == 0, "{mistakes:?}");
    for t in &turns {
        assert!(
            t.matches("You were asked about this paper before.").count() <= 1,
            "asked again at most once: {t}"
        );
    }
    // A malformed answer is retried in the same conversation.
    let malformed = mistakes
        .iter()
        .filter(|m| {
            matches!(
                m,
                Mistake::InvalidJson | Mistake::Refusal | Mistake::Empty | Mistake::CutAtMaxTokens
            )
        })
        .count();
    let retries = turns
        .iter()
        .filter(|t| {
            t.contains("That was not the JSON object asked for")
                || t.contains("Your answer was cut off at the token limit")
        })
        .count();
    assert!(retries >= malformed.min(1), "{mistakes:?}");
    if mistakes.contains(&Mistake::CutAtMaxTokens) {
        assert!(
            turns
                .iter()
                .any(|t| t.contains("Your answer was cut off at the token limit")),
            "a cut answer is asked again as cut"
        );
    }
}

#[tokio::test]
async fn papers_a_reader_never_gets_right_end_with_their_reasons_and_the_run_failed() {
    let pdfs = dev_pdfs("databases", 2);
    let server = ScriptedServer::start(ServerOptions {
        // Every reading answer is noise, malformed or self-contradictory.
        policy: Policy::Fallible {
            seed: 3,
            rate: 1.0,
            only: &[
                Mistake::NoiseRationale,
                Mistake::InvalidJson,
                Mistake::ContradictoryVerdict,
                Mistake::Refusal,
            ],
        },
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let folder = folder_of(&pdfs);
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let ws = data.path().join("ws");
    let out = quire_review(
        folder.path(),
        "How do databases recover from crashes?",
        config.path(),
        data.path(),
        &["--workspace", ws.to_str().unwrap(), "--json"],
    )
    .await;
    assert_eq!(
        out.status.code(),
        Some(1),
        "every paper failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "failed", "{summary}");
    assert_eq!(summary["counts"]["screened"], 2);
    assert_eq!(summary["counts"]["notScored"], 2);
    for paper in summary["papers"].as_array().unwrap() {
        let reason = paper["notScored"].as_str().unwrap_or("");
        assert!(
            reason.contains("could not stand")
                || reason.contains("not the JSON object")
                || reason.contains("model"),
            "a reason, not a gap: {paper}"
        );
        assert!(paper["score"].is_null());
    }
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains("| Not scored: no result and no label | 2 |"),
        "{report}"
    );
    assert!(
        report.contains("## Papers that could not be scored"),
        "{report}"
    );
    let workspace = Workspace::open_read_only(&ws).unwrap();
    for paper in workspace.papers().unwrap() {
        let failure = failures::load(&workspace, &paper.id).unwrap().unwrap();
        assert_eq!(failure.model.as_deref(), Some("scripted-reader"));
        assert!(failure.attempts >= 1);
    }
}

#[tokio::test]
async fn a_planner_that_never_calls_a_tool_still_gets_every_paper_read_and_the_report_says_so() {
    let rig = Rig::new(&dev_pdfs("databases", 3), ServerOptions::default()).await;
    // A small model's planner: prose, twice, and no tool call.
    rig.server.push([
        Step::text("The papers look relevant. I will review them carefully."),
        Step::text("][ 0"),
    ]);
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    assert_eq!(summary.counts.not_scored, 0);
    let agent = summary.agent.clone().unwrap();
    assert_eq!((agent.covered_by_agent, agent.covered_by_sweep), (0, 3));
    assert_eq!(agent.planner, "no_tool_call");
    let report = std::fs::read_to_string(&summary.report).unwrap();
    let line = report
        .lines()
        .find(|l| l.starts_with("- Agents: the model could not drive them"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        line.contains("the planner did not finish: it answered without calling a tool"),
        "{line}"
    );
    assert!(
        line.contains("3 papers were read by the final sweep"),
        "{line}"
    );
    // The note is the run's: an export rendered later says it too.
    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let files =
        quire::review::outputs::ReviewFiles::read(&ws, quire::review::EngineKind::Agent).unwrap();
    let again = files.render(quire::review::outputs::ExportFormat::Markdown);
    assert!(again.contains(line), "{again}");
}

#[tokio::test]
async fn a_reviewer_that_stalls_at_its_step_limit_is_seen_and_every_paper_is_still_read_once() {
    let mut rig = Rig::new(
        &dev_pdfs("distributed-systems", 10),
        ServerOptions::default(),
    )
    .await;
    // One call at a time: a read_papers batch is 8 papers, so one step
    // cannot cover all ten.
    rig.settings.concurrency = 1;
    // The workspace's own reviewer: the built-in one with room for one step.
    let builtin = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/agent/builtin/reviewer.toml"
    ))
    .unwrap();
    let stalling = builtin.replace("step_limit = 400", "step_limit = 1");
    assert_ne!(stalling, builtin);
    let task = quire::workspace::TaskMeta::new(
        quire::workspace::WorkspaceId("ws".into()),
        "papers".into(),
        rig.folder.path(),
    );
    let ws = Workspace::create(&rig.workspace(), &task).unwrap();
    ws.write(
        &quire::workspace::WsPath::parse("agents/reviewer.toml").unwrap(),
        stalling.as_bytes(),
    )
    .unwrap();
    drop(ws);

    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    assert_eq!(summary.counts.not_scored, 0);
    let agent = summary.agent.clone().unwrap();
    assert_eq!(agent.covered_by_agent + agent.covered_by_sweep, 10);
    // Every reviewer task says it hit its limit; the planner saw it and
    // delegated again (or the sweep read what was left), and every paper was
    // read once.
    let graph = quire::agent::TaskGraph::open(&Workspace::open(&rig.workspace()).unwrap()).unwrap();
    let reviewers: Vec<_> = graph
        .nodes()
        .into_iter()
        .filter(|n| n.agent == "reviewer")
        .collect();
    assert!(
        !reviewers.is_empty(),
        "the planner delegated to the reviewer"
    );
    assert_eq!(
        reviewers[0].status,
        quire::agent::TaskState::StepLimit,
        "{reviewers:?}"
    );
    assert!(
        reviewers.len() >= 2 || agent.covered_by_sweep > 0,
        "one step of 8 papers cannot cover 10: {agent:?}"
    );
    let calls = super::agent_review::reader_calls(&rig.server.requests());
    assert_eq!(calls.len(), 10);
    assert!(calls.values().all(|&n| n == 1), "{calls:?}");
    let report = std::fs::read_to_string(&summary.report).unwrap();
    if agent.covered_by_sweep > 0 {
        assert!(
            report.contains(&format!(
                "{} papers were read by the final sweep, not by the reviewer agent",
                agent.covered_by_sweep
            )),
            "{report}"
        );
    }
}

#[tokio::test]
async fn a_reviewer_that_tries_to_finish_early_is_refused_with_the_count_and_reads_the_rest() {
    let mut rig = Rig::new(
        &dev_pdfs("distributed-systems", 10),
        ServerOptions {
            policy: Policy::Impatient,
            ..ServerOptions::default()
        },
    )
    .await;
    // One call at a time: a batch is 8 papers, so one read leaves 2 open.
    rig.settings.concurrency = 1;
    let summary = rig.run(EventLog::new()).await;
    assert_eq!(summary.status, ReviewStatus::Done);
    let agent = summary.agent.clone().unwrap();
    assert_eq!(
        (agent.covered_by_agent, agent.covered_by_sweep),
        (10, 0),
        "the refusal sent the reviewer back to work: {agent:?}"
    );

    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    let graph = quire::agent::TaskGraph::open(&ws).unwrap();
    let reviewer = graph
        .nodes()
        .into_iter()
        .find(|n| n.agent == "reviewer")
        .expect("the planner delegated to the reviewer");
    let log = ws
        .last_actions(
            &quire::workspace::WsPath::parse(&format!("tasks/{}/actions.jsonl", reviewer.id))
                .unwrap(),
            200,
        )
        .unwrap();
    let refusals: Vec<_> = log
        .iter()
        .filter(|a| a.code.as_deref() == Some("finish_refused"))
        .collect();
    assert_eq!(refusals.len(), 1, "{log:?}");
    // The refusal names how many papers are open, and the reviewer's first
    // read left exactly that many.
    let first_read = log
        .iter()
        .find(|a| a.tool == "read_papers" && a.ok)
        .unwrap();
    let open_after_read: usize = first_read
        .summary
        .split(". ")
        .find_map(|s| s.trim_end_matches('.').strip_suffix(" papers still open"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}", first_read.summary));
    assert!(open_after_read > 0);
    assert!(
        refusals[0].summary.starts_with(&format!(
            "{open_after_read} readable papers have no result yet"
        )),
        "{}",
        refusals[0].summary
    );
    // The finish that came after the work was accepted.
    let last = log.last().unwrap();
    assert_eq!((last.tool.as_str(), last.ok), ("finish", true), "{last:?}");
    let calls = super::agent_review::reader_calls(&rig.server.requests());
    assert_eq!(calls.len(), 10);
    assert!(calls.values().all(|&n| n == 1), "{calls:?}");
}

#[tokio::test]
async fn the_estimates_upper_bound_holds_for_a_reader_that_needs_every_second_chance() {
    let rig = Rig::new(
        &papers(),
        ServerOptions {
            // Every answer spoiled in a way that costs a retry or a re-ask.
            policy: Policy::Fallible {
                seed: 11,
                rate: 1.0,
                only: &[
                    Mistake::InvalidJson,
                    Mistake::CutAtMaxTokens,
                    Mistake::NoiseRationale,
                    Mistake::Paraphrase,
                ],
            },
            ..ServerOptions::default()
        },
    )
    .await;
    let estimate = rig.estimate().await;
    let summary = rig.run(EventLog::new()).await;
    let agent = summary.agent.unwrap();
    let reader = super::agent_review::reader_calls(&rig.server.requests())
        .values()
        .sum::<usize>() as u64;
    eprintln!(
        "reader calls: expected {}, spent {reader}, at most {}; input tokens: expected {}, spent {}, at most {}",
        estimate.expected.reader_calls,
        estimate.at_most.reader_calls,
        estimate.expected.input_tokens,
        agent.input_tokens,
        estimate.at_most.input_tokens
    );
    // The model needed far more than expected, and still no more than the bound.
    assert!(
        reader > estimate.expected.reader_calls,
        "{reader} vs {estimate:?}"
    );
    assert!(
        reader <= estimate.at_most.reader_calls,
        "{reader} reader calls vs {:?}",
        estimate.at_most
    );
    assert!(agent.steps <= estimate.at_most.agent_steps, "{agent:?}");
    assert!(
        agent.input_tokens <= estimate.at_most.input_tokens,
        "{} input tokens vs {:?}",
        agent.input_tokens,
        estimate.at_most
    );
    assert!(agent.output_tokens <= estimate.at_most.output_tokens);
    assert!(estimate.at_most.input_tokens >= estimate.expected.input_tokens);
}
