//! `quire-bench bench import`: a big search export into a new review,
//! through the app's own command (`records_import`), at 10,000 and 50,000
//! records (the goal: 10,000 in under 5 s). Each size runs in a process of
//! its own, so its peak memory is its own. Beside each, the file system's
//! floor on the same disk: as many folders and files created with plain
//! `std::fs`, unsynced, which no import can beat; the ratio says how much
//! an import costs above it. Records are SYNERGY records repeated to the
//! size asked, each title numbered so every record is its own paper.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::Args;
use quire::commands::records::{ImportParams, records_import};
use quire::commands::{AppContext, AppPaths};

use super::bench_screening::{peak_rss_mb, rows_in, write_export};

#[derive(Args)]
pub(crate) struct ImportBenchArgs {
    /// The folder of SYNERGY CSVs the records come from.
    #[arg(long, default_value = "../shared/bench/synergy")]
    dir: PathBuf,
    /// The export sizes measured, in records.
    #[arg(long, value_delimiter = ',', default_value = "10000,50000")]
    sizes: Vec<usize>,
    /// Where the reviews are made (a folder on the disk to measure).
    #[arg(long)]
    scratch: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct ImportChildArgs {
    #[arg(long)]
    export: PathBuf,
    #[arg(long)]
    review: PathBuf,
}

/// What one import in its own process measured.
#[derive(serde::Serialize, serde::Deserialize)]
struct Measured {
    records: usize,
    added: usize,
    seconds: f64,
    peak_mb: u64,
}

pub(crate) async fn run(args: ImportBenchArgs) -> Result<(), String> {
    let pool = rows_in(&args.dir)?;
    if pool.is_empty() {
        return Err(format!("no SYNERGY CSV in {}", args.dir.display()));
    }
    let scratch = match &args.scratch {
        Some(dir) => tempfile::tempdir_in(dir),
        None => tempfile::tempdir(),
    }
    .map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    println!(
        "{:>8}  {:>8}  {:>10}  {:>8}  {:>10}  {:>8}",
        "records", "import s", "records/s", "peak MB", "fs floor s", "ratio"
    );
    for &size in &args.sizes {
        let here = scratch.path().join(size.to_string());
        std::fs::create_dir_all(&here).map_err(|e| e.to_string())?;
        let (export, _) = write_export(&here, &pool, size)?;
        let review = here.join("review");
        let out = Command::new(&exe)
            .args(["bench", "import-child", "--export"])
            .arg(&export)
            .arg("--review")
            .arg(&review)
            .output()
            .map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!(
                "the import of {size} records failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let measured: Measured =
            serde_json::from_slice(&out.stdout).map_err(|e| format!("child said: {e}"))?;
        if measured.added != size {
            return Err(format!(
                "{} of {size} records went in: the figure would be of a different import",
                measured.added
            ));
        }
        let floor = fs_floor(&here.join("floor"), size)?;
        println!(
            "{:>8}  {:>8.2}  {:>10.0}  {:>8}  {:>10.2}  {:>7.1}x",
            size,
            measured.seconds,
            size as f64 / measured.seconds,
            measured.peak_mb,
            floor,
            measured.seconds / floor
        );
    }
    Ok(())
}

/// One import, in this process: its time and peak memory, as JSON.
pub(crate) async fn child(args: ImportChildArgs) -> Result<(), String> {
    let data = args.review.with_extension("data");
    let ctx = AppContext::new(AppPaths::new(data));
    let started = Instant::now();
    let summary = records_import(
        &ctx,
        ImportParams {
            workspace: args.review,
            files: vec![args.export],
            replaces: None,
        },
        std::sync::Arc::new(|_| {}),
    )
    .await
    .map_err(|e| e.message)?;
    let seconds = started.elapsed().as_secs_f64();
    let measured = Measured {
        records: summary.files.iter().map(|f| f.records).sum(),
        added: summary.added,
        seconds,
        peak_mb: peak_rss_mb().unwrap_or(0),
    };
    println!(
        "{}",
        serde_json::to_string(&measured).map_err(|e| e.to_string())?
    );
    Ok(())
}

/// Seconds to create `records` folders of two small files each, as an
/// import of that many records leaves, with nothing synced.
fn fs_floor(dir: &Path, records: usize) -> Result<f64, String> {
    let started = Instant::now();
    for n in 0..records {
        let folder = dir.join(format!("{n:016x}"));
        std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        std::fs::write(folder.join("paper.json"), b"{}").map_err(|e| e.to_string())?;
        std::fs::write(folder.join("text.txt"), b"text").map_err(|e| e.to_string())?;
    }
    Ok(started.elapsed().as_secs_f64())
}
