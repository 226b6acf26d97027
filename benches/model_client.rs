//! How close the model client gets to the ideal wall time against a server
//! with fixed latency and a concurrency limit, and what one call costs the
//! client itself. Run with `cargo bench --bench model_client`; it prints
//! figures and asserts nothing (machines here are noisy).
#![allow(clippy::print_stdout, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use quire::llm::accounting::PriceTable;
use quire::llm::{ChatRequest, HttpProvider, Message, ModelClient, ModelSettings};
use testkit::{ScriptedServer, ServerOptions};
use tokio_util::sync::CancellationToken;

const PAPER: &str = "Question: learned index structures for range queries\n=== page 1 ===\n\
Learned Index Structures\nWe replace B-trees with learned models of the key distribution. \
The models predict the position of a key in a sorted array. A final local search corrects the error.\n\
=== page 2 ===\nOn real datasets the learned index is faster than a B-tree and uses less memory.\n";

fn request() -> ChatRequest {
    ChatRequest {
        model: String::new(),
        messages: vec![Message::user(PAPER)],
        tools: Vec::new(),
        tool_choice: None,
        max_tokens: None,
        stream: true,
        response_format: None,
        cache_prefix: false,
        affinity: None,
    }
}

async fn run(
    server: &ScriptedServer,
    client_concurrency: usize,
    calls: usize,
    stream: bool,
) -> Duration {
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        concurrency: client_concurrency,
        stream,
        ..ModelSettings::default()
    };
    let client = Arc::new(ModelClient::new(
        "bench",
        HttpProvider::new(settings, None).unwrap(),
        PriceTable::builtin(),
    ));
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..calls {
        let client = client.clone();
        tasks.spawn(async move {
            client
                .complete(&request(), "bench", &CancellationToken::new())
                .await
                .unwrap()
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    started.elapsed()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let latency = Duration::from_millis(200);
    let server_limit = 4;
    let calls = 40;
    let server = ScriptedServer::start(ServerOptions {
        latency,
        concurrency: Some(server_limit),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    println!(
        "model client against a server with {} ms latency and {server_limit} slots, {calls} calls",
        latency.as_millis()
    );
    println!(
        "{:>18} {:>10} {:>10} {:>8}",
        "client concurrency", "wall ms", "ideal ms", "ratio"
    );
    for client_concurrency in [1, 2, 4, 8] {
        let wall = run(&server, client_concurrency, calls, true).await;
        let lanes = client_concurrency.min(server_limit);
        let ideal = latency * calls.div_ceil(lanes) as u32;
        println!(
            "{client_concurrency:>18} {:>10} {:>10} {:>8.3}",
            wall.as_millis(),
            ideal.as_millis(),
            wall.as_secs_f64() / ideal.as_secs_f64()
        );
    }

    let fast = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let n = 300;
    for stream in [true, false] {
        run(&fast, 1, 20, stream).await; // warm up
        let wall = run(&fast, 1, n, stream).await;
        println!(
            "zero-latency server, one at a time, stream {stream:<5}: {:.2} ms per call ({} calls in {} ms)",
            wall.as_secs_f64() * 1000.0 / n as f64,
            n,
            wall.as_millis()
        );
    }
}
