//! `quire screen`: the screening queue on the command line: where
//! screening stands and the next papers to label, the most likely to be
//! kept first. Label one with `quire label`, and the next call orders what
//! is left by every label so far.

use std::path::PathBuf;

use clap::Args;
use quire::commands::screening::{ScreeningParams, screening_next};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::review::queue::{Basis, ScreeningView};

use super::print_json;

#[derive(Args)]
pub(crate) struct ScreenArgs {
    /// The review's workspace folder.
    workspace: PathBuf,
    /// How many of the next papers to show.
    #[arg(long, default_value_t = 5)]
    next: usize,
    /// The review question, for a review that has none yet (or has not
    /// run): saved as the review's; the order follows it before any label.
    #[arg(long, short)]
    question: Option<String>,
    /// Find papers not yet labelled by words of their title or abstract
    /// (to label one you already know, before the queue has learned).
    #[arg(long, value_name = "WORDS")]
    find: Option<String>,
    /// Print where screening stands, the next papers and the curve as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: ScreenArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let view = screening_next(
        &ctx,
        ScreeningParams {
            workspace: args.workspace.clone(),
            count: Some(args.next),
            question: args.question,
            find: args.find.clone(),
        },
    )
    .await?;
    if args.json {
        return print_json(&view);
    }
    if args.find.is_some() {
        print_found(&view, &args.workspace);
        return Ok(());
    }
    print_view(&view, &args.workspace);
    Ok(())
}

fn print_view(view: &ScreeningView, workspace: &std::path::Path) {
    outln!(
        "Screened {} of {} (kept {}, excluded {}); {} to go.",
        view.screened,
        view.total,
        view.kept,
        view.excluded,
        view.total - view.screened
    );
    outln!(
        "Order: {}.",
        match view.basis {
            Basis::RecordOrder => "the records' own order (no question, no label yet)",
            Basis::Likeness => "likeness to the question and the papers kept so far",
            Basis::Learned => "learned from your labels",
        }
    );
    outln!("Stopping: {}.", view.stopping.summary());
    if view.next.is_empty() {
        outln!("Nothing left to screen.");
        return;
    }
    outln!();
    for (i, item) in view.next.iter().enumerate() {
        outln!(
            "{:>3}. {}  {} ({}) · {}",
            i + 1,
            &item.paper[..8.min(item.paper.len())],
            item.title.as_deref().unwrap_or("(no title)"),
            item.year.map_or("no year".to_owned(), |y| y.to_string()),
            item.kind
        );
    }
    if let Some(first) = view.next.first() {
        if let Some(abstract_text) = &first.abstract_text {
            outln!("\n{abstract_text}");
        }
        // The serve token makes the label one of the stopping rule's
        // samples: the first paper only, as the queue served it.
        let serve = view
            .serve
            .as_deref()
            .map(|t| format!(" --serve {t}"))
            .unwrap_or_default();
        outln!(
            "\nLabel it: quire label {} {} --verdict include|maybe|exclude{serve}",
            workspace.display(),
            &first.paper[..8.min(first.paper.len())]
        );
    }
}

fn print_found(view: &ScreeningView, workspace: &std::path::Path) {
    if view.found.is_empty() {
        outln!("No paper left to screen holds every word searched for.");
        return;
    }
    for item in &view.found {
        outln!(
            "{}  {} ({})",
            &item.paper[..8.min(item.paper.len())],
            item.title.as_deref().unwrap_or("(no title)"),
            item.year.map_or("no year".to_owned(), |y| y.to_string())
        );
    }
    outln!(
        "\nLabel one: quire label {} ID --verdict include|maybe|exclude",
        workspace.display()
    );
}
