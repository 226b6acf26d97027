//! The provider conformance suite: the same cases run against the scripted
//! model server in OpenAI mode and in Anthropic mode, over real HTTP on a
//! socket. Every fault the server can inject has a case saying what the client
//! makes of it.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quire::llm::accounting::PriceTable;
use quire::llm::secrets::ApiKey;
use quire::llm::tool_calls::{CallProblem, check_call, problem_result};
use quire::llm::{
    ChatRequest, ChatResponse, HttpProvider, LlmError, Message, ModelClient, ModelSettings,
    Protocol, StreamEvent, ToolCall, ToolDef,
};
use serde_json::{Value, json};
use testkit::{Cut, Faults, Reply, ScriptedCall, ScriptedServer, ServerOptions, Step};
use tokio_util::sync::CancellationToken;

use super::support::Calls;

/// A key made up per run, so finding it anywhere proves a leak.
pub(super) fn fresh_key() -> String {
    format!("sk-test-{}", uuid::Uuid::new_v4().simple())
}

pub(super) struct Rig {
    pub(super) server: ScriptedServer,
    pub(super) settings: ModelSettings,
    pub(super) key: String,
}

impl Rig {
    pub(super) async fn new(protocol: Protocol) -> Self {
        Self::with(protocol, ServerOptions::default(), |_| {}).await
    }

    pub(super) async fn with(
        protocol: Protocol,
        options: ServerOptions,
        adjust: impl FnOnce(&mut ModelSettings),
    ) -> Self {
        let key = fresh_key();
        let server = ScriptedServer::start(ServerOptions {
            api_key: Some(key.clone()),
            ..options
        })
        .await
        .unwrap();
        let mut settings = ModelSettings {
            protocol,
            // Both URL shapes: Anthropic's without the version segment.
            base_url: match protocol {
                Protocol::Openai => server.base_url(),
                Protocol::Anthropic => server.root_url(),
            },
            model: "test-model".into(),
            read_timeout_secs: 1.0,
            request_timeout_secs: 30.0,
            max_retries: 3,
            ..ModelSettings::default()
        };
        adjust(&mut settings);
        Self {
            server,
            settings,
            key,
        }
    }

    pub(super) fn client(&self) -> ModelClient {
        let provider =
            HttpProvider::new(self.settings.clone(), Some(ApiKey::new(self.key.clone()))).unwrap();
        ModelClient::new("test", provider, PriceTable::builtin())
            .with_base_backoff(Duration::from_millis(10))
    }
}

pub(super) fn ask(text: &str) -> ChatRequest {
    ChatRequest {
        model: String::new(),
        messages: vec![Message::system("You are terse."), Message::user(text)],
        tools: Vec::new(),
        tool_choice: None,
        max_tokens: None,
        stream: true,
        response_format: None,
        cache_prefix: false,
        affinity: None,
    }
}

pub(super) fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef {
            name: "read_file".into(),
            description: "Read a file of the workspace.".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        },
        ToolDef {
            name: "grep".into(),
            description: "Search the workspace.".into(),
            parameters: json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]}),
        },
    ]
}

pub(super) fn ask_with_tools(text: &str) -> ChatRequest {
    ChatRequest {
        tools: tools(),
        ..ask(text)
    }
}

/// Call and collect the streamed text next to the answer.
pub(super) async fn call(
    client: &ModelClient,
    request: &ChatRequest,
) -> (Result<ChatResponse, LlmError>, String) {
    let streamed = Mutex::new(String::new());
    let result = client
        .chat(
            request,
            "test",
            &CancellationToken::new(),
            &|event| match event {
                StreamEvent::Text(t) => streamed.lock().unwrap().push_str(t),
                StreamEvent::Restart { .. } => streamed.lock().unwrap().clear(),
            },
        )
        .await;
    (result, streamed.into_inner().unwrap())
}

pub(super) fn args(call: &ToolCall) -> Value {
    call.arguments.clone()
}

// ---------------------------------------------------------------- the cases

async fn plain_answer(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server
        .push([Step::text("Learned indexes can beat B-trees on lookups.")]);
    let (answer, streamed) = call(&rig.client(), &ask("Do learned indexes work?")).await;
    let answer = answer.unwrap();
    assert_eq!(answer.text, "Learned indexes can beat B-trees on lookups.");
    assert_eq!(streamed, answer.text, "the text streamed as it came");
    let sent = &rig.server.requests()[0];
    assert!(sent.stream());
    assert_eq!(sent.model(), "test-model");
    let turns = sent.turns();
    assert_eq!(turns[0].role, "system");
    assert_eq!(turns.last().unwrap().text, "Do learned indexes work?");
    let usage = answer.usage.unwrap();
    assert_eq!(
        usage.input_tokens,
        sent.prompt_tokens(),
        "usage is the server's own"
    );
    match protocol {
        Protocol::Openai => assert_eq!(
            sent.header("authorization"),
            Some(format!("Bearer {}", rig.key).as_str())
        ),
        Protocol::Anthropic => {
            assert_eq!(sent.header("x-api-key"), Some(rig.key.as_str()));
            assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
            assert_eq!(sent.body["max_tokens"], json!(4096));
        }
    }
}

async fn plain_answer_without_streaming(protocol: Protocol) {
    let rig = Rig::with(protocol, ServerOptions::default(), |s| s.stream = false).await;
    rig.server.push([Step::text("Whole, not streamed.")]);
    let (answer, streamed) = call(&rig.client(), &ask("hi")).await;
    assert_eq!(answer.unwrap().text, "Whole, not streamed.");
    assert_eq!(streamed, "Whole, not streamed.");
    assert!(!rig.server.requests()[0].stream());
}

async fn tool_round_trip(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([
        Step::tools(vec![ScriptedCall::new(
            "read_file",
            json!({"path": "papers/a/text.md"}),
        )]),
        Step::text("The paper is about learned indexes."),
    ]);
    let client = rig.client();
    let mut request = ask_with_tools("Summarise paper a.");
    let first = call(&client, &request).await.0.unwrap();
    assert_eq!(first.tool_calls.len(), 1);
    let tool_call = &first.tool_calls[0];
    assert_eq!(tool_call.name, "read_file");
    assert_eq!(args(tool_call), json!({"path": "papers/a/text.md"}));
    assert!(!tool_call.id.is_empty());
    request.messages.push(Message::assistant(&first));
    request.messages.push(Message::tool_result(
        &tool_call.id,
        "=== page 1 ===\nLearned indexes.",
    ));
    let second = call(&client, &request).await.0.unwrap();
    assert_eq!(second.text, "The paper is about learned indexes.");
    let sent = &rig.server.requests()[1];
    let tool_names: Vec<String> = sent.tools().into_iter().map(|t| t.name).collect();
    assert_eq!(tool_names, ["read_file", "grep"]);
    let turns = sent.turns();
    assert!(
        turns
            .iter()
            .any(|t| t.role == "assistant" && t.text.contains("read_file"))
    );
    assert!(turns.last().unwrap().text.contains("Learned indexes."));
    // The result answers the call by its id, in either protocol's shape.
    assert!(
        sent.body
            .to_string()
            .contains(&format!("\"{}\"", tool_call.id))
    );
}

async fn parallel_tool_calls(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([Step::tools(vec![
        ScriptedCall::new("read_file", json!({"path": "a.md"})),
        ScriptedCall::new("grep", json!({"pattern": "B-tree"})),
    ])]);
    let answer = call(&rig.client(), &ask_with_tools("go")).await.0.unwrap();
    let calls: Vec<(String, Value)> = answer
        .tool_calls
        .iter()
        .map(|c| (c.name.clone(), c.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("read_file".to_owned(), json!({"path": "a.md"})),
            ("grep".to_owned(), json!({"pattern": "B-tree"}))
        ]
    );
    assert_ne!(answer.tool_calls[0].id, answer.tool_calls[1].id);
}

async fn any_chunking_assembles_the_same_answer(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let text = "Ünïcödé survives splits — even “quotes” and 日本語.";
    for size in [1, 2, 3, 5, 7, 64] {
        rig.server.push([Step {
            reply: Reply::ToolCalls {
                text: text.into(),
                calls: vec![ScriptedCall::new(
                    "grep",
                    json!({"pattern": "naïve \"quoted\""}),
                )],
            },
            faults: Faults {
                write_size: Some(size),
                ..Faults::default()
            },
        }]);
        let (answer, streamed) = call(&rig.client(), &ask_with_tools("go")).await;
        let answer = answer.unwrap();
        assert_eq!(answer.text, text, "write size {size}");
        assert_eq!(streamed, text, "write size {size}");
        assert_eq!(
            args(&answer.tool_calls[0]),
            json!({"pattern": "naïve \"quoted\""})
        );
    }
}

async fn rate_limit_waits_for_retry_after(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server
        .push([Step::rate_limited("1"), Step::text("after the wait")]);
    let calls = Arc::new(Calls::default());
    let client = rig.client().with_log(calls.clone());
    let started = Instant::now();
    let answer = call(&client, &ask("hi")).await.0.unwrap();
    assert_eq!(answer.text, "after the wait");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After honoured"
    );
    assert_eq!(calls.outcomes(), ["rate_limited", "ok"]);
    assert_eq!(calls.0.lock().unwrap()[0].input_tokens, 0);
}

async fn server_errors_are_retried_then_reported(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let overloaded = if protocol == Protocol::Anthropic {
        529
    } else {
        500
    };
    rig.server.push([
        Step::status(overloaded, "overloaded"),
        Step::text("recovered"),
    ]);
    assert_eq!(
        call(&rig.client(), &ask("hi")).await.0.unwrap().text,
        "recovered"
    );

    rig.server
        .push((0..4).map(|_| Step::status(500, "still broken")));
    let error = call(&rig.client(), &ask("hi")).await.0.unwrap_err();
    assert!(
        matches!(error, LlmError::Server { status: 500, .. }),
        "{error:?}"
    );
    assert_eq!(rig.server.requests().len(), 2 + 4, "1 try + 3 retries");
}

async fn auth_and_context_errors_are_not_retried(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let provider = HttpProvider::new(rig.settings.clone(), Some(ApiKey::new("sk-wrong"))).unwrap();
    let wrong = ModelClient::new("test", provider, PriceTable::builtin());
    let error = call(&wrong, &ask("hi")).await.0.unwrap_err();
    assert!(matches!(error, LlmError::Auth { status: 401 }), "{error:?}");
    assert!(!format!("{error} {error:?}").contains("sk-wrong"));

    rig.server.push([Step::status(
        400,
        "prompt is too long: 210000 tokens > 200000 maximum context length",
    )]);
    let error = call(&rig.client(), &ask("hi")).await.0.unwrap_err();
    assert!(
        matches!(error, LlmError::ContextTooLong { .. }),
        "{error:?}"
    );
    assert_eq!(rig.server.requests().len(), 1, "neither was retried");
}

async fn slow_first_byte_within_and_beyond_the_read_timeout(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let slow = |ms| Faults {
        first_byte_delay: Duration::from_millis(ms),
        ..Faults::default()
    };
    rig.server
        .push([Step::text("slow but fine").with(slow(200))]);
    let calls = Arc::new(Calls::default());
    let client = rig.client().with_log(calls.clone());
    assert_eq!(
        call(&client, &ask("hi")).await.0.unwrap().text,
        "slow but fine"
    );
    rig.server.push([
        Step::text("too slow").with(slow(2500)),
        Step::text("next try"),
    ]);
    assert_eq!(call(&client, &ask("hi")).await.0.unwrap().text, "next try");
    assert_eq!(calls.outcomes(), ["ok", "timeout", "ok"]);
}

async fn a_stalled_stream_times_out_and_is_retried(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([
        Step::text("never finishes").with(Faults {
            stall_after_first_event: Some(Duration::from_secs(5)),
            ..Faults::default()
        }),
        Step::text("second try"),
    ]);
    let calls = Arc::new(Calls::default());
    let client = rig.client().with_log(calls.clone());
    let (answer, streamed) = call(&client, &ask("hi")).await;
    assert_eq!(answer.unwrap().text, "second try");
    assert_eq!(
        streamed, "second try",
        "the void attempt's text was cleared"
    );
    assert_eq!(calls.outcomes(), ["timeout", "ok"]);
}

async fn a_stream_cut_mid_tool_call_is_retried(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    let call_step = || {
        Step::tools(vec![ScriptedCall::new(
            "read_file",
            json!({"path": "papers/long/name.md"}),
        )])
    };
    rig.server.push([
        call_step().with(Faults {
            cut: Some(Cut::MidToolCall),
            ..Faults::default()
        }),
        call_step(),
    ]);
    let calls = Arc::new(Calls::default());
    let client = rig.client().with_log(calls.clone());
    let answer = call(&client, &ask_with_tools("go")).await.0.unwrap();
    assert_eq!(
        args(&answer.tool_calls[0]),
        json!({"path": "papers/long/name.md"})
    );
    assert_eq!(calls.outcomes(), ["cut_stream", "ok"]);
    // The cut attempt counts the prompt it was sent, so a token cap holds
    // however often a stream breaks; the 429 of a refused call counts nothing.
    let records = calls.0.lock().unwrap().clone();
    assert!(records[0].input_tokens > 0 && records[0].tokens_estimated);
    assert_eq!(records[0].output_tokens, 0);
}

async fn malformed_arguments_are_repaired_once_or_returned_as_tool_errors(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([
        Step::tools(vec![ScriptedCall::raw("read_file", r#"{"path": "a.md""#)]),
        Step::tools(vec![ScriptedCall::raw("read_file", r#"{"path": [,"#)]),
        Step::text("I will send proper JSON."),
    ]);
    let client = rig.client();
    let mut request = ask_with_tools("go");
    let repaired = call(&client, &request).await.0.unwrap();
    assert_eq!(args(&repaired.tool_calls[0]), json!({"path": "a.md"}));
    assert_eq!(check_call(&repaired.tool_calls[0], &tools()), None);

    let broken = call(&client, &request).await.0.unwrap();
    let bad = &broken.tool_calls[0];
    let problem = check_call(bad, &tools()).unwrap();
    assert!(matches!(problem, CallProblem::BadArguments { .. }));
    request.messages.push(Message::assistant(&broken));
    request.messages.push(problem_result(bad, &problem));
    let after = call(&client, &request).await.0.unwrap();
    assert_eq!(after.text, "I will send proper JSON.");
    let sent = rig.server.requests().pop().unwrap();
    assert!(
        sent.turns()
            .last()
            .unwrap()
            .text
            .contains("error[invalid_arguments]")
    );
}

async fn an_unknown_tool_goes_back_as_a_tool_error(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([
        Step::tools(vec![ScriptedCall::new("delete_everything", json!({}))]),
        Step::text("Sorry, I will use read_file."),
    ]);
    let client = rig.client();
    let mut request = ask_with_tools("go");
    let answer = call(&client, &request).await.0.unwrap();
    let unknown = &answer.tool_calls[0];
    let problem = check_call(unknown, &tools()).unwrap();
    assert!(matches!(problem, CallProblem::UnknownTool { .. }));
    request.messages.push(Message::assistant(&answer));
    request.messages.push(problem_result(unknown, &problem));
    assert_eq!(
        call(&client, &request).await.0.unwrap().text,
        "Sorry, I will use read_file."
    );
    let sent = rig.server.requests().pop().unwrap();
    let last = sent.turns().last().unwrap().text.clone();
    assert!(
        last.contains("unknown_tool") && last.contains("read_file, grep"),
        "{last}"
    );
}

async fn cancellation_aborts_at_once(protocol: Protocol) {
    let rig = Rig::new(protocol).await;
    rig.server.push([Step::text("too late").with(Faults {
        first_byte_delay: Duration::from_millis(800),
        ..Faults::default()
    })]);
    let client = rig.client();
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let result = client.complete(&ask("hi"), "test", &cancel).await;
    assert_eq!(result.unwrap_err(), LlmError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_millis(600),
        "{:?}",
        started.elapsed()
    );
}

async fn the_concurrency_limit_holds(protocol: Protocol) {
    let options = ServerOptions {
        latency: Duration::from_millis(300),
        ..ServerOptions::default()
    };
    // A read timeout a loaded machine cannot reach: a retry would be a
    // seventh answer, and this counts exactly six.
    let rig = Rig::with(protocol, options, |s| {
        s.concurrency = 2;
        s.read_timeout_secs = 20.0;
    })
    .await;
    rig.server
        .push((0..6).map(|i| Step::text(&format!("answer {i}"))));
    let client = Arc::new(rig.client());
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let client = client.clone();
        tasks.spawn(async move {
            client
                .complete(&ask("hi"), "test", &CancellationToken::new())
                .await
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap().unwrap();
    }
    assert_eq!(rig.server.stats().peak_in_flight, 2);
    assert_eq!(rig.server.stats().answered, 6);
}

async fn tool_turns_can_skip_streaming(protocol: Protocol) {
    let rig = Rig::with(protocol, ServerOptions::default(), |s| {
        s.stream_tool_turns = false
    })
    .await;
    rig.server.push([
        Step::tools(vec![ScriptedCall::new("grep", json!({"pattern": "x"}))]),
        Step::text("plain"),
    ]);
    let client = rig.client();
    let answer = call(&client, &ask_with_tools("go")).await.0.unwrap();
    assert_eq!(answer.tool_calls[0].name, "grep");
    call(&client, &ask("no tools")).await.0.unwrap();
    let streamed: Vec<bool> = rig.server.requests().iter().map(|r| r.stream()).collect();
    assert_eq!(streamed, [false, true]);
}

macro_rules! conformance {
    ($($case:ident),* $(,)?) => {
        mod openai {
            $(#[tokio::test] async fn $case() { super::$case(super::Protocol::Openai).await })*
        }
        mod anthropic {
            $(#[tokio::test] async fn $case() { super::$case(super::Protocol::Anthropic).await })*
        }
    };
}

conformance!(
    plain_answer,
    plain_answer_without_streaming,
    tool_round_trip,
    parallel_tool_calls,
    any_chunking_assembles_the_same_answer,
    rate_limit_waits_for_retry_after,
    server_errors_are_retried_then_reported,
    auth_and_context_errors_are_not_retried,
    slow_first_byte_within_and_beyond_the_read_timeout,
    a_stalled_stream_times_out_and_is_retried,
    a_stream_cut_mid_tool_call_is_retried,
    malformed_arguments_are_repaired_once_or_returned_as_tool_errors,
    an_unknown_tool_goes_back_as_a_tool_error,
    cancellation_aborts_at_once,
    the_concurrency_limit_holds,
    tool_turns_can_skip_streaming,
);

#[tokio::test]
async fn a_rehearsal_answers_from_the_batches_sends_nothing_and_keeps_what_it_could_not_answer() {
    use quire::llm::Usage;
    use quire::llm::batch::BatchLine;

    let rig = Rig::new(Protocol::Openai).await;
    let client = rig.client();
    let cancel = CancellationToken::new();
    let (answered, unanswered) = (ask("the batch answered this"), ask("and not this"));
    // A long prompt the batch says it read ten tokens of: a cut prompt.
    let long = ask(&"Every page of the paper, word after word. ".repeat(600));
    let answer = |text: &str, read: u64| ChatResponse {
        text: text.into(),
        usage: Some(Usage {
            input_tokens: read,
            output_tokens: 5,
        }),
        ..ChatResponse::default()
    };
    let id = |request: &ChatRequest| BatchLine::new(&rig.settings, request).custom_id;
    client.answer_from_batch(
        [
            (id(&answered), answer("from the batch", 12)),
            (id(&long), answer("from a cut prompt", 10)),
        ]
        .into(),
    );

    let rehearsal = client.rehearsal();
    let first = rehearsal.complete(&answered, "reader", &cancel).await;
    assert_eq!(first.unwrap().text, "from the batch");
    let second = rehearsal.complete(&unanswered, "reader", &cancel).await;
    assert!(matches!(second, Err(LlmError::Cancelled)), "{second:?}");
    assert_eq!(
        rehearsal.rehearsed(),
        vec![unanswered.clone()],
        "what it could not answer, kept"
    );
    assert!(rehearsal.rehearsed().is_empty(), "handed over once");
    assert!(
        rig.server.requests().is_empty(),
        "a rehearsal sends nothing"
    );

    // The client itself answers from the batch and sends the rest, and
    // judges a batch's answer as any: one read from a cut prompt is none.
    let first = client.complete(&answered, "reader", &cancel).await;
    assert_eq!(first.unwrap().text, "from the batch");
    assert!(rig.server.requests().is_empty());
    client
        .complete(&unanswered, "reader", &cancel)
        .await
        .unwrap();
    assert_eq!(rig.server.requests().len(), 1);
    let cut = client.complete(&long, "reader", &cancel).await;
    assert!(matches!(cut, Err(LlmError::PromptCut { .. })), "{cut:?}");
    let cut_in_rehearsal = client.rehearsal().complete(&long, "reader", &cancel).await;
    assert!(
        matches!(cut_in_rehearsal, Err(LlmError::PromptCut { .. })),
        "a rehearsal judges as its client does: {cut_in_rehearsal:?}"
    );
}
