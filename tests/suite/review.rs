//! A whole offline review of real papers: results, report, exports, resume.

use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag};
use quire::agent::{EventLog, RunEvent};
use quire::commands::reviews;
use quire::commands::{AppContext, AppPaths};
use quire::pdf::ingest::IngestOptions;
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::{EngineKind, PaperResult, ReviewSpec, paper_text};
use quire::workspace::{Workspace, WsPath};

use super::support::{corpus, dev_pdfs, quire_bin};

const QUESTION: &str =
    "How do distributed systems reach consensus, replicate state and tolerate failures?";

fn request(source: &Path, workspace: &Path, cache: &Path) -> ReviewRequest {
    let mut ingest = IngestOptions::new(quire_bin().into());
    ingest.cache_dir = Some(cache.to_path_buf());
    ReviewRequest {
        source: source.to_path_buf(),
        spec: ReviewSpec {
            question: QUESTION.into(),
            criteria: vec!["describes a replication protocol".into()],
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: workspace.to_path_buf(),
        ingest,
        engine: EngineSetup::Offline,
        lookup: None,
    }
}

/// The raw `result.json` of every readable paper, in id order.
fn result_files(ws: &Workspace) -> Vec<String> {
    let papers = ws.papers().unwrap();
    papers
        .iter()
        .filter(|p| p.status.is_readable())
        .map(|p| {
            ws.read_string(&WsPath::from_parts(["papers", &p.id.0, "result.json"]).unwrap())
                .unwrap()
        })
        .collect()
}

/// Markdown the way a viewer reads it: no raw HTML, and the tables are tables.
fn assert_renders(markdown: &str) -> usize {
    let mut tables = 0;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Html(html) | Event::InlineHtml(html) => panic!("raw HTML in the report: {html}"),
            Event::Start(Tag::Table(_)) => tables += 1,
            _ => {}
        }
    }
    tables
}

#[tokio::test]
async fn an_offline_review_reads_scores_summarises_quotes_and_exports() {
    let folder = tempfile::tempdir().unwrap();
    let relevant = dev_pdfs("distributed-systems", 3);
    let others = dev_pdfs("machine-learning", 3);
    for pdf in relevant.iter().chain(&others) {
        std::fs::copy(pdf, folder.path().join(pdf.file_name().unwrap())).unwrap();
    }
    std::fs::copy(&relevant[0], folder.path().join("copy.pdf")).unwrap();
    std::fs::copy(
        corpus().join("bad/text-renamed.pdf"),
        folder.path().join("notes.pdf"),
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let ws_dir = data.path().join("ws");
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let summary = reviews::start(
        &ctx,
        request(folder.path(), &ws_dir, &data.path().join("cache")),
        EventLog::new(),
    )
    .finish()
    .await
    .unwrap();

    let c = &summary.counts;
    assert_eq!((c.found, c.duplicates, c.screened), (8, 1, 6));
    assert_eq!(c.unreadable.get("not_pdf"), Some(&1));
    assert_eq!(c.included + c.maybe + c.excluded, 6);
    assert!(summary.engine.contains("no language model"));
    assert_eq!(
        summary
            .papers
            .iter()
            .filter(|p| p.status == "duplicate")
            .count(),
        1
    );

    // Every readable paper has a full result whose quotes are really on their pages.
    let ws = Workspace::open_read_only(&ws_dir).unwrap();
    let mut relevant_scores = Vec::new();
    let mut other_scores = Vec::new();
    for paper in ws
        .papers()
        .unwrap()
        .iter()
        .filter(|p| p.status.is_readable())
    {
        let result: PaperResult = ws
            .read_json(&WsPath::from_parts(["papers", &paper.id.0, "result.json"]).unwrap())
            .unwrap();
        let pages = paper_text::load(&ws, &paper.id).unwrap().unwrap();
        assert!(
            (1..=5).contains(&result.summary.len()),
            "{} summary sentences",
            result.summary.len()
        );
        // Quotes are the paper's content as printed on their page, or
        // starting there and running over the page turn, with the running
        // heads and page numbers between left out.
        let content = paper_text::PaperText::of(pages.clone()).content;
        for quote in result.summary.iter().chain(&result.evidence) {
            assert!(
                quire::review::reading::verify::quote_on_page(&quote.text, quote.page, &content),
                "quote not on page {}: {}",
                quote.page,
                quote.text
            );
        }
        assert!((0.0..=10.0).contains(&result.score));
        assert_eq!(result.criteria.len(), 1);
        assert!(!result.rationale.is_empty());
        let is_relevant = relevant
            .iter()
            .any(|r| r.file_name() == paper.file.file_name());
        if is_relevant {
            relevant_scores.push(result.score)
        } else {
            other_scores.push(result.score)
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    assert!(
        mean(&relevant_scores) > mean(&other_scores),
        "{relevant_scores:?} vs {other_scores:?}"
    );

    let report = std::fs::read_to_string(ws_dir.join("report.md")).unwrap();
    assert!(
        assert_renders(&report) >= 3,
        "flow, ranking and unreadable-files tables"
    );
    assert!(report.contains("offline (no language model)"));
    assert!(report.contains("notes.pdf") && report.contains("not a PDF"));
    assert!(report.contains("## Duplicates") && report.contains("copy.pdf"));
    let csv = std::fs::read_to_string(ws_dir.join("report.csv")).unwrap();
    assert_eq!(
        csv.lines().count(),
        1 + 7,
        "header plus one row per distinct file"
    );
    let bib = std::fs::read_to_string(ws_dir.join("report.bib")).unwrap();
    assert_eq!(bib.matches("@misc{").count(), 7);
    let ris = std::fs::read_to_string(ws_dir.join("report.ris")).unwrap();
    assert_eq!(ris.matches("ER  - ").count(), 7);

    // Resume: nothing is extracted again and finished results are kept as they are.
    let before = result_files(&ws);
    drop(ws);
    let events = EventLog::new();
    reviews::start(
        &ctx,
        request(folder.path(), &ws_dir, &data.path().join("cache")),
        events.clone(),
    )
    .finish()
    .await
    .unwrap();
    let events = events.events();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, RunEvent::ExtractionStarted { to_extract: 0, .. })),
        "{events:?}"
    );
    let ws = Workspace::open_read_only(&ws_dir).unwrap();
    let after = result_files(&ws);
    assert_eq!(before, after);
    assert_eq!(ws.runs().unwrap().len(), 2);
}

#[test]
fn quire_review_json_lists_every_file_with_status_and_score() {
    let folder = tempfile::tempdir().unwrap();
    for pdf in dev_pdfs("databases", 2) {
        std::fs::copy(&pdf, folder.path().join(pdf.file_name().unwrap())).unwrap();
    }
    std::fs::write(folder.path().join("empty.pdf"), b"").unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = data.path().join("report.md");
    let output = std::process::Command::new(quire_bin())
        .args(["review"])
        .arg(folder.path())
        .args([
            "--question",
            "How do databases process transactions?",
            "--json",
            "--out",
        ])
        .arg(&out)
        .env("QUIRE_DATA_DIR", data.path())
        // Hermetic: no lookups in the scholarly indexes.
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["counts"]["found"], 3);
    assert_eq!(json["counts"]["screened"], 2);
    let papers = json["papers"].as_array().unwrap();
    assert_eq!(papers.len(), 3);
    let empty = papers
        .iter()
        .find(|p| p["file"].as_str().unwrap().ends_with("empty.pdf"))
        .unwrap();
    assert_eq!(empty["status"], "not_pdf");
    assert!(empty["score"].is_null());
    for p in papers.iter().filter(|p| p["status"] == "ok") {
        assert_eq!(p["sha256"].as_str().unwrap().len(), 64);
        assert!(
            p["score"].as_f64().is_some() && p["verdict"].is_string() && p["title"].is_string()
        );
    }
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .starts_with("# Literature review")
    );
    assert!(
        Path::new(json["workspace"].as_str().unwrap())
            .join("task.json")
            .is_file()
    );
}

#[test]
fn quire_review_refuses_a_missing_folder_and_an_unknown_engine() {
    let data = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        std::process::Command::new(quire_bin())
            .args(args)
            .env("QUIRE_DATA_DIR", data.path())
            // Hermetic: no lookups in the scholarly indexes.
            .env("QUIRE_OFFLINE", "1")
            .output()
            .unwrap()
    };
    let missing = run(&["review", "/no/such/dir", "--question", "q"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("error[folder_not_found]"));
    let engine = run(&["review", ".", "--question", "q", "--engine", "magic"]);
    assert!(String::from_utf8_lossy(&engine.stderr).contains("error[unknown_engine]"));
}

/// `quire review --json` of `folder` with the offline engine: each file name
/// with its score and verdict.
fn offline_scores(folder: &Path, question: &str) -> Vec<(String, f64, String)> {
    let data = tempfile::tempdir().unwrap();
    let folder = folder.to_str().unwrap();
    let json = super::support::quire_json(
        data.path(),
        &["review", folder, "--question", question, "--json"],
    );
    json["papers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "ok")
        .map(|p| {
            let file = Path::new(p["file"].as_str().unwrap()).file_name().unwrap();
            (
                file.to_string_lossy().into_owned(),
                p["score"].as_f64().unwrap(),
                p["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn offline_scores_mean_the_same_in_every_folder_and_an_off_topic_one_has_no_includes() {
    let question = "Which machine learning methods train models from noisy or limited labels, \
                    and how are they evaluated on benchmarks?";
    let mut off_topic = dev_pdfs("programming-languages", 4);
    off_topic.extend(dev_pdfs("databases", 3));
    let off_topic_folder = super::support::folder_of(&off_topic);
    let scored = offline_scores(off_topic_folder.path(), question);
    assert_eq!(scored.len(), 7, "{scored:?}");
    // Before, the best paper of any folder was "include" (its score was the
    // ratio to the folder's mean).
    assert!(
        scored.iter().all(|(_, _, verdict)| verdict != "include"),
        "{scored:?}"
    );

    // The same paper among papers on the question scores what it scored among
    // papers off it; the papers on it score above every paper of the first folder.
    let kept = off_topic[0].clone();
    let mut mixed = dev_pdfs("machine-learning", 4);
    mixed.push(kept.clone());
    let mixed_scored = offline_scores(super::support::folder_of(&mixed).path(), question);
    let name = kept.file_name().unwrap().to_string_lossy().into_owned();
    let score_in =
        |list: &[(String, f64, String)]| list.iter().find(|(f, _, _)| *f == name).unwrap().1;
    assert_eq!(score_in(&scored), score_in(&mixed_scored));
    let best_off_topic = scored.iter().map(|s| s.1).fold(0.0, f64::max);
    let best_on_topic = mixed_scored.iter().map(|s| s.1).fold(0.0, f64::max);
    assert!(
        best_on_topic > best_off_topic,
        "{mixed_scored:?} {scored:?}"
    );
}
