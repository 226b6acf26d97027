//! The workspace as the record of truth: crash-safe writes, the exclusive lock,
//! the action log.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use quire::workspace::{ActionRecord, Workspace, WorkspaceError, WsPath};

use super::support::quire_bin;

const FILES: usize = 4;
const CHILD_ENV: &str = "QUIRE_TEST_ATOMIC_WRITER_DIR";

/// A file body that proves itself whole: a header naming the version and length,
/// then `len` bytes derived from the version. Half a write cannot pass `check`.
fn payload(version: u64) -> Vec<u8> {
    let len = 64 * 1024 + (version as usize % 7) * 4099;
    let mut out = format!("v={version} len={len}\n").into_bytes();
    out.extend((0..len).map(|i| b'a' + ((i as u64 + version) % 26) as u8));
    out
}

fn check(bytes: &[u8]) -> Result<u64, String> {
    let newline = bytes.iter().position(|&b| b == b'\n').ok_or("no header")?;
    let header = std::str::from_utf8(&bytes[..newline]).map_err(|e| e.to_string())?;
    let version: u64 = header
        .strip_prefix("v=")
        .and_then(|h| h.split(' ').next())
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("bad header {header:?}"))?;
    if bytes != payload(version).as_slice() {
        return Err(format!(
            "torn file: header says v{version}, {} bytes on disk",
            bytes.len()
        ));
    }
    Ok(version)
}

/// The writer side, run in a child process: rewrite the files forever.
fn writer_loop(dir: &Path) -> ! {
    let ws = Workspace::open_or_init(dir).unwrap();
    let mut version = 1;
    loop {
        for i in 0..FILES {
            ws.write(
                &WsPath::parse(&format!("data/f{i}.txt")).unwrap(),
                &payload(version),
            )
            .unwrap();
        }
        version += 1;
    }
}

fn read_versions(dir: &Path) -> Vec<u64> {
    (0..FILES)
        .filter_map(|i| {
            let mut bytes = Vec::new();
            let mut file = std::fs::File::open(dir.join(format!("data/f{i}.txt"))).ok()?;
            file.read_to_end(&mut bytes).unwrap();
            Some(check(&bytes).unwrap_or_else(|e| panic!("f{i}: {e}")))
        })
        .collect()
}

#[test]
fn atomic_writes_leave_old_or_new_content_when_the_writer_is_killed() {
    if let Some(dir) = std::env::var_os(CHILD_ENV) {
        writer_loop(Path::new(&dir));
    }
    let dir = tempfile::tempdir().unwrap();
    let ws_dir = dir.path().join("ws");
    let mut last_seen = 0;
    for round in 0..6u64 {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "suite::workspace::atomic_writes_leave_old_or_new_content_when_the_writer_is_killed"])
            .args(["--nocapture", "--test-threads=1"])
            .env(CHILD_ENV, &ws_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Read while it writes, and kill it at a different point each round: once
        // it has gone some versions past what we saw last time.
        let target = last_seen + 3 + round * 5;
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let versions = read_versions(&ws_dir);
            if let Some(&max) = versions.iter().max()
                && max >= target
            {
                break;
            }
            assert!(Instant::now() < deadline, "writer made no progress");
            assert!(child.try_wait().unwrap().is_none(), "writer exited early");
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let versions = read_versions(&ws_dir);
        assert_eq!(versions.len(), FILES);
        last_seen = *versions.iter().max().unwrap();
    }
    // The killed writers' lock died with them, and reopening sweeps their temp files.
    let ws = Workspace::open_or_init(&ws_dir).unwrap();
    let leftovers: Vec<_> = std::fs::read_dir(ws_dir.join("data"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".quire-tmp-"))
        .collect();
    assert!(
        leftovers.is_empty(),
        "temp files left after reopening: {leftovers:?}"
    );
    assert_eq!(read_versions(ws.root()).len(), FILES);
}

#[test]
fn a_second_open_of_a_workspace_is_refused_while_the_first_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = Workspace::open_or_init(dir.path()).unwrap();
    let err = Workspace::open_or_init(dir.path()).unwrap_err();
    assert_eq!(err.code(), "workspace_locked");
    assert!(
        matches!(err, WorkspaceError::Locked { holder: Some(pid), .. } if pid == std::process::id())
    );
    drop(first);
    Workspace::open_or_init(dir.path()).expect("the lock is released on drop");
}

#[test]
fn a_second_process_gets_a_clear_workspace_locked_error() {
    let dir = tempfile::tempdir().unwrap();
    let _held = Workspace::open_or_init(dir.path()).unwrap();
    let out = Command::new(quire_bin())
        .args(["tool", "ls", "--workspace"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[workspace_locked]"), "{stderr}");
    assert!(
        stderr.contains(&format!("pid {}", std::process::id())),
        "{stderr}"
    );
}

#[test]
fn open_refuses_a_folder_that_is_not_a_workspace() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        Workspace::open(dir.path()).unwrap_err().code(),
        "not_a_workspace"
    );
}

#[test]
fn a_read_only_view_reads_without_the_lock_and_cannot_write() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open_or_init(dir.path()).unwrap();
    ws.write(&WsPath::parse("task.json").unwrap(), b"{}")
        .unwrap();
    let view = Workspace::open_read_only(dir.path()).unwrap();
    assert_eq!(
        view.read(&WsPath::parse("task.json").unwrap()).unwrap(),
        b"{}"
    );
    let err = view
        .write(&WsPath::parse("notes/x").unwrap(), b"x")
        .unwrap_err();
    assert_eq!(err.code(), "path_read_only");
}

#[test]
fn the_action_log_appends_and_reads_back_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open_or_init(dir.path()).unwrap();
    for i in 0..3 {
        let record = ActionRecord::new("ls", &serde_json::json!({"i": i}), Ok("fine"));
        ws.log_action(&record).unwrap();
    }
    let failed = ActionRecord::new(
        "read_file",
        &serde_json::json!({}),
        Err(("file_not_found", "nope")),
    );
    ws.log_action(&failed).unwrap();
    let actions = ws.actions().unwrap();
    assert_eq!(actions.len(), 4);
    assert_eq!(actions[2].args, r#"{"i":2}"#);
    assert_eq!(actions[3].code.as_deref(), Some("file_not_found"));
    assert!(!actions[3].ok);
}

#[test]
fn a_line_torn_by_a_crash_does_not_swallow_the_next_append() {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open_or_init(dir.path()).unwrap();
    let first = ActionRecord::new("ls", &serde_json::json!({}), Ok("a"));
    ws.append_action(&WsPath::parse("actions.jsonl").unwrap(), &first)
        .unwrap();
    // A crash mid-write leaves the last line without its end.
    let log = dir.path().join("actions.jsonl");
    let mut torn = std::fs::read_to_string(&log).unwrap();
    torn.push_str("{\"at\":\"2026-12-03T1");
    std::fs::write(&log, torn).unwrap();
    let next = ActionRecord::new("grep", &serde_json::json!({}), Ok("b"));
    ws.append_action(&WsPath::parse("actions.jsonl").unwrap(), &next)
        .unwrap();
    // The torn line stays one bad line; both records read back.
    assert_eq!(ws.actions().unwrap(), vec![first, next]);
}
