//! `scripted-model`: the scripted model server as a program, answering every
//! request with the reader policy. For desktop end-to-end tests and demos
//! without a hosted model. Prints its base URL on the first line of stdout.
#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::time::Duration;

use clap::Parser;
use testkit::{Policy, ScriptedServer, ServerOptions};

#[derive(Parser)]
#[command(
    about = "A model server that answers from the request alone (OpenAI and Anthropic protocols)."
)]
struct Args {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Added before every answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    latency_ms: u64,
    /// At most this many answers at once.
    #[arg(long)]
    concurrency: Option<usize>,
    /// Model ids to list.
    #[arg(long, default_value = "scripted-reader")]
    model: Vec<String>,
    /// Refuse prompts over this many tokens, as llama.cpp does.
    #[arg(long)]
    context_window: Option<u64>,
    /// Spoil this share (0-1) of reading answers the way real models do
    /// (a bad quote, invalid JSON, a cut answer, noise...).
    #[arg(long)]
    fallible: Option<f64>,
    /// The fallible reader's seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Read as a stricter screener: papers the diligent reader scores under
    /// 8 lose 4 points (a second reader that disagrees).
    #[arg(long, conflicts_with = "fallible")]
    sceptic: bool,
    /// Write every request's body to this folder as N.json, for debugging a
    /// client (bodies hold prompts; keys travel in headers and are not written).
    #[arg(long)]
    dump: Option<std::path::PathBuf>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let options = ServerOptions {
        latency: Duration::from_millis(args.latency_ms),
        concurrency: args.concurrency,
        models: args.model,
        context_window: args.context_window,
        policy: match args.fallible {
            Some(rate) => Policy::Fallible {
                seed: args.seed,
                rate: rate.clamp(0.0, 1.0),
                only: &[],
            },
            None if args.sceptic => Policy::Sceptic,
            None => Policy::Diligent,
        },
        ..ServerOptions::default()
    };
    let server = match ScriptedServer::bind(([127, 0, 0, 1], args.port).into(), options).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("scripted-model: cannot listen on port {}: {e}", args.port);
            return std::process::ExitCode::FAILURE;
        }
    };
    println!("{}", server.base_url());
    if let Some(dir) = args.dump {
        let _ = std::fs::create_dir_all(&dir);
        let mut written = 0;
        loop {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => break,
                _ = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
            let requests = server.requests();
            for (n, r) in requests.iter().enumerate().skip(written) {
                let _ = std::fs::write(dir.join(format!("{n:05}.json")), r.body.to_string());
            }
            written = requests.len();
        }
        return std::process::ExitCode::SUCCESS;
    }
    let _ = tokio::signal::ctrl_c().await;
    std::process::ExitCode::SUCCESS
}
