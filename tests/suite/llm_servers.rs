//! The model client against what real servers do beyond the protocol's happy
//! path (OpenAI-compatible servers' quirks, reasoning sent back in tool loops,
//! empty arguments), and every call recorded in the workspace and the index
//! without the key; the documented examples parse.

use std::sync::Arc;

use quire::commands::models::WorkspaceCallLog;
use quire::commands::{AppContext, AppPaths};
use quire::index::Index;
use quire::llm::accounting::PriceTable;
use quire::llm::secrets::ApiKey;
use quire::llm::{HttpProvider, Message, ModelClient, ModelSettings, Protocol};
use quire::workspace::{TaskMeta, Workspace, WorkspaceId};
use serde_json::{Value, json};
use testkit::{Quirks, ScriptedCall, ServerOptions, Step};

use super::llm::{Rig, ask, ask_with_tools, call};
use super::support::Calls;
use quire::llm::LlmError;

#[tokio::test]
async fn openai_server_quirks_are_survived() {
    let rig = Rig::new(Protocol::Openai).await;
    let client = rig.client();
    let two_calls = || {
        vec![
            ScriptedCall::new("read_file", json!({"path": "a.md"})),
            ScriptedCall::new("grep", json!({"pattern": "index"})),
        ]
    };
    let cases = [
        (
            "llama.cpp empty ids",
            Quirks {
                empty_ids: true,
                ..Quirks::default()
            },
        ),
        (
            "llama.cpp object arguments",
            Quirks {
                object_arguments: true,
                ..Quirks::default()
            },
        ),
        (
            "Ollama no index",
            Quirks {
                no_index: true,
                ..Quirks::default()
            },
        ),
        (
            "Ollama whole call in one chunk",
            Quirks {
                whole_call_in_one_chunk: true,
                no_index: true,
                ..Quirks::default()
            },
        ),
        (
            "LM Studio repeated empty name",
            Quirks {
                repeated_empty_name: true,
                ..Quirks::default()
            },
        ),
        (
            "OpenRouter comments and keep-alives",
            Quirks {
                comments_and_keepalives: true,
                ..Quirks::default()
            },
        ),
        (
            "no id, object or created",
            Quirks {
                no_envelope_fields: true,
                ..Quirks::default()
            },
        ),
        (
            "EOF without [DONE]",
            Quirks {
                no_done: true,
                ..Quirks::default()
            },
        ),
    ];
    for (label, quirks) in cases {
        for stream in [true, false] {
            rig.server
                .push([Step::tools(two_calls()).with_quirks(quirks.clone())]);
            let mut request = ask_with_tools("go");
            request.stream = stream;
            let provider = HttpProvider::new(
                ModelSettings {
                    stream,
                    ..rig.settings.clone()
                },
                Some(ApiKey::new(rig.key.clone())),
            )
            .unwrap();
            let client = if stream {
                &client
            } else {
                &ModelClient::new("t", provider, PriceTable::builtin())
            };
            let answer = call(client, &request)
                .await
                .0
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            let got: Vec<(String, Value)> = answer
                .tool_calls
                .iter()
                .map(|c| (c.name.clone(), c.arguments.clone()))
                .collect();
            assert_eq!(
                got,
                [
                    ("read_file".to_owned(), json!({"path": "a.md"})),
                    ("grep".to_owned(), json!({"pattern": "index"}))
                ],
                "{label}, stream {stream}"
            );
            let ids: Vec<&str> = answer.tool_calls.iter().map(|c| c.id.as_str()).collect();
            assert!(
                ids.iter().all(|id| !id.is_empty()) && ids[0] != ids[1],
                "{label}: {ids:?}"
            );
        }
    }
}

#[tokio::test]
async fn reasoning_goes_back_to_the_server_in_tool_loops() {
    let rig = Rig::new(Protocol::Openai).await;
    rig.server.push([
        Step::tools(vec![ScriptedCall::new("grep", json!({"pattern": "x"}))]).with_quirks(Quirks {
            reasoning: Some("I should search.".into()),
            ..Quirks::default()
        }),
        Step::text("done"),
    ]);
    let client = rig.client();
    let mut request = ask_with_tools("go");
    let first = call(&client, &request).await.0.unwrap();
    request.messages.push(Message::assistant(&first));
    request
        .messages
        .push(Message::tool_result(&first.tool_calls[0].id, "no matches"));
    call(&client, &request).await.0.unwrap();
    let sent = rig.server.requests().pop().unwrap();
    let assistant = sent.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "assistant")
        .unwrap()
        .clone();
    assert_eq!(assistant["reasoning_content"], json!("I should search."));
}

// ------------------------------------------------ accounting and secrecy

#[tokio::test]
async fn calls_are_recorded_in_the_workspace_and_the_index_without_the_key() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let root = data.path().join("workspaces").join("w1");
    let task = TaskMeta::new(WorkspaceId("w1".into()), "Test".into(), data.path());
    let workspace = Arc::new(Workspace::create(&root, &task).unwrap());

    let rig = Rig::with(Protocol::Openai, ServerOptions::default(), |s| {
        s.model = "gpt-4o-mini".into()
    })
    .await;
    rig.server.push([
        Step::rate_limited("0"),
        Step::text("priced answer"),
        Step::text("unpriced, no usage").with_quirks(Quirks {
            no_usage: true,
            ..Quirks::default()
        }),
    ]);
    let log = Arc::new(WorkspaceCallLog::new(workspace.clone(), ctx.clone()).unwrap());
    let client = rig.client().with_log(log.clone());
    call(&client, &ask("first question")).await.0.unwrap();
    call(&client, &ask("second question")).await.0.unwrap();
    log.flush();

    let records = workspace.model_calls().unwrap();
    let outcomes: Vec<&str> = records.iter().map(|r| r.outcome.as_str()).collect();
    assert_eq!(outcomes, ["rate_limited", "ok", "ok"]);
    assert_eq!(records[1].attempt, 2);
    assert_eq!(records[1].model, "gpt-4o-mini");
    assert!(records[1].cost_usd.unwrap() > 0.0);
    assert!(!records[1].tokens_estimated && records[2].tokens_estimated);
    assert!(records[2].input_tokens > 0 && records[2].output_tokens > 0);

    let (index, _) = Index::open(&data.path().join("index.sqlite3")).unwrap();
    let indexed = index.dump().unwrap().model_calls;
    assert_eq!(
        indexed.iter().map(|r| r.record.clone()).collect::<Vec<_>>(),
        records
    );
    let usage = index.model_usage("w1").unwrap();
    assert_eq!(usage.calls, 3);
    let before = index.dump().unwrap();
    drop(index);
    let (mut rebuilt, _) = Index::open(&data.path().join("rebuilt.sqlite3")).unwrap();
    rebuilt.rebuild(&[data.path().join("workspaces")]).unwrap();
    assert_eq!(rebuilt.dump().unwrap().model_calls, before.model_calls);

    // No message text and no key anywhere on disk.
    drop(client);
    for entry in super::support::every_file(data.path()) {
        let bytes = std::fs::read(&entry).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(&rig.key),
            "key leaked into {}",
            entry.display()
        );
        if entry.ends_with("model-calls.jsonl") {
            assert!(!text.contains("first question") && !text.contains("priced answer"));
        }
    }
}

// ------------------------------------------------------------ documentation

#[test]
fn docs_examples_parse_and_validate() {
    use quire::llm::settings::SettingsFile;
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/models.md")).unwrap();
    let blocks: Vec<&str> = doc
        .split("```toml\n")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    let settings: Vec<&str> = blocks
        .iter()
        .copied()
        .filter(|b| b.contains("[profiles."))
        .collect();
    assert!(settings.len() >= 2, "docs/models.md has settings examples");
    let dir = tempfile::tempdir().unwrap();
    let mut profiles = 0;
    for block in settings {
        std::fs::write(dir.path().join("models.toml"), block).unwrap();
        let file = SettingsFile::load(dir.path()).unwrap();
        for name in file.profiles.keys() {
            file.profile(dir.path(), Some(name))
                .unwrap_or_else(|e| panic!("profile {name}: {e}"));
            profiles += 1;
        }
    }
    // OpenAI, Anthropic, Ollama, vLLM, vLLM replicas as a pool, a LiteLLM
    // proxy, llama.cpp, LM Studio, OpenRouter, DeepSeek, a small local
    // model, and the scripted server.
    assert_eq!(profiles, 12);
    let prices = blocks.iter().find(|b| b.contains("[models.")).unwrap();
    std::fs::write(dir.path().join("prices.toml"), prices).unwrap();
    let table = PriceTable::load(dir.path()).unwrap();
    assert_eq!(table.price("qwen3:8b").map(|p| p.input), Some(0.0));
}

#[tokio::test]
async fn empty_arguments_mean_no_arguments() {
    let rig = Rig::new(Protocol::Openai).await;
    for stream in [true, false] {
        rig.server
            .push([Step::tools(vec![ScriptedCall::raw("read_todos", "")])]);
        let mut settings = rig.settings.clone();
        settings.stream = stream;
        let provider = HttpProvider::new(settings, Some(ApiKey::new(rig.key.clone()))).unwrap();
        let client = ModelClient::new("t", provider, PriceTable::builtin());
        let answer = call(&client, &ask_with_tools("go")).await.0.unwrap();
        assert_eq!(answer.tool_calls[0].arguments, json!({}), "stream {stream}");
    }
}

/// Quirks both protocols can show: missing usage (counted locally instead),
/// odd stop reasons, a stream with no terminator, reasoning text.
async fn shared_quirks_are_survived(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let calls = Arc::new(Calls::default());
    let client = rig.client().with_log(calls.clone());
    let cases = [
        Quirks {
            no_usage: true,
            ..Quirks::default()
        },
        Quirks {
            unknown_finish_reason: Some("eos".into()),
            ..Quirks::default()
        },
        Quirks {
            unknown_finish_reason: Some(String::new()),
            ..Quirks::default()
        },
        Quirks {
            no_done: true,
            ..Quirks::default()
        },
        Quirks {
            reasoning: Some("Let me think about indexes.".into()),
            ..Quirks::default()
        },
    ];
    for quirks in cases {
        let label = format!("{quirks:?}");
        rig.server
            .push([Step::text("Quirky but whole.").with_quirks(quirks.clone())]);
        let answer = call(&client, &ask("hi"))
            .await
            .0
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        assert_eq!(answer.text, "Quirky but whole.", "{label}");
        if quirks.reasoning.is_some() {
            assert_eq!(answer.reasoning, "Let me think about indexes.");
        }
    }
    let records = calls.0.lock().unwrap().clone();
    assert!(
        records[0].tokens_estimated && records[0].input_tokens > 0,
        "{:?}",
        records[0]
    );
    assert!(records[1..].iter().all(|r| !r.tokens_estimated));

    // No stop reason and no terminator: the stream was cut.
    rig.server.push((0..4).map(|_| {
        Step::text("cut").with_quirks(Quirks {
            no_done: true,
            no_finish_reason: true,
            ..Quirks::default()
        })
    }));
    let error = call(&client, &ask("hi")).await.0.unwrap_err();
    assert_eq!(error, LlmError::CutStream);
}

#[tokio::test]
async fn shared_quirks_are_survived_over_openai() {
    shared_quirks_are_survived(Protocol::Openai).await;
}

#[tokio::test]
async fn shared_quirks_are_survived_over_anthropic() {
    shared_quirks_are_survived(Protocol::Anthropic).await;
}
