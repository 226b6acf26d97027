//! `quire zotero collections`: what Zotero holds, read from the running app
//! or, with Zotero closed, a private copy of its database. (`quire review
//! --zotero COLLECTION` reviews one.)

use clap::Subcommand;
use quire::commands::zotero::{ZoteroRead, zotero_collections};
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
}

pub async fn run(cmd: ZoteroCommand) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    match cmd {
        ZoteroCommand::Collections { json } => {
            let listed = zotero_collections(&ctx).await?;
            if json {
                return print_json(&listed);
            }
            println!("Read from {}", via(listed.via));
            if listed.collections.is_empty() {
                println!("No collections.");
            }
            for c in &listed.collections {
                println!(
                    "{}  {} / {}  ({} item{})",
                    c.key,
                    c.library.name,
                    c.path,
                    c.items,
                    if c.items == 1 { "" } else { "s" }
                );
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
