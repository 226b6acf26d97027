//! `quire table`: the extraction table of a review from the command line:
//! define its columns (or take templates), fill it with the model, show or
//! export it, and correct or check a cell.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Subcommand};
use quire::commands::table::{
    ColumnsParams, CorrectParams, FillParams, table_columns, table_correct, table_estimate,
    table_fill, table_view,
};
use quire::commands::{AppContext, AppPaths, CommandError, ErrorKind};
use quire::review::ask::Scope;
use quire::review::table::fill::{FillProgress, OnFillProgress};
use quire::review::table::{self, Column, Kind, columns};

#[derive(Subcommand)]
pub(crate) enum TableCommand {
    /// Show, add, remove or copy the table's columns.
    Columns(ColumnsArgs),
    /// Fill every cell not yet read for its column as it is now.
    Fill(FillArgs),
    /// Print the table (text, CSV, Markdown or JSON).
    Show(ShowArgs),
    /// Set your own value for a cell, or check the extracted one (no value).
    Set(SetArgs),
}

#[derive(Args)]
pub(crate) struct ColumnsArgs {
    workspace: PathBuf,
    /// Add a column of this name (with --instruction and --type).
    #[arg(long, requires = "instruction")]
    add: Option<String>,
    /// What to extract for the added column.
    #[arg(long)]
    instruction: Option<String>,
    /// The added column's type: text, number:UNIT, yes-no, one-of:A|B|C, list.
    #[arg(long = "type", default_value = "text")]
    kind: String,
    /// Add a template: study-design, dataset, sample-size, method,
    /// metric-and-result, limitations.
    #[arg(long)]
    template: Vec<String>,
    /// Remove the column of this id.
    #[arg(long)]
    remove: Option<String>,
    /// Copy the columns of another review's workspace.
    #[arg(long)]
    from: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct FillArgs {
    workspace: PathBuf,
    /// Which papers: included (default), all, or ids, comma-separated.
    #[arg(long, default_value = "included")]
    papers: String,
    #[command(flatten)]
    spend: super::SpendArgs,
    #[command(flatten)]
    batch: super::BatchArgs,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct ShowArgs {
    workspace: PathBuf,
    #[arg(long, default_value = "included")]
    papers: String,
    /// text, csv, markdown or json.
    #[arg(long, default_value = "text")]
    format: String,
}

#[derive(Args)]
pub(crate) struct SetArgs {
    workspace: PathBuf,
    /// A paper id, or a unique prefix of one.
    paper: String,
    /// The column's id.
    column: String,
    /// Your value; leave it out to mark the extracted value checked.
    value: Option<String>,
}

pub(crate) async fn run(command: TableCommand) -> Result<(), CommandError> {
    match command {
        TableCommand::Columns(args) => columns_cmd(args).await,
        TableCommand::Fill(args) => fill_cmd(args).await,
        TableCommand::Show(args) => show_cmd(args).await,
        TableCommand::Set(args) => {
            table_correct(CorrectParams {
                workspace: args.workspace,
                paper: args.paper,
                column: args.column,
                value: args.value,
            })
            .await
        }
    }
}

async fn columns_cmd(args: ColumnsArgs) -> Result<(), CommandError> {
    let add = match &args.add {
        Some(name) => Some(Column::new(
            name,
            args.instruction.as_deref().unwrap_or(""),
            Kind::parse(&args.kind).ok_or_else(|| {
                CommandError::invalid(
                    "bad_column_type",
                    format!(
                        "unknown column type {:?}; use text, number:UNIT, yes-no, one-of:A|B|C or list",
                        args.kind
                    ),
                )
            })?,
        )),
        None => None,
    };
    let mut shown = table_columns(ColumnsParams {
        workspace: args.workspace.clone(),
        add,
        remove: args.remove.clone(),
        from: args.from.clone(),
        template: None,
    })
    .await?;
    for template in &args.template {
        shown = table_columns(ColumnsParams {
            workspace: args.workspace.clone(),
            template: Some(template.clone()),
            ..ColumnsParams::default()
        })
        .await?;
    }
    if args.json {
        return super::print_json(&shown);
    }
    if shown.is_empty() {
        let names: Vec<String> = columns::templates().into_iter().map(|t| t.id).collect();
        outln!(
            "No columns yet. Add one with --add, or a template: {}",
            names.join(", ")
        );
    }
    for c in &shown {
        outln!(
            "{}  {} ({}): {}",
            c.id,
            c.name,
            c.kind.instruction(),
            c.instruction
        );
    }
    Ok(())
}

async fn fill_cmd(args: FillArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    let params = FillParams {
        workspace: args.workspace.clone(),
        scope: Some(Scope::parse(&args.papers)),
        profile: args.spend.profile.clone(),
        max_tokens: args.spend.max_tokens,
        max_cost_usd: args.spend.max_cost,
        batch: args.batch.batch,
        batch_poll_secs: args.batch.poll_secs(),
    };
    if args.spend.estimate {
        let estimate = table_estimate(&ctx, params).await?;
        return super::ask_papers::print_estimate(&estimate, args.json);
    }
    let (cancel, ctrl_c) =
        super::cancel_on_ctrl_c("the cells read so far are kept; filling again resumes");
    let shown = !args.json && std::io::stderr().is_terminal();
    let progress: OnFillProgress = Arc::new(move |p| {
        if !shown {
            return;
        }
        match p {
            FillProgress::Started { papers } => eprintln!("filling the table for {papers} papers"),
            FillProgress::Current => {}
            FillProgress::Read { title, failed } => {
                eprintln!("  {} {title}", if failed { "failed:" } else { "read:" })
            }
            FillProgress::Batch(b) => eprintln!(
                "  batch {}: {}, {} of {} answered",
                b.shard, b.status, b.completed, b.total
            ),
        }
    });
    let outcome = table_fill(&ctx, params, cancel, progress).await;
    ctrl_c.abort();
    let outcome = outcome?;
    let failed = || {
        outcome
            .failure
            .clone()
            .map(|cause| CommandError::new(ErrorKind::ModelServer, "fill_failed", cause))
    };
    if args.json {
        super::print_json(&outcome)?;
        return failed().map_or(Ok(()), Err);
    }
    outln!(
        "{} papers: {} read now (the rest were current), {} cells filled, {} of them low-confidence",
        outcome.papers,
        outcome.read,
        outcome.cells_filled,
        outcome.low_confidence
    );
    for (title, reason) in &outcome.failed {
        outln!("  could not read {title}: {reason}");
    }
    if let Some(why) = &outcome.stopped {
        outln!("stopped early ({why}); filling again resumes");
    }
    failed().map_or(Ok(()), Err)
}

async fn show_cmd(args: ShowArgs) -> Result<(), CommandError> {
    let view = table_view(args.workspace, Some(Scope::parse(&args.papers))).await?;
    match args.format.as_str() {
        "json" => super::print_json(&view),
        "csv" => {
            out!("{}", table::csv(&view));
            Ok(())
        }
        "markdown" => {
            out!("{}", table::markdown(&view));
            Ok(())
        }
        "text" => {
            for row in &view.rows {
                outln!("{}  {}", &row.paper[..row.paper.len().min(8)], row.title);
                for (column, cell) in view.columns.iter().zip(&row.cells) {
                    let mark = if cell.corrected {
                        " (yours)"
                    } else if cell.low_confidence && cell.value.is_some() {
                        " (unsure)"
                    } else {
                        ""
                    };
                    outln!(
                        "    {}: {}{mark}{}",
                        column.name,
                        cell.value.as_deref().unwrap_or("—"),
                        cell.page.map(|p| format!(" (p. {p})")).unwrap_or_default()
                    );
                }
            }
            Ok(())
        }
        other => Err(CommandError::invalid(
            "unknown_format",
            format!("unknown format {other:?}; use text, csv, markdown or json"),
        )),
    }
}
