//! `quire-bench bench`: speed figures measured side by side in one run (never timed
//! tests). Extraction of a folder through Quire's ingestion with a cold cache and
//! through poppler's `pdftotext` with the same parallelism, then a warm re-run
//! (which must extract nothing), then a whole offline review.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::Args;
use quire::agent::{EventSink, RunEvent};
use quire::commands::reviews;
use quire::commands::{AppContext, AppPaths};
use quire::pdf::ingest::{Extracted, IngestOptions, extract_all};
use quire::pdf::quality::Verdict;
use quire::pdf::{find_pdfs, sha256_file};
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::{EngineKind, ReviewSpec};
use tokio::sync::Semaphore;

use super::text_order;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    command: Option<BenchCommand>,
    /// The folder of PDFs to measure on.
    #[arg(default_value = "../shared/corpus/dev")]
    dir: PathBuf,
    /// Parallel extractions for both Quire and pdftotext. Default: the cores.
    #[arg(long)]
    jobs: Option<usize>,
    /// How many papers the offline review benchmark uses.
    #[arg(long, default_value_t = 80)]
    review_papers: usize,
}

#[derive(clap::Subcommand)]
enum BenchCommand {
    /// The agent runtime against the scripted model server: prompt size at 10,
    /// 80 and 800 papers and a full-history baseline, tokens, wall time against
    /// the ideal, coverage, resume.
    Agent(super::bench_agent::AgentBenchArgs),
    /// Asking the papers and filling the extraction table against the
    /// scripted model server: composing prompt at 10, 80 and 800 papers,
    /// reader calls and tokens per paper, wall time, verified quotes, cells.
    Ask(super::bench_ask::AskBenchArgs),
    /// Screening a big search export through the app's commands: import,
    /// the results list, the first queue, and the next record after each
    /// label (goal 100 ms at 10,000 records), with peak memory.
    Screening(super::bench_screening::ScreeningBenchArgs),
    /// A big search export into a new review at 10,000 and 50,000 records:
    /// seconds, records per second and peak memory, beside the file
    /// system's floor for as many files.
    Import(super::bench_import::ImportBenchArgs),
    /// One import of `bench import`, in a process of its own.
    #[command(hide = true)]
    ImportChild(super::bench_import::ImportChildArgs),
    /// A Zotero collection in (local API and database) and its verdicts out
    /// (the Web API): reads, review, and two pushes, with request counts.
    Zotero(super::bench_zotero::ZoteroBenchArgs),
    /// A round of citation searching at scale against the fixture OpenAlex:
    /// the plan against the round, calls against OpenAlex's limits, time,
    /// and duplicates found against the ones built in.
    Snowball(super::bench_snowball::SnowballBenchArgs),
    /// A review of 10,000 papers: ingestion throughput, the index, the
    /// review's open, filter and sort, and the report, side by side at
    /// each size with their growth against linear.
    Large(super::bench_large::LargeBenchArgs),
    /// A review of 10,000 papers read through the scripted Batch API, its
    /// process killed with SIGKILL after each step of its ledger: shards,
    /// batches, requests answered and lost, papers read.
    Batch(super::bench_batch::BatchBenchArgs),
    /// One life of `bench batch`'s review (run and killed by it).
    #[command(hide = true)]
    BatchChild(super::bench_batch::BatchChildArgs),
}

pub(crate) async fn run(args: BenchArgs) -> ExitCode {
    let outcome = match args.command {
        Some(BenchCommand::Agent(agent)) => super::bench_agent::run(agent).await,
        Some(BenchCommand::Ask(ask)) => super::bench_ask::run(ask).await,
        Some(BenchCommand::Screening(screening)) => super::bench_screening::run(screening).await,
        Some(BenchCommand::Import(import)) => super::bench_import::run(import).await,
        Some(BenchCommand::ImportChild(child)) => super::bench_import::child(child).await,
        Some(BenchCommand::Zotero(zotero)) => super::bench_zotero::run(zotero).await,
        Some(BenchCommand::Snowball(snowball)) => super::bench_snowball::run(snowball).await,
        Some(BenchCommand::Large(large)) => super::bench_large::run(large).await,
        Some(BenchCommand::Batch(batch)) => super::bench_batch::run(batch).await,
        Some(BenchCommand::BatchChild(child)) => super::bench_batch::child(child).await,
        None => bench(args).await,
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn bench(args: BenchArgs) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let pdfs: Vec<PathBuf> = find_pdfs(&args.dir)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|f| f.path)
        .collect();
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(2)
    });
    println!(
        "{} PDFs from {}, {jobs} in parallel",
        pdfs.len(),
        args.dir.display()
    );

    let mut options = IngestOptions::new(exe.clone());
    options.jobs = jobs;
    options.cache_dir = Some(scratch.path().join("cache"));
    // pdftotext reads text layers only; OCR of scans (seconds a page) is
    // timed apart below, so the ratio compares like with like.
    let ocr = options.ocr;
    options.ocr = false;
    let files: Vec<(PathBuf, String)> = pdfs
        .iter()
        .map(|p| (p.clone(), sha256_file(p).unwrap_or_default()))
        .collect();

    let t = Instant::now();
    let cold = extract_all(files.clone(), &options, |_, _| {}).await;
    let quire_s = t.elapsed().as_secs_f64();
    let readable = cold.iter().filter(|e| e.status.is_readable()).count();

    let t = Instant::now();
    let poppler_ok = pdftotext_all(&pdfs, jobs, scratch.path()).await?;
    let poppler_s = t.elapsed().as_secs_f64();

    let t = Instant::now();
    let warm = extract_all(files, &options, |_, _| {}).await;
    let warm_s = t.elapsed().as_secs_f64();
    let extracted_again = warm
        .iter()
        .filter(|e| !e.from_cache && e.engine.is_some())
        .count();

    let n = pdfs.len() as f64;
    println!("\n| run | wall s | papers/s | notes |");
    println!("|---|---:|---:|---|");
    println!(
        "| Quire ingestion, cold cache | {quire_s:.2} | {:.1} | {readable} readable |",
        n / quire_s
    );
    println!(
        "| pdftotext (poppler) | {poppler_s:.2} | {:.1} | {poppler_ok} exit 0 |",
        n / poppler_s
    );
    println!(
        "| Quire ingestion, warm cache | {warm_s:.2} | {:.1} | {extracted_again} extracted again |",
        n / warm_s
    );
    println!("\nQuire / pdftotext speed: {:.2}x", poppler_s / quire_s);
    text_measures(&pdfs, &cold, scratch.path());

    // The scans, read by OCR (the text-layer run above left them needs_ocr).
    let scans: Vec<(PathBuf, String)> = pdfs
        .iter()
        .zip(&cold)
        .filter(|(_, e)| e.status == quire::workspace::PaperStatus::NeedsOcr)
        .map(|(p, _)| (p.clone(), sha256_file(p).unwrap_or_default()))
        .collect();
    if ocr && !scans.is_empty() {
        let mut with_ocr = options.clone();
        with_ocr.ocr = true;
        with_ocr.cache_dir = Some(scratch.path().join("ocr-cache"));
        let t = Instant::now();
        let read = extract_all(scans.clone(), &with_ocr, |_, _| {}).await;
        let ocr_s = t.elapsed().as_secs_f64();
        let pages: usize = read.iter().filter(|e| e.ocr()).map(|e| e.pages.len()).sum();
        println!(
            "OCR of the {} papers with no usable text layer: {ocr_s:.1} s, {} read, {pages} pages ({:.1} s a page)",
            scans.len(),
            read.iter().filter(|e| e.ocr()).count(),
            ocr_s / pages.max(1) as f64
        );
    } else if !scans.is_empty() {
        println!("{} papers need OCR; no OCR engine here", scans.len());
    }

    // A whole offline review, extraction included, on a fresh data folder.
    let subset = scratch.path().join("subset");
    std::fs::create_dir_all(&subset).map_err(|e| e.to_string())?;
    for pdf in pdfs.iter().take(args.review_papers) {
        let name = pdf.file_name().ok_or("a PDF without a name")?;
        std::fs::copy(pdf, subset.join(name)).map_err(|e| e.to_string())?;
    }
    let data = scratch.path().join("data");
    let ctx = AppContext::new(AppPaths::new(&data));
    let mut ingest = IngestOptions::new(exe);
    ingest.jobs = jobs;
    ingest.cache_dir = Some(data.join("cache"));
    let request = ReviewRequest {
        source: subset.clone(),
        spec: ReviewSpec {
            question:
                "How do distributed systems reach consensus, replicate state and tolerate failures?"
                    .into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: scratch.path().join("workspace"),
        ingest,
        engine: EngineSetup::Offline,
        lookup: None,
    };
    let extracted = Arc::new(ExtractionCounter(AtomicUsize::new(0)));
    let t = Instant::now();
    let summary = reviews::start(&ctx, request, extracted.clone())
        .finish()
        .await
        .map_err(|e| e.message)?;
    println!(
        "\noffline review of {} papers including extraction: {:.2} s ({} extracted, {} screened)",
        args.review_papers.min(pdfs.len()),
        t.elapsed().as_secs_f64(),
        extracted.0.load(Ordering::Relaxed),
        summary.counts.screened
    );
    Ok(())
}

/// Counts the papers extracted in a run.
struct ExtractionCounter(AtomicUsize);

impl EventSink for ExtractionCounter {
    fn emit(&self, event: RunEvent) {
        if let RunEvent::Extracted { .. } = event {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The text's words against pdftotext's, per paper: the bag-of-words F1
/// (are the words there) and the share of word 5-grams in pdftotext's text
/// too (are they in order). Papers read by OCR, and papers whose pdftotext
/// text is not prose (a font without a Unicode map), have no reference.
fn text_measures(pdfs: &[PathBuf], cold: &[Extracted], scratch: &Path) {
    let mut f1 = Vec::new();
    let mut order: Vec<(f64, &Path)> = Vec::new();
    let mut left_out = 0;
    for (i, (pdf, e)) in pdfs.iter().zip(cold).enumerate() {
        if !e.status.is_readable() {
            continue;
        }
        let Ok(reference) = std::fs::read_to_string(scratch.join(format!("poppler-{i}.txt")))
        else {
            continue;
        };
        let pages: Vec<String> = reference
            .split('\u{c}')
            .map(quire::pdf::quality::clean_page)
            .collect();
        let prose = quire::pdf::quality::assess(&pages).verdict() == Verdict::Good;
        let reference = pages.join("\n");
        if reference.split_whitespace().count() <= 50 || !prose || e.ocr() {
            left_out += 1;
            continue;
        }
        let ours = e.pages.join("\n");
        f1.push(bag_of_words_f1(&ours, &reference));
        if let Some(share) = text_order::in_order_share(&ours, &reference) {
            order.push((share, pdf));
        }
    }
    let mean = f1.iter().sum::<f64>() / f1.len().max(1) as f64;
    let below = f1.iter().filter(|f| **f < 0.8).count();
    println!(
        "bag-of-words F1 against pdftotext: mean {mean:.3} over {} papers ({below} below 0.8; {left_out} with no prose reference left out)",
        f1.len()
    );
    let shares: Vec<f64> = order.iter().map(|(s, _)| *s).collect();
    order.sort_by(|a, b| a.0.total_cmp(&b.0));
    let out_of_order: Vec<&(f64, &Path)> = order.iter().filter(|(s, _)| *s < 0.8).collect();
    println!(
        "word {}-grams in pdftotext's text (reading order): median {:.3}, mean {:.3}, {} below 0.8",
        text_order::GRAM,
        text_order::median(&shares),
        shares.iter().sum::<f64>() / shares.len().max(1) as f64,
        out_of_order.len()
    );
    for (share, pdf) in out_of_order {
        println!("  {share:.3}  {}", pdf.display());
    }
}

/// F1 of the multisets of lowercased words of two texts.
fn bag_of_words_f1(ours: &str, reference: &str) -> f64 {
    use std::collections::HashMap;
    let bag = |text: &str| {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for word in text
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            *counts.entry(word.to_lowercase()).or_default() += 1;
        }
        counts
    };
    let (a, b) = (bag(ours), bag(reference));
    let overlap: usize = a
        .iter()
        .map(|(w, n)| (*n).min(b.get(w).copied().unwrap_or(0)))
        .sum();
    let (na, nb): (usize, usize) = (a.values().sum(), b.values().sum());
    if na + nb == 0 {
        0.0
    } else {
        2.0 * overlap as f64 / (na + nb) as f64
    }
}

/// Run pdftotext over every file with `jobs` at a time; returns how many exited 0.
async fn pdftotext_all(pdfs: &[PathBuf], jobs: usize, scratch: &Path) -> Result<usize, String> {
    let permits = Arc::new(Semaphore::new(jobs));
    let mut set = tokio::task::JoinSet::new();
    for (i, pdf) in pdfs.iter().enumerate() {
        let permits = permits.clone();
        let pdf = pdf.clone();
        let out = scratch.join(format!("poppler-{i}.txt"));
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            tokio::process::Command::new("pdftotext")
                .arg(&pdf)
                .arg(&out)
                // Its warnings about fonts and colour profiles are not ours.
                .stderr(std::process::Stdio::null())
                .status()
                .await
                .map(|s| s.success())
        });
    }
    let mut ok = 0;
    while let Some(done) = set.join_next().await {
        match done {
            Ok(Ok(true)) => ok += 1,
            Ok(Ok(false)) => {}
            Ok(Err(e)) => {
                return Err(format!(
                    "cannot run pdftotext (apt-get install poppler-utils): {e}"
                ));
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(ok)
}
