//! `quire duplicate`: set a paper aside as a copy of another paper of the
//! review (removed before screening, as PRISMA counts duplicates, and never
//! read), or put it back; then the review's groups of possible duplicates
//! as they stand.

use std::path::PathBuf;

use clap::Args;
use quire::commands::records::{SetAsideParams, paper_set_aside};
use quire::commands::{AppContext, AppPaths, CommandError};

use super::print_json;

#[derive(Args)]
pub(crate) struct DuplicateArgs {
    /// The review's workspace folder.
    workspace: PathBuf,
    /// The paper to set aside (its id, or a unique prefix of it).
    paper: String,
    /// The paper it is a copy of (the one kept).
    #[arg(
        long,
        required_unless_present = "put_back",
        conflicts_with = "put_back"
    )]
    of: Option<String>,
    /// Put the paper back: screened and read again.
    #[arg(long)]
    put_back: bool,
    /// Print the duplicate groups as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: DuplicateArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let groups = paper_set_aside(
        &ctx,
        SetAsideParams {
            workspace: args.workspace,
            paper: args.paper.clone(),
            of: args.of.clone(),
        },
    )
    .await?;
    if args.json {
        return print_json(&groups);
    }
    match &args.of {
        Some(of) => outln!("{} is set aside as a copy of {of}.", args.paper),
        None => outln!("{} is back in the review.", args.paper),
    }
    for group in &groups {
        outln!("- {}:", group.why);
        for m in &group.members {
            outln!(
                "    {}  {}  {}{}",
                &m.paper[..8.min(m.paper.len())],
                m.kind,
                m.title.as_deref().unwrap_or("(no title)"),
                if m.set_aside { "  (set aside)" } else { "" }
            );
        }
    }
    Ok(())
}
