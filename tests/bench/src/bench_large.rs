//! `quire-bench bench large`: a review of 10,000 papers. The corpus is read
//! once by the offline engine on every core (ingestion throughput), then its
//! papers are repeated under distinct ids (their text and readings reused)
//! to each size asked, and at each size, side by side: the index rebuilt from
//! the folders, the review opened as the app opens it (the first page of
//! rows, and the whole row set behind it), a filter and a sort over it, and
//! the Markdown report rendered. Growth between sizes is printed as a ratio
//! to the papers' growth, so worse than linear shows as a ratio above 1.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use quire::agent::NoEvents;
use quire::commands::review_rows::{RowQuery, SortKey};
use quire::commands::review_view::{review_open, review_rows};
use quire::commands::reviews::{self, LabelParams, label_set};
use quire::commands::{AppContext, AppPaths};
use quire::index::Index;
use quire::pdf::find_pdfs;
use quire::pdf::ingest::IngestOptions;
use quire::review::outputs::{ExportFormat, ReviewFiles};
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::{EngineKind, ReviewSpec, Verdict};
use quire::workspace::Workspace;
use serde_json::{Value, json};

#[derive(Args)]
pub(crate) struct LargeBenchArgs {
    /// The folder of PDFs the papers come from.
    #[arg(long, default_value = "../shared/corpus/dev")]
    dir: PathBuf,
    /// The review sizes measured, smallest first.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    sizes: Vec<usize>,
}

const QUESTION: &str =
    "How do distributed systems reach consensus, replicate state and tolerate failures?";

/// What one size measured.
struct Figures {
    papers: usize,
    index_ms: f64,
    cold_open_ms: f64,
    open_ms: f64,
    open_after_label_ms: f64,
    open_bytes: usize,
    all_rows_ms: f64,
    all_rows_bytes: usize,
    filter_ms: f64,
    sort_ms: f64,
    report_ms: f64,
    report_bytes: usize,
}

pub(crate) async fn run(args: LargeBenchArgs) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let data = scratch.path().join("data");
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let ctx = AppContext::new(AppPaths::new(&data)).with_worker_exe(&exe);
    let root = ctx.paths().workspaces_root().join("large");
    let read = ingest(&ctx, &args.dir, &root, &exe).await?;
    println!(
        "ingestion on {} cores: {} papers ({} pages) in {:.1} s: {:.2} papers/s, {:.1} pages/s",
        read.jobs,
        read.papers,
        read.pages,
        read.seconds,
        read.papers as f64 / read.seconds,
        read.pages as f64 / read.seconds
    );

    let mut figures: Vec<Figures> = Vec::new();
    for &size in &args.sizes {
        let papers = repeat_papers(&root, size)?;
        let measured = measure(&ctx, &data, &root, papers).await?;
        print_figures(&measured);
        if let Some(before) = figures.last() {
            print_growth(before, &measured);
        }
        figures.push(measured);
    }
    Ok(())
}

struct Ingested {
    jobs: usize,
    papers: usize,
    pages: usize,
    seconds: f64,
}

/// The offline review of every PDF in `dir`, extraction on every core, OCR
/// off (a scan is minutes of OCR, which is its own benchmark).
async fn ingest(ctx: &AppContext, dir: &Path, root: &Path, exe: &Path) -> Result<Ingested, String> {
    let pdfs = find_pdfs(dir).map_err(|e| e.to_string())?;
    if pdfs.is_empty() {
        return Err(format!("no PDF in {}", dir.display()));
    }
    let mut ingest = IngestOptions::new(exe.to_path_buf());
    ingest.ocr = false;
    ingest.cache_dir = None;
    let jobs = ingest.jobs;
    let request = ReviewRequest {
        source: dir.to_path_buf(),
        spec: ReviewSpec {
            question: QUESTION.into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: root.to_path_buf(),
        ingest,
        engine: EngineSetup::Offline,
        lookup: None,
    };
    let started = Instant::now();
    reviews::start(ctx, request, Arc::new(NoEvents))
        .finish()
        .await
        .map_err(|e| e.message)?;
    let seconds = started.elapsed().as_secs_f64();
    let ws = Workspace::open_read_only(root).map_err(|e| e.to_string())?;
    let papers = ws.papers().map_err(|e| e.to_string())?;
    Ok(Ingested {
        jobs,
        papers: papers.len(),
        pages: papers.iter().map(|p| p.pages).sum(),
        seconds,
    })
}

/// Grow the review to `size` papers by copying the papers the corpus gave
/// under new ids (`<id>-<copy>`), their files whole: text, result, record.
fn repeat_papers(root: &Path, size: usize) -> Result<usize, String> {
    let dir = root.join("papers");
    let all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("paper.json").is_file())
        .collect();
    let originals: Vec<&PathBuf> = all
        .iter()
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().contains('-'))
        })
        .collect();
    let mut count = all.len();
    let mut copy = 0;
    while count < size {
        copy += 1;
        for original in &originals {
            if count >= size {
                break;
            }
            let name = original.file_name().ok_or("no name")?.to_string_lossy();
            let id = format!("{name}-{copy:04}");
            let target = dir.join(&id);
            if target.exists() {
                continue;
            }
            copy_paper(original, &target, &id, copy)?;
            count += 1;
        }
    }
    Ok(count)
}

/// A copy stands for another work: its title says which copy it is and it
/// has no DOI or arXiv id, so duplicate detection does not take ten
/// thousand papers for a hundred works found a hundred times.
fn copy_paper(from: &Path, to: &Path, id: &str, copy: usize) -> Result<(), String> {
    let io = |e: std::io::Error| format!("{}: {e}", to.display());
    std::fs::create_dir_all(to).map_err(io)?;
    for entry in std::fs::read_dir(from).map_err(io)? {
        let entry = entry.map_err(io)?;
        if entry.file_type().map_err(io)?.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).map_err(io)?;
        }
    }
    let record = to.join("paper.json");
    let mut paper: Value =
        serde_json::from_slice(&std::fs::read(&record).map_err(io)?).map_err(|e| e.to_string())?;
    paper["id"] = json!(id);
    if let Some(title) = paper["title"].as_str() {
        paper["title"] = json!(format!("{title} (copy {copy})"));
    }
    paper["meta"]["doi"] = Value::Null;
    paper["meta"]["arxiv"] = Value::Null;
    std::fs::write(
        &record,
        serde_json::to_vec_pretty(&paper).map_err(|e| e.to_string())?,
    )
    .map_err(io)?;
    Ok(())
}

async fn measure(
    ctx: &AppContext,
    data: &Path,
    root: &Path,
    papers: usize,
) -> Result<Figures, String> {
    let started = Instant::now();
    let (mut index, _) =
        Index::open(&data.join("index-bench.sqlite3")).map_err(|e| e.to_string())?;
    index
        .rebuild(&[ctx.paths().workspaces_root()])
        .map_err(|e| e.to_string())?;
    let index_ms = ms(started);

    // The first open in a process reads every paper's files.
    let started = Instant::now();
    let cold = AppContext::new(ctx.paths().clone());
    let view = review_open(&cold, root.to_path_buf())
        .await
        .map_err(|e| e.message)?;
    let open_bytes = serde_json::to_vec(&view).map_err(|e| e.to_string())?.len();
    let cold_open_ms = ms(started);
    // Opened again with nothing changed, and after one paper's label: only
    // the folders' times are looked at, and the one paper read.
    let started = Instant::now();
    review_open(&cold, root.to_path_buf())
        .await
        .map_err(|e| e.message)?;
    let open_ms = ms(started);
    let paper = view.first_rows.rows[0].id.clone();
    label_set(LabelParams {
        workspace: root.to_path_buf(),
        paper: paper.clone(),
        verdict: Some(Verdict::Exclude),
        score: Some(0.0),
        note: Some("bench".into()),
        serve: None,
    })
    .await
    .map_err(|e| e.message)?;
    let started = Instant::now();
    let relabelled = review_open(&cold, root.to_path_buf())
        .await
        .map_err(|e| e.message)?;
    let open_after_label_ms = ms(started);
    // Scored 0 by the label, the paper leaves the first page.
    if relabelled.first_rows.rows.iter().any(|r| r.id == paper) {
        return Err("the label did not reach the reopened review".into());
    }
    let query = |query: RowQuery| review_rows(&cold, root.to_path_buf(), query);

    let started = Instant::now();
    let everything = query(RowQuery {
        limit: papers,
        ..RowQuery::default()
    })
    .await
    .map_err(|e| e.message)?;
    let all_rows_bytes = serde_json::to_vec(&everything)
        .map_err(|e| e.to_string())?
        .len();
    let all_rows_ms = ms(started);

    let started = Instant::now();
    query(RowQuery {
        text: "consensus replication".into(),
        ..RowQuery::default()
    })
    .await
    .map_err(|e| e.message)?;
    let filter_ms = ms(started);
    let started = Instant::now();
    query(RowQuery {
        sort: SortKey::Title,
        descending: false,
        ..RowQuery::default()
    })
    .await
    .map_err(|e| e.message)?;
    let sort_ms = ms(started);

    let started = Instant::now();
    let ws = Workspace::open_read_only(root).map_err(|e| e.to_string())?;
    let report = ReviewFiles::read(&ws, EngineKind::Offline)
        .map_err(|e| e.to_string())?
        .render(ExportFormat::Markdown);
    let report_ms = ms(started);
    Ok(Figures {
        papers,
        index_ms,
        cold_open_ms,
        open_ms,
        open_after_label_ms,
        open_bytes,
        all_rows_ms,
        all_rows_bytes,
        filter_ms,
        sort_ms,
        report_ms,
        report_bytes: report.len(),
    })
}

fn ms(started: Instant) -> f64 {
    started.elapsed().as_secs_f64() * 1000.0
}

fn print_figures(f: &Figures) {
    println!("\n{} papers:", f.papers);
    println!("  index rebuilt from the folders: {:.0} ms", f.index_ms);
    println!(
        "  review_open, the first page and the counts: {} kB of JSON; first in the process (every paper read) {:.0} ms; again, nothing changed {:.0} ms; after a label {:.0} ms",
        f.open_bytes / 1024,
        f.cold_open_ms,
        f.open_ms,
        f.open_after_label_ms
    );
    println!(
        "  every row in one page: {:.0} ms, {} kB of JSON",
        f.all_rows_ms,
        f.all_rows_bytes / 1024
    );
    println!(
        "  a text filter: {:.0} ms; sorted by title: {:.0} ms",
        f.filter_ms, f.sort_ms
    );
    println!(
        "  the Markdown report: {:.0} ms, {} kB",
        f.report_ms,
        f.report_bytes / 1024
    );
}

/// Each figure's growth over the papers' growth: 1 is linear.
fn print_growth(before: &Figures, after: &Figures) {
    let papers = after.papers as f64 / before.papers as f64;
    let ratio = |a: f64, b: f64| (b / a.max(0.001)) / papers;
    println!(
        "  growth from {} papers, over linear (1 = linear): index {:.2}, first open {:.2}, open again {:.2}, every row {:.2}, filter {:.2}, sort {:.2}, report time {:.2}, report size {:.2}",
        before.papers,
        ratio(before.index_ms, after.index_ms),
        ratio(before.cold_open_ms, after.cold_open_ms),
        ratio(before.open_ms, after.open_ms),
        ratio(before.all_rows_ms, after.all_rows_ms),
        ratio(before.filter_ms, after.filter_ms),
        ratio(before.sort_ms, after.sort_ms),
        ratio(before.report_ms, after.report_ms),
        ratio(before.report_bytes as f64, after.report_bytes as f64),
    );
}
