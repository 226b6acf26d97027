//! The desktop app's figures, printed (not asserted; machines here are noisy):
//! cold start to first paint, the memory of the app and its WebKit processes
//! with a 1,000-paper review open, and the time to open that review and to
//! filter its table. Run under a display, after building the app and the CLI:
//!
//! ```sh
//! xvfb-run -a -s "-screen 0 1280x800x24" cargo run -p quire-e2e --bin desktop-bench -- [--papers 1000]
//! ```
//!
//! `QUIRE_APP_BIN` picks the app binary (default: the debug build), and
//! `QUIRE_CLI_BIN` the `quire` binary that prepares the review (default: the
//! one beside the app).

#![allow(clippy::print_stdout)] // a benchmark: its figures are its output

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use quire_e2e::{App, app_binary, corpus, eventually};
use serde_json::{Value, json};

const QUESTION: &str = "How do systems keep replicated data consistent?";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<()> {
    let mut papers = 1000usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--papers" => papers = args.next().context("--papers N")?.parse()?,
            other => bail!("unknown argument {other}; usage: desktop-bench [--papers N]"),
        }
    }
    let app = app_binary()?;
    println!("app: {}", app.display());

    let data = tempfile::tempdir()?;
    let started = Instant::now();
    let made = review_of(data.path(), papers)?;
    println!(
        "fixture: a {made}-paper offline review (the dev corpus repeated under distinct ids), made in {:.0} s",
        started.elapsed().as_secs_f64()
    );

    let starts: Vec<u64> = (0..3)
        .map(|_| startup_ms(&app, data.path()))
        .collect::<Result<_>>()?;
    println!(
        "start-up to first paint: {} ms (first run), {} ms (median of 3) [goal <= 1500 ms]",
        starts[0],
        median(&starts)
    );

    let session = App::start_in(data, &[]).await?;
    eventually("the recent list", Duration::from_secs(30), || async {
        session.text_content("[data-testid=recent-open]").await
    })
    .await?;
    // Opened the moment the list shows, while the app may still be building
    // the rows of the review it lists first; then, back on the list, again.
    let first = open_from_list(&session).await?;
    session
        .client
        .execute(
            "document.querySelector('[data-testid=back]').click();",
            vec![],
        )
        .await?;
    eventually("the recent list again", Duration::from_secs(30), || async {
        session.text_content("[data-testid=recent-open]").await
    })
    .await?;
    let phases = open_from_list(&session).await?;
    let phase = |name: &str| phases[name].as_f64().unwrap_or(f64::NAN);
    let open_ms = phase("painted");
    let first_ms = first["painted"].as_f64().unwrap_or(f64::NAN);
    let rows = session
        .text_contents("[data-testid=result-row]")
        .await?
        .len();
    let shown = session
        .text_content("[data-testid=results-count]")
        .await?
        .unwrap_or_default();
    println!(
        "open the review: {first_ms:.0} ms to the first rows painted, clicked the moment the list showed; {open_ms:.0} ms opened again from the list ({shown}; {rows} rows in the DOM) [goal <= 200 ms]"
    );
    println!(
        "  loading state in the DOM at {:.0} ms, the first rows at {:.0} ms, their frame at {open_ms:.0} ms",
        phase("loading"),
        phase("rows")
    );
    let command = session
        .client
        .execute_async(
            "const done = arguments[0]; const invoke = window.__TAURI_INTERNALS__.invoke; \
             invoke('workspace_list').then((list) => { const t0 = performance.now(); \
               return invoke('review_open', { workspace: list.workspaces[0].root }) \
                 .then((view) => done([performance.now() - t0, JSON.stringify(view).length])); });",
            vec![],
        )
        .await?;
    println!(
        "  the review_open command alone, called again: {:.0} ms ({} kB of JSON)",
        command[0].as_f64().unwrap_or(0.0),
        command[1].as_u64().unwrap_or(0) / 1024
    );

    let mut filters = Vec::new();
    for text in ["consisten", "2009", ""] {
        let set = format!(
            "const f = document.querySelector('[data-testid=filter-text]'); f.value = {}; \
             f.dispatchEvent(new Event('input', {{ bubbles: true }}));",
            json!(text)
        );
        let before = shown_count(&session).await?;
        let ms = timed(
            &session,
            &set,
            &format!(
                "document.querySelector('[data-testid=results-count]').textContent !== {}",
                json!(before)
            ),
        )
        .await;
        match ms {
            Ok(ms) => {
                filters.push(ms);
                println!(
                    "  filter {text:?}: {ms:.0} ms → {}",
                    shown_count(&session).await?
                );
            }
            Err(_) => println!("  filter {text:?}: the count did not change ({before})"),
        }
    }
    if let Some(worst) = filters.iter().copied().reduce(f64::max) {
        println!("filter the table: at most {worst:.0} ms [goal <= 50 ms]");
    }

    let processes = app_pss_kib()?;
    let pss: u64 = processes.iter().map(|(_, kib)| kib).sum();
    let parts: Vec<String> = processes
        .iter()
        .map(|(name, kib)| format!("{name} {:.0}", *kib as f64 / 1024.0))
        .collect();
    println!(
        "memory with the review open: {:.0} MB PSS (the app and its WebKit processes: {} MB) [goal <= 300 MB]",
        pss as f64 / 1024.0,
        parts.join(", ")
    );
    session.stop().await
}

/// An offline review of the dev corpus in `data`'s workspaces, repeated to
/// `papers` papers under distinct ids. Returns the number of papers.
fn review_of(data: &Path, papers: usize) -> Result<usize> {
    let cli = std::env::var_os("QUIRE_CLI_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            app_binary()
                .map(|a| a.with_file_name("quire"))
                .unwrap_or_default()
        });
    let root = data.join("workspaces").join("bench-review");
    let status = Command::new(&cli)
        .arg("review")
        .arg(corpus().join("dev"))
        .args(["--engine", "offline", "--question", QUESTION, "--workspace"])
        .arg(&root)
        .env("QUIRE_DATA_DIR", data)
        // The fixture only needs papers; reading the scans by OCR takes minutes.
        .env("QUIRE_OCR", "0")
        // A fixture, not a review: nothing is looked up.
        .env("QUIRE_OFFLINE", "1")
        .env("QUIRE_CONFIG_DIR", data.join("config"))
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {}", cli.display()))?;
    if !status.success() {
        bail!("the fixture's review failed");
    }
    let dir = root.join("papers");
    let originals: Vec<PathBuf> = std::fs::read_dir(&dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("paper.json").is_file())
        .collect();
    let mut count = originals.len();
    let mut copy = 0;
    while count < papers {
        copy += 1;
        for original in &originals {
            if count >= papers {
                break;
            }
            let name = original.file_name().context("no name")?.to_string_lossy();
            let id = format!("{name}-{copy:04}");
            let target = dir.join(&id);
            std::fs::create_dir_all(&target)?;
            for entry in std::fs::read_dir(original)? {
                let entry = entry?;
                std::fs::copy(entry.path(), target.join(entry.file_name()))?;
            }
            let record = target.join("paper.json");
            let mut paper: Value = serde_json::from_slice(&std::fs::read(&record)?)?;
            paper["id"] = json!(id);
            // Another work, not the same one found again: duplicate
            // detection would otherwise group every copy with its original.
            if let Some(title) = paper["title"].as_str() {
                paper["title"] = json!(format!("{title} (copy {copy})"));
            }
            paper["meta"]["doi"] = Value::Null;
            paper["meta"]["arxiv"] = Value::Null;
            std::fs::write(&record, serde_json::to_vec_pretty(&paper)?)?;
            count += 1;
        }
    }
    // The index is rebuilt from the workspace folders on the app's first use.
    let _ = std::fs::remove_file(data.join("index.sqlite3"));
    Ok(count)
}

/// Click the first review of the recent list; returns when the loading
/// state and the first rows entered the DOM, and the frame after the rows
/// (where the time to open goes), in ms from the click.
async fn open_from_list(session: &App) -> Result<Value> {
    Ok(session
        .client
        .execute_async(
            "const finish = arguments[0]; const t0 = performance.now(); const at = {}; \
             const seen = new MutationObserver(() => { \
               if (at.loading === undefined && document.querySelector('[data-testid=review-loading]')) at.loading = performance.now() - t0; \
               if (at.rows === undefined && document.querySelector('[data-testid=result-row]')) { \
                 at.rows = performance.now() - t0; seen.disconnect(); \
                 requestAnimationFrame(() => { at.painted = performance.now() - t0; finish(at); }); } }); \
             seen.observe(document.body, { childList: true, subtree: true }); \
             document.querySelector('[data-testid=recent-open]').click();",
            vec![],
        )
        .await?)
}

/// Start the app on its own and read its log until the UI reports its first
/// paint; returns the app's figure (process start to painted).
fn startup_ms(app: &Path, data: &Path) -> Result<u64> {
    let mut child = Command::new(app)
        .env("QUIRE_DATA_DIR", data)
        // The fixture only needs papers; reading the scans by OCR takes minutes.
        .env("QUIRE_OCR", "0")
        .env("QUIRE_CONFIG_DIR", data.join("config"))
        .env("QUIRE_LOG", "info")
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    let stderr = child.stderr.take().context("no stderr")?;
    let mut found = None;
    for line in BufReader::new(stderr).lines() {
        let line = line?;
        if line.contains("first screen painted") {
            found = line
                .split("startup_ms=")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next())
                .and_then(|n| n.parse().ok());
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    found.context("the app never reported its first paint")
}

/// Run `action` in the page and time until `done` holds, measured in the page
/// (performance.now, checked every frame), in milliseconds.
async fn timed(app: &App, action: &str, done: &str) -> Result<f64> {
    let script = format!(
        "const finish = arguments[0]; const t0 = performance.now(); {action} \
         const deadline = t0 + 20000; \
         const check = () => {{ if ({done}) {{ requestAnimationFrame(() => finish(performance.now() - t0)); }} \
           else if (performance.now() > deadline) {{ finish(null); }} else {{ requestAnimationFrame(check); }} }}; \
         check();"
    );
    let value = app.client.execute_async(&script, vec![]).await?;
    value.as_f64().context("timed out waiting in the page")
}

async fn shown_count(app: &App) -> Result<String> {
    Ok(app
        .text_content("[data-testid=results-count]")
        .await?
        .unwrap_or_default())
}

fn median(values: &[u64]) -> u64 {
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted[sorted.len() / 2]
}

/// PSS of the newest app process and each of its descendants, by name, in KiB.
fn app_pss_kib() -> Result<Vec<(String, u64)>> {
    let mut parents: Vec<(u32, u32, String)> = Vec::new();
    for entry in std::fs::read_dir("/proc")? {
        let Ok(pid) = entry?.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces, so split at the last ')'.
        let Some((head, tail)) = stat.rsplit_once(')') else {
            continue;
        };
        let comm = head
            .split_once('(')
            .map(|(_, c)| c.to_owned())
            .unwrap_or_default();
        let ppid = tail
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        parents.push((pid, ppid, comm));
    }
    let app = parents
        .iter()
        .filter(|(_, _, comm)| comm.starts_with("quire-desktop"))
        .map(|(pid, _, _)| *pid)
        .max()
        .context("no running app process")?;
    let mut family = vec![app];
    let mut k = 0;
    while k < family.len() {
        let parent = family[k];
        family.extend(
            parents
                .iter()
                .filter(|(_, pp, _)| *pp == parent)
                .map(|(pid, _, _)| *pid),
        );
        k += 1;
    }
    let mut out = Vec::new();
    for pid in &family {
        let rollup =
            std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        let name = parents
            .iter()
            .find(|(p, _, _)| p == pid)
            .map(|(_, _, comm)| comm.clone())
            .unwrap_or_default();
        let kib = rollup
            .lines()
            .find_map(|l| l.strip_prefix("Pss:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .unwrap_or(0);
        out.push((name, kib));
    }
    Ok(out)
}
