//! `quire extract`: what Quire reads out of some PDFs, with the status each gets.
//! For checking a troublesome file by hand; the review does the same internally.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::sha256_file;

#[derive(Args)]
pub(crate) struct ExtractArgs {
    /// PDF files to extract.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print each file's pages of text too.
    #[arg(long)]
    text: bool,
    /// Print JSON lines: {file, status, reason, engine, pages}.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: ExtractArgs) -> ExitCode {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error[io_error]: cannot find the quire binary: {e}");
            return ExitCode::FAILURE;
        }
    };
    let files: Vec<(PathBuf, String)> = args
        .files
        .iter()
        .map(|f| (f.clone(), sha256_file(f).unwrap_or_default()))
        .collect();
    let results = extract_all(files, &IngestOptions::new(exe), |_, _| {}).await;
    for (file, extracted) in args.files.iter().zip(&results) {
        if args.json {
            let line = serde_json::json!({
                "file": file,
                "status": extracted.status.as_str(),
                "reason": extracted.reason,
                "engine": extracted.engine.map(|e| e.name()),
                "pages": extracted.pages.len(),
                "title": extracted.info.title,
            });
            println!("{line}");
        } else {
            let reason = extracted.reason.as_deref().unwrap_or("");
            let engine = extracted.engine.map(|e| e.name()).unwrap_or("-");
            println!(
                "{:<10} {:>4} pages  {:<12} {}  {reason}",
                extracted.status.as_str(),
                extracted.pages.len(),
                engine,
                file.display()
            );
        }
        if args.text {
            for (number, page) in extracted.pages.iter().enumerate() {
                println!("--- page {} ---\n{page}", number + 1);
            }
        }
    }
    ExitCode::SUCCESS
}
