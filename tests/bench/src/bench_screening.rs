//! `quire-bench bench screening`: screening a big search export the way the
//! app does, through the same commands. Records are taken from the SYNERGY
//! sets and repeated to the size asked (a repeat's title says which copy it
//! is, so every record is its own paper), written as one CSV export, then:
//! the import, the first queue (features built), the results list the app
//! opens, and, label after label in the order served, the time until the
//! next record is ready (the goal: 100 ms at 10,000 records), with the
//! process's peak memory.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use quire::commands::records::{ImportParams, records_import};
use quire::commands::review_view::review_open;
use quire::commands::reviews::{LabelParams, label_set};
use quire::commands::screening::{ScreeningParams, screening_next};
use quire::commands::{AppContext, AppPaths};
use quire::review::Verdict;

#[derive(Args)]
pub(crate) struct ScreeningBenchArgs {
    /// The folder of SYNERGY CSVs the records come from.
    #[arg(long, default_value = "../shared/bench/synergy")]
    dir: PathBuf,
    /// Records in the export.
    #[arg(long, default_value_t = 10_000)]
    records: usize,
    /// Labels given, each followed by the next record.
    #[arg(long, default_value_t = 50)]
    labels: usize,
}

/// One record of the export and its truth.
pub(crate) struct Row {
    pub(crate) title: String,
    pub(crate) abstract_text: String,
    pub(crate) authors: String,
    pub(crate) year: String,
    pub(crate) included: bool,
}

pub(crate) async fn run(args: ScreeningBenchArgs) -> Result<(), String> {
    let pool = rows_in(&args.dir)?;
    if pool.is_empty() {
        return Err(format!("no SYNERGY CSV in {}", args.dir.display()));
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let (export, truth) = write_export(scratch.path(), &pool, args.records)?;
    let ctx = AppContext::new(AppPaths::new(scratch.path().join("data")));
    let ws = scratch.path().join("review");

    let started = Instant::now();
    let summary = records_import(
        &ctx,
        ImportParams {
            workspace: ws.clone(),
            files: vec![export],
            replaces: None,
        },
        std::sync::Arc::new(|_| {}),
    )
    .await
    .map_err(|e| e.message)?;
    let import = started.elapsed();

    let started = Instant::now();
    let view = review_open(&ctx, ws.clone()).await.map_err(|e| e.message)?;
    let open = started.elapsed();

    let params = || ScreeningParams {
        workspace: ws.clone(),
        count: Some(5),
        question: None,
        find: None,
    };
    let started = Instant::now();
    let mut queue = screening_next(&ctx, params())
        .await
        .map_err(|e| e.message)?;
    let first = started.elapsed();

    let mut next_times = Vec::new();
    let mut label_times = Vec::new();
    for _ in 0..args.labels {
        let Some(item) = queue.next.first() else {
            break;
        };
        let kept = truth[title_index(item.title.as_deref().unwrap_or_default())];
        let started = Instant::now();
        label_set(LabelParams {
            workspace: ws.clone(),
            paper: item.paper.clone(),
            verdict: Some(if kept {
                Verdict::Include
            } else {
                Verdict::Exclude
            }),
            score: None,
            note: None,
            // Labelled as the queue served it.
            serve: queue.serve.clone(),
        })
        .await
        .map_err(|e| e.message)?;
        label_times.push(started.elapsed());
        let started = Instant::now();
        queue = screening_next(&ctx, params())
            .await
            .map_err(|e| e.message)?;
        next_times.push(started.elapsed());
    }
    println!(
        "screening {} records ({} groups of possible duplicates shown): import {:.1} s; results list opened in {} ms ({} rows); first queue (features built) {} ms",
        summary.papers.len(),
        summary.duplicates.len(),
        import.as_secs_f64(),
        open.as_millis(),
        view.first_rows.counts.total,
        first.as_millis()
    );
    println!(
        "after each of {} labels: label saved {}; next record ready {} (goal: 100 ms); {} kept of {} screened",
        next_times.len(),
        spread(&mut label_times),
        spread(&mut next_times),
        queue.kept,
        queue.screened
    );
    println!(
        "peak memory (VmHWM) {} MB",
        peak_rss_mb().map_or("unknown".to_owned(), |m| m.to_string())
    );
    Ok(())
}

/// "median 12.3 ms, 95th percentile 20.1 ms, max 25.0 ms".
fn spread(times: &mut [Duration]) -> String {
    if times.is_empty() {
        return "no figures".to_owned();
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    format!(
        "median {:.1} ms, 95th percentile {:.1} ms, max {:.1} ms",
        at(0.5),
        at(0.95),
        at(1.0)
    )
}

/// The copy number a title carries, read back into the truth's index.
fn title_index(title: &str) -> usize {
    title
        .rsplit_once("[record ")
        .and_then(|(_, n)| n.trim_end_matches(']').parse().ok())
        .unwrap_or(0)
}

/// Write `count` records cycling through `pool` as one CSV export; every
/// title ends with its record number, so each is its own paper and its
/// truth can be read back.
pub(crate) fn write_export(
    dir: &Path,
    pool: &[Row],
    count: usize,
) -> Result<(PathBuf, Vec<bool>), String> {
    let path = dir.join("search.csv");
    let mut out = csv::Writer::from_path(&path).map_err(|e| e.to_string())?;
    out.write_record(["title", "abstract", "authors", "year"])
        .map_err(|e| e.to_string())?;
    let mut truth = Vec::with_capacity(count);
    for (i, row) in pool.iter().cycle().take(count).enumerate() {
        let title = format!("{} [record {i}]", row.title);
        out.write_record([
            title.as_str(),
            row.abstract_text.as_str(),
            row.authors.as_str(),
            row.year.as_str(),
        ])
        .map_err(|e| e.to_string())?;
        truth.push(row.included);
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok((path, truth))
}

/// Every record of every CSV in `dir`, in file order.
pub(crate) fn rows_in(dir: &Path) -> Result<Vec<Row>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for file in files {
        let mut reader = csv::Reader::from_path(&file).map_err(|e| e.to_string())?;
        let headers = reader.headers().map_err(|e| e.to_string())?.clone();
        let col = |name: &str| headers.iter().position(|h| h == name);
        let (title, abstract_text, authors, year, label) = (
            col("title"),
            col("abstract"),
            col("authors"),
            col("year"),
            col("label_included"),
        );
        for record in reader.records() {
            let record = record.map_err(|e| e.to_string())?;
            let get = |at: Option<usize>| at.and_then(|i| record.get(i)).unwrap_or("").to_owned();
            rows.push(Row {
                title: get(title),
                abstract_text: get(abstract_text),
                authors: get(authors),
                year: get(year),
                included: get(label) == "1",
            });
        }
    }
    Ok(rows)
}

/// The process's peak resident memory, from /proc (Linux).
pub(crate) fn peak_rss_mb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}
