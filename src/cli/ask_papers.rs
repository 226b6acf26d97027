//! `quire ask-papers`: a question answered across a review's papers, each
//! claim citing a quote verified on its page (`quire ask` is one prompt to
//! the model; this reads the papers). `quire asks` lists what was asked.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use quire::commands::asks::{AskParams, ask_estimate, ask_history, ask_in_report, ask_papers};
use quire::commands::{AppContext, AppPaths, CommandError, ErrorKind};
use quire::review::ask::run::Progress;
use quire::review::ask::{self, Scope, Status};

#[derive(Args)]
pub(crate) struct AskPapersArgs {
    /// The review's workspace.
    workspace: PathBuf,
    /// The question.
    question: String,
    /// Which papers: `included` (those the review keeps; the default), `all`,
    /// or paper ids (or unique prefixes), comma-separated.
    #[arg(long, default_value = "included")]
    papers: String,
    /// Read every paper in scope, not only the best-matching candidates.
    #[arg(long)]
    read_all: bool,
    /// No model: print the best-matching passages with their pages (not an answer).
    #[arg(long)]
    offline: bool,
    #[command(flatten)]
    spend: super::SpendArgs,
    #[command(flatten)]
    batch: super::BatchArgs,
    /// Print the record (answer, sources, coverage) as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct AsksArgs {
    /// The review's workspace.
    workspace: PathBuf,
    /// Put this question (by id) and its answer in the review's report.
    #[arg(long, value_name = "ID")]
    to_report: Option<String>,
    /// Take this question (by id) out of the review's report.
    #[arg(long, value_name = "ID", conflicts_with = "to_report")]
    out_of_report: Option<String>,
    /// Print the records as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: AskPapersArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let params = AskParams {
        workspace: args.workspace.clone(),
        question: args.question.clone(),
        scope: Some(Scope::parse(&args.papers)),
        read_all: args.read_all,
        profile: args.spend.profile.clone(),
        offline: args.offline,
        max_tokens: args.spend.max_tokens,
        max_cost_usd: args.spend.max_cost,
        batch: args.batch.batch,
        batch_poll_secs: args.batch.poll_secs(),
    };
    if args.spend.estimate {
        let estimate = ask_estimate(&ctx, params).await?;
        return print_estimate(&estimate, args.json);
    }
    let (cancel, ctrl_c) =
        super::cancel_on_ctrl_c("the papers read so far are kept; asking again resumes");
    let shown = !args.json && std::io::stderr().is_terminal();
    let progress: Arc<dyn Fn(Progress) + Send + Sync> = Arc::new(move |p| {
        if !shown {
            return;
        }
        match p {
            Progress::Reading { papers, cached } => {
                eprintln!("reading {papers} papers ({cached} answered before)")
            }
            Progress::Read { title, answers } => eprintln!(
                "  {} {title}",
                if answers { "answers:" } else { "no answer:" }
            ),
            Progress::Composing { sources } => eprintln!("composing from {sources} sources"),
            Progress::Batch(b) => eprintln!(
                "  batch {}: {}, {} of {} answered",
                b.shard, b.status, b.completed, b.total
            ),
        }
    });
    let record = ask_papers(&ctx, params, cancel, progress).await;
    ctrl_c.abort();
    let record = record?;
    if args.json {
        super::print_json(&record)?;
    } else {
        out!("{}", ask::markdown(&record));
    }
    match record.status {
        // Nothing answered the question because nothing could be read: a
        // failed run, never "none of the papers answers this".
        Status::Failed => Err(CommandError::new(
            ErrorKind::ModelServer,
            "ask_failed",
            record
                .stopped
                .unwrap_or_else(|| "every paper read failed".into()),
        )),
        Status::Done => Ok(()),
        status => {
            eprintln!("not finished ({status:?}); the same command resumes");
            Ok(())
        }
    }
}

/// What a run would take, in a line, or as JSON.
pub(crate) fn print_estimate(
    e: &quire::review::ask::estimate::Estimate,
    json: bool,
) -> Result<(), CommandError> {
    if json {
        return super::print_json(e);
    }
    outln!(
        "{} papers to read ({} answered before, free), about {} calls, {} tokens in, {} out, cost {}",
        e.papers,
        e.reused,
        e.calls,
        e.input_tokens,
        e.output_tokens,
        price(e.cost_usd)
    );
    if e.calls > 0 {
        outln!(
            "as a batch (--batch): cost {}, answered within {} hours a round (re-asks take one more)",
            price(e.batch.cost_usd),
            e.batch.wait_hours
        );
    }
    Ok(())
}

fn price(usd: Option<f64>) -> String {
    usd.map(|c| format!("about ${c:.2}"))
        .unwrap_or_else(|| "unknown (no price for this model)".into())
}

pub(crate) async fn history(args: AsksArgs) -> Result<(), CommandError> {
    if let Some(id) = args.to_report.clone().or(args.out_of_report.clone()) {
        let include = args.to_report.is_some();
        ask_in_report(args.workspace.clone(), id, include).await?;
    }
    let records = ask_history(args.workspace).await?;
    if args.json {
        return super::print_json(&records);
    }
    if records.is_empty() {
        outln!("No question has been asked of this review yet.");
    }
    for r in &records {
        outln!(
            "{}  {}  {:?}, {} of {} papers contributed  {}",
            r.id,
            r.started_at.get(..10).unwrap_or(&r.started_at),
            r.mode,
            r.coverage.contributed,
            r.coverage.considered,
            r.question
        );
        if r.in_report {
            outln!("        (in the review's report)");
        }
    }
    Ok(())
}
