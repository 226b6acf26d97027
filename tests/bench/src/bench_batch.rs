//! `quire-bench bench batch`: a review of 10,000 papers read through the
//! scripted Batch API, its process killed with SIGKILL after each step of its
//! ledger and started again, until it ends.
//!
//! The scripted server runs in this process, so it outlives every kill and
//! holds every batch and request it was sent. The review runs in a child
//! process (this binary's hidden `batch-child`, the agent engine with batch
//! mode on, as `quire review --batch` runs it). Each child is killed the
//! moment its ledger has one more line than when it started: one kill per
//! step. In each batch every seventh line fails with a 500 and every
//! eleventh never runs, the first time, so a second round happens; and one
//! request in 97 is refused with a 400 every time, so some end unresolved,
//! to be asked interactively.
//!
//! At the end it checks what the issue asks and prints the counts: each
//! shard has exactly one batch at the server; no request is in two shards of
//! one round and the server got exactly the lines the shards hold; no
//! request a batch answered was asked again at the chat endpoint (lost),
//! while the ones the batches left unresolved were (the check sees the ids);
//! every paper is read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use quire::agent::NoEvents;
use quire::llm::ModelSettings;
use quire::llm::batch::LineOutcome;
use quire::llm::batch::lines::request_id;
use quire::llm::batch::openai::BatchApi;
use quire::review::PaperResult;
use quire::review::batches::Ledger;
use quire::review::batches::driver::{RUN_KEY, SHARD_KEY};
use quire::review::engine::BatchMode;
use quire::review::engine::agent as agent_engine;
use quire::review::{EngineKind, ReviewSpec};
use quire::workspace::{Workspace, WsPath};
use serde_json::Value;
use testkit::{BatchOptions, ScriptedServer, ServerOptions};
use tokio_util::sync::CancellationToken;

use crate::agent_rig::{corpus_texts, scripted_setup, synthetic_workspace};
use crate::bench_agent::{BASELINE_WINDOW, QUESTION};

#[derive(Args)]
pub(crate) struct BatchBenchArgs {
    /// The folder of PDFs whose texts the review repeats.
    #[arg(long, default_value = "../shared/corpus/dev")]
    corpus: PathBuf,
    /// Papers in the review.
    #[arg(long, default_value_t = 10_000)]
    papers: usize,
    /// Added before every answer of the batch endpoints, in milliseconds:
    /// the time a kill has to land before the next step.
    #[arg(long, default_value_t = 300)]
    delay_ms: u64,
    /// Model calls at once (client and server).
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
}

/// The review as one killable process: `bench batch-child`.
#[derive(Args)]
pub(crate) struct BatchChildArgs {
    #[arg(long)]
    root: PathBuf,
    #[arg(long)]
    url: String,
    #[arg(long)]
    concurrency: usize,
}

/// The agent review of `root` with batch mode on, printing its coverage as
/// `covered <agent> <sweep> <readable>` at the end.
pub(crate) async fn child(args: BatchChildArgs) -> Result<(), String> {
    let ws = Workspace::open(&args.root).map_err(|e| e.to_string())?;
    let mut setup = scripted_setup(&args.url, args.concurrency, BASELINE_WINDOW as u32, None)?;
    setup.batch = Some(BatchMode {
        poll_every: Duration::from_millis(20),
    });
    let ran = agent_engine::run_review(
        &ws,
        &spec(),
        &setup,
        Arc::new(NoEvents),
        CancellationToken::new(),
    )
    .await
    .map_err(|e| e.to_string())?;
    let report = ran.agent.ok_or("the agent engine gave no report")?;
    println!(
        "covered {} {} {} {}",
        report.covered_by_agent, report.covered_by_sweep, report.already_reviewed, report.readable
    );
    Ok(())
}

fn spec() -> ReviewSpec {
    ReviewSpec {
        question: QUESTION.into(),
        criteria: Vec::new(),
        engine: EngineKind::Agent,
        protocol: None,
    }
}

/// One child's life.
struct Life {
    /// The ledger's last step when it was killed; `None` when it ended.
    killed_after: Option<String>,
    /// Lines the ledger gained in it.
    steps: usize,
    /// From its start to its first new ledger line.
    to_first_step: Option<Duration>,
}

pub(crate) async fn run(args: BatchBenchArgs) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let texts = corpus_texts(&args.corpus, scratch.path()).await?;
    let root = scratch.path().join("batch-review");
    synthetic_workspace(&root, &texts, args.papers, true)?;
    println!(
        "{} papers, the {} readable papers of {} repeated under distinct ids",
        args.papers,
        texts.len(),
        args.corpus.display()
    );
    let server = ScriptedServer::start(ServerOptions {
        latency: Duration::from_millis(5),
        concurrency: Some(args.concurrency),
        context_window: Some(BASELINE_WINDOW),
        batch: BatchOptions {
            fail_every: Some(7),
            expire_every: Some(11),
            refuse_every: Some(97),
            delay: Duration::from_millis(args.delay_ms),
            ..BatchOptions::default()
        },
        ..ServerOptions::default()
    })
    .await
    .map_err(|e| e.to_string())?;

    let started = Instant::now();
    let mut lives = Vec::new();
    let mut last_words = String::new();
    for _ in 0..200 {
        let (life, said) = live_once(&root, &server.base_url(), args.concurrency).await?;
        let ended = life.killed_after.is_none();
        lives.push(life);
        if ended {
            last_words = said;
            break;
        }
    }
    let wall = started.elapsed();
    let Some(last) = lives.last().filter(|l| l.killed_after.is_none()) else {
        return Err(format!("the review did not end in {} starts", lives.len()));
    };
    let kills: Vec<&Life> = lives.iter().filter(|l| l.killed_after.is_some()).collect();
    let skipped: usize = kills.iter().map(|l| l.steps.saturating_sub(1)).sum();
    println!(
        "\n{} starts, {} killed with SIGKILL, {:.0} s in all; the last one took {} more ledger steps and ran to the end",
        lives.len(),
        kills.len(),
        wall.as_secs_f64(),
        last.steps
    );
    let after: Vec<&str> = kills
        .iter()
        .filter_map(|l| l.killed_after.as_deref())
        .collect();
    println!("  killed after: {}", after.join(", "));
    println!("  steps a kill came too late for (two steps on disk before it landed): {skipped}");
    let mut restarts: Vec<f64> = kills
        .iter()
        .skip(1)
        .filter_map(|l| l.to_first_step.map(|d| d.as_secs_f64()))
        .collect();
    restarts.sort_by(f64::total_cmp);
    if let (Some(min), Some(max)) = (restarts.first(), restarts.last()) {
        println!(
            "  a restart to its next ledger step: {min:.1}-{max:.1} s (median {:.1}), planning {} papers again and reading the ledger",
            restarts[restarts.len() / 2],
            args.papers
        );
    }

    let failures = check(&root, &server, &last_words).await?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}

/// Start the review and SIGKILL it once its ledger gains a line; or let it
/// end. Returns its life and what it printed.
async fn live_once(root: &Path, url: &str, concurrency: usize) -> Result<(Life, String), String> {
    let ledger = root.join("batches/ledger.jsonl");
    let lines = || {
        std::fs::read_to_string(&ledger)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let before = lines();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut child = Command::new(exe)
        .args(["bench", "batch-child", "--url", url, "--concurrency"])
        .arg(concurrency.to_string())
        .arg("--root")
        .arg(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the review: {e}"))?;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            let out = child.wait_with_output().map_err(|e| e.to_string())?;
            let said = String::from_utf8_lossy(&out.stdout).into_owned();
            if !status.success() {
                return Err(format!("the review failed ({status}): {said}"));
            }
            let life = Life {
                killed_after: None,
                steps: lines() - before,
                to_first_step: None,
            };
            return Ok((life, said));
        }
        if lines() > before {
            let to_first_step = started.elapsed();
            // SIGKILL: nothing of the child's runs after this.
            child.kill().map_err(|e| e.to_string())?;
            let _ = child.wait();
            let text = std::fs::read_to_string(&ledger).map_err(|e| e.to_string())?;
            let last: Value = text
                .lines()
                .last()
                .and_then(|l| serde_json::from_str(l).ok())
                .unwrap_or(Value::Null);
            let step = last["step"].as_str().unwrap_or("?");
            let killed_after = match (last["shard"].as_str(), last["round"].as_u64()) {
                (Some(shard), _) => format!("{step} {shard}"),
                (None, Some(round)) => format!("{step} {round}"),
                (None, None) => step.to_owned(),
            };
            let life = Life {
                killed_after: Some(killed_after),
                steps: lines() - before,
                to_first_step: Some(to_first_step),
            };
            return Ok((life, String::new()));
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// The run's counts, printed, and what failed among the checks.
async fn check(root: &Path, server: &ScriptedServer, said: &str) -> Result<Vec<String>, String> {
    let err = |e: quire::workspace::WorkspaceError| e.to_string();
    let ws = Workspace::open_read_only(root).map_err(err)?;
    let ledger = Ledger::load(&ws).map_err(err)?;
    let mut failures = Vec::new();

    // The shards, round by round, and the ids each holds.
    let mut rounds: BTreeMap<u32, (usize, usize)> = BTreeMap::new();
    let mut sent: BTreeSet<String> = BTreeSet::new();
    let mut twice_in_a_round = 0;
    let mut by_round: BTreeMap<u32, BTreeSet<String>> = BTreeMap::new();
    let mut lines_in_shards = 0;
    for shard in &ledger.shards {
        let text = ws
            .read_string(&ledger.shard_path(&shard.name).map_err(err)?)
            .map_err(err)?;
        let round = by_round.entry(shard.round).or_default();
        for line in text.lines() {
            let value: Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
            let id = value["custom_id"].as_str().unwrap_or_default().to_owned();
            if !round.insert(id.clone()) {
                twice_in_a_round += 1;
            }
            sent.insert(id);
            lines_in_shards += 1;
        }
        let entry = rounds.entry(shard.round).or_default();
        entry.0 += 1;
        entry.1 += shard.requests;
    }
    for (round, (shards, requests)) in &rounds {
        println!("  round {round}: {shards} shards, {requests} requests");
    }

    // The batches at the server, found as a restart finds them.
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        ..ModelSettings::default()
    };
    let api = BatchApi::new(&settings, None).map_err(|e| e.to_string())?;
    let run = ledger.run.as_deref().ok_or("the ledger has no run")?;
    let batches = api.find(RUN_KEY, run).await.map_err(|e| e.to_string())?;
    let mut per_shard: BTreeMap<&str, usize> = BTreeMap::new();
    for batch in &batches {
        *per_shard
            .entry(batch.meta(SHARD_KEY).unwrap_or("?"))
            .or_default() += 1;
    }
    let stats = server.batch_stats();
    let doubled = per_shard.values().filter(|&&n| n > 1).count();
    println!(
        "  batches: {} shards, {} batches at the server ({} created), {} shards with more than one; {} lines submitted, {} in the shard files",
        ledger.shards.len(),
        batches.len(),
        stats.batches_created,
        doubled,
        stats.lines_submitted,
        lines_in_shards
    );
    if doubled > 0
        || per_shard.len() != ledger.shards.len()
        || stats.batches_created != batches.len()
    {
        failures.push(format!(
            "a shard was submitted twice or not at all: {per_shard:?}"
        ));
    }
    if stats.lines_submitted != lines_in_shards || twice_in_a_round > 0 {
        failures.push(format!(
            "duplicate submission: {} lines submitted for {lines_in_shards} in the shards, {twice_in_a_round} ids twice in one round",
            stats.lines_submitted
        ));
    }

    // Answered, unresolved, and what the chat endpoint was asked of them.
    let answered: BTreeSet<&String> = ledger
        .outcomes
        .iter()
        .filter(|(_, o)| matches!(o, LineOutcome::Answered(_)))
        .map(|(id, _)| id)
        .collect();
    let unresolved: BTreeSet<&String> = sent.iter().filter(|id| !answered.contains(id)).collect();
    let (mut lost, mut asked_unresolved, mut interactive) = (0, BTreeSet::new(), 0);
    for request in server.requests() {
        if !request.path.ends_with("/chat/completions") {
            continue;
        }
        interactive += 1;
        let id = batch_id_of(&request.body);
        if answered.contains(&id) {
            lost += 1;
        } else if unresolved.contains(&id) {
            asked_unresolved.insert(id);
        }
    }
    println!(
        "  requests: {} sent to batches, {} answered by them, {} left unresolved after {} rounds",
        sent.len(),
        answered.len(),
        unresolved.len(),
        rounds.len()
    );
    println!(
        "  chat endpoint: {interactive} calls (agents, re-asks and the unresolved); {} of the {} unresolved asked there; results lost (a batch answer asked again): {lost}",
        asked_unresolved.len(),
        unresolved.len()
    );
    if lost > 0 {
        failures.push(format!("{lost} batch answers were lost and asked again"));
    }
    if asked_unresolved.len() != unresolved.len() {
        failures.push(format!(
            "{} requests the batches left unresolved were never asked",
            unresolved.len() - asked_unresolved.len()
        ));
    }

    // Every paper read.
    let covered: Vec<usize> = said
        .split_whitespace()
        .skip(1)
        .filter_map(|n| n.parse().ok())
        .collect();
    let papers = ws.papers().map_err(err)?;
    let results = papers
        .iter()
        .filter(|p| {
            WsPath::from_parts(["papers", &p.id.0, "result.json"])
                .and_then(|path| ws.read_json::<PaperResult>(&path))
                .is_ok()
        })
        .count();
    println!(
        "  papers: {results} with a result of {} (the last start: {} by the agents, {} by the sweep, {} read before it)",
        papers.len(),
        covered.first().unwrap_or(&0),
        covered.get(1).unwrap_or(&0),
        covered.get(2).unwrap_or(&0),
    );
    if Some(&results) != covered.get(3) {
        failures.push(format!(
            "{results} papers read of {} readable",
            covered.get(3).unwrap_or(&0)
        ));
    }
    Ok(failures)
}

/// The id a batch gives the request an interactive call sent: its body as a
/// batch line holds it (unstreamed).
fn batch_id_of(body: &Value) -> String {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut() {
        object.insert("stream".into(), Value::Bool(false));
        object.remove("stream_options");
    }
    request_id(&body)
}
