//! A server that cuts prompts the way Ollama does past its `num_ctx` (from
//! the front, behind a 200 and a normal finish, `prompt_tokens` of what it
//! kept): no call's answer is trusted, whatever the call (agent steps, reader
//! calls, `answer_from_pdf`); each is sent again smaller, and a profile that
//! keeps cutting is told how to stop it. And the counts that are no cut: a
//! server that names only the uncached part of a prompt, or whose tokenizer
//! splits text finer than Quire's count (prompts are then sized by it).

use std::sync::Arc;
use std::time::Duration;

use quire::llm::accounting::PriceTable;
use quire::llm::secrets::ApiKey;
use quire::llm::{ChatRequest, HttpProvider, LlmError, Message, ModelClient};
use quire::review::reading::verify::quote_on_page;
use quire::workspace::Workspace;
use testkit::{Mistake, Policy, ServerOptions, Tokenizer};
use tokio_util::sync::CancellationToken;

use super::agent_review::{Rig, results};
use super::support::{Calls, dev_pdfs};

#[tokio::test]
async fn a_review_against_a_server_that_cuts_prompts_reads_every_paper_in_smaller_calls() {
    let rig = Rig::new(
        &dev_pdfs("distributed-systems", 3),
        ServerOptions {
            cuts_prompts_to: Some(1_500),
            ..ServerOptions::default()
        },
    )
    .await;
    let (summary, calls) = rig.run_recorded().await;

    // Reader calls over whole papers were cut, caught, and read in parts.
    assert!(calls.cut("reader") > 0, "reader calls were cut");
    assert!(calls.cut("agent") > 0, "agent steps were cut");
    assert_eq!(summary.counts.screened, 3);
    assert_eq!(summary.counts.not_scored, 0, "{:?}", summary.papers);
    let ws = Workspace::open_read_only(&rig.workspace()).unwrap();
    for (title, result, pages) in results(&ws) {
        for q in &result.evidence {
            assert!(quote_on_page(&q.text, q.page, &pages), "{title}: {q:?}");
        }
    }
    // Every cut call's tokens count: they were spent.
    let spent: u64 = calls
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.outcome == "prompt_cut")
        .map(|c| c.input_tokens)
        .sum();
    assert!(spent > 0);
}

#[tokio::test]
async fn answer_from_pdf_reads_a_cut_paper_again_in_parts_and_a_one_shot_call_names_the_fix() {
    let rig = Rig::new(
        &[],
        ServerOptions {
            cuts_prompts_to: Some(1_500),
            ..ServerOptions::default()
        },
    )
    .await;
    let calls = Arc::new(Calls::default());
    let client = client_of(&rig, calls.clone());
    let reader = reader_of(&client);
    let pages: Vec<String> = (1..=3)
        .map(|n| {
            format!("Page {n} says the log is replicated to a majority of servers before a write is acknowledged. ")
                .repeat(60)
        })
        .collect();
    let answer = reader
        .answer_question(Some("A paper"), &pages, "How is the log replicated?")
        .await
        .unwrap();
    assert!(calls.cut("answer_from_pdf") > 0);
    assert!(answer.contains("Pages "), "{answer}");

    // A call that cannot be made smaller fails with what to set.
    let long = "word ".repeat(12_000);
    let request = ChatRequest {
        messages: vec![Message::system("Answer briefly."), Message::user(long)],
        ..ChatRequest::default()
    };
    let error = client
        .complete(&request, "ask", &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::PromptCut { .. }), "{error:?}");
    assert!(
        error.to_string().contains("OLLAMA_CONTEXT_LENGTH"),
        "{error}"
    );
}

#[tokio::test]
async fn a_profile_claiming_more_context_than_ollama_serves_is_fitted_before_the_first_call() {
    let server = testkit::ScriptedServer::start(ServerOptions {
        cuts_prompts_to: Some(4_096),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let pdfs = dev_pdfs("databases", 2);
    let folder = super::support::folder_of(&pdfs);
    // The profile says 32k, as many do; the Ollama behind it serves 4k.
    let config = super::support::scripted_config(
        &server.base_url(),
        "context_window = 32768\nmax_output_tokens = 4096\n",
    );
    let data = tempfile::tempdir().unwrap();
    let ws = data.path().join("ws");
    let out = super::support::quire_review(
        folder.path(),
        "How do databases recover from crashes?",
        config.path(),
        data.path(),
        &["--workspace", ws.to_str().unwrap(), "--json"],
    )
    .await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("Ollama serves scripted-reader with a 4096-token context")
            && stderr.contains("OLLAMA_CONTEXT_LENGTH=32768"),
        "the user is told what to set: {stderr}"
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "done", "{summary}");
    assert_eq!(summary["counts"]["notScored"], 0, "{summary}");
    // No prompt was sent that the server had to cut: every one fit.
    super::support::assert_every_prompt_within(&server, 4_096);
    let calls = std::fs::read_to_string(ws.join("model-calls.jsonl")).unwrap();
    assert!(!calls.contains("\"prompt_cut\""), "{calls}");
}

#[tokio::test]
async fn a_server_that_counts_only_the_uncached_prompt_is_not_taken_for_one_that_cuts() {
    // A llama.cpp-like server that says its window, counts with a large
    // vocabulary, and names only what its prompt cache did not hold; its
    // reader gives answers that contradict their scores, so parts are
    // asked again with the same long prompt in front.
    let rig = Rig::new(
        &dev_pdfs("distributed-systems", 3),
        ServerOptions {
            context_window: Some(32_768),
            tokenizer: Tokenizer::DENSE,
            counts_only_uncached: true,
            policy: Policy::Fallible {
                seed: 11,
                rate: 0.5,
                only: &[Mistake::ContradictoryVerdict],
            },
            ..ServerOptions::default()
        },
    )
    .await;
    let (summary, calls) = rig.run_recorded().await;
    assert_eq!(summary.counts.screened, 3, "{:?}", summary.papers);
    let records = calls.0.lock().unwrap().clone();
    // The server did name a re-asked prompt by its few uncached tokens.
    assert!(
        records
            .iter()
            .any(|c| c.purpose.starts_with("reader") && c.input_tokens < 100),
        "no reader call was counted from the cache: {:?}",
        records.iter().map(|c| c.input_tokens).collect::<Vec<_>>()
    );
    let judged_cut: Vec<_> = records
        .iter()
        .filter(|c| c.outcome.starts_with("prompt_"))
        .map(|c| (&c.purpose, c.input_tokens))
        .collect();
    assert!(judged_cut.is_empty(), "{judged_cut:?}");
}

/// A client of the rig's server, recording its calls in `calls`.
fn client_of(rig: &Rig, calls: Arc<Calls>) -> Arc<ModelClient> {
    let provider =
        HttpProvider::new(rig.settings.clone(), Some(ApiKey::new(rig.key.clone()))).unwrap();
    Arc::new(
        ModelClient::new("scripted", provider, PriceTable::builtin())
            .with_log(calls)
            .with_base_backoff(Duration::from_millis(10)),
    )
}

/// The built-in reader over `client`.
fn reader_of(client: &Arc<ModelClient>) -> quire::review::reading::Reader {
    let agents =
        quire::agent::AgentSet::load(None, &quire::review::engine::agent::TOOL_NAMES).unwrap();
    quire::review::reading::Reader::new(
        client.clone(),
        agents.get("reader").unwrap().clone(),
        CancellationToken::new(),
    )
}

#[tokio::test]
async fn prompts_are_sized_by_the_servers_own_count_once_an_answer_has_shown_it() {
    // A small vocabulary: the server counts about 1.8 times Quire's tokens.
    let mut rig = Rig::new(
        &[],
        ServerOptions {
            context_window: Some(8_192),
            tokenizer: Tokenizer::SPARSE,
            ..ServerOptions::default()
        },
    )
    .await;
    rig.settings.context_window = 8_192;
    let calls = Arc::new(Calls::default());
    let client = client_of(&rig, calls.clone());
    assert_eq!(client.prompt_settings().context_window, 8_192);
    let reader = reader_of(&client);
    let pages: Vec<String> = (1..=12)
        .map(|n| {
            format!("Page {n}: the leader appends each entry to its log and replicates it to a majority of followers before it commits. ")
                .repeat(14)
        })
        .collect();
    let input = quire::review::reading::PaperInput {
        title: Some("A paper"),
        pages: &pages,
        content: &pages,
        question: "How is the log replicated?",
        criteria: &[],
        protocol: None,
    };
    let planned = reader.chunk_tokens(&input);
    let first = reader.read(&input).await.unwrap();
    assert!(first.chunks > 1, "{first:?}");
    // The first parts were too long by the server's count and were read in
    // halves; what they showed now sizes every part.
    let refused = |calls: &Calls| {
        calls
            .outcomes()
            .iter()
            .filter(|o| o.as_str() == "context_too_long")
            .count()
    };
    let refused_first = refused(&calls);
    assert!(refused_first > 0, "{:?}", calls.outcomes());
    let window = client.prompt_settings().context_window;
    assert!(window < 8_192 * 2 / 3, "window by Quire's count: {window}");
    assert!(reader.chunk_tokens(&input) < planned * 2 / 3);
    reader.read(&input).await.unwrap();
    assert_eq!(refused(&calls), refused_first, "{:?}", calls.outcomes());
}
