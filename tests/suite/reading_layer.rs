//! The guarantees a review earned, held by Ask and the table too, from the
//! outside (the CLI against the scripted server over real HTTP):
//!
//! - a default Ollama (a 4k context behind a profile claiming 32k) is fitted
//!   before anything is sent, for a question and a fill as for a review;
//! - a cut prompt is judged by the window the server says it holds, so a
//!   tokenizer denser than Quire's estimate is not a cut (Gemma on
//!   llama.cpp), and one sparser that fills the window is;
//! - a cost cap an unpriced model cannot keep is refused everywhere;
//! - every paper failing for one cause fails the run, with the cause and a
//!   non-zero exit;
//! - no token cap is crossed by calls in flight together.

use std::path::Path;

use serde_json::Value;
use testkit::{ScriptedServer, ServerOptions, Tokenizer};

use super::agent_review::Rig;
use super::support::{
    assert_every_prompt_within, capped_client, dev_pdfs, folder_of, offline_review, quire_await,
    quire_review, scripted_config,
};

const QUESTION: &str = "How do databases recover from crashes and keep commits durable?";

/// `quire ARGS... --json`: its exit status, its JSON (or `Null`) and stderr.
async fn quire(config: &Path, data: &Path, args: &[&str]) -> (bool, Value, String) {
    let mut full = args.to_vec();
    full.push("--json");
    let out = quire_await(config, data, &full).await;
    (
        out.status.success(),
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every call a workspace recorded: (purpose, outcome, tokens in + out).
fn calls_of(ws: &Path) -> Vec<(String, String, u64)> {
    std::fs::read_to_string(ws.join("model-calls.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|c| {
            (
                c["purpose"].as_str().unwrap_or("").to_owned(),
                c["outcome"].as_str().unwrap_or("").to_owned(),
                c["inputTokens"].as_u64().unwrap_or(0) + c["outputTokens"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// An Ollama-like server serving a 4k context (its prompts counted by
/// `tokenizer`), and a profile claiming 32k, as many do.
async fn default_ollama(tokenizer: Tokenizer) -> (ScriptedServer, tempfile::TempDir) {
    let server = ScriptedServer::start(ServerOptions {
        cuts_prompts_to: Some(4_096),
        tokenizer,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let config = scripted_config(
        &server.base_url(),
        "context_window = 32768\nmax_output_tokens = 4096\n",
    );
    (server, config)
}

/// A scripted server with its default profile, and a workspace of `papers`
/// database papers reviewed offline (in `data`).
struct Plain {
    server: ScriptedServer,
    config: tempfile::TempDir,
    data: tempfile::TempDir,
    _folder: tempfile::TempDir,
    ws: String,
}

async fn plain(papers: usize) -> Plain {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let (_folder, ws) = reviewed(data.path(), papers);
    Plain {
        server,
        config,
        data,
        _folder,
        ws,
    }
}

/// A review of a few database papers read offline, and its workspace.
fn reviewed(data: &Path, papers: usize) -> (tempfile::TempDir, String) {
    let folder = folder_of(&dev_pdfs("databases", papers));
    let ws = offline_review(data, folder.path(), QUESTION);
    (folder, ws)
}

#[tokio::test]
async fn ask_and_the_table_on_a_default_ollama_are_fitted_to_its_context_and_answer() {
    let (server, config) = default_ollama(Tokenizer::QUARTER).await;
    let data = tempfile::tempdir().unwrap();
    let (_folder, ws) = reviewed(data.path(), 3);
    let (c, d) = (config.path(), data.path());

    let (ok, asked, stderr) = quire(c, d, &["ask-papers", &ws, QUESTION, "--papers", "all"]).await;
    assert!(ok, "{stderr}");
    assert!(
        stderr.contains("Ollama serves scripted-reader with a 4096-token context"),
        "the user is told what to set: {stderr}"
    );
    assert_eq!(asked["status"], "done", "{asked}");
    assert!(
        !asked["sources"].as_array().unwrap().is_empty(),
        "the papers answered: {asked}"
    );

    let (ok, _, stderr) = quire(c, d, &["table", "columns", &ws, "--template", "method"]).await;
    assert!(ok, "{stderr}");
    let (ok, filled, stderr) = quire(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    assert!(ok, "{stderr}");
    assert_eq!(filled["read"], 3, "{filled}");
    assert!(filled["cellsFilled"].as_u64().unwrap() > 0, "{filled}");
    assert!(filled["failure"].is_null(), "{filled}");

    // Every prompt fit the window the server holds: nothing was cut.
    assert_every_prompt_within(&server, 4_096);
    let calls = calls_of(Path::new(&ws));
    assert!(
        calls.iter().all(|(_, outcome, _)| outcome != "prompt_cut"),
        "{calls:?}"
    );
}

#[tokio::test]
async fn a_cost_cap_an_unpriced_model_cannot_keep_is_refused_for_ask_and_the_table() {
    let rig = plain(2).await;
    let (c, d, ws) = (rig.config.path(), rig.data.path(), rig.ws.clone());
    let (ok, _, stderr) = quire(c, d, &["ask-papers", &ws, QUESTION, "--max-cost", "0.01"]).await;
    assert!(!ok && stderr.contains("unpriced_model"), "{stderr}");
    quire(c, d, &["table", "columns", &ws, "--template", "dataset"]).await;
    let (ok, _, stderr) = quire(c, d, &["table", "fill", &ws, "--max-cost", "0.01"]).await;
    assert!(!ok && stderr.contains("unpriced_model"), "{stderr}");
    // With a token cap beside it, the cost cap is bounded and accepted.
    let (ok, _, stderr) = quire(
        c,
        d,
        &[
            "ask-papers",
            &ws,
            QUESTION,
            "--max-cost",
            "0.01",
            "--max-tokens",
            "500000",
        ],
    )
    .await;
    assert!(ok, "{stderr}");
}

#[tokio::test]
async fn every_paper_failing_for_one_cause_fails_ask_and_the_table_with_the_cause() {
    // A server that is down: every call is refused before any work.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config = scripted_config(&format!("http://127.0.0.1:{port}/v1"), "max_retries = 0\n");
    let data = tempfile::tempdir().unwrap();
    let (_folder, ws) = reviewed(data.path(), 2);
    let (c, d) = (config.path(), data.path());

    let (ok, asked, stderr) = quire(c, d, &["ask-papers", &ws, QUESTION, "--papers", "all"]).await;
    assert!(!ok, "a run that read nothing is no success: {asked}");
    assert_eq!(asked["status"], "failed", "{asked}");
    let cause = asked["stopped"].as_str().unwrap();
    assert!(
        cause.contains("2 of 2") && cause.contains("cannot reach the model server"),
        "{cause}"
    );
    assert!(stderr.contains("ask_failed"), "{stderr}");
    assert!(
        !asked["answer"].as_str().unwrap().contains("None of the"),
        "never 'none of the papers answers': {asked}"
    );

    quire(c, d, &["table", "columns", &ws, "--template", "dataset"]).await;
    let (ok, filled, stderr) = quire(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    assert!(!ok, "{filled}");
    let cause = filled["failure"].as_str().unwrap();
    assert!(cause.contains("cannot reach the model server"), "{cause}");
    assert!(stderr.contains("fill_failed"), "{stderr}");
}

#[tokio::test]
async fn asked_again_a_question_keeps_its_answer_until_the_new_one_is_complete() {
    let rig = plain(3).await;
    let (c, d, ws) = (rig.config.path(), rig.data.path(), rig.ws.clone());
    let (ok, first, stderr) = quire(c, d, &["ask-papers", &ws, QUESTION, "--papers", "all"]).await;
    assert!(ok, "{stderr}");
    assert_eq!(first["status"], "done");

    // Asked again under another model, with a cap too small for any paper:
    // the run stops, and the answer kept is still the complete one.
    let other = scripted_config(&rig.server.base_url(), "");
    std::fs::write(
        other.path().join("models.toml"),
        format!(
            "default = \"s\"\n[profiles.s]\nbase_url = \"{}\"\nmodel = \"another-reader\"\n",
            rig.server.base_url()
        ),
    )
    .unwrap();
    let (ok, stopped, stderr) = quire(
        other.path(),
        d,
        &[
            "ask-papers",
            &ws,
            QUESTION,
            "--papers",
            "all",
            "--max-tokens",
            "100",
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(stopped["status"], "stopped", "{stopped}");
    let (_, history, _) = quire(c, d, &["asks", &ws]).await;
    let kept = &history.as_array().unwrap()[0];
    assert_eq!(kept["status"], "done", "{kept}");
    assert_eq!(kept["answer"], first["answer"]);
}

#[tokio::test]
async fn no_token_cap_is_crossed_by_calls_in_flight_in_a_review_an_ask_or_a_fill() {
    let server = ScriptedServer::start(ServerOptions {
        latency: std::time::Duration::from_millis(50),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    // Four calls at once: without holds, four papers pass the check together.
    let config = scripted_config(
        &server.base_url(),
        "concurrency = 4\nmax_output_tokens = 1024\n",
    );
    let (c, data) = (config.path(), tempfile::tempdir().unwrap());
    let folder = folder_of(&dev_pdfs("databases", 6));
    let ws = data.path().join("ws");
    let ws_str = ws.to_str().unwrap();
    let spent = || -> u64 { calls_of(&ws).iter().map(|(_, _, t)| t).sum() };
    let mut worst = 0;
    let mut account = |run: &str, cap: u64, spent: u64| {
        let over = spent.saturating_sub(cap);
        eprintln!("{run}: {spent} tokens spent under a cap of {cap}; overshoot {over}");
        worst = worst.max(over);
    };

    // A review: its agents, readers and synthesis digests on one client.
    let cap = 20_000;
    let out = quire_review(
        folder.path(),
        QUESTION,
        c,
        data.path(),
        &[
            "--workspace",
            ws_str,
            "--max-tokens",
            &cap.to_string(),
            "--json",
        ],
    )
    .await;
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    assert_eq!(
        summary["status"], "stopped",
        "the cap was reached: {summary}"
    );
    account("review", cap, spent());

    let cap = 30_000;
    let before = spent();
    let (ok, asked, stderr) = quire(
        c,
        data.path(),
        &[
            "ask-papers",
            ws_str,
            QUESTION,
            "--papers",
            "all",
            "--max-tokens",
            &cap.to_string(),
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(asked["status"], "stopped", "the cap was reached: {asked}");
    account("ask", cap, spent() - before);

    quire(
        c,
        data.path(),
        &["table", "columns", ws_str, "--template", "dataset"],
    )
    .await;
    let before = spent();
    let (ok, filled, stderr) = quire(
        c,
        data.path(),
        &[
            "table",
            "fill",
            ws_str,
            "--papers",
            "all",
            "--max-tokens",
            &cap.to_string(),
        ],
    )
    .await;
    assert!(ok, "{stderr}");
    assert!(
        !filled["stopped"].is_null(),
        "the cap was reached: {filled}"
    );
    account("table fill", cap, spent() - before);

    eprintln!("worst overshoot of a token cap: {worst}");
    assert_eq!(worst, 0);
}

#[tokio::test]
async fn a_denser_tokenizer_is_not_a_cut_prompt_and_the_agents_run_their_steps() {
    // Gemma 3 on llama.cpp: an 8k slot, a large vocabulary, and a chat
    // template that leaves the tool schemas out. Every prompt fits.
    let rig = Rig::new(
        &dev_pdfs("databases", 2),
        ServerOptions {
            context_window: Some(8_192),
            tokenizer: Tokenizer::DENSE,
            ..ServerOptions::default()
        },
    )
    .await;
    let (summary, calls) = rig.run_recorded().await;
    assert_eq!(calls.cut(""), 0, "no prompt that fits is judged cut");
    let steps = calls
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.purpose.starts_with("agent planner") && c.outcome == "ok")
        .count();
    assert!(steps > 0, "the planner ran its steps");
    assert_eq!(summary.counts.not_scored, 0, "{:?}", summary.papers);
    assert!(
        summary
            .agent
            .as_ref()
            .is_some_and(|a| a.covered_by_sweep == 0),
        "the agents read the papers, not the sweep"
    );
}

#[tokio::test]
async fn a_sparser_tokenizer_that_fills_the_window_is_a_cut_and_the_paper_is_read_smaller() {
    // Quire's estimate says a prompt fits a 4k Ollama; a tokenizer at a
    // token per 1.5 bytes makes more of it than the window holds. Ollama
    // keeps the tail and says it read its whole window.
    let (_server, config) = default_ollama(Tokenizer {
        bytes_per_token: 1.5,
        renders_tools: true,
    })
    .await;
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 2));
    let ws = data.path().join("ws");
    let out = quire_review(
        folder.path(),
        QUESTION,
        config.path(),
        data.path(),
        &["--workspace", ws.to_str().unwrap(), "--json"],
    )
    .await;
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let calls = calls_of(&ws);
    assert!(
        calls.iter().any(|(_, outcome, _)| outcome == "prompt_cut"),
        "a prompt the server filled its window with is judged cut: {calls:?}"
    );
    assert_eq!(summary["counts"]["notScored"], 0, "{summary}");
}

#[tokio::test]
async fn calls_in_flight_together_never_cross_a_cap_between_them() {
    let server = ScriptedServer::start(ServerOptions {
        latency: std::time::Duration::from_millis(100),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let settings = quire::llm::ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        concurrency: 8,
        max_output_tokens: 200,
        ..quire::llm::ModelSettings::default()
    };
    let cap = 5_000;
    let (client, budget) = capped_client(settings, None, cap);
    // Eight calls of about 1,000 tokens each, each checked before it starts
    // as every run does, all at once.
    let request = quire::llm::ChatRequest {
        messages: vec![
            quire::llm::Message::system("Answer briefly."),
            quire::llm::Message::user("The log is replicated before commit. ".repeat(110)),
        ],
        ..quire::llm::ChatRequest::default()
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    let calls = (0..8).map(|_| async {
        budget.check(1_000, 200).ok()?;
        client.complete(&request, "ask", &cancel).await.ok()
    });
    let answered = futures_util::future::join_all(calls)
        .await
        .into_iter()
        .flatten()
        .count();
    let (input, output) = budget.tokens();
    let over = (input + output).saturating_sub(cap);
    eprintln!(
        "{answered} of 8 calls made, {} tokens spent under a cap of {cap}; overshoot {over}",
        input + output
    );
    assert!(answered >= 2, "the cap leaves room for several calls");
    assert_eq!(over, 0);
}
