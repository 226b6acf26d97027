//! `quire zotero`: what Zotero holds (read from the running app or, with
//! Zotero closed, a private copy of its database), and a review's verdicts
//! written back to its items through Zotero's Web API with a saved key.
//! (`quire review --zotero COLLECTION` reviews a collection.)

use std::path::PathBuf;

use clap::Subcommand;
use quire::commands::zotero::{
    ZoteroKeyParams, ZoteroPushParams, ZoteroRead, zotero_authorize, zotero_collections,
    zotero_key_remove, zotero_key_save, zotero_push,
};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::zotero::Via;

use super::print_json;

#[derive(Subcommand)]
pub enum ZoteroCommand {
    /// List every collection of every library, with its key and item count.
    Collections {
        #[arg(long)]
        json: bool,
    },
    /// Write a review's verdicts to its Zotero items: `quire:` tags for the
    /// engine's verdict, score and reason, `screen:` for your label, and one
    /// note per item with the summary, rationale and quotes linked to their
    /// pages. Only what differs from Zotero is written.
    Push {
        workspace: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Ask the running Zotero (10 or later) to let Quire write to it: Zotero
    /// shows a dialog; choose Always Allow. Pushes then write locally, with
    /// no Web API key.
    Authorize {
        #[arg(long)]
        json: bool,
    },
    /// Save a Zotero Web API key with write access (zotero.org/settings/keys),
    /// read from standard input.
    Key,
    /// Remove the saved Zotero Web API key.
    ForgetKey,
}

pub async fn run(cmd: ZoteroCommand) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    match cmd {
        ZoteroCommand::Collections { json } => {
            let listed = zotero_collections(&ctx).await?;
            if json {
                return print_json(&listed);
            }
            outln!("Read from {}", via(listed.via));
            if listed.collections.is_empty() {
                outln!("No collections.");
            }
            for c in &listed.collections {
                outln!(
                    "{}  {} / {}  ({} item{})",
                    c.key,
                    c.library.name,
                    c.path,
                    c.items,
                    if c.items == 1 { "" } else { "s" }
                );
            }
        }
        ZoteroCommand::Push { workspace, json } => {
            let summary = zotero_push(&ctx, ZoteroPushParams { workspace }).await?;
            if json {
                return print_json(&summary);
            }
            outln!(
                "Zotero: {} item{}: {} tagged, {} note{} created, {} updated, {} already as Quire would write them ({} request{})",
                summary.items,
                if summary.items == 1 { "" } else { "s" },
                summary.tagged,
                summary.notes_created,
                if summary.notes_created == 1 { "" } else { "s" },
                summary.notes_updated,
                summary.unchanged,
                summary.requests,
                if summary.requests == 1 { "" } else { "s" },
            );
            if summary.conflicts_resolved > 0 {
                outln!(
                    "  {} changed in Zotero during the push: read again, your edits kept",
                    summary.conflicts_resolved
                );
            }
            for failed in &summary.failed {
                outln!("  not written: {failed}");
            }
        }
        ZoteroCommand::Authorize { json } => {
            eprintln!(
                "Zotero shows a dialog: choose Always Allow to let Quire write to this library."
            );
            let access = zotero_authorize(&ctx).await?;
            if json {
                return print_json(&access);
            }
            match &access.key_source {
                Some(source) => outln!(
                    "Quire may now write to this Zotero (database {}); the permission is kept in {source}",
                    access.server_id
                ),
                None => outln!(
                    "Zotero allowed one write only, and a push is many: run this again and choose Always Allow"
                ),
            }
        }
        ZoteroCommand::Key => {
            let line =
                super::read_secret("Zotero API key (zotero.org/settings/keys, with write access)")?;
            let status = zotero_key_save(&ctx, ZoteroKeyParams { key: line }).await?;
            outln!("stored in {}", status.key_source.unwrap_or_default());
        }
        ZoteroCommand::ForgetKey => {
            let status = zotero_key_remove(&ctx).await?;
            match status.key_source {
                Some(source) => outln!("removed; a key is still set by {source}"),
                None => outln!("no Zotero key is kept now"),
            }
        }
    }
    Ok(())
}

pub fn via(via: Via) -> &'static str {
    match via {
        Via::LocalApi => "the running Zotero (its local API)",
        Via::Database => "a private copy of zotero.sqlite (Zotero is closed)",
    }
}

/// One line on stderr: what a review of the collection takes.
pub fn say_read(read: &ZoteroRead) {
    eprintln!(
        "Zotero: {} / {}: {} item{}, {} with a PDF, read from {}",
        read.collection.library.name,
        read.collection.path,
        read.items,
        if read.items == 1 { "" } else { "s" },
        read.with_pdf,
        via(read.via)
    );
    for missing in &read.missing {
        eprintln!("  no PDF: {missing}");
    }
}
