//! `quire tool` as outside checks use it: exit codes, stdout, stderr.

use std::process::Command;

use super::support::quire_bin;

fn tool(ws: &std::path::Path, name: &str, args: &str) -> (Option<i32>, String, String) {
    let out = Command::new(quire_bin())
        .args(["tool", name, "--workspace"])
        .arg(ws)
        .args(["--args", args])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn quire_tool_prints_results_and_signals_refusals_with_exit_2_and_a_code() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    let (code, out, _) = tool(&ws, "write_file", r#"{"path":"a.txt","content":"hi\n"}"#);
    assert_eq!((code, out.as_str()), (Some(0), "saved a.txt (3 bytes)\n"));
    let (code, out, _) = tool(&ws, "read_file", r#"{"path":"a.txt"}"#);
    assert_eq!((code, out.as_str()), (Some(0), "     1\thi\n"));
    let (code, out, err) = tool(&ws, "read_file", r#"{"path":"/etc/passwd"}"#);
    assert_eq!(code, Some(2));
    assert!(out.is_empty());
    assert!(err.starts_with("error[path_absolute]"), "{err}");
    let (code, _, err) = tool(&ws, "read_file", "not json");
    assert_eq!(code, Some(2));
    assert!(err.starts_with("error[invalid_arguments]"), "{err}");
}

#[test]
fn quire_tools_lists_every_tool_as_json_specs() {
    let out = Command::new(quire_bin())
        .args(["tools", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let specs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "ls",
            "glob",
            "grep",
            "read_file",
            "write_file",
            "edit_file",
            "write_todos",
            "read_todos"
        ]
    );
}

#[test]
fn a_closed_stdout_ends_the_command_quietly() {
    // `quire tools --json | head -0`: the reader is gone before the first
    // line, so every write meets a closed pipe (the runtime ignores
    // SIGPIPE, so the write fails with EPIPE instead of killing it).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(quire_bin())
        .args(["tools", "--json"])
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
