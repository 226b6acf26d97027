//! `quire import`: search records (RIS, PubMed/MEDLINE, BibTeX, CSV) into a
//! review, with what each file gave, which could not be read and why, and
//! the review's possible duplicates; and, with `--full-text`, a folder of
//! PDFs matched to the review's records as their full text.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use quire::commands::records::{AttachParams, ImportParams, records_attach, records_import};
use quire::commands::{AppContext, AppPaths, CommandError, ErrorKind};
use quire::review::fulltext::FullTextSummary;
use quire::review::imports::{ImportProgress, ImportSummary};

use super::print_json;

#[derive(Args)]
pub(crate) struct ImportArgs {
    /// Search exports: .ris, .nbib or PubMed .txt, .bib, .csv or .tsv
    /// (the content decides the format, not the name).
    #[arg(required_unless_present = "full_text")]
    files: Vec<PathBuf>,
    /// The review's workspace folder (made if it is not one yet).
    #[arg(long, value_name = "REVIEW")]
    into: PathBuf,
    /// The earlier export of the same search that FILE (one file) is a
    /// newer run of: records found again keep their papers and labels
    /// (those whose title or abstract changed are read again), and the
    /// earlier ones it no longer holds are marked as having left the
    /// search. A file imported before is matched against itself anyway.
    #[arg(long, value_name = "EARLIER")]
    replaces: Option<PathBuf>,
    /// A folder of PDFs to attach as the records' full text: each is read
    /// and matched to its record by the DOI on its first page, else its
    /// title; PDFs that match none join the review as papers of their own.
    #[arg(long, value_name = "FOLDER")]
    full_text: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// `--json`: the import's summary, with the full text's beside it.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Outcome<'a> {
    #[serde(flatten)]
    import: &'a ImportSummary,
    full_text: Option<&'a FullTextSummary>,
}

pub(crate) async fn run(args: ImportArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let summary = if args.files.is_empty() {
        ImportSummary::default()
    } else {
        let bar = bar(!args.json && std::io::stderr().is_terminal());
        let shown = bar.clone();
        let summary = records_import(
            &ctx,
            ImportParams {
                workspace: args.into.clone(),
                files: args.files.clone(),
                replaces: args.replaces.clone(),
            },
            Arc::new(move |p: ImportProgress| show(&shown, p)),
        )
        .await;
        bar.finish_and_clear();
        summary?
    };
    let full_text = match &args.full_text {
        Some(folder) => Some(
            records_attach(
                &ctx,
                AttachParams {
                    workspace: args.into.clone(),
                    folder: folder.clone(),
                },
            )
            .await?,
        ),
        None => None,
    };
    if args.json {
        print_json(&Outcome {
            import: &summary,
            full_text: full_text.as_ref(),
        })?;
    } else {
        if !args.files.is_empty() {
            print_summary(&summary, &args.into);
        }
        if let Some(full_text) = &full_text {
            print_full_text(full_text);
        }
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

/// A bar on a terminal (records taken in, then saving); hidden otherwise.
fn bar(visible: bool) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} records {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_prefix("importing");
    bar
}

fn show(bar: &ProgressBar, progress: ImportProgress) {
    bar.set_length(progress.total as u64);
    bar.set_position(progress.done as u64);
    if progress.saving {
        bar.set_message("saving");
    }
}

fn print_summary(summary: &ImportSummary, into: &std::path::Path) {
    for file in &summary.files {
        match (&file.error, &file.format) {
            (Some(error), _) => eprintln!("{}: not imported: {error}", file.file),
            (None, format) => outln!(
                "{}: {} records ({}), {} new",
                file.file,
                file.records,
                format.as_deref().unwrap_or("no format"),
                file.added
            ),
        }
        if let Some(earlier) = &file.replaces {
            outln!("  a newer run of the search in {earlier}");
        }
        if file.updated > 0 {
            outln!(
                "  {} records changed since the earlier export (they keep their labels; {} whose title or abstract changed are read again)",
                file.updated,
                file.reread
            );
        }
        if !file.left.is_empty() {
            outln!(
                "  {} records left the search (kept, marked so):",
                file.left.len()
            );
            for left in &file.left {
                outln!(
                    "    {}  {}",
                    &left.paper[..8.min(left.paper.len())],
                    left.title.as_deref().unwrap_or("(no title)")
                );
            }
        }
        for notice in &file.notices {
            eprintln!("  note: {notice}");
        }
    }
    outln!(
        "{} new records in {}; {} records from these files in all",
        summary.added,
        into.display(),
        summary.papers.len()
    );
    if summary.duplicates.is_empty() {
        return;
    }
    outln!(
        "\n{} groups of possible duplicates (kept apart; you decide):",
        summary.duplicates.len()
    );
    for group in &summary.duplicates {
        outln!("- {}:", group.why);
        for m in &group.members {
            outln!(
                "    {}  {}  {} ({})",
                &m.paper[..8.min(m.paper.len())],
                m.kind,
                m.title.as_deref().unwrap_or("(no title)"),
                m.year.map_or("no year".to_owned(), |y| y.to_string())
            );
        }
    }
}

fn print_full_text(summary: &FullTextSummary) {
    outln!(
        "{}: {} PDFs; {} of the review's {} records have full text now",
        summary.folder,
        summary.pdfs,
        summary.with_full_text,
        summary.records
    );
    for a in &summary.attached {
        outln!(
            "    {}  is the full text of  {} (by {})",
            a.file,
            a.record_title.as_deref().unwrap_or(&a.record),
            a.by
        );
    }
    for u in &summary.unmatched {
        outln!("    {}  matched no record: {}", u.file, u.why);
    }
}
