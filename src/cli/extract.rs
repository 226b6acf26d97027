//! `quire extract`: what Quire reads out of some PDFs, with the status each gets.
//! For checking a troublesome file by hand; the review does the same internally.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::metadata::read_metadata;
use quire::pdf::sha256_file;

#[derive(Args)]
pub(crate) struct ExtractArgs {
    /// PDF files to extract.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print each file's pages of text too.
    #[arg(long)]
    text: bool,
    /// Print page one's lines of type (size, distance from the top, text) and
    /// the metadata read from them: for checking a wrong title or author.
    #[arg(long)]
    layout: bool,
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
            outln!("{line}");
        } else {
            let reason = extracted.reason.as_deref().unwrap_or("");
            let engine = extracted.engine.map(|e| e.name()).unwrap_or("-");
            outln!(
                "{:<10} {:>4} pages  {:<12} {}  {reason}",
                extracted.status.as_str(),
                extracted.pages.len(),
                engine,
                file.display()
            );
        }
        if args.layout {
            for line in &extracted.head {
                outln!(
                    "{:5.1}pt {:6.1} {:6.1} {}{}",
                    line.size,
                    line.top,
                    line.left,
                    if line.bold { "b " } else { "" },
                    line.text
                );
            }
            let meta = read_metadata(&extracted.info, &extracted.pages, &extracted.head);
            outln!(
                "title: {}\nauthors: {}\nyear: {}  doi: {}  arxiv: {}\nvenue: {}",
                meta.title.as_deref().unwrap_or("-"),
                meta.meta
                    .authors
                    .iter()
                    .map(|a| a.display())
                    .collect::<Vec<_>>()
                    .join("; "),
                meta.meta.year.map_or("-".into(), |y| y.to_string()),
                meta.meta.doi.as_deref().unwrap_or("-"),
                meta.meta.arxiv.as_deref().unwrap_or("-"),
                meta.meta.venue.as_deref().unwrap_or("-"),
            );
        }
        if args.text {
            for (number, page) in extracted.pages.iter().enumerate() {
                outln!("--- page {} ---\n{page}", number + 1);
            }
        }
    }
    ExitCode::SUCCESS
}
