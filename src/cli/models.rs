//! `quire models`, `quire key` and `quire ask`: see what an endpoint serves,
//! keep its key, and send it one prompt to check the settings end to end.

use quire::commands::ErrorKind;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use quire::commands::models::{WorkspaceCallLog, models_list, resolve_model};
use quire::commands::run_model::RunModel;
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::llm::secrets::{ApiKey, delete_key, store_key};
use quire::llm::{ChatRequest, Message, StreamEvent};
use quire::workspace::Workspace;
use tokio_util::sync::CancellationToken;

use super::print_json;

#[derive(Args)]
pub struct ModelsArgs {
    /// The settings profile (default: the file's `default`, else a local Ollama).
    #[arg(long)]
    profile: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum KeyCommand {
    /// Store a profile's API key, read from standard input (one line), in the OS
    /// secret store or, without one, in keys.toml (mode 600).
    Set { profile: String },
    /// Remove a profile's stored API key.
    Delete { profile: String },
}

#[derive(Args)]
pub struct AskArgs {
    /// The prompt.
    prompt: String,
    #[arg(long)]
    profile: Option<String>,
    /// A system prompt.
    #[arg(long)]
    system: Option<String>,
    /// Record the call in this workspace (and the index).
    #[arg(long)]
    workspace: Option<PathBuf>,
}

fn config_dir() -> Result<PathBuf, CommandError> {
    Ok(AppPaths::from_env()?.config_dir)
}

pub async fn models(args: ModelsArgs) -> Result<(), CommandError> {
    let listing = models_list(config_dir()?, args.profile.as_deref()).await?;
    if args.json {
        return print_json(&listing);
    }
    outln!("profile {}  {}", listing.profile, listing.base_url);
    if let Some(source) = &listing.key_source {
        outln!("key from {source}");
    }
    for model in &listing.models {
        let mark = if *model == listing.configured_model {
            "*"
        } else {
            " "
        };
        outln!("{mark} {model}");
    }
    if listing.models.is_empty() {
        outln!("(the endpoint lists no models)");
    }
    if !listing.endpoints.is_empty() {
        outln!("pool of {} endpoints:", listing.endpoints.len());
        for check in &listing.endpoints {
            match &check.problem {
                None => outln!("  ok  {}", check.endpoint),
                Some(problem) => outln!("  --  {}: {problem}", check.endpoint),
            }
        }
    }
    Ok(())
}

pub async fn key(cmd: KeyCommand) -> Result<(), CommandError> {
    let dir = config_dir()?;
    match cmd {
        KeyCommand::Set { profile } => {
            let line = super::read_secret(&format!("API key for {profile}"))?;
            let key = ApiKey::new(line);
            let source = tokio::task::spawn_blocking(move || store_key(&profile, &key, &dir))
                .await
                .map_err(|e| {
                    CommandError::new(ErrorKind::Internal, "internal_error", e.to_string())
                })??;
            outln!("stored in {source}");
        }
        KeyCommand::Delete { profile } => {
            let found = tokio::task::spawn_blocking(move || delete_key(&profile, &dir))
                .await
                .map_err(|e| {
                    CommandError::new(ErrorKind::Internal, "internal_error", e.to_string())
                })??;
            outln!(
                "{}",
                if found {
                    "deleted"
                } else {
                    "there was no stored key"
                }
            );
        }
    }
    Ok(())
}

pub async fn ask(args: AskArgs) -> Result<(), CommandError> {
    // Set up like every run's model: fitted to the context its server holds.
    let resolved = resolve_model(config_dir()?, args.profile.as_deref()).await?;
    let model = RunModel::from_resolved(resolved, &Default::default()).await?;
    let mut client = model.client(None);
    let mut call_log = None;
    if let Some(root) = &args.workspace {
        let ctx = AppContext::new(AppPaths::from_env()?);
        let workspace = Arc::new(Workspace::open(root)?);
        let log = Arc::new(WorkspaceCallLog::new(workspace, ctx)?);
        client = client.with_log(log.clone());
        call_log = Some(log);
    }
    let mut messages = Vec::new();
    if let Some(system) = args.system {
        messages.push(Message::system(system));
    }
    messages.push(Message::user(args.prompt));
    let request = ChatRequest {
        model: String::new(),
        messages,
        tools: Vec::new(),
        tool_choice: None,
        max_tokens: None,
        stream: true,
        response_format: None,
        cache_prefix: false,
        affinity: None,
    };
    let cancel = CancellationToken::new();
    let on_ctrl_c = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.cancel();
        }
    });
    let answer = client
        .chat(&request, "ask", &cancel, &|event| match event {
            StreamEvent::Text(text) => {
                out!("{text}");
            }
            StreamEvent::Restart { after, error, .. } => {
                eprintln!("\n[{error}; retrying in {:.1} s]", after.as_secs_f64());
            }
        })
        .await;
    if let Some(log) = call_log {
        // The record is on disk and in the index before the command returns.
        let _ = tokio::task::spawn_blocking(move || log.flush()).await;
    }
    let answer = answer?;
    outln!();
    if let Some(usage) = answer.usage {
        eprintln!(
            "[{} · {} tokens in, {} out]",
            client.settings().model,
            usage.input_tokens,
            usage.output_tokens
        );
    }
    Ok(())
}
