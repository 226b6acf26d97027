//! `quire-bench`: the figures Quire is held to, outside the shipped CLI. It
//! reaches into the engines' internals (extraction, the agent runtime, the
//! offline ranking, metadata) and prints what it measures.
//!
//! ```text
//! cargo run --release -p quire-bench -- bench [DIR]           # extraction vs pdftotext, reading order
//! cargo run --release -p quire-bench -- bench agent           # the agent runtime against the scripted server
//! cargo run --release -p quire-bench -- bench large           # a review of 10,000 papers
//! cargo run --release -p quire-bench -- bench batch           # 10,000 papers through batches, killed at each step
//! cargo run --release -p quire-bench -- eval [--corpus DIR]   # ROC-AUC of the offline ranking
//! cargo run --release -p quire-bench -- eval metadata         # metadata accuracy against metadata.tsv
//! cargo run --release -p quire-bench -- eval reading          # title block, furniture, references in summaries and quotes
//! cargo run --release -p quire-bench -- zones FILE.pdf        # each line of a PDF's text with its zone
//! cargo run --release -p quire-bench -- eval screening        # the validation flow, corpus topics as labels
//! cargo run --release -p quire-bench -- eval ask              # Ask's recall of judged answering papers
//! cargo run --release -p quire-bench -- eval synergy          # screening that learns, beside ASReview
//! ```
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod agent_rig;
mod asreview;
mod bench;
mod bench_agent;
mod bench_ask;
mod bench_batch;
mod bench_import;
mod bench_large;
mod bench_screening;
mod bench_snowball;
mod bench_zotero;
mod eval;
mod eval_ask;
mod eval_metadata;
mod eval_reading;
mod eval_screening;
mod eval_synergy;
mod text_order;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use quire::commands::AppPaths;

#[derive(Parser)]
#[command(
    name = "quire-bench",
    version,
    about = "Quire's benchmarks and evaluations."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Measure the offline engine's ranking quality (ROC-AUC) on a labelled corpus,
    /// or (`eval metadata`) the metadata read from PDFs against a checked table.
    Eval(eval::EvalArgs),
    /// Speed figures: Quire's extraction against pdftotext, warm re-run, offline review.
    Bench(bench::BenchArgs),
    /// Print each line of a PDF's text with the zone it falls in (title
    /// block, abstract, body, references, furniture...), to see why a line
    /// is read or left out.
    Zones(eval_reading::ZonesArgs),
}

/// Quire's folders as the environment sets them.
fn default_paths() -> Result<AppPaths, String> {
    AppPaths::from_env().map_err(|e| e.message)
}

fn main() -> ExitCode {
    // The extraction runs this binary as its worker process.
    if let Some(code) = quire::pdf::worker::run_worker_if_requested() {
        return code;
    }
    let cli = Cli::parse();
    quire::logging::init("warn");
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        match cli.command {
            Command::Eval(args) => eval::run(args).await,
            Command::Bench(args) => bench::run(args).await,
            Command::Zones(args) => eval_reading::show_zones(args).await,
        }
    })
}
