//! `quire review --batch` against the scripted server's Batch APIs (OpenAI's,
//! and Anthropic's Message Batches), over real HTTP: the readings' first
//! calls go through batches (failed and expired
//! lines sent again in a second round), each reading is accepted from its
//! batch answer as an interactive one would be, and a review killed with
//! SIGKILL after each step of its ledger resumes with no batch submitted
//! twice and no result lost.

use std::path::Path;
use std::time::Duration;

use quire::llm::{ModelSettings, Protocol};
use quire::review::batches::Ledger;
use quire::workspace::Workspace;
use serde_json::Value;
use testkit::{BatchOptions, Mistake, Policy, ScriptedServer, ServerOptions};

use super::agent_review::{agent_review_command, assert_no_torn_json, reader_calls, results};
use super::batch_support::first_round;
use super::support::{dev_pdfs, folder_of, scripted_config};

/// A small window, so papers are read in several parts.
const PROFILE: &str = "context_window = 6144\nmax_output_tokens = 1024\n";

async fn batch_server(delay: Duration) -> ScriptedServer {
    ScriptedServer::start(ServerOptions {
        batch: BatchOptions {
            fail_every: Some(3),
            expire_every: Some(4),
            delay,
            ..BatchOptions::default()
        },
        ..ServerOptions::default()
    })
    .await
    .unwrap()
}

fn review(config: &Path, data: &Path, ws: &Path, folder: &Path) -> tokio::process::Command {
    let mut command = agent_review_command(config, data, ws, folder);
    command.args(["--batch", "--batch-poll", "0.01"]);
    command
}

/// A review of four papers as a batch against `server` speaking
/// `protocol`, its workspace in `data`, run to its end once its protocol
/// was shown: the workspace and the run's output.
async fn review_four_papers(
    server: &ScriptedServer,
    protocol: Protocol,
    data: &Path,
) -> (std::path::PathBuf, std::process::Output) {
    let profile = match protocol {
        Protocol::Openai => PROFILE.to_owned(),
        Protocol::Anthropic => format!("{PROFILE}protocol = \"anthropic\"\n"),
    };
    let config = scripted_config(&server.base_url(), &profile);
    let folder = folder_of(&dev_pdfs("databases", 4));
    let ws = data.join("ws");
    let mut command = review(config.path(), data, &ws, folder.path());
    show_protocol(&mut command).await;
    (ws, command.output().await.unwrap())
}

/// The protocol drafted and shown: the first run reads nothing (exit 4).
async fn show_protocol(command: &mut tokio::process::Command) {
    let shown = command.output().await.unwrap();
    assert_eq!(
        shown.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
}

fn calls(ws: &Path) -> Vec<Value> {
    std::fs::read_to_string(ws.join("model-calls.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Each shard of the workspace's ledger has exactly one batch at the server.
async fn one_batch_per_shard(server: &ScriptedServer, ws: &Path, protocol: Protocol) -> usize {
    let ledger = Ledger::load(&Workspace::open_read_only(ws).unwrap()).unwrap();
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        protocol,
        ..ModelSettings::default()
    };
    super::batch_support::assert_one_batch_per_shard(server, &settings, &ledger).await
}

#[tokio::test]
async fn a_review_reads_its_papers_from_batch_answers_checked_as_any_reading() {
    for protocol in [Protocol::Openai, Protocol::Anthropic] {
        read_from_batches(protocol).await;
    }
}

async fn read_from_batches(protocol: Protocol) {
    let server = batch_server(Duration::ZERO).await;
    let data = tempfile::tempdir().unwrap();
    let (ws, out) = review_four_papers(&server, protocol, data.path()).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let workspace = Workspace::open_read_only(&ws).unwrap();
    let read = results(&workspace);
    assert_eq!(read.len(), 4, "every paper read");
    for (title, result, _) in &read {
        assert!(
            !result.evidence.is_empty(),
            "{title}: a reading from the batch keeps its checked quotes"
        );
    }

    // The first calls of every part went through batches: a second round
    // for the lines that failed or expired, and each part asked once.
    let stats = server.batch_stats();
    let batches = one_batch_per_shard(&server, &ws, protocol).await;
    assert!(batches >= 2, "a second round for failed and expired lines");
    let first_round = first_round(&Ledger::load(&workspace).unwrap());
    assert!(first_round >= 5, "papers in several parts: {first_round}");
    assert!(stats.lines_submitted > first_round);

    // Each reading call is recorded: from the batch, or asked interactively
    // (a re-ask); the interactive ones are the reading calls the chat
    // endpoint got.
    let recorded = calls(&ws);
    let reader = |batched: bool| {
        recorded
            .iter()
            .filter(|c| c["purpose"] == "reader" && (c["endpoint"] == "batch") == batched)
            .count()
    };
    assert_eq!(
        reader(true),
        first_round,
        "every first call answered by a batch"
    );
    let interactive: usize = reader_calls(&server.requests()).values().sum();
    eprintln!(
        "batch review ({protocol:?}): {first_round} first calls, {batches} batches, {} lines submitted, {interactive} reading calls asked interactively",
        stats.lines_submitted
    );
    assert_eq!(reader(false), interactive);
    assert!(
        interactive < first_round,
        "the batches, not the chat endpoint, read the papers ({interactive} interactive)"
    );
}

#[tokio::test]
async fn a_review_s_re_asks_go_to_a_batch_round_of_their_own() {
    for protocol in [Protocol::Openai, Protocol::Anthropic] {
        re_asks_through_batches(protocol).await;
    }
}

/// A reader that answers half its calls with JSON that does not parse or
/// with a rationale of punctuation: the re-asks (the model's answer and
/// "answer again"; the reading and why it could not stand) are made having
/// read the first round's answers, and go out as a later batch round.
async fn re_asks_through_batches(protocol: Protocol) {
    let server = ScriptedServer::start(ServerOptions {
        batch: BatchOptions::default(),
        policy: Policy::Fallible {
            seed: 7,
            rate: 0.5,
            only: &[Mistake::InvalidJson, Mistake::NoiseRationale],
        },
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let (ws, out) = review_four_papers(&server, protocol, data.path()).await;
    // A paper whose answer was not JSON twice is not scored (exit 3), as
    // in an interactive run.
    assert!(
        matches!(out.status.code(), Some(0 | 3)),
        "{protocol:?}: {}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    let mistakes = server.mistakes();
    assert!(
        mistakes.contains(&Mistake::InvalidJson) && mistakes.contains(&Mistake::NoiseRationale),
        "{protocol:?}: the batches' answers were spoiled both ways: {mistakes:?}"
    );
    let (later, reasks) = super::batch_support::later_rounds(&ws, "batches");
    assert!(
        reasks >= 2,
        "{protocol:?}: re-asks went out in a later round ({reasks} of {later} lines)"
    );
    // With no line failing at the batch, every later line is a re-ask.
    assert_eq!(reasks, later, "{protocol:?}");
    let interactive: usize = reader_calls(&server.requests()).values().sum();
    assert_eq!(
        interactive, 0,
        "{protocol:?}: no reading call reached the chat endpoint"
    );
    let recorded = calls(&ws);
    let reading: Vec<&Value> = recorded
        .iter()
        .filter(|c| c["purpose"] == "reader")
        .collect();
    assert!(reading.iter().all(|c| c["endpoint"] == "batch"));
    let first_round = first_round(&Ledger::load(&Workspace::open_read_only(&ws).unwrap()).unwrap());
    // A paper not scored may be read again by the agents, from the same
    // answers.
    assert!(
        reading.len() >= first_round + later,
        "{protocol:?}: every answer used ({} records, {} lines)",
        reading.len(),
        first_round + later
    );
    let reasked = results(&Workspace::open_read_only(&ws).unwrap())
        .iter()
        .filter(|(_, result, _)| result.provenance.reasked.is_some())
        .count();
    assert!(
        reasked >= 1,
        "{protocol:?}: a reading that could not stand was asked again with the reason"
    );
    eprintln!(
        "batch re-asks ({protocol:?}): {first_round} first calls, {later} re-asks in later rounds, {reasked} readings asked again with a reason, {} mistakes",
        mistakes.len()
    );
}

#[tokio::test]
async fn killed_after_each_ledger_step_the_review_resumes_with_one_batch_per_shard() {
    // Each batch answer waits a while: a kill lands between two steps.
    let server = batch_server(Duration::from_millis(200)).await;
    let config = scripted_config(&server.base_url(), PROFILE);
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let ws = data.path().join("ws");
    show_protocol(&mut review(config.path(), data.path(), &ws, folder.path())).await;
    let ledger_lines = || {
        std::fs::read_to_string(ws.join("batches/ledger.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };

    let mut kinds_killed_after = Vec::new();
    let mut finished = None;
    for _ in 0..40 {
        let before = ledger_lines();
        let mut child = review(config.path(), data.path(), &ws, folder.path())
            .spawn()
            .unwrap();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                finished = Some(status);
                break;
            }
            if ledger_lines() > before {
                // A step is on disk and the next call is held by the
                // server: SIGKILL now.
                child.start_kill().unwrap();
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let _ = child.wait().await;
        if finished.is_some() {
            break;
        }
        let text = std::fs::read_to_string(ws.join("batches/ledger.jsonl")).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        kinds_killed_after.push(last["step"].as_str().unwrap().to_owned());
        assert_no_torn_json(&ws);
    }
    let status = finished.expect("a run went to the end");
    assert!(status.success());
    for kind in ["started", "round", "uploaded", "created", "finished"] {
        assert!(
            kinds_killed_after.iter().any(|k| k == kind),
            "never killed after a {kind} step: {kinds_killed_after:?}"
        );
    }

    one_batch_per_shard(&server, &ws, Protocol::Openai).await;
    let workspace = Workspace::open_read_only(&ws).unwrap();
    assert_eq!(results(&workspace).len(), 3, "no result lost");
    let ledger = Ledger::load(&workspace).unwrap();
    assert!(ledger.shards.iter().all(|s| s.finished.is_some()));
}

#[tokio::test]
async fn a_dual_read_review_as_a_batch_sends_its_second_reading_through_batches_too() {
    let server = batch_server(Duration::ZERO).await;
    let config = scripted_config(&server.base_url(), PROFILE);
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let ws = data.path().join("ws");
    let dual = |mut command: tokio::process::Command| {
        command.args(["--dual", "flag"]);
        command
    };
    show_protocol(&mut dual(review(
        config.path(),
        data.path(),
        &ws,
        folder.path(),
    )))
    .await;
    let out = dual(review(config.path(), data.path(), &ws, folder.path()))
        .output()
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // Each reading has its own ledger, every first call of it in a batch.
    let workspace = Workspace::open_read_only(&ws).unwrap();
    let first_calls = |dir: &str| first_round(&Ledger::load_in(&workspace, dir).unwrap());
    let (first, second) = (first_calls("batches"), first_calls("batches/second"));
    assert!(first >= 3 && second >= 3, "first {first}, second {second}");
    let batched = calls(&ws)
        .iter()
        .filter(|c| c["purpose"] == "reader" && c["endpoint"] == "batch")
        .count();
    assert_eq!(batched, first + second, "both readings answered by batches");
    for paper in workspace.papers().unwrap() {
        let second = workspace
            .read_paper_file::<quire::review::PaperResult>(
                &paper.id,
                quire::workspace::PaperFile::SecondResult,
            )
            .unwrap();
        assert!(second.is_some(), "{:?} has a second reading", paper.title);
    }
    eprintln!(
        "dual batch review: {first} first and {second} second reading calls from batches, {} asked interactively",
        reader_calls(&server.requests()).values().sum::<usize>()
    );
}

#[tokio::test]
async fn a_review_as_a_batch_under_a_cost_cap_uploads_nothing_past_it() {
    // A priced model and a cap below one part's reading. The protocol is
    // drafted first, uncapped; the capped run then prices each batch line
    // at the batch rate before upload (it priced them from the run's spend,
    // nothing at the start, and uploaded every part), so no batch is made
    // and the review stops at the cap with nothing read.
    let server = batch_server(Duration::ZERO).await;
    let data = tempfile::tempdir().unwrap();
    let config = scripted_config(&server.base_url(), PROFILE);
    super::batch_support::price_the_scripted_model(config.path());
    let folder = folder_of(&dev_pdfs("databases", 2));
    let ws = data.path().join("ws");
    show_protocol(&mut review(config.path(), data.path(), &ws, folder.path())).await;
    let out = review(config.path(), data.path(), &ws, folder.path())
        .args(["--max-cost", "0.000001"])
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "stopped", "{stderr}");
    assert!(
        format!("{summary}{stderr}").contains("cost cap"),
        "the stop names the cap: {stderr}"
    );
    assert_eq!(server.batch_stats().batches_created, 0, "{stderr}");
    assert!(
        reader_calls(&server.requests()).is_empty(),
        "nothing past the cap was read"
    );
}
