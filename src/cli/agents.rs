//! `quire agents`, `quire agent run` and `quire label`: the agent runtime on
//! its own, and the researcher's own verdicts.

use quire::commands::ErrorKind;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use quire::agent::{Caps, RunEvent};
use quire::commands::agents::{AgentRunParams, agent_list, agent_run};
use quire::commands::reviews::{LabelParams, label_set};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::review::Verdict;
use tokio_util::sync::CancellationToken;

use super::print_json;

#[derive(Args)]
pub struct AgentsArgs {
    /// Include this workspace's agents/*.toml.
    #[arg(long)]
    workspace: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum AgentCommand {
    /// Run one agent on a task in a workspace (created if missing), with the
    /// same loop a review uses.
    Run {
        agent: String,
        /// What the agent is to do.
        #[arg(long)]
        task: String,
        #[arg(long)]
        workspace: PathBuf,
        /// The model profile (default: the configured one, else a local Ollama).
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        max_tokens: Option<u64>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct LabelArgs {
    /// The review's workspace folder.
    workspace: PathBuf,
    /// The paper's id (or the start of it).
    paper: String,
    /// include, maybe or exclude.
    #[arg(long)]
    verdict: Option<String>,
    /// Your score, 0-10.
    #[arg(long)]
    score: Option<f64>,
    #[arg(long)]
    note: Option<String>,
    /// The serve token `quire screen` printed with this paper: the label
    /// is then one of the queue's samples for the stopping rule (without
    /// it, the paper counts as picked by hand).
    #[arg(long, value_name = "TOKEN")]
    serve: Option<String>,
}

pub async fn list(args: AgentsArgs) -> Result<(), CommandError> {
    let agents = agent_list(args.workspace).await?;
    if args.json {
        return print_json(&agents);
    }
    for a in &agents {
        outln!(
            "{:<10} level {}  {:<8} {}",
            a.name,
            a.level,
            a.source,
            a.description
        );
        if !a.tools.is_empty() {
            outln!("{:<10} tools: {}", "", a.tools.join(", "));
        }
    }
    Ok(())
}

pub async fn run(cmd: AgentCommand) -> Result<(), CommandError> {
    let AgentCommand::Run {
        agent,
        task,
        workspace,
        profile,
        max_tokens,
        json,
    } = cmd;
    let ctx = AppContext::new(AppPaths::from_env()?);
    let workspace = std::path::absolute(&workspace)
        .map_err(|e| CommandError::new(ErrorKind::Storage, "io_error", e.to_string()))?;
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<RunEvent>();
    let verbose = !json && std::io::stderr().is_terminal();
    let display = tokio::spawn(async move {
        while let Some(event) = rx.recv().await {
            if !verbose {
                continue;
            }
            match event {
                RunEvent::AgentStep {
                    agent,
                    step,
                    prompt_tokens,
                    ..
                } => eprintln!("{agent} step {step} · {prompt_tokens} prompt tokens"),
                RunEvent::ToolCall { tool, summary, .. } => eprintln!("  {tool} → {summary}"),
                _ => {}
            }
        }
    });
    let response = agent_run(
        &ctx,
        AgentRunParams {
            agent,
            task,
            workspace,
            profile,
            caps: Caps {
                max_tokens,
                max_cost_usd: None,
            },
        },
        Arc::new(tx),
        cancel,
    )
    .await;
    let _ = display.await;
    let response = response?;
    if json {
        return print_json(&response);
    }
    outln!("{}", response.output);
    eprintln!(
        "[{} {} after {} steps · {} model calls, {} tokens in, {} out · {}]",
        response.agent,
        response.status,
        response.steps,
        response.model_calls,
        response.input_tokens,
        response.output_tokens,
        response.workspace.display()
    );
    Ok(())
}

pub async fn label(args: LabelArgs) -> Result<(), CommandError> {
    let verdict = match args.verdict.as_deref() {
        None => None,
        Some("include") => Some(Verdict::Include),
        Some("maybe") => Some(Verdict::Maybe),
        Some("exclude") => Some(Verdict::Exclude),
        Some(other) => {
            return Err(CommandError::new(
                ErrorKind::InvalidInput,
                "invalid_verdict",
                format!("{other:?} is not include, maybe or exclude"),
            ));
        }
    };
    let label = label_set(LabelParams {
        workspace: args.workspace,
        paper: args.paper,
        verdict,
        score: args.score,
        note: args.note,
        serve: args.serve,
    })
    .await?;
    print_json(&label)
}
