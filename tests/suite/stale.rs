//! A review's state follows its inputs: results made under an earlier
//! question count nowhere as current (the app's rows and detail, the report,
//! PRISMA, the exports, `--json`) until their papers are read again.

use std::path::Path;

use quire::commands::review_view as view;
use quire::commands::{AppContext, AppPaths};
use serde_json::Value;
use testkit::{ScriptedServer, ServerOptions};

use super::support::{dev_pdfs, folder_of, quire_await, quire_bin, quire_review, scripted_config};

const FIRST: &str = "How do databases recover from crashes and keep commits durable?";
const SECOND: &str = "How do databases choose an index for a query?";

fn json_of(out: &std::process::Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn read(ws: &Path, file: &str) -> String {
    std::fs::read_to_string(ws.join(file)).unwrap()
}

#[tokio::test]
async fn a_changed_question_leaves_old_results_stale_everywhere_until_they_are_read_again() {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let (config, data_dir) = (config.path(), data.path());

    let first = quire_review(folder.path(), FIRST, config, data_dir, &["--json"]).await;
    let first = json_of(&first);
    let ws = Path::new(first["workspace"].as_str().unwrap()).to_path_buf();
    let scored = |review: &Value| {
        review["papers"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["score"].is_number())
            .count()
    };
    assert_eq!(scored(&first), 3, "{first:#}");
    assert!(read(&ws, "report.md").contains("## Synthesis"));
    // The researcher labels a paper under the first question.
    let labelled = first["papers"][0]["sha256"].as_str().unwrap()[..16].to_owned();
    let label = quire_await(
        config,
        data_dir,
        &[
            "label",
            ws.to_str().unwrap(),
            &labelled,
            "--verdict",
            "include",
        ],
    )
    .await;
    assert!(
        label.status.success(),
        "{}",
        String::from_utf8_lossy(&label.stderr)
    );
    // And asks the papers the review keeps a question, put in the report.
    let ws_arg = ws.to_str().unwrap();
    let asked = quire_await(
        config,
        data_dir,
        &[
            "ask-papers",
            ws_arg,
            "How is a commit made durable?",
            "--json",
        ],
    )
    .await;
    let asked = json_of(&asked);
    assert_eq!(asked["status"], "done", "{asked:#}");
    assert!(asked["stale"].is_null());
    let id = asked["id"].as_str().unwrap();
    let put = quire_await(config, data_dir, &["asks", ws_arg, "--to-report", id]).await;
    assert!(put.status.success());

    // The question changes; a token cap stops the run before any paper is
    // read again, so every result on disk was made for the first question.
    let second = quire_review(
        folder.path(),
        SECOND,
        config,
        data_dir,
        &["--json", "--max-tokens", "1"],
    )
    .await;
    let second = json_of(&second);
    assert_eq!(second["status"], "stopped", "{second:#}");
    assert_eq!(scored(&second), 0, "no old score counts as current");
    for paper in second["papers"].as_array().unwrap() {
        let stale = paper["stale"].as_str().unwrap_or_default();
        assert!(stale.contains("the question"), "{paper:#}");
        assert!(paper["notScored"].as_str().unwrap().starts_with("stale"));
    }
    assert_eq!(second["counts"]["notScored"], 3);
    assert_eq!(second["counts"]["stale"], 3);

    // The report, PRISMA and the exports say so and count none of them.
    let report = read(&ws, "report.md");
    assert!(
        // The label was given under the first question: it decides nothing
        // now (it did decide PRISMA's rows while the report said it was not
        // counted).
        report.contains("(of which 3 read under earlier inputs, awaiting a new reading)"),
        "{report}"
    );
    assert!(
        report.contains("| Included | 0 (labelled include by the researcher: 0) |"),
        "{report}"
    );
    assert!(report.contains("read under earlier inputs"), "{report}");
    assert!(
        report.contains("stale, made before the question"),
        "{report}"
    );
    // The synthesis written for the first question is no synthesis of
    // this one: it is gone from the report until a run writes it again.
    assert!(!report.contains("## Synthesis"), "{report}");
    let flow = read(&ws, "prisma-flow.csv");
    assert!(flow.contains("not_scored_stale,,3"), "{flow}");
    assert!(flow.contains("\nincluded,,0"), "{flow}");
    let csv = read(&ws, "report.csv");
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let head = rows.headers().unwrap().clone();
    let column = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (score, verdict, label) = (
        column("score"),
        column("verdict"),
        column("researcher_verdict"),
    );
    let rows: Vec<csv::StringRecord> = rows.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_eq!((&row[score], &row[verdict]), ("", ""), "{csv}");
    }
    assert_eq!(rows.iter().filter(|r| &r[label] == "include").count(), 0);

    // The app shows each paper as stale, its old reading apart.
    let ctx = AppContext::new(AppPaths::new(data_dir)).with_worker_exe(quire_bin());
    let opened = view::review_open(&ctx, ws.clone()).await.unwrap();
    assert_eq!(opened.question.as_deref(), Some(SECOND));
    for row in &opened.first_rows.rows {
        assert!(row.stale.is_some(), "{row:?}");
        assert_eq!((row.score, row.verdict), (None, None));
        // Nothing shows: the one label was given under the first question.
        assert_eq!((row.shown_score, row.shown_verdict), (None, None));
    }
    let paper = opened.first_rows.rows[0].id.clone();
    let detail = view::paper_detail(ws.clone(), paper).await.unwrap();
    assert!(detail.result.is_none());
    assert!(detail.stale_reading.is_some());

    // The answer over the papers the review kept is marked stale where it
    // stands in the report, and in the app's history.
    assert!(
        report.contains("*Stale: asked before the review's inputs changed"),
        "{report}"
    );
    let history = quire_await(config, data_dir, &["asks", ws_arg, "--json"]).await;
    let history = json_of(&history);
    assert!(history[0]["stale"].as_str().is_some(), "{history:#}");

    // The label stays the researcher's, shown as given under an earlier
    // question; it counts nowhere: not in the rows, not in the screening
    // queue (the paper is served again, no label trains the order or
    // samples for the stopping rule), and the validation says so.
    let label_row = opened
        .first_rows
        .rows
        .iter()
        .find(|r| r.id == labelled)
        .unwrap();
    assert!(label_row.label.is_none(), "{label_row:?}");
    assert_eq!(
        label_row.earlier_label.as_ref().and_then(|l| l.verdict),
        Some(quire::review::Verdict::Include)
    );
    let queue = quire::commands::screening::screening_next(
        &ctx,
        quire::commands::screening::ScreeningParams {
            workspace: ws.clone(),
            count: Some(3),
            question: None,
            find: None,
        },
    )
    .await
    .unwrap();
    assert_eq!((queue.screened, queue.stopping.in_order), (0, 0));
    assert!(queue.next.iter().any(|n| n.paper == labelled));
    assert!(
        report.contains("1 of the researcher's labels were given under an earlier question"),
        "{report}"
    );

    // Read again under the new question: every result is current.
    let third = quire_review(folder.path(), SECOND, config, data_dir, &["--json"]).await;
    let third = json_of(&third);
    assert_eq!(scored(&third), 3, "{third:#}");
    assert_eq!(third["counts"]["stale"], 0);
    let opened = view::review_open(&ctx, ws.clone()).await.unwrap();
    assert!(opened.first_rows.rows.iter().all(|r| r.stale.is_none()));
    let report = read(&ws, "report.md");
    assert!(!report.contains("earlier inputs"), "{report}");
    assert!(report.contains("## Synthesis"), "{report}");
}
