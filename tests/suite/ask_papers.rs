//! Asking a review's papers through the CLI: passages with no model; with
//! the scripted model server (real HTTP), an answer whose every citation is
//! a source whose quote is on its page; a second asking reads no paper
//! again; a cap stops it before any paper is read; the history; and a
//! question whose papers are read through a Batch API.

use std::path::Path;

use quire::llm::Protocol;
use serde_json::Value;
use testkit::{BatchOptions, ScriptedServer, ServerOptions};

use super::support::{
    dev_pdfs, folder_of, json_files_in, offline_review, one_call_at_a_time, quire_await,
    quire_json, scripted_config, user_messages_under,
};
use quire::review::paper_text;
use quire::workspace::{PaperId, Workspace};

/// What the per-paper reader's system prompt says.
const PAPER_PROMPT: &str = "You answer a question from one paper";

const QUESTION: &str =
    "How do databases recover after a crash and keep committed transactions durable?";

/// `quire ask-papers ... --json`, awaited: the scripted server shares the
/// test's runtime, so the call must not block it.
async fn ask(config: &Path, data: &Path, args: &[&str]) -> Value {
    let mut full = vec!["ask-papers"];
    full.extend_from_slice(args);
    full.push("--json");
    let out = quire_await(config, data, &full).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every source's quote is on the page it cites, in the paper's own text.
fn assert_sources_on_their_pages(ws: &Path, record: &Value) {
    let ws = Workspace::open_read_only(ws).unwrap();
    let sources = record["sources"].as_array().unwrap();
    assert!(!sources.is_empty(), "{record}");
    for s in sources {
        let id = PaperId(s["paper"].as_str().unwrap().to_owned());
        let pages = paper_text::load(&ws, &id).unwrap().unwrap();
        let page = s["page"].as_u64().unwrap() as usize;
        let quote = s["quote"].as_str().unwrap();
        let words: Vec<&str> = quote.split_whitespace().take(6).collect();
        let text: String = pages[page - 1]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            text.contains(&words.join(" ")),
            "{quote:?} is not on page {page} of {}",
            id.0
        );
    }
}

fn asked_of_papers(server: &ScriptedServer) -> usize {
    user_messages_under(server, PAPER_PROMPT).len()
}

#[tokio::test]
async fn a_question_is_answered_from_verified_quotes_and_asked_again_reads_nothing_twice() {
    let mut pdfs = dev_pdfs("databases", 4);
    pdfs.extend(dev_pdfs("machine-learning", 2));
    let folder = folder_of(&pdfs);
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    let ws_path = Path::new(&ws);

    // No model: passages, labelled as such, each on its page.
    let none = tempfile::tempdir().unwrap();
    let passages = ask(
        none.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all"],
    )
    .await;
    assert_eq!(passages["mode"], "passages");
    assert_eq!(passages["status"], "done");
    assert_eq!(passages["coverage"]["considered"], 6);
    assert_sources_on_their_pages(ws_path, &passages);

    // With a model: an answer citing its sources, each quote verified.
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    // Priced before anything is spent.
    let estimate = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all", "--estimate"],
    )
    .await;
    assert!(server.requests().is_empty(), "an estimate calls no model");
    let to_read = estimate["papers"].as_u64().unwrap();
    assert!(to_read >= 2, "{estimate}");
    assert_eq!(estimate["reused"], 0);
    assert!(estimate["calls"].as_u64().unwrap() > to_read, "{estimate}");
    let answered = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all"],
    )
    .await;
    assert_eq!(answered["mode"], "answer", "{answered}");
    assert_eq!(answered["status"], "done");
    assert_eq!(answered["model"], "scripted-reader");
    assert_sources_on_their_pages(ws_path, &answered);
    let sources = answered["sources"].as_array().unwrap().len();
    let text = answered["answer"].as_str().unwrap();
    let cited: Vec<usize> = text
        .match_indices('[')
        .filter_map(|(i, _)| text[i + 1..].split(']').next()?.parse().ok())
        .collect();
    assert!(!cited.is_empty(), "{text}");
    assert!(cited.iter().all(|n| (1..=sources).contains(n)), "{text}");
    let coverage = &answered["coverage"];
    assert_eq!(coverage["considered"], 6);
    assert!(coverage["read"].as_u64().unwrap() >= coverage["contributed"].as_u64().unwrap());
    assert!(coverage["contributed"].as_u64().unwrap() >= 2, "{coverage}");
    let id = answered["id"].as_str().unwrap();
    let markdown =
        std::fs::read_to_string(ws_path.join("asks").join(id).join("answer.md")).unwrap();
    assert!(
        markdown.contains("**Sources** (each quote checked on its page)"),
        "{markdown}"
    );
    assert!(markdown.contains("[1] *"), "{markdown}");

    assert_eq!(answered["coverage"]["read"].as_u64().unwrap(), to_read);
    let after = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all", "--estimate"],
    )
    .await;
    assert_eq!(after["papers"], 0, "everything answered before: {after}");
    assert_eq!(after["reused"].as_u64().unwrap(), to_read);

    // Asked again: every paper's answer comes from the workspace.
    let read_once = asked_of_papers(&server);
    assert!(read_once >= answered["coverage"]["read"].as_u64().unwrap() as usize);
    let again = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all"],
    )
    .await;
    assert_eq!(asked_of_papers(&server), read_once, "no paper read twice");
    assert_eq!(again["sources"], answered["sources"]);

    // A cap too small for any paper stops before reading one.
    let capped = ask(
        config.path(),
        data.path(),
        &[
            &ws,
            "Which papers measure recovery time, and how?",
            "--max-tokens",
            "10",
        ],
    )
    .await;
    assert_eq!(capped["status"], "stopped", "{capped}");
    assert_eq!(capped["coverage"]["read"], 0, "{capped}");
    assert_eq!(asked_of_papers(&server), read_once);
    // The record kept says why it stopped, for the history.
    let kept: Value = serde_json::from_slice(
        &std::fs::read(
            Path::new(&ws)
                .join("asks")
                .join(capped["id"].as_str().unwrap())
                .join("ask.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert!(
        kept["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("token cap of 10")),
        "{kept}"
    );

    // A question no paper speaks to reads nothing and says so.
    let unasked = ask(
        config.path(),
        data.path(),
        &[
            &ws,
            "What is the boiling point of tungsten in lunar regolith?",
        ],
    )
    .await;
    assert!(
        unasked["answer"]
            .as_str()
            .unwrap()
            .contains("so none was read")
            || unasked["answer"]
                .as_str()
                .unwrap()
                .starts_with("None of the"),
        "{unasked}"
    );

    let history = quire_await(
        config.path(),
        data.path(),
        &["asks", &ws, "--to-report", id, "--json"],
    )
    .await;
    let history: Value = serde_json::from_slice(&history.stdout).unwrap();
    let questions: Vec<&str> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["question"].as_str().unwrap())
        .collect();
    assert!(questions.contains(&QUESTION), "{questions:?}");
    // Asked with a model, the passages' question is the same ask, answered.
    assert_eq!(questions.len(), 3, "{questions:?}");

    // Put in the report on request: the next run's report carries it.
    let id = id.to_owned();
    let marked: Vec<&Value> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["inReport"] == true)
        .collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["id"], id.as_str());
    quire_json(
        data.path(),
        &[
            "review",
            folder.path().to_str().unwrap(),
            "-q",
            QUESTION,
            "--json",
        ],
    );
    let report = std::fs::read_to_string(ws_path.join("report.md")).unwrap();
    assert!(
        report.contains("## Questions asked of the papers"),
        "{report}"
    );
    assert!(report.contains(&format!("### {QUESTION}")), "{report}");
}

/// The papers asked, by the title in each per-paper request.
fn papers_asked(server: &ScriptedServer) -> Vec<String> {
    user_messages_under(server, PAPER_PROMPT)
        .iter()
        .filter_map(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("Paper: "))
                .map(str::to_owned)
        })
        .collect()
}

#[tokio::test]
async fn killed_mid_question_the_same_question_resumes_and_asks_no_paper_twice() {
    let (server, config) = one_call_at_a_time().await;
    let folder = folder_of(&dev_pdfs("databases", 4));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    let cache = Path::new(&ws).join("asks").join("cache");
    let mut child =
        tokio::process::Command::from(super::support::quire_command(config.path(), data.path()))
            .args([
                "ask-papers",
                &ws,
                QUESTION,
                "--papers",
                "all",
                "--read-all",
                "--json",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
    // Killed once the first paper's answer is kept, before the last.
    let cached = |dir: &Path| json_files_in(dir);
    while cached(&cache) == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    child.kill().await.unwrap();
    let kept = cached(&cache);
    assert!(kept < 4, "killed before the end ({kept} answers kept)");
    let before = papers_asked(&server);

    let resumed = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", "all", "--read-all"],
    )
    .await;
    assert_eq!(resumed["status"], "done");
    assert_eq!(resumed["coverage"]["read"], 4);
    let after = papers_asked(&server);
    let again: Vec<&String> = after[before.len()..].iter().collect();
    assert_eq!(
        again.len(),
        4 - kept,
        "only the papers not answered before: {again:?}"
    );
    assert_eq!(cached(&cache), 4);
}

#[tokio::test]
async fn a_question_no_paper_could_be_read_for_fails_and_says_why_not_that_none_answers() {
    let folder = folder_of(&dev_pdfs("databases", 2));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    // A model that answers every request with prose, never the JSON asked.
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    server.push((0..40).map(|_| testkit::Step::text("I think the paper is about databases.")));
    let config = scripted_config(&server.base_url(), "");
    let out = quire_await(
        config.path(),
        data.path(),
        &["ask-papers", &ws, QUESTION, "--papers", "all", "--json"],
    )
    .await;
    assert!(!out.status.success(), "the exit code says it failed");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Why, and how many.
    assert!(
        stderr.contains("every paper read failed (2 of 2)"),
        "{stderr}"
    );
    assert!(stderr.contains("not the JSON object asked for"), "{stderr}");
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["status"], "failed", "{record}");
    let answer = record["answer"].as_str().unwrap_or_default();
    assert!(!answer.contains("answers this question"), "{answer}");
    assert_eq!(record["coverage"]["read"], 0);
    assert_eq!(record["coverage"]["failed"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn papers_named_twice_are_read_once() {
    let folder = folder_of(&dev_pdfs("databases", 2));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    let mut ids: Vec<String> = std::fs::read_dir(Path::new(&ws).join("papers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    // The first paper three times: in full, as a prefix, in full again.
    let named = format!("{},{},{},{}", ids[0], ids[1], &ids[0][..8], ids[0]);
    let record = ask(
        config.path(),
        data.path(),
        &[&ws, QUESTION, "--papers", &named],
    )
    .await;
    assert_eq!(record["coverage"]["considered"], 2, "{record}");
    assert_eq!(asked_of_papers(&server), 2, "each paper read once");
}

#[tokio::test]
async fn a_question_asked_as_a_batch_reads_its_papers_from_batch_answers() {
    for protocol in [Protocol::Openai, Protocol::Anthropic] {
        asked_as_a_batch(protocol).await;
    }
}

async fn asked_as_a_batch(protocol: Protocol) {
    let folder = folder_of(&dev_pdfs("databases", 3));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    let ws_path = Path::new(&ws);
    let options = BatchOptions {
        expire_every: Some(2),
        ..BatchOptions::default()
    };
    let (server, config) = super::batch_support::scripted_batch_config(
        options,
        super::batch_support::SPOILS_FIRST_JSON,
        protocol,
    )
    .await;
    let args = [
        &ws,
        QUESTION,
        "--papers",
        "all",
        "--read-all",
        "--batch",
        "--batch-poll",
        "0.01",
    ];
    let answered = ask(config.path(), data.path(), &args).await;
    assert_eq!(answered["status"], "done", "{protocol:?}: {answered}");
    assert_eq!(answered["coverage"]["read"], 3, "{answered}");
    assert_sources_on_their_pages(ws_path, &answered);

    // The papers were read from the batches (a second round for the lines
    // that expired and the re-asks of answers that were not JSON), none at
    // the chat endpoint; the answer itself is one call composed there.
    let reasks = super::batch_support::assert_calls_batched(
        &server,
        protocol,
        ws_path,
        "batches/ask",
        "ask_paper",
        3,
    )
    .await;
    assert!(
        reasks >= 3,
        "{protocol:?}: every part's re-ask went in a batch"
    );
    assert_eq!(
        asked_of_papers(&server),
        0,
        "{protocol:?}: no paper asked at the chat endpoint"
    );
}

#[tokio::test]
async fn a_question_asked_as_a_batch_under_a_cost_cap_uploads_nothing_past_it() {
    // A priced model and a cap below one paper's reading: each batch line
    // is priced at the batch rate before upload, so no batch is made (it
    // was priced from the run's spend, nothing at the start, and uploaded
    // every paper), and the question stops at the cap as an interactive
    // one does.
    let folder = folder_of(&dev_pdfs("databases", 3));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(data.path(), folder.path(), QUESTION);
    let (server, config) = super::batch_support::scripted_batch_config(
        BatchOptions::default(),
        testkit::Policy::Diligent,
        Protocol::Openai,
    )
    .await;
    super::batch_support::price_the_scripted_model(config.path());
    let args = [
        &ws,
        QUESTION,
        "--papers",
        "all",
        "--read-all",
        "--batch",
        "--batch-poll",
        "0.01",
        "--max-cost",
        "0.000001",
    ];
    let record = ask(config.path(), data.path(), &args).await;
    assert_eq!(record["status"], "stopped", "{record}");
    assert!(
        record["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("cost cap")),
        "{record}"
    );
    assert_eq!(server.batch_stats().batches_created, 0, "{record}");
    assert_eq!(asked_of_papers(&server), 0, "nothing past the cap was sent");
}
