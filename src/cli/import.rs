//! `quire import`: search records (RIS, PubMed/MEDLINE, BibTeX, CSV) into a
//! review, with what each file gave, which could not be read and why, and
//! the review's possible duplicates.

use std::path::PathBuf;

use clap::Args;
use quire::commands::records::{ImportParams, records_import};
use quire::commands::{AppContext, AppPaths, CommandError, ErrorKind};
use quire::review::imports::ImportSummary;

use super::print_json;

#[derive(Args)]
pub(crate) struct ImportArgs {
    /// Search exports: .ris, .nbib or PubMed .txt, .bib, .csv or .tsv
    /// (the content decides the format, not the name).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// The review's workspace folder (made if it is not one yet).
    #[arg(long, value_name = "REVIEW")]
    into: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: ImportArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let summary = records_import(
        &ctx,
        ImportParams {
            workspace: args.into.clone(),
            files: args.files,
        },
    )
    .await?;
    if args.json {
        print_json(&summary)?;
    } else {
        print_summary(&summary, &args.into);
    }
    let failed = summary.failed().count();
    if failed > 0 {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "records_unreadable",
            format!(
                "{failed} of {} files could not be read (the rest went in)",
                summary.files.len()
            ),
        ));
    }
    Ok(())
}

fn print_summary(summary: &ImportSummary, into: &std::path::Path) {
    for file in &summary.files {
        match (&file.error, &file.format) {
            (Some(error), _) => eprintln!("{}: not imported: {error}", file.file),
            (None, format) => println!(
                "{}: {} records ({}), {} new",
                file.file,
                file.records,
                format.as_deref().unwrap_or("no format"),
                file.added
            ),
        }
    }
    println!(
        "{} new records in {}; {} records from these files in all",
        summary.added,
        into.display(),
        summary.papers.len()
    );
    if summary.duplicates.is_empty() {
        return;
    }
    println!(
        "\n{} groups of possible duplicates (kept apart; you decide):",
        summary.duplicates.len()
    );
    for group in &summary.duplicates {
        println!("- {}:", group.why);
        for m in &group.members {
            println!(
                "    {}  {}  {} ({})",
                &m.paper[..8.min(m.paper.len())],
                m.kind,
                m.title.as_deref().unwrap_or("(no title)"),
                m.year.map_or("no year".to_owned(), |y| y.to_string())
            );
        }
    }
}
