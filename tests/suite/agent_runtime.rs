//! The general agent runtime against the scripted model server: consolidation
//! at N, 2N, ...; every part of the prompt within its share; one nudge; tool
//! calls written as text; an overflow shrinks the prompt and keeps the step;
//! model mistakes go back as tool errors; and 1,000 steps of chaos.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use quire::agent::{
    AgentSet, Budget, Caps, ModelPool, NoEvents, NoToolbox, RunStats, Runtime, TaskGraph, TaskState,
};
use quire::llm::accounting::PriceTable;
use quire::llm::{HttpProvider, ModelClient, ModelSettings};
use quire::review::engine::agent::{TOOL_NAMES, agent_tool_settings};
use quire::workspace::{Workspace, WsPath};
use serde_json::json;
use testkit::{Policy, RecordedRequest, ScriptedCall, ScriptedServer, ServerOptions, Step};
use tokio_util::sync::CancellationToken;

use super::agent_review::assert_no_torn_json;

/// A workspace (inside a parent folder of its own, so escapes are visible)
/// with one extra agent spec, and a runtime on it.
struct Bench {
    parent: tempfile::TempDir,
    ws: Workspace,
    runtime: Arc<Runtime>,
    server: ScriptedServer,
}

const WORKER: &str = r#"
name = "worker"
level = 2
description = "A test agent."
system_prompt = "You tidy a workspace."
tools = ["ls", "glob", "grep", "read_file", "write_file", "edit_file", "write_todos", "read_todos"]
"#;

async fn bench(spec_extra: &str, options: ServerOptions, window: u32) -> Bench {
    let parent = tempfile::tempdir().unwrap();
    let ws = Workspace::open_or_init(&parent.path().join("ws")).unwrap();
    ws.write(
        &WsPath::parse("agents/worker.toml").unwrap(),
        format!("{WORKER}{spec_extra}").as_bytes(),
    )
    .unwrap();
    let server = ScriptedServer::start(options).await.unwrap();
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted".into(),
        context_window: window,
        max_output_tokens: 1024,
        read_timeout_secs: 10.0,
        ..ModelSettings::default()
    };
    let client = ModelClient::new(
        "test",
        HttpProvider::new(settings, None).unwrap(),
        PriceTable::builtin(),
    )
    .with_base_backoff(Duration::from_millis(5));
    let runtime = Arc::new(Runtime {
        workspace: ws.clone(),
        agents: AgentSet::load(Some(&ws), &TOOL_NAMES).unwrap(),
        models: ModelPool::single(Arc::new(client)),
        toolbox: Arc::new(NoToolbox),
        events: Arc::new(NoEvents),
        cancel: CancellationToken::new(),
        graph: TaskGraph::open(&ws).unwrap(),
        budget: Arc::new(Budget::new(Caps::default())),
        stats: Arc::new(RunStats::default()),
        tool_settings: agent_tool_settings(),
    });
    Bench {
        parent,
        ws,
        runtime,
        server,
    }
}

fn user_prompt(r: &RecordedRequest) -> String {
    r.turns()
        .into_iter()
        .find(|t| t.role == "user")
        .map(|t| t.text)
        .unwrap_or_default()
}

fn offered(r: &RecordedRequest) -> Vec<String> {
    r.tools().into_iter().map(|t| t.name).collect()
}

fn ls() -> Step {
    Step::tools(vec![ScriptedCall::new("ls", json!({}))])
}

#[tokio::test]
async fn consolidation_comes_every_n_steps_and_overlong_notes_stay_in_their_share() {
    let b = bench(
        "step_limit = 12\nconsolidate_every = 4\nprompt_budget = 2000\n",
        ServerOptions::default(),
        32_768,
    )
    .await;
    let huge_notes = "A note the agent would not stop writing.\n".repeat(2000);
    for step in 1..=12 {
        b.server.push([if step % 4 == 0 {
            Step::tools(vec![ScriptedCall::new(
                "write_notes",
                json!({"content": huge_notes}),
            )])
        } else {
            ls()
        }]);
    }
    let outcome = b
        .runtime
        .run_task("worker", "Keep listing.", None)
        .await
        .unwrap();
    assert_eq!(outcome.status, TaskState::StepLimit);
    assert!(
        outcome.output.contains("step limit of 12"),
        "{}",
        outcome.output
    );

    let requests = b.server.requests();
    assert_eq!(requests.len(), 12);
    let consolidations: Vec<usize> = requests
        .iter()
        .enumerate()
        .filter(|(_, r)| user_prompt(r).contains("Consolidation turn"))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(consolidations, [4, 8, 12]);
    for step in &consolidations {
        let tools = offered(&requests[step - 1]);
        assert!(
            tools.iter().all(
                |t| ["write_notes", "write_todos", "read_todos", "read_file"].contains(&t.as_str())
            ),
            "{tools:?}"
        );
    }
    // After the notes were written, the notes part shows their head and says
    // where the rest is, within its share of the 2,000-token budget.
    let after = user_prompt(&requests[4]);
    let notes =
        &after[after.find("## Your notes").unwrap()..after.find("# Recent actions").unwrap()];
    assert!(notes.contains("A note the agent would not stop writing."));
    assert!(notes.contains("for the rest"), "{notes}");
    assert!(
        notes.len() < 2000,
        "{} bytes of notes in the prompt",
        notes.len()
    );
    // And the prompt does not grow with them: step 11 is within 5% of step 5.
    let size = |i: usize| requests[i].prompt_tokens();
    assert!(
        size(10) * 100 <= size(4) * 105,
        "{} vs {}",
        size(10),
        size(4)
    );
}

#[tokio::test]
async fn an_answer_without_a_tool_call_is_nudged_once_then_the_task_ends() {
    let b = bench("", ServerOptions::default(), 32_768).await;
    b.server.push([
        Step::text("I think the workspace is fine."),
        Step::text("Really, it is fine."),
    ]);
    let outcome = b
        .runtime
        .run_task("worker", "Check it.", None)
        .await
        .unwrap();
    assert_eq!(outcome.status, TaskState::NoToolCall);
    assert!(outcome.output.contains("Really, it is fine."));
    let requests = b.server.requests();
    assert_eq!(requests.len(), 2);
    assert!(user_prompt(&requests[1]).contains("called no tool"));
    assert_eq!(b.runtime.stats.nudges.load(Ordering::Relaxed), 1);
}

#[tokio::test]
async fn tool_calls_written_as_text_are_recognised_and_run() {
    let b = bench("", ServerOptions::default(), 32_768).await;
    b.server.push([
        Step::text(
            "Let me look.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"out.md\", \"content\": \"hello\"}}\n</tool_call>",
        ),
        Step::text("{\"name\": \"finish\", \"arguments\": {\"output\": \"wrote out.md\"}}"),
    ]);
    let outcome = b
        .runtime
        .run_task("worker", "Write out.md.", None)
        .await
        .unwrap();
    assert_eq!(outcome.status, TaskState::Finished);
    assert_eq!(outcome.output, "wrote out.md");
    assert_eq!(
        b.ws.read_string(&WsPath::parse("out.md").unwrap()).unwrap(),
        "hello"
    );
    assert_eq!(b.runtime.stats.text_tool_calls.load(Ordering::Relaxed), 2);
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_go_back_to_the_model_as_tool_errors() {
    let b = bench("", ServerOptions::default(), 32_768).await;
    b.server.push([
        Step::tools(vec![ScriptedCall::new("delete_everything", json!({}))]),
        Step::tools(vec![ScriptedCall::raw("read_file", "{\"path\": [1,")]),
        Step::tools(vec![ScriptedCall::new("finish", json!({"output": "ok"}))]),
    ]);
    let outcome = b
        .runtime
        .run_task("worker", "Try things.", None)
        .await
        .unwrap();
    assert_eq!(outcome.status, TaskState::Finished);
    let requests = b.server.requests();
    let second = user_prompt(&requests[1]);
    assert!(second.contains("error[unknown_tool]"), "{second}");
    assert!(second.contains("read_file"), "the error lists the tools");
    let third = user_prompt(&requests[2]);
    assert!(third.contains("error[invalid_arguments]"), "{third}");
}

#[tokio::test]
async fn a_prompt_over_the_servers_window_shrinks_and_the_step_is_kept() {
    // The settings claim 32k; the server (llama.cpp-like) takes 2,500 tokens.
    let b = bench(
        "prompt_budget = 8000\n",
        ServerOptions {
            context_window: Some(2500),
            ..ServerOptions::default()
        },
        32_768,
    )
    .await;
    for i in 0..300 {
        b.ws.write(&WsPath::parse(&format!("notes/n{i:03}.md")).unwrap(), b"x")
            .unwrap();
    }
    b.ws.write(
        &WsPath::parse("tasks/t0001-worker/notes.md").unwrap(),
        "a long line of notes about the work so far\n"
            .repeat(800)
            .as_bytes(),
    )
    .unwrap();
    b.server.push([Step::tools(vec![ScriptedCall::new(
        "finish",
        json!({"output": "done"}),
    )])]);
    let outcome = b.runtime.run_task("worker", "Finish.", None).await.unwrap();
    assert_eq!(outcome.status, TaskState::Finished, "{}", outcome.output);
    assert_eq!(outcome.steps, 1, "the step was kept, not lost");
    assert!(b.runtime.stats.overflows.load(Ordering::Relaxed) >= 1);
    let last = b.server.requests().pop().unwrap();
    assert!(last.prompt_tokens() <= 2500);
}

#[tokio::test]
async fn a_thousand_steps_of_chaos_stay_in_the_workspace_and_end_at_the_step_limit() {
    let b = bench(
        "step_limit = 1000\n",
        ServerOptions {
            policy: Policy::Chaos { seed: 7 },
            ..ServerOptions::default()
        },
        32_768,
    )
    .await;
    b.ws.write(&WsPath::parse("task.json").unwrap(), b"{\"keep\": true}")
        .unwrap();
    let outcome = b
        .runtime
        .run_task("worker", "Do whatever you like.", None)
        .await
        .unwrap();
    assert_eq!(outcome.status, TaskState::StepLimit, "{}", outcome.output);
    assert_eq!(outcome.steps, 1000);
    // Nothing escaped: the parent holds the workspace and nothing else.
    let outside: Vec<_> = std::fs::read_dir(b.parent.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(outside, ["ws"]);
    // Quire's own files are as they were, and every JSON file parses.
    assert_eq!(
        b.ws.read_string(&WsPath::parse("task.json").unwrap())
            .unwrap(),
        "{\"keep\": true}"
    );
    assert!(!b.ws.root().join("agents/evil.toml").exists());
    assert_no_torn_json(b.ws.root());
    let log =
        b.ws.last_actions(
            &WsPath::parse("tasks/t0001-worker/actions.jsonl").unwrap(),
            5,
        )
        .unwrap();
    assert_eq!(log.last().unwrap().step, Some(1000));
    // Every tenth step, unless that step answered a nudge.
    let consolidations = b.runtime.stats.consolidations.load(Ordering::Relaxed);
    assert!((90..=100).contains(&consolidations), "{consolidations}");
}
