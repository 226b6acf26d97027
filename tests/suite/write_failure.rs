//! A disk that fills in the middle of an agent review: the run stops before
//! it spends more on results it cannot keep, keeps what it wrote, says what
//! to do, and resumes cleanly once there is room.
//!
//! The disk is the edge of the system, so the failure is the kernel's own:
//! the running `quire` process gets a file-size limit of zero bytes (with
//! SIGXFSZ ignored, as a full disk sends no signal), and from then on every
//! write that would grow a file fails, as on a full disk.

use std::process::Stdio;
use std::time::Duration;

use testkit::{ScriptedServer, ServerOptions};

use super::agent_review::{QUESTION, assert_no_torn_json, reader_calls, results};
use super::support::{dev_pdfs, folder_of, quire_command, scripted_config};

/// From now on, every write of process `pid` that would grow a file fails
/// (util-linux's `prlimit`, on any Linux).
fn fill_disk(pid: u32) {
    let status = std::process::Command::new("prlimit")
        .arg(format!("--pid={pid}"))
        .arg("--fsize=0:unlimited")
        .status()
        .unwrap();
    assert!(status.success(), "prlimit failed");
}

fn result_files(ws: &std::path::Path) -> usize {
    std::fs::read_dir(ws.join("papers"))
        .map(|dir| {
            dir.flatten()
                .filter(|e| e.path().join("result.json").exists())
                .count()
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn a_disk_that_fills_mid_run_stops_the_spending_keeps_the_results_and_resumes() {
    let server = ScriptedServer::start(ServerOptions {
        latency: Duration::from_millis(40),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let mut papers = dev_pdfs("distributed-systems", 5);
    papers.extend(dev_pdfs("databases", 5));
    let folder = folder_of(&papers);
    let concurrency = 2;
    let config = scripted_config(
        &server.base_url(),
        &format!("concurrency = {concurrency}\n"),
    );
    let data = tempfile::tempdir().unwrap();
    let ws = data.path().join("ws");
    let review = |full_disk_ready: bool| {
        let quire = quire_command(config.path(), data.path());
        // A full disk sends no signal: SIGXFSZ is ignored (bash's `trap ''`
        // is inherited through exec), so a write past the limit just fails.
        let mut command = std::process::Command::new("bash");
        command.arg("-c").arg(if full_disk_ready {
            "trap '' XFSZ; exec \"$0\" \"$@\""
        } else {
            "exec \"$0\" \"$@\""
        });
        command.arg(quire.get_program());
        for (key, value) in quire.get_envs() {
            if let Some(value) = value {
                command.env(key, value);
            }
        }
        command
            .args([
                "review",
                "--engine",
                "agent",
                "--approve",
                "--json",
                "-q",
                QUESTION,
            ])
            .arg("--workspace")
            .arg(&ws)
            .arg(folder.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut command = tokio::process::Command::from(command);
        command.kill_on_drop(true);
        command.spawn().unwrap()
    };

    // The protocol is drafted and shown first; no paper is read by that run.
    let shown = review(false).wait_with_output().await.unwrap();
    assert_eq!(
        shown.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );

    let child = review(true);
    // The disk fills once two results are safely written.
    let pid = child.id().unwrap();
    let mut waited = 0;
    while result_files(&ws) < 2 {
        tokio::time::sleep(Duration::from_millis(5)).await;
        waited += 1;
        assert!(waited < 12_000, "no result was written");
    }
    fill_disk(pid);
    let requests_at_fill = server.requests().len();
    let kept = result_files(&ws);
    let out = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a run that cannot write is not done");
    // Spending stopped: the calls in flight when the disk filled, and those
    // that had already taken a slot, and no more.
    let requests = server.requests();
    let after = reader_calls(&requests[requests_at_fill..]);
    let after: usize = after.values().sum();
    eprintln!(
        "{after} reader calls after the disk filled; the run said: {}",
        stderr.lines().last().unwrap_or("")
    );
    assert!(
        after <= 2 * concurrency,
        "{after} reader calls after the disk filled"
    );
    assert!(
        reader_calls(&requests).values().sum::<usize>() < papers.len(),
        "the run went on reading"
    );
    let error = stderr.lines().last().unwrap_or("");
    assert!(
        error.starts_with("error[write_failed]: the workspace could not be written")
            && error.contains("run the review again to resume"),
        "the error says what failed and what to do: {stderr}"
    );

    // What was written is kept, whole.
    assert!(result_files(&ws) >= kept);
    assert_no_torn_json(&ws);

    // With room again, the same command resumes and reads only what is left.
    let protected: Vec<String> = {
        let workspace = quire::workspace::Workspace::open_read_only(&ws).unwrap();
        results(&workspace).into_iter().map(|r| r.0).collect()
    };
    let before = server.requests().len();
    let out = review(false).wait_with_output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["status"], "done", "{summary}");
    assert_eq!(summary["counts"]["notScored"], 0, "{summary}");
    let again = reader_calls(&server.requests()[before..]);
    for title in &protected {
        assert!(!again.contains_key(title), "{title} was read again");
    }
    assert_eq!(result_files(&ws), papers.len());
    assert_no_torn_json(&ws);
}
