//! Argument parsing and dispatch for the `quire` binary. Printing is this
//! module's job, so stdout is allowed here and nowhere in the library.
#![allow(clippy::print_stdout, clippy::print_stderr)]

#[macro_use]
mod out;

mod agents;
mod ask_papers;
mod duplicate;
mod extract;
mod import;
mod meta;
mod models;
mod openalex;
mod protocol;
mod review;
mod screen;
mod snowball;
mod table;
mod tool;
mod validate;
mod zotero;

use quire::commands::ErrorKind;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use quire::commands::{self, AppContext, AppPaths, CommandError, WorkspaceCreateParams};

#[derive(Parser)]
#[command(
    name = "quire",
    version,
    about = "Literature reviews by an LLM agent whose state lives in files."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run one agent tool against a workspace and print its result.
    Tool(tool::ToolArgs),
    /// List the agent's tools with their descriptions.
    Tools {
        /// Print the full specs (name, description, JSON schema) as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Create, reopen or list review workspaces.
    #[command(subcommand)]
    Workspace(WorkspaceCommand),
    /// Review a folder of PDFs, or a search export's records, against a
    /// question (headless) and write the report.
    Review(review::ReviewArgs),
    /// The screening queue: where screening stands and the next papers to
    /// label, ordered by what your labels so far teach.
    Screen(screen::ScreenArgs),
    /// Citation searching: follow the included papers' references and
    /// citing works in OpenAlex; new works join the review as records to
    /// screen. Prints the plan (calls, cost, today's allowance) first.
    Snowball(snowball::SnowballArgs),
    /// Import search records (RIS, PubMed/MEDLINE, BibTeX, CSV) into a review:
    /// each becomes a paper screened on its title and abstract.
    Import(import::ImportArgs),
    /// Set a paper aside as a copy of another (removed before screening,
    /// counted as a duplicate), or put it back.
    Duplicate(duplicate::DuplicateArgs),
    /// Extract the text of PDFs and show the status each gets.
    Extract(extract::ExtractArgs),
    /// List the models an endpoint serves (the configured profile, or a local Ollama).
    Models(models::ModelsArgs),
    /// Store or delete a model profile's API key.
    #[command(subcommand)]
    Key(models::KeyCommand),
    /// What Zotero holds: its libraries' collections (`quire review --zotero
    /// COLLECTION` reviews one).
    #[command(subcommand)]
    Zotero(zotero::ZoteroCommand),
    /// OpenAlex's API key (saved, never printed) and today's allowance.
    #[command(subcommand)]
    Openalex(openalex::OpenAlexCommand),
    /// Send one prompt to the configured model and stream the answer.
    Ask(models::AskArgs),
    /// Ask a question across a review's papers: an answer whose every claim
    /// cites a quote verified on its page (with no model, the best passages).
    AskPapers(ask_papers::AskPapersArgs),
    /// List the questions asked of a review.
    Asks(ask_papers::AsksArgs),
    /// The extraction table: columns you define, filled from every paper
    /// with a quote and page per cell.
    #[command(subcommand)]
    Table(table::TableCommand),
    /// List the agents (built-in, and a workspace's agents/*.toml).
    Agents(agents::AgentsArgs),
    /// Run one agent on a task in a workspace.
    #[command(subcommand)]
    Agent(agents::AgentCommand),
    /// Record your own verdict, score or note for a paper of a review.
    Label(agents::LabelArgs),
    /// Check the engine's screening against your own labels: propose a
    /// sample to label blind, then recall, kappa, WSS@95 and lost papers.
    Validate(validate::ValidateArgs),
    /// Correct a paper's title, authors, year, DOI or arXiv id by hand.
    #[command(subcommand)]
    Meta(meta::MetaCommand),
    /// Maintain the SQLite index of workspaces.
    #[command(subcommand)]
    Index(IndexCommand),
}

#[derive(Subcommand)]
enum WorkspaceCommand {
    /// Create the workspace for a folder of PDFs (or reopen it, adding new PDFs).
    Create {
        folder: PathBuf,
        /// Print the workspace as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List workspaces, most recent first.
    List {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum IndexCommand {
    /// Recreate the index from the workspace folders.
    Rebuild {
        /// Also index workspaces under this folder (repeatable).
        #[arg(long = "root")]
        roots: Vec<PathBuf>,
    },
}

pub fn run() -> ExitCode {
    quire::logging::init("warn");
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(dispatch(cli.command))
}

async fn dispatch(command: Command) -> ExitCode {
    match command {
        Command::Tool(args) => tool::run(args).await,
        Command::Extract(args) => extract::run(args).await,
        Command::Review(args) => review::run(args).await,
        Command::Tools { json } => tool::list(json),
        Command::Workspace(cmd) => report(workspace(cmd).await),
        Command::Index(IndexCommand::Rebuild { roots }) => report(rebuild(roots).await),
        Command::Models(args) => report(models::models(args).await),
        Command::Key(cmd) => report(models::key(cmd).await),
        Command::Openalex(cmd) => report(openalex::run(cmd).await),
        Command::Zotero(cmd) => report(zotero::run(cmd).await),
        Command::Ask(args) => report(models::ask(args).await),
        Command::Agents(args) => report(agents::list(args).await),
        Command::Agent(cmd) => report(agents::run(cmd).await),
        Command::Label(args) => report(agents::label(args).await),
        Command::Import(args) => report(import::run(args).await),
        Command::Duplicate(args) => report(duplicate::run(args).await),
        Command::Screen(args) => report(screen::run(args).await),
        Command::Snowball(args) => report(snowball::run(args).await),
        Command::Meta(cmd) => report(meta::run(cmd).await),
        Command::Validate(args) => report(validate::run(args).await),
        Command::AskPapers(args) => report(ask_papers::run(args).await),
        Command::Asks(args) => report(ask_papers::history(args).await),
        Command::Table(command) => report(table::run(command).await),
    }
}

async fn workspace(cmd: WorkspaceCommand) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    match cmd {
        WorkspaceCommand::Create { folder, json } => {
            let summary =
                commands::workspace_create(&ctx, WorkspaceCreateParams { folder }).await?;
            if json {
                print_json(&summary)?;
            } else {
                outln!(
                    "{}  {} papers  {}",
                    summary.title,
                    summary.paper_count,
                    summary.root
                );
            }
        }
        WorkspaceCommand::List { json } => {
            let list = commands::workspace_list(&ctx).await?;
            if let Some(notice) = &list.notice {
                eprintln!("note: {notice}");
            }
            if json {
                print_json(&list.workspaces)?;
            } else if list.workspaces.is_empty() {
                outln!("no workspaces yet; create one with `quire workspace create FOLDER`");
            } else {
                for w in &list.workspaces {
                    outln!(
                        "{}  {:>4} papers  {:<9} {}  {}",
                        w.updated_at,
                        w.paper_count,
                        w.status,
                        w.title,
                        w.root
                    );
                }
            }
        }
    }
    Ok(())
}

async fn rebuild(roots: Vec<PathBuf>) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let report = commands::index_rebuild(&ctx, roots).await?;
    outln!(
        "indexed {} workspaces, {} papers, {} runs",
        report.workspaces,
        report.papers,
        report.runs
    );
    for skipped in &report.skipped {
        eprintln!("skipped {skipped}");
    }
    Ok(())
}

/// A token Ctrl-C cancels, saying `what` is kept; abort the task once the
/// work is done.
/// The model and what it may spend, for a command that reads papers with
/// it (asking the papers, filling the table).
#[derive(Args)]
pub(crate) struct SpendArgs {
    /// The model profile (default: the configured one).
    #[arg(long)]
    pub profile: Option<String>,
    /// Stop cleanly before a model call would take the run over this many tokens.
    #[arg(long)]
    pub max_tokens: Option<u64>,
    /// Stop cleanly before a model call would take the cost over this many US dollars.
    #[arg(long)]
    pub max_cost: Option<f64>,
    /// Print what it would take (papers, calls, tokens, cost) and stop
    /// before any model call.
    #[arg(long)]
    pub estimate: bool,
}

/// Sending a command's model calls through a Batch API.
#[derive(Args)]
pub(crate) struct BatchArgs {
    /// Send the papers' calls through the profile's Batch API first
    /// (OpenAI-compatible or Anthropic): about half the price, answered
    /// within 24 hours. Killed or stopped, the same command finds its
    /// batches again. The papers' text stays with the provider until the
    /// batch ends and Quire deletes it (OpenAI: as stored files; Anthropic:
    /// with the batch, up to 29 days): check those terms before sending
    /// unpublished papers.
    #[arg(long)]
    pub batch: bool,
    /// With --batch: seconds between asking an open batch how far it got.
    #[arg(long, value_name = "SECS", default_value_t = 30.0, requires = "batch")]
    pub batch_poll: f64,
}

impl BatchArgs {
    /// The poll as a command's params take it.
    pub fn poll_secs(&self) -> Option<f64> {
        Some(self.batch_poll.max(0.001))
    }

    /// The batch mode asked for, if any.
    pub fn mode(&self) -> Option<quire::review::batches::BatchMode> {
        self.batch.then(|| quire::review::batches::BatchMode {
            poll_every: std::time::Duration::from_secs_f64(self.batch_poll.max(0.001)),
        })
    }
}

pub(crate) fn cancel_on_ctrl_c(
    what: &'static str,
) -> (
    tokio_util::sync::CancellationToken,
    tokio::task::JoinHandle<()>,
) {
    let cancel = tokio_util::sync::CancellationToken::new();
    let token = cancel.clone();
    let task = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("\ncancelling: {what}");
            token.cancel();
        }
    });
    (cancel, task)
}

/// A secret typed (or piped) on standard input after `prompt` on standard
/// error, so a key never lands in the shell's history or in stdout.
pub(crate) fn read_secret(prompt: &str) -> Result<String, CommandError> {
    use std::io::{BufRead, Write};
    eprint!("{prompt}: ");
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CommandError::storage(format!("cannot read the key: {e}")))?;
    eprintln!();
    Ok(line)
}

pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), CommandError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CommandError::new(ErrorKind::Internal, "internal_error", e.to_string()))?;
    outln!("{text}");
    Ok(())
}

fn report(result: Result<(), CommandError>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error[{}]: {}", e.code, e.message);
            ExitCode::FAILURE
        }
    }
}
