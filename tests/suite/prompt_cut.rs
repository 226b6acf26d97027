//! A server that cuts prompts the way Ollama does past its `num_ctx` (from
//! the front, behind a 200 and a normal finish, `prompt_tokens` of what it
//! kept): no call's answer is trusted, whatever the call (agent steps, reader
//! calls, `answer_from_pdf`); each is sent again smaller, and a profile that
//! keeps cutting is told how to stop it.

use std::sync::Arc;
use std::time::Duration;

use quire::agent::{Caps, EventLog};
use quire::commands::reviews;
use quire::commands::{AppContext, AppPaths};
use quire::llm::accounting::PriceTable;
use quire::llm::secrets::ApiKey;
use quire::llm::{ChatRequest, HttpProvider, LlmError, Message, ModelClient};
use quire::review::reading::verify::quote_on_page;
use quire::review::run::EngineSetup;
use quire::workspace::Workspace;
use testkit::ServerOptions;
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
    let calls = Arc::new(Calls::default());
    let mut request = rig.request(Caps::default());
    if let EngineSetup::Agent(setup) = &mut request.engine {
        setup.extra_log = Some(calls.clone());
    }
    let ctx = AppContext::new(AppPaths::new(rig.data.path()));
    let summary = reviews::start(&ctx, request, EventLog::new())
        .finish()
        .await
        .unwrap();

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
    let provider =
        HttpProvider::new(rig.settings.clone(), Some(ApiKey::new(rig.key.clone()))).unwrap();
    let client = Arc::new(
        ModelClient::new("scripted", provider, PriceTable::builtin())
            .with_log(calls.clone())
            .with_base_backoff(Duration::from_millis(10)),
    );
    let agents = quire::agent::AgentSet::load(None, &quire::review::agentic::TOOL_NAMES).unwrap();
    let reader = quire::review::reading::Reader::new(
        client.clone(),
        agents.get("reader").unwrap().clone(),
        CancellationToken::new(),
    );
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
