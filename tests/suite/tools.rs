//! The agent's tools through the registry, as an agent would call them.

use serde_json::{Value, json};

use quire::tools::ToolSettings;
use quire::workspace::WsPath;

use super::support::ToolBench;

#[tokio::test]
async fn write_file_returns_a_receipt_not_the_content_and_read_file_numbers_lines() {
    let t = ToolBench::new();
    let receipt = t
        .ok(
            "write_file",
            json!({"path": "notes/plan.md", "content": "alpha\nbeta\ngamma\n"}),
        )
        .await;
    assert_eq!(receipt, "saved notes/plan.md (17 bytes)");
    assert_eq!(
        std::fs::read_to_string(t.root().join("notes/plan.md")).unwrap(),
        "alpha\nbeta\ngamma\n"
    );
    let read = t
        .ok(
            "read_file",
            json!({"path": "notes/plan.md", "offset": 1, "limit": 1}),
        )
        .await;
    assert_eq!(
        read,
        "     2\tbeta\n(lines 2-2 of 3; continue with offset=2)\n"
    );
}

#[tokio::test]
async fn read_file_explains_missing_files_binary_files_and_offsets_past_the_end() {
    let t = ToolBench::new();
    assert_eq!(
        t.code("read_file", json!({"path": "nope.md"})).await,
        "file_not_found"
    );
    std::fs::write(t.root().join("blob.bin"), [0u8, 1, 2, 3]).unwrap();
    assert_eq!(
        t.code("read_file", json!({"path": "blob.bin"})).await,
        "binary_file"
    );
    std::fs::write(t.root().join("short.md"), "one\n").unwrap();
    assert_eq!(
        t.code("read_file", json!({"path": "short.md", "offset": 5}))
            .await,
        "offset_past_end"
    );
    assert_eq!(
        t.code("read_file", json!({"path": "short.md", "limit": 0}))
            .await,
        "invalid_arguments"
    );
    assert_eq!(
        t.code("read_file", json!({"path": "notes"})).await,
        "not_a_file"
    );
}

#[tokio::test]
async fn ls_marks_folders_and_sizes_and_hides_quire_internals() {
    let t = ToolBench::new();
    t.ok(
        "write_file",
        json!({"path": "notes/a.md", "content": "12345"}),
    )
    .await;
    let root = t.ok("ls", json!({})).await;
    assert!(root.contains("notes/\n"), "{root}");
    assert!(!root.contains(".quire"), "{root}");
    assert_eq!(
        t.ok("ls", json!({"path": "notes"})).await,
        "a.md  (5 bytes)\n"
    );
    assert_eq!(t.ok("ls", json!({"path": "runs"})).await, "runs/ is empty");
    assert_eq!(
        t.code("ls", json!({"path": "notes/a.md"})).await,
        "not_a_directory"
    );
}

#[tokio::test]
async fn glob_matches_whole_paths_with_globstar() {
    let t = ToolBench::new();
    // papers/ is closed to the file tools; Quire itself writes there.
    for path in [
        "papers/p1/result.json",
        "papers/p2/result.json",
        "papers/p2/text.md",
        "notes/x.md",
    ] {
        t.put(path, "{}");
    }
    assert_eq!(
        t.ok("glob", json!({"pattern": "papers/**/result.json"}))
            .await,
        "papers/p1/result.json\npapers/p2/result.json\n"
    );
    assert_eq!(
        t.ok("glob", json!({"pattern": "*.md"})).await,
        "no files match \"*.md\""
    );
    assert_eq!(
        t.ok("glob", json!({"pattern": "**/*.md", "path": "notes"}))
            .await,
        "notes/x.md\n"
    );
    assert_eq!(
        t.code("glob", json!({"pattern": "a[b"})).await,
        "invalid_pattern"
    );
}

#[tokio::test]
async fn grep_returns_files_with_line_numbers_and_respects_path_and_glob() {
    let t = ToolBench::new();
    t.ok(
        "write_file",
        json!({"path": "notes/a.md", "content": "BM25 ranks\nnothing\nbm25 again\n"}),
    )
    .await;
    t.put("papers/p1/text.txt", "uses BM25\n");
    let out = t
        .ok("grep", json!({"pattern": "(?i)bm25", "glob": "*.md"}))
        .await;
    let parsed: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(
        parsed,
        json!({"notes/a.md": [[1, "BM25 ranks"], [3, "bm25 again"]]})
    );
    let out = t
        .ok("grep", json!({"pattern": "BM25", "path": "papers"}))
        .await;
    assert_eq!(out, "{\"papers/p1/text.txt\":[[1,\"uses BM25\"]]}\n");
    let none = t.ok("grep", json!({"pattern": "zebra"})).await;
    assert!(none.starts_with("{}\n(no matches"), "{none}");
    assert_eq!(
        t.code("grep", json!({"pattern": "("})).await,
        "invalid_pattern"
    );
}

#[tokio::test]
async fn grep_caps_its_matches_and_says_so() {
    let t = ToolBench::with_settings(ToolSettings {
        grep_max_matches: 5,
        ..ToolSettings::default()
    });
    let content: String = (0..50).map(|i| format!("hit {i}\n")).collect();
    t.ok(
        "write_file",
        json!({"path": "many.txt", "content": content}),
    )
    .await;
    let out = t.ok("grep", json!({"pattern": "hit"})).await;
    let parsed: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(parsed["many.txt"].as_array().unwrap().len(), 5);
    assert!(out.contains("stopped at 5 matching lines"), "{out}");
}

#[tokio::test]
async fn grep_skips_binary_files() {
    let t = ToolBench::new();
    std::fs::write(t.root().join("blob.bin"), b"needle\0\x01\x02").unwrap();
    t.ok(
        "write_file",
        json!({"path": "a.txt", "content": "needle\n"}),
    )
    .await;
    let out = t.ok("grep", json!({"pattern": "needle"})).await;
    assert_eq!(out, "{\"a.txt\":[[1,\"needle\"]]}\n");
}

#[tokio::test]
async fn edit_file_replaces_exactly_and_refuses_ambiguity() {
    let t = ToolBench::new();
    t.ok(
        "write_file",
        json!({"path": "d.md", "content": "score: 3\nscore: 3\nend\n"}),
    )
    .await;
    assert_eq!(
        t.code(
            "edit_file",
            json!({"path": "d.md", "old": "score: 3", "new": "score: 7"})
        )
        .await,
        "ambiguous_edit"
    );
    assert_eq!(
        t.code(
            "edit_file",
            json!({"path": "d.md", "old": "missing", "new": "x"})
        )
        .await,
        "no_match"
    );
    let out = t
        .ok(
            "edit_file",
            json!({"path": "d.md", "old": "score: 3\nend", "new": "score: 9\nend"}),
        )
        .await;
    assert_eq!(out, "edited d.md (1 replacement, now 22 bytes)");
    let out = t
        .ok(
            "edit_file",
            json!({"path": "d.md", "old": "score", "new": "s", "replace_all": true}),
        )
        .await;
    assert!(out.starts_with("edited d.md (2 replacements"), "{out}");
    assert_eq!(
        std::fs::read_to_string(t.root().join("d.md")).unwrap(),
        "s: 3\ns: 9\nend\n"
    );
}

#[tokio::test]
async fn todos_are_persisted_to_disk_and_reread_from_it() {
    let t = ToolBench::new();
    assert_eq!(t.ok("read_todos", json!({})).await, "[]");
    let todos = json!([
        {"content": "read paper A", "status": "completed"},
        {"content": "read paper B", "status": "in_progress"},
        {"content": "write report", "status": "pending"}
    ]);
    let out = t.ok("write_todos", json!({"todos": todos})).await;
    assert_eq!(
        out,
        "saved 3 todos to todo.md (1 completed, 1 in progress, 1 pending)"
    );
    let on_disk = std::fs::read_to_string(t.root().join("todo.md")).unwrap();
    assert_eq!(
        on_disk,
        "# Todo\n\n- [x] read paper A\n- [~] read paper B\n- [ ] write report\n"
    );
    // Someone edits the file by hand: read_todos must see it, proving it is not memory.
    std::fs::write(
        t.root().join("todo.md"),
        on_disk.replace("- [~] read paper B", "- [x] read paper B"),
    )
    .unwrap();
    let read: Value = serde_json::from_str(&t.ok("read_todos", json!(null)).await).unwrap();
    assert_eq!(
        read[1],
        json!({"content": "read paper B", "status": "completed"})
    );
    let bad = json!({"todos": [{"content": "x", "status": "started"}]});
    assert_eq!(t.code("write_todos", bad).await, "invalid_arguments");
}

#[tokio::test]
async fn outputs_over_the_limit_are_offloaded_with_a_preview() {
    let t = ToolBench::with_settings(ToolSettings {
        offload_bytes: 400,
        ..ToolSettings::default()
    });
    let content: String = (1..=300).map(|i| format!("line number {i}\n")).collect();
    t.ok("write_file", json!({"path": "big.txt", "content": content}))
        .await;
    let out = t.ok("read_file", json!({"path": "big.txt"})).await;
    assert!(out.len() < 2000, "preview too long: {} bytes", out.len());
    let saved = out
        .split("saved to ")
        .nth(1)
        .unwrap()
        .split(". ")
        .next()
        .unwrap()
        .to_owned();
    assert!(saved.starts_with("tool-results/"), "{saved}");
    assert!(out.contains("     1\tline number 1"), "{out}");
    assert!(out.contains("   300\tline number 300"), "{out}");
    let full = std::fs::read_to_string(t.root().join(&saved)).unwrap();
    assert_eq!(full.lines().count(), 300);
    // The offloaded file is itself readable through the tools.
    let window = t
        .ok(
            "read_file",
            json!({"path": saved, "offset": 149, "limit": 1}),
        )
        .await;
    assert!(window.contains("150\t   150\tline number 150"), "{window}");
}

#[tokio::test]
async fn quire_files_are_read_only_to_the_agent() {
    let t = ToolBench::new();
    t.ctx
        .workspace
        .write(&WsPath::parse("task.json").unwrap(), b"{}")
        .unwrap();
    for path in [
        "task.json",
        "actions.jsonl",
        ".quire/lock",
        "runs/r1.json",
        "papers/0123456789abcdef/result.json",
        "tasks.json",
        "tasks/t0001-planner/actions.jsonl",
        "agents/evil.toml",
        // The same files on a case-insensitive file system (macOS, Windows).
        "Papers/0123456789abcdef/result.json",
        "PAPERS/0123456789abcdef/result.json",
        "Agents/evil.toml",
        "Task.json",
        "papers./0123456789abcdef/result.json",
    ] {
        assert_eq!(
            t.code("write_file", json!({"path": path, "content": "x"}))
                .await,
            "path_read_only",
            "{path}"
        );
    }
    assert_eq!(
        t.code(
            "edit_file",
            json!({"path": "task.json", "old": "{", "new": "["})
        )
        .await,
        "path_read_only"
    );
    assert_eq!(
        t.ok("read_file", json!({"path": "task.json"})).await,
        "     1\t{}\n"
    );
}

#[tokio::test]
async fn every_call_is_logged_and_bad_calls_get_fixable_errors() {
    let t = ToolBench::new();
    assert_eq!(t.code("no_such_tool", json!({})).await, "unknown_tool");
    assert_eq!(
        t.code("read_file", json!({"file": "x"})).await,
        "invalid_arguments"
    );
    assert_eq!(
        t.code("write_file", json!({"path": "../x", "content": ""}))
            .await,
        "path_outside_workspace"
    );
    t.ok("ls", json!({})).await;
    let log = t.ctx.workspace.actions().unwrap();
    let summary: Vec<(&str, Option<&str>)> = log
        .iter()
        .map(|a| (a.tool.as_str(), a.code.as_deref()))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("no_such_tool", Some("unknown_tool")),
            ("read_file", Some("invalid_arguments")),
            ("write_file", Some("path_outside_workspace")),
            ("ls", None),
        ]
    );
}

#[tokio::test]
async fn the_action_log_clips_large_arguments() {
    let t = ToolBench::new();
    t.ok(
        "write_file",
        json!({"path": "big.md", "content": "z".repeat(100_000)}),
    )
    .await;
    let raw = std::fs::read_to_string(t.root().join("actions.jsonl")).unwrap();
    assert!(raw.len() < 4_000, "log line is {} bytes", raw.len());
    assert!(raw.contains("bytes clipped"));
}
