//! `quire review`: the headless review of a folder of PDFs, with progress bars on
//! a terminal and a machine-readable summary with `--json`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::pdf::ingest::IngestOptions;
use quire::review::run::{ReviewEvent, ReviewRequest, ReviewSummary, run_review};
use quire::review::{EngineKind, ReviewSpec};
use quire::workspace::PaperStatus;

#[derive(Args)]
pub(crate) struct ReviewArgs {
    /// A folder of PDFs (searched recursively) or a single PDF.
    dir: PathBuf,
    /// The review question.
    #[arg(long, short)]
    question: String,
    /// A text file of inclusion/exclusion criteria, one per line (blank lines and
    /// lines starting with # are ignored).
    #[arg(long)]
    criteria: Option<PathBuf>,
    /// The engine: `offline` (classical IR, no language model).
    #[arg(long, default_value = "offline")]
    engine: String,
    /// The workspace folder (created if missing; resumed if it exists). Default:
    /// one per source folder under the data folder.
    #[arg(long)]
    workspace: Option<PathBuf>,
    /// Also write the Markdown report here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Extractions in parallel. Default: the number of cores.
    #[arg(long)]
    jobs: Option<usize>,
    /// Print a JSON summary on stdout instead of progress and a table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn default_paths() -> Result<AppPaths, String> {
    AppPaths::from_env().map_err(|e| e.message)
}

pub(crate) async fn run(args: ReviewArgs) -> ExitCode {
    match review(args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error[{}]: {}", e.kind, e.message);
            ExitCode::FAILURE
        }
    }
}

fn read_criteria(path: &Path) -> Result<Vec<String>, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CommandError::new(
            "criteria_unreadable",
            format!("cannot read criteria file {}: {e}", path.display()),
        )
    })?;
    Ok(text
        .lines()
        .map(|l| l.trim().trim_start_matches(['-', '*']).trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect())
}

async fn review(args: ReviewArgs) -> Result<(), CommandError> {
    let engine = EngineKind::parse(&args.engine).ok_or_else(|| {
        CommandError::new(
            "unknown_engine",
            format!("unknown engine {:?}; available: offline", args.engine),
        )
    })?;
    if args.question.trim().is_empty() {
        return Err(CommandError::new(
            "empty_question",
            "the review question is empty",
        ));
    }
    let criteria = args
        .criteria
        .as_deref()
        .map(read_criteria)
        .transpose()?
        .unwrap_or_default();
    let paths = AppPaths::from_env()?;
    let exe = std::env::current_exe()
        .map_err(|e| CommandError::new("io_error", format!("cannot find the quire binary: {e}")))?;
    let mut ingest = IngestOptions::new(exe);
    ingest.cache_dir = Some(paths.data_dir.join("cache").join("text"));
    if let Some(jobs) = args.jobs {
        ingest.jobs = jobs.max(1);
    }
    let workspace = match args.workspace {
        Some(dir) => Some(
            std::path::absolute(&dir).map_err(|e| CommandError::new("io_error", e.to_string()))?,
        ),
        None => None,
    };
    let request = ReviewRequest {
        source: args.dir.clone(),
        spec: ReviewSpec {
            question: args.question.trim().to_owned(),
            criteria,
            engine,
        },
        workspace,
        ingest,
    };

    let show_progress = !args.json && std::io::stderr().is_terminal();
    let bar = Arc::new(if show_progress {
        ProgressBar::new(0)
    } else {
        ProgressBar::hidden()
    });
    bar.set_style(
        ProgressStyle::with_template("{spinner} reading PDFs [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let counts = Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::<
        &'static str,
        usize,
    >::new()));
    let (bar2, counts2) = (bar.clone(), counts.clone());
    let ctx = AppContext::new(paths);
    let summary = run_review(&ctx, request, move |event| match event {
        ReviewEvent::Started { to_extract, .. } => bar2.set_length(to_extract as u64),
        ReviewEvent::Extracted { status, .. } => {
            if let Ok(mut c) = counts2.lock() {
                *c.entry(status.as_str()).or_default() += 1;
                let text: Vec<String> = c.iter().map(|(k, v)| format!("{k} {v}")).collect();
                bar2.set_message(text.join(", "));
            }
            bar2.inc(1);
        }
        ReviewEvent::Reviewed { .. } | ReviewEvent::Finished => {}
    })
    .await;
    bar.finish_and_clear();
    let summary = summary?;

    if let Some(out) = &args.out {
        std::fs::copy(&summary.report, out).map_err(|e| {
            CommandError::new("io_error", format!("cannot write {}: {e}", out.display()))
        })?;
    }
    if args.json {
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|e| CommandError::new("internal_error", e.to_string()))?;
        println!("{text}");
    } else {
        print_table(&summary, args.out.as_deref());
    }
    Ok(())
}

fn print_table(summary: &ReviewSummary, out: Option<&Path>) {
    let c = &summary.counts;
    println!("Engine: {}", summary.engine);
    println!(
        "{} files, {} duplicates, {} unreadable, {} screened: {} include, {} maybe, {} exclude",
        c.found,
        c.duplicates,
        c.unreadable.values().sum::<usize>(),
        c.screened,
        c.included,
        c.maybe,
        c.excluded
    );
    let mut ranked: Vec<_> = summary
        .papers
        .iter()
        .filter(|p| p.score.is_some())
        .collect();
    ranked.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
    for p in ranked.iter().take(15) {
        println!(
            "  {:>4.1}  {:<8} {}",
            p.score.unwrap_or(0.0),
            p.verdict.map(|v| v.as_str()).unwrap_or(""),
            p.title.as_deref().unwrap_or("")
        );
    }
    if ranked.len() > 15 {
        println!("  … and {} more in the report", ranked.len() - 15);
    }
    for p in summary
        .papers
        .iter()
        .filter(|p| p.status != PaperStatus::Ok.as_str() && p.status != "duplicate")
    {
        println!(
            "  {:<10} {}  {}",
            p.status,
            p.file.display(),
            p.reason.as_deref().unwrap_or("")
        );
    }
    println!("Workspace: {}", summary.workspace.display());
    println!("Report: {}", out.unwrap_or(&summary.report).display());
}
