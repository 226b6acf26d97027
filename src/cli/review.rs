//! `quire review`: the headless review of a folder of PDFs (or of a search
//! export's records), with progress bars on
//! a terminal and a machine-readable summary with `--json`.

use super::protocol;
use quire::commands::ErrorKind;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use quire::agent::{Caps, RunEvent};
use quire::commands::reviews::{
    LookupChoice, ReviewParams, review_estimate, review_prepare, review_start,
};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::review::dual::Policy;
use quire::review::estimate::{ASSUMED_CALL_SECONDS, Estimate};
use quire::review::run::ReviewSummary;
use quire::review::{EngineKind, ReviewSpec, ReviewStatus};
use quire::workspace::PaperStatus;

#[derive(Args)]
pub(crate) struct ReviewArgs {
    /// A folder of PDFs (searched recursively), a single PDF, or a search
    /// export (.ris, .nbib, .bib, .csv, …) whose records are screened on
    /// title and abstract.
    #[arg(required_unless_present = "zotero", conflicts_with = "zotero")]
    dir: Option<PathBuf>,
    /// Review a Zotero collection (its key, path "Thesis / Chapter 2", or
    /// unique name): its items are the records, their PDFs the full text.
    /// Read from the running Zotero, else a private copy of its database.
    #[arg(long, value_name = "COLLECTION")]
    zotero: Option<String>,
    /// The review question.
    #[arg(long, short)]
    question: String,
    /// A text file of inclusion/exclusion criteria, one per line (blank lines and
    /// lines starting with # are ignored).
    #[arg(long)]
    criteria: Option<PathBuf>,
    /// The engine: `agent` (the agent hierarchy reads every paper with a
    /// language model) or `offline` (classical IR, no language model).
    #[arg(long, default_value = "offline")]
    engine: String,
    /// The model profile for the agent engine (default: the configured one,
    /// else a local Ollama).
    #[arg(long)]
    profile: Option<String>,
    /// Stop cleanly before a model call would take this run's cost over this
    /// many US dollars. A cap counts one run: resuming starts from zero, so
    /// a resumed run may spend the cap again.
    #[arg(long)]
    max_cost: Option<f64>,
    /// Stop cleanly before a model call would take this run over this many
    /// tokens, in and out (per run: a resumed run counts from zero).
    #[arg(long)]
    max_tokens: Option<u64>,
    /// Print what the agent review would take (papers, tokens, model calls,
    /// cost, time) and stop before any model call.
    #[arg(long)]
    estimate: bool,
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
    /// Do not look the papers up in Crossref, arXiv and OpenAlex (which are
    /// sent DOIs, arXiv ids and titles only). Also QUIRE_OFFLINE=1.
    #[arg(long)]
    offline: bool,
    /// Approve the protocol draft you were shown (agent engine), by the hash
    /// printed with it (`--approve 3fa9c2d1`), or bare for the draft an
    /// earlier run printed. A question with no draft yet gets one, printed,
    /// and no paper is read: nothing unseen is ever approved.
    #[arg(long, value_name = "HASH", num_args = 0..=1, default_missing_value = "")]
    approve: Option<String>,
    /// Approve this file's text as the review's protocol (agent engine): the
    /// printed draft, edited.
    #[arg(long, value_name = "FILE", conflicts_with = "approve")]
    protocol: Option<PathBuf>,
    /// Read only this many papers under the approved protocol, then stop: a
    /// pilot to check before the rest is read (agent engine).
    #[arg(long, value_name = "N")]
    pilot: Option<usize>,
    /// Readings as a batch (agent engine).
    #[command(flatten)]
    batch: super::BatchArgs,
    /// Read every paper twice, independently (agent engine), reconciling the
    /// two readings by this policy: `agree-to-exclude` (excluded only when
    /// both exclude), `tie-breaker` (a third reading decides a disagreement)
    /// or `flag` (a disagreement is maybe, for the researcher).
    #[arg(long, value_name = "POLICY")]
    dual: Option<String>,
    /// The model profile of the second reading (default: the first's model,
    /// with the second reader's own instructions).
    #[arg(long, value_name = "P", requires = "dual")]
    second_profile: Option<String>,
}

/// Exit code of a run that waits for its protocol's approval.
const AWAITING_APPROVAL: u8 = 4;

/// How the command ended.
enum Ended {
    Ran(ReviewStatus),
    /// No paper was read: the protocol awaits the researcher's approval.
    AwaitingApproval,
}

pub(crate) async fn run(args: ReviewArgs) -> ExitCode {
    match review(args).await {
        Ok(Ended::Ran(status)) => status_code(status),
        Ok(Ended::AwaitingApproval) => ExitCode::from(AWAITING_APPROVAL),
        Err(e) => {
            eprintln!("error[{}]: {}", e.code, e.message);
            ExitCode::FAILURE
        }
    }
}

fn read_criteria(path: &Path) -> Result<Vec<String>, CommandError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        CommandError::new(
            ErrorKind::InvalidInput,
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

/// The exit code of a finished run: 0 when it did its work (or stopped at
/// a cap or a cancel and resumes), 3 when some papers could not be scored,
/// 1 when none could.
fn status_code(status: ReviewStatus) -> ExitCode {
    match status {
        ReviewStatus::Incomplete => ExitCode::from(3),
        ReviewStatus::Failed => ExitCode::FAILURE,
        ReviewStatus::Done
        | ReviewStatus::Cancelled
        | ReviewStatus::Stopped
        | ReviewStatus::Pilot => ExitCode::SUCCESS,
    }
}

/// Run the review; returns how it ended.
async fn review(args: ReviewArgs) -> Result<Ended, CommandError> {
    let engine = EngineKind::parse(&args.engine).ok_or_else(|| {
        CommandError::new(
            ErrorKind::InvalidInput,
            "unknown_engine",
            format!(
                "unknown engine {:?}; available: agent, offline",
                args.engine
            ),
        )
    })?;
    if args.question.trim().is_empty() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "empty_question",
            "the review question is empty",
        ));
    }
    let dual = match args.dual.as_deref() {
        None => None,
        Some(name) => Some(Policy::parse(name).ok_or_else(|| {
            CommandError::invalid(
                "unknown_policy",
                format!(
                    "unknown dual-reading policy {name:?}; available: agree-to-exclude, tie-breaker, flag"
                ),
            )
        })?),
    };
    if dual.is_some() && engine != EngineKind::Agent {
        return Err(CommandError::invalid(
            "dual_needs_agent",
            "dual reading reads each paper twice with a model; it is for --engine agent",
        ));
    }
    let criteria = args
        .criteria
        .as_deref()
        .map(read_criteria)
        .transpose()?
        .unwrap_or_default();
    let ctx = AppContext::new(AppPaths::from_env()?);
    let mut ingest = ctx.ingest_options()?;
    if let Some(jobs) = args.jobs {
        ingest.jobs = jobs.max(1);
    }
    let workspace = match args.workspace {
        Some(dir) => Some(
            std::path::absolute(&dir)
                .map_err(|e| CommandError::new(ErrorKind::Storage, "io_error", e.to_string()))?,
        ),
        None => None,
    };
    let source = match (&args.zotero, &args.dir) {
        (Some(collection), _) => {
            let read = quire::commands::zotero::zotero_read(&ctx, collection).await?;
            if !args.json {
                super::zotero::say_read(&read);
            }
            read.snapshot
        }
        (None, Some(dir)) => dir.clone(),
        (None, None) => {
            return Err(CommandError::invalid(
                "no_source",
                "name a folder, a PDF, a search export, or --zotero COLLECTION",
            ));
        }
    };
    let params = ReviewParams {
        source,
        spec: ReviewSpec {
            question: args.question.trim().to_owned(),
            criteria,
            engine,
            protocol: None,
        },
        workspace,
        ingest,
        profile: args.profile.clone(),
        caps: Caps {
            max_tokens: args.max_tokens,
            max_cost_usd: args.max_cost,
        },
        lookups: LookupChoice::from_env(args.offline),
        pilot: args.pilot,
        dual,
        second_profile: args.second_profile.clone(),
        batch: args.batch.mode(),
    };

    if args.estimate {
        let estimate = review_estimate(&ctx, params).await?;
        print_estimate(&estimate, args.json)?;
        return Ok(Ended::Ran(ReviewStatus::Done));
    }
    if args.pilot.is_some() && engine != EngineKind::Agent {
        return Err(CommandError::invalid(
            "pilot_needs_agent",
            "a pilot reads papers with a model; it is for --engine agent",
        ));
    }
    if args.batch.batch && engine != EngineKind::Agent {
        return Err(CommandError::invalid(
            "batch_needs_agent",
            "a batch sends the papers' readings to a model; it is for --engine agent",
        ));
    }
    let mut params = params;
    if engine == EngineKind::Agent {
        let root = review_prepare(&ctx, &params).await?;
        let approved = protocol::settle(
            &ctx,
            &params,
            root.clone(),
            args.approve.as_deref(),
            args.protocol.as_deref(),
            args.json,
        )
        .await?;
        let Some(approved) = approved else {
            return Ok(Ended::AwaitingApproval);
        };
        if !args.json {
            eprintln!(
                "protocol {} approved {} ({})",
                approved.hash,
                approved.at,
                protocol::origin_words(&approved)
            );
        }
        params.workspace = Some(root);
    }
    let show_progress = !args.json && std::io::stderr().is_terminal();
    let progress = Progress::new(show_progress);
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<RunEvent>();
    let handle = review_start(&ctx, params, Arc::new(tx)).await?;
    let display = {
        let progress = progress.clone();
        tokio::spawn(async move {
            while let Some(event) = rx.recv().await {
                progress.show(&event);
            }
        })
    };
    let cancel = handle.cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\ncancelling: in-flight model calls are dropped; the workspace resumes");
            cancel.cancel();
        }
    });
    let summary = handle.finish().await;
    ctrl_c.abort();
    let _ = display.await;
    progress.finish();
    let summary = summary?;

    if let Some(out) = &args.out {
        std::fs::copy(&summary.report, out).map_err(|e| {
            CommandError::new(
                ErrorKind::Storage,
                "io_error",
                format!("cannot write {}: {e}", out.display()),
            )
        })?;
    }
    if args.json {
        let text = serde_json::to_string_pretty(&summary)
            .map_err(|e| CommandError::new(ErrorKind::Internal, "internal_error", e.to_string()))?;
        outln!("{text}");
    } else {
        print_table(&summary, args.out.as_deref(), args.pilot.is_some());
    }
    Ok(Ended::Ran(summary.status))
}

fn print_estimate(e: &Estimate, json: bool) -> Result<(), CommandError> {
    if json {
        return super::print_json(e);
    }
    outln!(
        "{} readable papers, {} reviewed already, {} to read ({} tokens of text)",
        e.readable,
        e.already_reviewed,
        e.to_read,
        e.paper_tokens
    );
    outln!(
        "model calls: about {} reader calls, {} agent steps and {} synthesis calls with {}",
        e.expected.reader_calls,
        e.expected.agent_steps,
        e.expected.digest_calls,
        e.model
    );
    outln!(
        "tokens: about {} in, {} out",
        e.expected.input_tokens,
        e.expected.output_tokens
    );
    outln!(
        "at most: {} in, {} out ({} reader calls, {} agent steps, {} synthesis calls) if the model needs every retry and re-ask; --max-tokens makes a hard limit for one run (a resumed run counts from zero)",
        e.at_most.input_tokens,
        e.at_most.output_tokens,
        e.at_most.reader_calls,
        e.at_most.agent_steps,
        e.at_most.digest_calls
    );
    outln!(
        "cost: {}",
        match (e.expected.cost_usd, e.at_most.cost_usd) {
            (Some(c), Some(max)) => format!("about ${c:.2}, at most ${max:.2}"),
            _ => "unknown (the model has no price in the table; add one to prices.toml)".into(),
        }
    );
    outln!(
        "time: {} rounds of calls at {} at once; about {:.0} min at {ASSUMED_CALL_SECONDS:.0} s a call",
        e.serial_rounds,
        e.concurrency,
        e.seconds / 60.0
    );
    outln!(
        "as a batch (--batch): {}, the readings answered within {} hours a round (re-asks take one more)",
        match e.batch.cost_usd {
            Some(c) => format!("about ${c:.2}"),
            None => "cost unknown".into(),
        },
        e.batch.wait_hours
    );
    Ok(())
}

/// Bars on a terminal: extraction, then papers read; a line per agent step.
#[derive(Clone)]
struct Progress {
    bar: Arc<ProgressBar>,
    counts: Arc<std::sync::Mutex<std::collections::BTreeMap<String, usize>>>,
    visible: bool,
}

impl Progress {
    fn new(visible: bool) -> Self {
        let bar = if visible {
            ProgressBar::new(0)
        } else {
            ProgressBar::hidden()
        };
        bar.set_style(
            ProgressStyle::with_template("{spinner} {prefix} [{bar:30}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix("reading PDFs");
        Self {
            bar: Arc::new(bar),
            counts: Default::default(),
            visible,
        }
    }

    fn show(&self, event: &RunEvent) {
        match event {
            RunEvent::ExtractionStarted { to_extract, .. } => {
                self.bar.set_length(*to_extract as u64)
            }
            RunEvent::Extracted { status, .. } => {
                if let Ok(mut c) = self.counts.lock() {
                    *c.entry(status.clone()).or_default() += 1;
                    let text: Vec<String> = c.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    self.bar.set_message(text.join(", "));
                }
                self.bar.inc(1);
            }
            RunEvent::AgentStep {
                agent,
                step,
                prompt_tokens,
                ..
            } if self.visible => {
                self.bar.set_message(format!(
                    "{agent} step {step} ({prompt_tokens} prompt tokens)"
                ));
            }
            RunEvent::PaperStatus { phase, .. } if self.visible => {
                if *phase == quire::agent::PaperPhase::Queued {
                    if self.bar.prefix() != "papers read" {
                        self.bar.set_prefix("papers read");
                        self.bar.set_position(0);
                        self.bar.set_length(0);
                    }
                    self.bar.inc_length(1);
                } else if matches!(
                    phase,
                    quire::agent::PaperPhase::Scored | quire::agent::PaperPhase::Failed
                ) {
                    self.bar.inc(1);
                }
            }
            RunEvent::Usage {
                input_tokens,
                output_tokens,
                cost_usd,
                ..
            } if self.visible => {
                let cost = cost_usd.map(|c| format!(" · ${c:.4}")).unwrap_or_default();
                self.bar.set_message(format!(
                    "{input_tokens} tokens in, {output_tokens} out{cost}"
                ));
            }
            RunEvent::BatchProgress {
                shard,
                status,
                completed,
                failed,
                total,
            } if self.visible => {
                self.bar.set_message(format!(
                    "batch {shard}: {status}, {completed} of {total} done, {failed} failed"
                ));
            }
            _ => {}
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

fn print_table(summary: &ReviewSummary, out: Option<&Path>, pilot: bool) {
    let c = &summary.counts;
    outln!("Engine: {}", summary.engine);
    if let Some(l) = &summary.lookups {
        outln!(
            "Records: {} of {} papers found in Crossref, arXiv or OpenAlex ({} requests, {} answers from the cache)",
            l.matched,
            l.looked_up,
            l.stats.requests,
            l.stats.from_cache
        );
        for notice in &l.stats.notices {
            outln!("  {notice}");
        }
    }
    match summary.status {
        ReviewStatus::Done => {}
        ReviewStatus::Failed if pilot => outln!(
            "Status: failed: the pilot could score none of the papers it read (the report says why for each); check the model profile before running the review"
        ),
        ReviewStatus::Incomplete | ReviewStatus::Failed => outln!(
            "Status: {}: {} of {} papers could not be scored (the report says why for each)",
            summary.status,
            summary.counts.not_scored,
            summary.counts.screened
        ),
        ReviewStatus::Cancelled | ReviewStatus::Stopped => outln!(
            "Status: {} (run the same command again to resume)",
            summary.status
        ),
        ReviewStatus::Pilot => outln!(
            "Status: pilot: the papers above were read under the approved protocol. Check them in the report; to change how papers are judged, approve an edited protocol (--protocol FILE), which reads them again. Run without --pilot to read the rest."
        ),
    }
    if let Some(a) = &summary.agent {
        outln!(
            "Agents: planner {}; of {} papers, {} reviewed before this run, {} covered by the reviewer, {} by the final sweep, {} without a result; {} steps, {} tool calls ({} written as text), {} consolidations",
            a.planner,
            a.readable,
            a.already_reviewed,
            a.covered_by_agent,
            a.covered_by_sweep,
            a.failed,
            a.steps,
            a.tool_calls,
            a.text_tool_calls,
            a.consolidations
        );
        outln!(
            "Model: {} calls, {} tokens in, {} out, cost {}",
            a.model_calls,
            a.input_tokens,
            a.output_tokens,
            a.cost_usd
                .map(|c| format!("${c:.4}"))
                .unwrap_or_else(|| "unknown (no price for this model)".into())
        );
        if let Some(why) = &a.stopped {
            outln!("Stopped: {why}");
        }
    }
    outln!(
        "{} files, {} duplicates, {} unreadable, {} screened: {} include, {} maybe, {} exclude, {} could not be scored",
        c.found,
        c.duplicates,
        c.unreadable.values().sum::<usize>(),
        c.screened,
        c.included,
        c.maybe,
        c.excluded,
        c.not_scored
    );
    let mut ranked: Vec<_> = summary
        .papers
        .iter()
        .filter(|p| p.score.is_some())
        .collect();
    ranked.sort_by(|a, b| b.score.unwrap_or(0.0).total_cmp(&a.score.unwrap_or(0.0)));
    for p in ranked.iter().take(15) {
        outln!(
            "  {:>4.1}  {:<8} {}",
            p.score.unwrap_or(0.0),
            p.verdict.map(|v| v.as_str()).unwrap_or(""),
            p.title.as_deref().unwrap_or("")
        );
    }
    if ranked.len() > 15 {
        outln!("  … and {} more in the report", ranked.len() - 15);
    }
    for p in summary.papers.iter().filter(|p| p.not_scored.is_some()) {
        outln!(
            "  {:<10} {}  {}",
            "not scored",
            p.title.as_deref().unwrap_or(""),
            p.not_scored.as_deref().unwrap_or("")
        );
    }
    for p in summary
        .papers
        .iter()
        .filter(|p| p.status != PaperStatus::Ok.as_str() && p.status != "duplicate")
    {
        outln!(
            "  {:<10} {}  {}",
            p.status,
            p.file.display(),
            p.reason.as_deref().unwrap_or("")
        );
    }
    outln!("Workspace: {}", summary.workspace.display());
    outln!("Report: {}", out.unwrap_or(&summary.report).display());
}
