//! The README's main command with a display: `scripts/quire`, as written,
//! builds the desktop app and opens its window. Run on the checkout the
//! tests are in (CI's is a clean clone), under `xvfb-run` like the other
//! end-to-end tests; ignored by a plain `cargo test`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use quire_e2e::repo_root;

/// A first build of the app on a fresh machine takes about ten minutes;
/// after the test suite's build it takes seconds.
const BUILD_AND_OPEN: Duration = Duration::from_secs(40 * 60);

/// The process group of the command, ended when the test ends, however it ends.
struct Group(u32);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &format!("-{}", self.0)])
            .status();
    }
}

/// The id of a visible window named exactly `name`, if there is one now.
fn visible_window(name: &str) -> Option<String> {
    let out = Command::new("xdotool")
        .args(["search", "--onlyvisible", "--name", &format!("^{name}$")])
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(str::to_owned)
}

#[test]
#[ignore = "needs a display: run under xvfb-run"]
fn the_readme_command_with_a_display_builds_and_opens_the_app() -> Result<()> {
    if std::env::var_os("DISPLAY").is_none() {
        bail!("no DISPLAY: run this test under xvfb-run");
    }
    let home = tempfile::tempdir()?;
    let mut child = Command::new("scripts/quire")
        .current_dir(repo_root())
        .env("QUIRE_DATA_DIR", home.path().join("data"))
        .env("QUIRE_CONFIG_DIR", home.path().join("config"))
        .env("QUIRE_SECRET_STORE", "file")
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
        .env("QUIRE_OFFLINE", "1")
        .env("QUIRE_LOG", "info")
        .env_remove("WAYLAND_DISPLAY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .context("cannot run scripts/quire")?;
    let _group = Group(child.id());

    // Every line the script and the app print, as it comes.
    let (lines, seen) = mpsc::channel::<String>();
    for stream in [
        Box::new(child.stdout.take().context("stdout")?) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().context("stderr")?),
    ] {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(lines);

    let deadline = std::time::Instant::now() + BUILD_AND_OPEN;
    let mut log = Vec::new();
    let mut painted = false;
    while !painted {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match seen.recv_timeout(left) {
            Ok(line) => {
                painted = line.contains("first screen painted");
                log.push(line);
            }
            Err(_) => {
                let status = child.try_wait()?;
                bail!(
                    "the app never painted its first screen ({}); what the command printed:\n{}",
                    status.map_or("still running".to_owned(), |s| s.to_string()),
                    log.join("\n")
                );
            }
        }
    }
    let window = visible_window("Quire").with_context(|| {
        format!(
            "painted, but no visible window named Quire:\n{}",
            log.join("\n")
        )
    })?;
    assert!(!window.is_empty());
    assert!(
        child.try_wait()?.is_none(),
        "the app is still running once its window is up"
    );
    Ok(())
}
