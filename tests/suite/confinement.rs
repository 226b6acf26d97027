//! Path confinement under attack: thousands of generated hostile paths, walked
//! through real symlink chains on disk, and none reaches outside the workspace.

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use quire::workspace::{Workspace, WsPath};

const SECRET: &[u8] = b"SECRET-OUTSIDE";
const INSIDE: &[u8] = b"inside";

/// Codes a refusal may carry; anything else is a bug in the mapping.
const REFUSALS: &[&str] = &[
    "path_outside_workspace",
    "path_absolute",
    "path_has_nul",
    "path_too_long",
    "path_invalid",
    "file_not_found",
    "not_a_file",
    "not_a_directory",
    "symlink_loop",
];

/// Lay out `root/ws` (the workspace) and `root/outside` (what must stay out of
/// reach), with symlinks inside the workspace that point out, in, and in loops.
fn build_tree(root: &Path) -> std::path::PathBuf {
    let ws = root.join("ws");
    let outside = root.join("outside");
    std::fs::create_dir_all(outside.join("deeper")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    std::fs::write(outside.join("deeper/secret.txt"), SECRET).unwrap();
    for dir in ["notes", "in", "in/sub"] {
        std::fs::create_dir_all(ws.join(dir)).unwrap();
        std::fs::write(ws.join(dir).join("secret.txt"), INSIDE).unwrap();
    }
    std::fs::write(ws.join("secret.txt"), INSIDE).unwrap();
    let secret_file = outside.join("secret.txt");
    let links: &[(&str, &str)] = &[
        ("in/out", "../../outside"),
        ("in/abs", outside.to_str().unwrap()),
        ("in/abs_file", secret_file.to_str().unwrap()),
        ("chain1", "chain2"),
        ("chain2", "in/chain3"),
        ("in/chain3", "out"),
        ("in/sub/up", ".."),
        ("in/sub/upup", "../.."),
        ("in/sub/up3", "../../.."),
        ("inside_link", "notes"),
        ("loop1", "loop2"),
        ("loop2", "loop1"),
        ("notes/root_link", "/"),
        ("notes/dangling", "nowhere/at/all"),
        ("notes/via_chain", "../chain1/deeper"),
    ];
    for (link, target) in links {
        symlink(target, ws.join(link)).unwrap();
    }
    ws
}

/// Every file under `dir` with its content, to prove nothing outside changed.
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(path.display().to_string(), std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn hostile_path() -> impl Strategy<Value = String> {
    let long = "n".repeat(300);
    let component = prop::sample::select(vec![
        "..".to_owned(),
        ".".to_owned(),
        "notes".to_owned(),
        "in".to_owned(),
        "sub".to_owned(),
        "out".to_owned(),
        "abs".to_owned(),
        "abs_file".to_owned(),
        "chain1".to_owned(),
        "up".to_owned(),
        "upup".to_owned(),
        "up3".to_owned(),
        "inside_link".to_owned(),
        "loop1".to_owned(),
        "root_link".to_owned(),
        "dangling".to_owned(),
        "via_chain".to_owned(),
        "deeper".to_owned(),
        "outside".to_owned(),
        "secret.txt".to_owned(),
        "ws".to_owned(),
        "".to_owned(),
        "~".to_owned(),
        "a\0b".to_owned(),
        "..\\..".to_owned(),
        long,
    ]);
    let prefix = prop::sample::select(vec!["", "", "", "/", "./", "//", "~/"]);
    (prefix, prop::collection::vec(component, 1..8))
        .prop_map(|(p, parts)| format!("{p}{}", parts.join("/")))
}

#[test]
fn ten_thousand_hostile_paths_never_escape_the_workspace() {
    let tmp = tempfile::tempdir().unwrap();
    let ws_root = build_tree(tmp.path());
    let outside = tmp.path().join("outside");
    let before = snapshot(&outside);
    let ws = Workspace::open_or_init(&ws_root).unwrap();

    let mut runner = TestRunner::new(Config {
        cases: 10_000,
        failure_persistence: None,
        ..Config::default()
    });
    let outcomes: std::cell::RefCell<BTreeMap<String, usize>> = Default::default();
    runner
        .run(&hostile_path(), |raw| {
            let parsed = WsPath::parse(&raw);
            let path = match parsed {
                Ok(path) => path,
                Err(e) => {
                    prop_assert!(
                        REFUSALS.contains(&e.code()),
                        "{raw:?}: unexpected code {}",
                        e.code()
                    );
                    *outcomes
                        .borrow_mut()
                        .entry(e.code().to_owned())
                        .or_default() += 1;
                    return Ok(());
                }
            };
            match ws.read(&path) {
                Ok(bytes) => {
                    prop_assert_ne!(bytes.as_slice(), SECRET, "{:?} read a file outside", raw);
                    *outcomes.borrow_mut().entry("read_ok".into()).or_default() += 1;
                }
                Err(e) => {
                    prop_assert!(
                        REFUSALS.contains(&e.code()),
                        "{raw:?}: unexpected code {} ({e})",
                        e.code()
                    );
                    *outcomes
                        .borrow_mut()
                        .entry(e.code().to_owned())
                        .or_default() += 1;
                }
            }
            if let Ok(entries) = ws.list_dir(&path) {
                for entry in entries {
                    let listed = ws_root.join(entry.path.to_relative());
                    prop_assert!(!listed.starts_with(&outside), "{raw:?} listed {listed:?}");
                }
            }
            // Writing a new file below the path must either land inside or be refused.
            if let Ok(target) = path.join("written-by-test.txt")
                && let Err(e) = ws.write(&target, b"x")
            {
                prop_assert!(
                    REFUSALS.contains(&e.code()),
                    "{raw:?}: write gave {} ({e})",
                    e.code()
                );
            }
            Ok(())
        })
        .unwrap();

    assert_eq!(
        snapshot(&outside),
        before,
        "something outside the workspace changed"
    );
    // The generator really exercised the escapes, not only lexical refusals.
    let outcomes = outcomes.into_inner();
    for code in [
        "path_outside_workspace",
        "path_absolute",
        "path_has_nul",
        "path_too_long",
        "symlink_loop",
        "read_ok",
    ] {
        assert!(
            outcomes.get(code).copied().unwrap_or(0) > 0,
            "never saw {code}: {outcomes:?}"
        );
    }
    println!("confinement outcomes over 10,000 paths: {outcomes:?}");
}

#[test]
fn symlinks_that_stay_inside_are_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let ws_root = build_tree(tmp.path());
    let ws = Workspace::open_or_init(&ws_root).unwrap();
    let read = |p: &str| ws.read(&WsPath::parse(p).unwrap()).map_err(|e| e.code());
    assert_eq!(read("inside_link/secret.txt").unwrap(), INSIDE);
    assert_eq!(read("in/sub/up/secret.txt").unwrap(), INSIDE);
    assert_eq!(read("in/out/secret.txt"), Err("path_outside_workspace"));
    assert_eq!(read("in/abs_file"), Err("path_outside_workspace"));
    assert_eq!(read("chain1/secret.txt"), Err("path_outside_workspace"));
    assert_eq!(read("in/sub/upup/secret.txt").unwrap(), INSIDE);
    assert_eq!(read("in/sub/up3/secret.txt"), Err("path_outside_workspace"));
    assert_eq!(read("loop1"), Err("symlink_loop"));
    assert_eq!(
        read("notes/root_link/etc/passwd"),
        Err("path_outside_workspace")
    );
}
