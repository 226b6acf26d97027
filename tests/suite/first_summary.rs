//! The first summary a researcher reads: an offline review of the whole
//! shared corpus, as the app runs it, read back through the paper pane's
//! command. Every summary must open with the paper's own words, and no
//! summary sentence or evidence quote may carry its title block, its page
//! furniture or its reference list (checked by `testkit::own_words`, from the
//! printed pages and the hand-checked titles, not from the zones).

use std::collections::HashMap;
use std::path::PathBuf;

use quire::agent::EventLog;
use quire::commands::{AppContext, AppPaths, review_view, reviews};
use quire::pdf::ingest::IngestOptions;
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::{EngineKind, ReviewSpec, paper_text};
use quire::workspace::Workspace;
use testkit::own_words::PrintedPaper;

use super::support::{corpus, quire_bin};

/// The hand-checked title of each paper, by file name.
fn titles() -> HashMap<String, String> {
    std::fs::read_to_string(corpus().join("metadata.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut cells = l.split('\t');
            let file = cells.next()?;
            let title = cells.next()?;
            let name = PathBuf::from(file)
                .file_name()?
                .to_string_lossy()
                .into_owned();
            Some((name, title.to_owned()))
        })
        .collect()
}

#[tokio::test]
async fn every_summary_of_the_shared_corpus_starts_with_the_papers_own_words() {
    let data = tempfile::tempdir().unwrap();
    let ws_dir = data.path().join("ws");
    let mut ingest = IngestOptions::new(quire_bin().into());
    ingest.cache_dir = Some(data.path().join("cache"));
    let request = ReviewRequest {
        source: corpus().join("dev"),
        spec: ReviewSpec {
            question: "How do systems store, replicate, learn from and compute with data?".into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: ws_dir.clone(),
        ingest,
        engine: EngineSetup::Offline,
        lookup: None,
    };
    let ctx = AppContext::new(AppPaths::new(data.path()));
    reviews::start(&ctx, request, EventLog::new())
        .finish()
        .await
        .unwrap();

    let titles = titles();
    let ws = Workspace::open_read_only(&ws_dir).unwrap();
    let mut read = 0;
    let mut sentences = 0;
    let mut faults = Vec::new();
    for paper in ws
        .papers()
        .unwrap()
        .iter()
        .filter(|p| p.status.is_readable())
    {
        let name = paper
            .file
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let title = titles.get(&name).map_or("", String::as_str);
        let printed = paper_text::load(&ws, &paper.id).unwrap().unwrap();
        let checks = PrintedPaper::new(title, &printed);
        // What the paper pane shows.
        let detail = review_view::paper_detail(ws_dir.clone(), paper.id.0.clone())
            .await
            .unwrap();
        let result = detail.result.expect("every readable paper has a result");
        assert!(!result.summary.is_empty(), "{name}: no summary");
        read += 1;
        for (n, s) in result.summary.iter().enumerate() {
            sentences += 1;
            assert!(
                s.page >= 1 && s.page <= printed.len(),
                "{name}: page {}",
                s.page
            );
            let flags = checks.flags(&s.text, s.page);
            if flags.any() {
                faults.push(format!(
                    "{name}: summary sentence {n}: {flags:?}: {}",
                    s.text
                ));
            }
        }
        for q in &result.evidence {
            let flags = checks.flags(&q.text, q.page);
            if flags.any() {
                faults.push(format!("{name}: evidence: {flags:?}: {}", q.text));
            }
        }
    }
    assert!(read >= 100, "{read} papers read");
    assert!(sentences >= 4 * 100, "{sentences} summary sentences");
    assert!(
        faults.is_empty(),
        "{} of them:\n{}",
        faults.len(),
        faults.join("\n")
    );
}
