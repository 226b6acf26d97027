//! Live checks against a real model endpoint. Ignored by default (no hosted
//! model is reachable in CI); run them with, for example:
//!
//! ```sh
//! QUIRE_LIVE_BASE_URL=http://localhost:11434/v1 QUIRE_LIVE_MODEL=qwen3:8b \
//!   cargo nextest run --test all live --run-ignored only
//! QUIRE_LIVE_PROTOCOL=anthropic QUIRE_LIVE_BASE_URL=https://api.anthropic.com \
//!   QUIRE_LIVE_MODEL=claude-sonnet-4-5 QUIRE_LIVE_API_KEY=... \
//!   cargo nextest run --test all live --run-ignored only
//! ```

use quire::llm::accounting::PriceTable;
use quire::llm::secrets::ApiKey;
use quire::llm::tool_calls::check_call;
use quire::llm::{
    ChatRequest, HttpProvider, Message, ModelClient, ModelSettings, Protocol, ToolChoice, ToolDef,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn live_client() -> ModelClient {
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let settings = ModelSettings {
        protocol: if var("QUIRE_LIVE_PROTOCOL") == "anthropic" {
            Protocol::Anthropic
        } else {
            Protocol::Openai
        },
        base_url: var("QUIRE_LIVE_BASE_URL"),
        model: var("QUIRE_LIVE_MODEL"),
        stream_tool_turns: var("QUIRE_LIVE_STREAM_TOOLS") != "0",
        ..ModelSettings::default()
    };
    settings
        .validate()
        .expect("set QUIRE_LIVE_BASE_URL and QUIRE_LIVE_MODEL");
    let key = Some(var("QUIRE_LIVE_API_KEY"))
        .filter(|k| !k.is_empty())
        .map(ApiKey::new);
    ModelClient::new(
        "live",
        HttpProvider::new(settings, key).unwrap(),
        PriceTable::builtin(),
    )
}

fn request(text: &str) -> ChatRequest {
    ChatRequest {
        model: String::new(),
        messages: vec![Message::user(text)],
        tools: Vec::new(),
        tool_choice: None,
        max_tokens: Some(200),
        stream: true,
        response_format: None,
        cache_prefix: false,
        affinity: None,
    }
}

#[tokio::test]
#[ignore = "needs a live model endpoint (QUIRE_LIVE_BASE_URL, QUIRE_LIVE_MODEL)"]
async fn live_plain_answer() {
    let answer = live_client()
        .complete(
            &request("Reply with the single word: ready"),
            "live",
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    assert!(answer.text.to_lowercase().contains("ready"), "{answer:?}");
}

#[tokio::test]
#[ignore = "needs a live model endpoint (QUIRE_LIVE_BASE_URL, QUIRE_LIVE_MODEL)"]
async fn live_tool_round_trip() {
    let client = live_client();
    let tools = vec![ToolDef {
        name: "read_file".into(),
        description: "Read a file by path.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }];
    let mut req =
        request("Read the file notes.md with the read_file tool, then tell me its first word.");
    req.tools = tools.clone();
    req.tool_choice = Some(ToolChoice::Auto);
    let cancel = CancellationToken::new();
    let first = client.complete(&req, "live", &cancel).await.unwrap();
    let call = first.tool_calls.first().expect("the model called the tool");
    assert_eq!(check_call(call, &tools), None);
    req.messages.push(Message::assistant(&first));
    req.messages.push(Message::tool_result(
        &call.id,
        "Pineapple is the first word.",
    ));
    let second = client.complete(&req, "live", &cancel).await.unwrap();
    assert!(
        second.text.to_lowercase().contains("pineapple"),
        "{second:?}"
    );
}
