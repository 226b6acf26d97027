//! The extraction table through the CLI against the scripted model server:
//! columns from templates and the researcher's own, a fill whose every
//! quoted cell is on its page, a new or redefined column reading only that
//! column, corrections no fill overwrites, the CSV export, and a fill sent
//! through a Batch API.

use std::path::Path;

use quire::llm::Protocol;
use quire::review::batches::Ledger;
use serde_json::Value;
use testkit::{BatchOptions, ScriptedServer, ServerOptions};

use super::support::{
    dev_pdfs, folder_of, json_files_in, offline_review, one_call_at_a_time, quire_await,
    quire_json, scripted_config, user_messages_under,
};
use quire::review::paper_text;
use quire::workspace::{PaperId, Workspace};

async fn quire_ok(config: &Path, data: &Path, args: &[&str]) -> String {
    let out = quire_await(config, data, args).await;
    assert!(
        out.status.success(),
        "quire {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The columns each table request asked for, in order of the requests.
fn asked_columns(server: &ScriptedServer) -> Vec<Vec<String>> {
    user_messages_under(server, "for a table")
        .iter()
        .map(|text| {
            text.lines()
                .skip_while(|l| l.trim() != "Columns:")
                .skip(1)
                .map_while(|l| l.strip_prefix("- "))
                .map(|l| l.split(':').next().unwrap_or_default().to_owned())
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn cells_cite_quotes_on_their_pages_and_only_new_or_changed_columns_are_read() {
    let mut pdfs = dev_pdfs("databases", 3);
    pdfs.extend(dev_pdfs("machine-learning", 2));
    let folder = folder_of(&pdfs);
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(
        data.path(),
        folder.path(),
        "How do databases recover from crashes?",
    );
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let (c, d) = (config.path(), data.path());

    let columns: Value = serde_json::from_str(
        &quire_ok(
            c,
            d,
            &[
                "table",
                "columns",
                &ws,
                "--template",
                "dataset",
                "--template",
                "sample-size",
                "--add",
                "Recovery",
                "--instruction",
                "How the system recovers after a crash or a failure.",
                "--json",
            ],
        )
        .await,
    )
    .unwrap();
    let ids: Vec<&str> = columns
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["recovery", "dataset", "sample-size"]);

    // Priced before anything is spent.
    let estimate: Value = serde_json::from_str(
        &quire_ok(
            c,
            d,
            &[
                "table",
                "fill",
                &ws,
                "--papers",
                "all",
                "--estimate",
                "--json",
            ],
        )
        .await,
    )
    .unwrap();
    assert_eq!(estimate["papers"], 5, "{estimate}");
    assert_eq!(estimate["batch"]["waitHours"], 24, "priced as a batch too");
    assert!(server.requests().is_empty(), "an estimate calls no model");

    // The first fill reads every paper once, for all three columns at once.
    let filled: Value = serde_json::from_str(
        &quire_ok(c, d, &["table", "fill", &ws, "--papers", "all", "--json"]).await,
    )
    .unwrap();
    assert_eq!(filled["papers"], 5);
    assert_eq!(filled["read"], 5);
    assert!(filled["cellsFilled"].as_u64().unwrap() >= 5, "{filled}");
    let asked = asked_columns(&server);
    assert!(asked.len() >= 5);
    assert!(asked.iter().all(|cols| cols.len() == 3), "{asked:?}");

    // Every quoted cell's quote is on its page.
    let table: Value = serde_json::from_str(
        &quire_ok(
            c,
            d,
            &["table", "show", &ws, "--papers", "all", "--format", "json"],
        )
        .await,
    )
    .unwrap();
    let workspace = Workspace::open_read_only(Path::new(&ws)).unwrap();
    let mut quoted = 0;
    for row in table["rows"].as_array().unwrap() {
        let pages = paper_text::load(&workspace, &PaperId(row["paper"].as_str().unwrap().into()))
            .unwrap()
            .unwrap();
        for cell in row["cells"].as_array().unwrap() {
            let (Some(quote), Some(page)) = (cell["quote"].as_str(), cell["page"].as_u64()) else {
                continue;
            };
            let words: Vec<&str> = quote.split_whitespace().take(5).collect();
            let text = pages[page as usize - 1]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            assert!(
                text.contains(&words.join(" ")),
                "{quote:?} not on p. {page}"
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 5, "{table}");

    // A new column reads that column only; a redefined one, itself only.
    let before = asked_columns(&server).len();
    quire_ok(c, d, &["table", "columns", &ws, "--template", "method"]).await;
    quire_ok(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    let after: Vec<Vec<String>> = asked_columns(&server).split_off(before);
    assert_eq!(after.len(), 5, "{after:?}");
    assert!(after.iter().all(|cols| cols == &["method"]), "{after:?}");
    let before = asked_columns(&server).len();
    quire_ok(
        c,
        d,
        &[
            "table",
            "columns",
            &ws,
            "--add",
            "Recovery",
            "--instruction",
            "How the system restores its state after a crash.",
        ],
    )
    .await;
    quire_ok(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    let after: Vec<Vec<String>> = asked_columns(&server).split_off(before);
    assert!(after.iter().all(|cols| cols == &["recovery"]), "{after:?}");
    let before = asked_columns(&server).len();
    quire_ok(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    assert_eq!(
        asked_columns(&server).len(),
        before,
        "everything current: nothing read"
    );

    // The researcher's value stands over any fill, and the export carries it.
    let paper = table["rows"][0]["paper"].as_str().unwrap().to_owned();
    quire_ok(
        c,
        d,
        &[
            "table",
            "set",
            &ws,
            &paper[..8],
            "recovery",
            "write-ahead log, ARIES-style",
        ],
    )
    .await;
    quire_ok(
        c,
        d,
        &["table", "columns", &ws, "--template", "limitations"],
    )
    .await;
    quire_ok(c, d, &["table", "fill", &ws, "--papers", "all"]).await;
    let table: Value = serde_json::from_str(
        &quire_ok(
            c,
            d,
            &["table", "show", &ws, "--papers", "all", "--format", "json"],
        )
        .await,
    )
    .unwrap();
    let row = table["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["paper"] == paper.as_str())
        .unwrap();
    assert_eq!(row["cells"][0]["value"], "write-ahead log, ARIES-style");
    assert_eq!(row["cells"][0]["corrected"], true);
    assert_eq!(row["cells"][0]["checked"], true);
    let csv_text = quire_ok(
        c,
        d,
        &["table", "show", &ws, "--papers", "all", "--format", "csv"],
    )
    .await;
    let mut reader = csv::Reader::from_reader(csv_text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_owned)
        .collect();
    assert_eq!(
        &header[..6],
        [
            "paper",
            "title",
            "Recovery",
            "Recovery page",
            "Recovery quote",
            "Recovery low confidence"
        ]
    );
    let records: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(records.len(), 5);
    let mine = records.iter().find(|r| &r[0] == paper.as_str()).unwrap();
    assert_eq!(&mine[2], "write-ahead log, ARIES-style");

    // The review's report and outputs carry the table.
    let again = quire_json(
        d,
        &[
            "review",
            folder.path().to_str().unwrap(),
            "-q",
            "How do databases recover from crashes?",
            "--json",
        ],
    );
    assert_eq!(again["workspace"], ws.as_str());
    let report = std::fs::read_to_string(Path::new(&ws).join("report.md")).unwrap();
    assert!(report.contains("## Extraction table"), "{report}");
    assert!(report.contains("write-ahead log, ARIES-style"), "{report}");
    assert!(Path::new(&ws).join("table.csv").exists());

    // With no model configured, filling says so and changes nothing.
    let none = tempfile::tempdir().unwrap();
    let refused = quire_await(none.path(), d, &["table", "fill", &ws]).await;
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("error["),
        "{:?}",
        refused
    );
}

/// Papers with cells kept on disk.
fn papers_with_cells(ws: &Path) -> usize {
    json_files_in(&ws.join("table").join("cells"))
}

#[tokio::test]
async fn killed_mid_fill_the_next_fill_reads_only_the_papers_left_and_a_cap_stops_it() {
    let (server, config) = one_call_at_a_time().await;
    let folder = folder_of(&dev_pdfs("databases", 4));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(
        data.path(),
        folder.path(),
        "How do databases recover from crashes?",
    );
    let (c, d) = (config.path(), data.path());
    quire_ok(c, d, &["table", "columns", &ws, "--template", "dataset"]).await;

    // A cap below one paper's reading stops the fill before any is read.
    let capped: Value = serde_json::from_str(
        &quire_ok(
            c,
            d,
            &[
                "table",
                "fill",
                &ws,
                "--papers",
                "all",
                "--max-tokens",
                "500",
                "--json",
            ],
        )
        .await,
    )
    .unwrap();
    assert!(
        capped["stopped"]
            .as_str()
            .is_some_and(|s| s.contains("500")),
        "{capped}"
    );
    assert_eq!(capped["read"], 0, "{capped}");
    assert!(
        server.requests().is_empty(),
        "the cap is checked before a call"
    );

    // Killed (SIGKILL) once the first paper's cells are kept, before the last.
    let mut child = tokio::process::Command::from(super::support::quire_command(c, d))
        .args(["table", "fill", &ws, "--papers", "all", "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let ws_path = Path::new(&ws);
    while papers_with_cells(ws_path) == 0 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    child.kill().await.unwrap();
    let kept = papers_with_cells(ws_path);
    assert!(kept < 4, "killed before the end ({kept} papers kept)");
    let before = user_messages_under(&server, "for a table").len();

    let resumed: Value = serde_json::from_str(
        &quire_ok(c, d, &["table", "fill", &ws, "--papers", "all", "--json"]).await,
    )
    .unwrap();
    assert_eq!(resumed["stopped"], Value::Null, "{resumed}");
    assert_eq!(resumed["read"], 4 - kept, "{resumed}");
    // Only the papers without cells are read again (a long one in parts).
    let again: std::collections::BTreeSet<String> = user_messages_under(&server, "for a table")
        [before..]
        .iter()
        .filter_map(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("Paper: "))
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(again.len(), 4 - kept, "{again:?}");
    assert_eq!(papers_with_cells(ws_path), 4);
}

#[tokio::test]
async fn columns_are_copied_from_another_review_and_one_without_columns_is_refused() {
    let data = tempfile::tempdir().unwrap();
    let review = |topic: &str| {
        let folder = folder_of(&dev_pdfs(topic, 1));
        offline_review(data.path(), folder.path(), "What do they measure?")
    };
    let (first, second) = (review("databases"), review("machine-learning"));
    let none = tempfile::tempdir().unwrap();
    let d = data.path();

    let refused = quire_await(
        none.path(),
        d,
        &["table", "columns", &second, "--from", &first],
    )
    .await;
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("no table columns to copy"), "{stderr}");

    quire_ok(
        none.path(),
        d,
        &[
            "table",
            "columns",
            &first,
            "--template",
            "dataset",
            "--template",
            "method",
        ],
    )
    .await;
    let copied: Value = serde_json::from_str(
        &quire_ok(
            none.path(),
            d,
            &["table", "columns", &second, "--from", &first, "--json"],
        )
        .await,
    )
    .unwrap();
    let ids: Vec<&str> = copied
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["dataset", "method"]);
}

#[tokio::test]
async fn a_fill_as_a_batch_reads_its_cells_from_batch_answers_and_a_second_sends_nothing() {
    for protocol in [Protocol::Openai, Protocol::Anthropic] {
        fill_as_a_batch(protocol).await;
    }
}

async fn fill_as_a_batch(protocol: Protocol) {
    let folder = folder_of(&dev_pdfs("databases", 3));
    let data = tempfile::tempdir().unwrap();
    let ws = offline_review(
        data.path(),
        folder.path(),
        "How do databases recover from crashes?",
    );
    let options = BatchOptions {
        fail_every: Some(3),
        ..BatchOptions::default()
    };
    let (server, config) = super::batch_support::scripted_batch_config(
        options,
        super::batch_support::SPOILS_FIRST_JSON,
        protocol,
    )
    .await;
    let (c, d) = (config.path(), data.path());
    quire_ok(
        c,
        d,
        &[
            "table",
            "columns",
            &ws,
            "--template",
            "dataset",
            "--template",
            "sample-size",
        ],
    )
    .await;
    let fill = [
        "table",
        "fill",
        &ws,
        "--papers",
        "all",
        "--batch",
        "--batch-poll",
        "0.01",
        "--json",
    ];
    let filled: Value = serde_json::from_str(&quire_ok(c, d, &fill).await).unwrap();
    assert_eq!(filled["read"], 3, "{protocol:?}: {filled}");
    assert!(filled["cellsFilled"].as_u64().unwrap() >= 3, "{filled}");

    // Every call went into a batch (a second round for the lines that
    // failed and the re-asks of answers that were not JSON), none to the
    // chat endpoint; the review's own ledger untouched.
    let ws_path = Path::new(&ws);
    let reasks = super::batch_support::assert_calls_batched(
        &server,
        protocol,
        ws_path,
        "batches/table",
        "table_fill",
        3,
    )
    .await;
    assert!(
        reasks >= 3,
        "{protocol:?}: every part's re-ask went in a batch"
    );
    assert!(
        user_messages_under(&server, "for a table").is_empty(),
        "{protocol:?}: the batches, not the chat endpoint, filled the cells"
    );
    let workspace = Workspace::open_read_only(ws_path).unwrap();
    assert!(Ledger::load(&workspace).unwrap().shards.is_empty());

    // Every cell current: a second fill as a batch reads and sends nothing.
    let before = server.batch_stats();
    let again: Value = serde_json::from_str(&quire_ok(c, d, &fill).await).unwrap();
    assert_eq!(again["read"], 0, "{again}");
    assert_eq!(server.batch_stats(), before);
}

#[tokio::test]
async fn a_capped_fill_as_a_batch_sends_no_batch_past_its_cap() {
    // A token cap, and a cost cap on a priced model: a batch is paid for
    // before any answer is read, so it is priced from the price table
    // before upload, not from what the run has spent (nothing yet).
    for (cap, value, says) in [
        ("--max-tokens", "500", "500"),
        ("--max-cost", "0.000001", "cost cap"),
    ] {
        let folder = folder_of(&dev_pdfs("databases", 2));
        let data = tempfile::tempdir().unwrap();
        let ws = offline_review(
            data.path(),
            folder.path(),
            "How do databases recover from crashes?",
        );
        let (server, _) =
            super::batch_support::scripted_batches(BatchOptions::default(), Protocol::Openai).await;
        let config = scripted_config(&server.base_url(), "");
        super::batch_support::price_the_scripted_model(config.path());
        let (c, d) = (config.path(), data.path());
        quire_ok(c, d, &["table", "columns", &ws, "--template", "dataset"]).await;
        // A cap below one paper's reading: no batch is submitted (it would
        // spend past the cap), and the fill stops as an interactive one does.
        let capped: Value = serde_json::from_str(
            &quire_ok(
                c,
                d,
                &[
                    "table",
                    "fill",
                    &ws,
                    "--papers",
                    "all",
                    "--batch",
                    "--batch-poll",
                    "0.01",
                    cap,
                    value,
                    "--json",
                ],
            )
            .await,
        )
        .unwrap();
        assert!(
            capped["stopped"].as_str().is_some_and(|s| s.contains(says)),
            "{cap}: {capped}"
        );
        assert_eq!(capped["read"], 0, "{cap}: {capped}");
        assert_eq!(server.batch_stats().batches_created, 0, "{cap}");
        assert!(server.requests().is_empty(), "{cap}: nothing was sent");
    }
}
