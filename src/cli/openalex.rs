//! `quire openalex`: keep OpenAlex's API key (read from standard input, saved
//! in the OS secret store or keys.toml, never printed) and see today's
//! allowance.

use clap::Subcommand;
use quire::commands::openalex::{
    OpenAlexKeyParams, OpenAlexStatus, openalex_key_remove, openalex_key_save, openalex_status,
};
use quire::commands::{AppContext, AppPaths, CommandError};

use super::print_json;

#[derive(Subcommand)]
pub enum OpenAlexCommand {
    /// Where the key is kept, and with --check today's allowance (a free request).
    Status {
        #[arg(long)]
        check: bool,
        #[arg(long)]
        json: bool,
    },
    /// Save OpenAlex's API key, read from standard input (one line), then check it.
    Key {
        #[arg(long)]
        json: bool,
    },
    /// Remove the saved key.
    ForgetKey {
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(cmd: OpenAlexCommand) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let (status, json) = match cmd {
        OpenAlexCommand::Status { check, json } => (openalex_status(&ctx, check).await?, json),
        OpenAlexCommand::Key { json } => {
            let line = super::read_secret("OpenAlex API key (openalex.org/settings/api)")?;
            let params = OpenAlexKeyParams { key: line };
            (openalex_key_save(&ctx, params).await?, json)
        }
        OpenAlexCommand::ForgetKey { json } => (openalex_key_remove(&ctx).await?, json),
    };
    if json {
        return print_json(&status);
    }
    print_status(&status);
    Ok(())
}

fn print_status(status: &OpenAlexStatus) {
    match &status.key_source {
        Some(source) => outln!("OpenAlex API key: kept in {source}"),
        None => outln!(
            "OpenAlex API key: none (a cent of requests a day; a free key gives a dollar: openalex.org/settings/api)"
        ),
    }
    if let Some(a) = &status.allowance {
        let renews = a
            .resets_in_secs
            .map(|s| format!(", renews in {} h {} min", s / 3600, s % 3600 / 60))
            .unwrap_or_default();
        outln!(
            "Today's allowance: ${:.4} of ${:.2} left{renews}",
            a.remaining_usd,
            a.limit_usd
        );
    }
    if let Some(problem) = &status.problem {
        outln!("Allowance not known: {problem}");
    }
}
