//! `quire meta`: correct a paper's metadata by hand. Corrections are kept
//! apart from what extraction reads, so re-running a review never undoes
//! them; the report and exports use them.

use std::path::PathBuf;

use clap::Subcommand;
use quire::commands::CommandError;
use quire::commands::metadata::{MetaSetParams, meta_clear, meta_set};

#[derive(Subcommand)]
pub(crate) enum MetaCommand {
    /// Set some of a paper's title, authors, year, DOI or arXiv id; fields not
    /// given keep their value. Prints the corrections now held.
    Set {
        workspace: PathBuf,
        /// The paper's id (or a unique prefix), as in the report.
        paper: String,
        #[arg(long)]
        title: Option<String>,
        /// An author as printed ("Robbert van Renesse" or "van Renesse,
        /// Robbert"); repeat in order. Replaces the whole list.
        #[arg(long = "author")]
        authors: Vec<String>,
        #[arg(long)]
        year: Option<u16>,
        #[arg(long)]
        doi: Option<String>,
        #[arg(long)]
        arxiv: Option<String>,
    },
    /// Remove every correction of a paper; extraction's values stand again.
    Clear { workspace: PathBuf, paper: String },
}

pub(crate) async fn run(command: MetaCommand) -> Result<(), CommandError> {
    match command {
        MetaCommand::Set {
            workspace,
            paper,
            title,
            authors,
            year,
            doi,
            arxiv,
        } => {
            let corrections = meta_set(MetaSetParams {
                workspace,
                paper,
                title,
                authors: (!authors.is_empty()).then_some(authors),
                year,
                doi,
                arxiv,
            })
            .await?;
            super::print_json(&corrections)
        }
        MetaCommand::Clear { workspace, paper } => meta_clear(workspace, paper).await,
    }
}
