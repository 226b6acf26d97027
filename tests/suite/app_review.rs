//! The review as the desktop app drives it, through the same core commands
//! its Tauri wrappers call: launch on an open workspace and follow the events,
//! open the results, label and undo, export with the labels, read a paper's
//! PDF for the viewer.

use std::sync::Arc;

use quire::agent::RunEvent;
use quire::commands::ErrorKind;
use quire::commands::protocol::{ProtocolParams, protocol_approve, protocol_draft};
use quire::commands::review_rows::{LabelFilter, RowQuery};
use quire::commands::review_view::{self as view, PaperLabelParams, ReviewState};
use quire::commands::reviews::{LabelParams, ReviewLaunchParams, review_cancel, review_launch};
use quire::commands::{self, AppContext, AppPaths, WorkspaceCreateParams};
use quire::review::outputs::ExportFormat;
use quire::review::{EngineKind, Verdict};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::support::{dev_pdfs, folder_of, quire_bin, scripted_config};

struct App {
    _data: tempfile::TempDir,
    ctx: AppContext,
}

impl App {
    fn new() -> Self {
        let data = tempfile::tempdir().unwrap();
        let ctx = AppContext::new(AppPaths::new(data.path())).with_worker_exe(quire_bin());
        Self { _data: data, ctx }
    }

    async fn open(&self, folder: &std::path::Path) -> std::path::PathBuf {
        let summary = commands::workspace_create(
            &self.ctx,
            WorkspaceCreateParams {
                folder: folder.into(),
            },
        )
        .await
        .unwrap();
        summary.root.into()
    }

    async fn launch(
        &self,
        workspace: &std::path::Path,
        question: &str,
    ) -> Result<UnboundedReceiver<RunEvent>, quire::commands::CommandError> {
        self.launch_with(workspace, question, EngineKind::Offline)
            .await
    }

    async fn launch_with(
        &self,
        workspace: &std::path::Path,
        question: &str,
        engine: EngineKind,
    ) -> Result<UnboundedReceiver<RunEvent>, quire::commands::CommandError> {
        let (tx, rx) = unbounded_channel();
        review_launch(
            &self.ctx,
            ReviewLaunchParams {
                workspace: workspace.into(),
                question: question.into(),
                criteria: vec!["  ".into(), "reports an experiment".into()],
                engine,
                profile: None,
                max_tokens: None,
                max_cost_usd: None,
                lookups: Default::default(),
                pilot: None,
                dual: None,
                second_profile: None,
                batch: false,
            },
            Arc::new(tx),
        )
        .await?;
        Ok(rx)
    }
}

/// Events until the run's last one (finished, failed or cancelled).
async fn until_end(rx: &mut UnboundedReceiver<RunEvent>) -> Vec<RunEvent> {
    let mut seen = Vec::new();
    while let Some(event) = rx.recv().await {
        let last = matches!(
            event,
            RunEvent::Finished { .. } | RunEvent::Failed { .. } | RunEvent::Cancelled
        );
        seen.push(event);
        if last {
            break;
        }
    }
    seen
}

#[tokio::test]
async fn a_review_launched_from_the_app_runs_to_results_that_can_be_labelled_and_exported() {
    let app = App::new();
    let mut pdfs = dev_pdfs("databases", 3);
    pdfs.push(super::support::corpus().join("bad/text-renamed.pdf"));
    let folder = folder_of(&pdfs);
    let root = app.open(folder.path()).await;

    // Before anything runs, every file has a status, the unreadable with a reason.
    let prepared = view::review_prepare(&app.ctx, root.clone()).await.unwrap();
    assert_eq!(prepared.state, ReviewState::New);
    assert_eq!(prepared.first_rows.rows.len(), 4);
    let bad = prepared
        .first_rows
        .rows
        .iter()
        .find(|p| p.status != "ok")
        .unwrap();
    assert_eq!(bad.status, "not_pdf");
    assert!(bad.reason.is_some());
    assert!(prepared.first_rows.rows.iter().all(|p| p.score.is_none()));

    let mut events = app
        .launch(&root, "How are query plans optimised?")
        .await
        .unwrap();
    // One run per workspace at a time.
    let again = app.launch(&root, "a second run").await.unwrap_err();
    assert_eq!(
        (again.kind, again.code.as_str()),
        (ErrorKind::Busy, "review_running")
    );
    let seen = until_end(&mut events).await;
    assert!(
        matches!(seen.first(), Some(RunEvent::ExtractionStarted { .. })),
        "{seen:?}"
    );
    assert!(
        matches!(seen.last(), Some(RunEvent::Finished { .. })),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|e| matches!(e, RunEvent::RunStarted { papers: 4, .. }))
    );

    // The run is released once it ends (its waiter runs just after the last event).
    let mut opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    for _ in 0..200 {
        if opened.state != ReviewState::Running {
            break;
        }
        tokio::task::yield_now().await;
        opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    }
    assert_eq!(opened.state, ReviewState::Done);
    assert_eq!(opened.engine, Some(EngineKind::Offline));
    assert_eq!(
        opened.question.as_deref(),
        Some("How are query plans optimised?")
    );
    assert_eq!(opened.criteria, vec!["reports an experiment".to_owned()]);
    let scored: Vec<_> = opened
        .first_rows
        .rows
        .iter()
        .filter(|p| p.score.is_some())
        .collect();
    assert_eq!(scored.len(), 3);
    assert!(!review_cancel(&app.ctx, &root), "nothing runs any more");

    let paper = scored[0].id.clone();
    let detail = view::paper_detail(root.clone(), paper.clone())
        .await
        .unwrap();
    let result = detail.result.unwrap();
    assert!(!result.summary.is_empty());
    assert!(result.evidence.iter().all(|q| q.page >= 1));

    let pdf = view::paper_pdf(root.clone(), paper.clone()).await.unwrap();
    assert!(pdf.starts_with(b"%PDF"));
    let missing = view::paper_pdf(root.clone(), "not-a-paper".into())
        .await
        .unwrap_err();
    assert_eq!(
        (missing.kind, missing.code.as_str()),
        (ErrorKind::NotFound, "paper_not_found")
    );
    // An id that is not a folder of this review's papers reads nothing.
    let outside = view::paper_detail(root.clone(), "../../task".into())
        .await
        .unwrap_err();
    assert_eq!(
        (outside.kind, outside.code.as_str()),
        (ErrorKind::NotFound, "paper_not_found")
    );

    let label = |verdict: Option<Verdict>, clear: bool| PaperLabelParams {
        label: LabelParams {
            workspace: root.clone(),
            paper: paper.clone(),
            verdict,
            score: None,
            note: None,
            serve: None,
        },
        clear,
    };
    let set = view::paper_label(&app.ctx, label(Some(Verdict::Exclude), false))
        .await
        .unwrap();
    // The row comes back as the review now shows it: the label over the
    // engine's reading, which stays beside it.
    assert_eq!(set.label.unwrap().verdict, Some(Verdict::Exclude));
    assert_eq!(set.shown_verdict, Some(Verdict::Exclude));
    let engine_verdict = set.verdict;
    // The table's next page has the label without the review being opened
    // again: the rows the open built took the changed row.
    let labelled = view::review_rows(
        &app.ctx,
        root.clone(),
        RowQuery {
            label: LabelFilter::Labelled,
            ..RowQuery::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(labelled.matched, 1);
    assert_eq!(labelled.rows[0].id, paper);
    assert_eq!(labelled.rows[0].shown_verdict, Some(Verdict::Exclude));
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("review.md");
    let written = view::review_export(root.clone(), ExportFormat::Markdown, dest.clone())
        .await
        .unwrap();
    let markdown = std::fs::read_to_string(&dest).unwrap();
    assert_eq!(written.bytes, markdown.len());
    assert!(markdown.contains("How are query plans optimised?"));
    let title = detail.paper.title.unwrap();
    let section = &markdown[markdown.rfind(&title).unwrap()..];
    assert!(
        section.contains("exclude"),
        "the label is in the export: {section}"
    );
    let opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    let row = opened
        .first_rows
        .rows
        .iter()
        .find(|p| p.id == paper)
        .unwrap();
    assert_eq!(row.label.as_ref().unwrap().verdict, Some(Verdict::Exclude));

    // Undo takes the label away again: the engine's reading shows.
    let cleared = view::paper_label(&app.ctx, label(None, true))
        .await
        .unwrap();
    assert!(cleared.label.is_none());
    assert_eq!(cleared.shown_verdict, engine_verdict);
    let opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    assert!(opened.first_rows.rows.iter().all(|p| p.label.is_none()));
    let markdown = view::review_render(root.clone(), ExportFormat::Markdown)
        .await
        .unwrap();
    assert!(!markdown.contains("Researcher's label"));

    for format in [ExportFormat::Bibtex, ExportFormat::Csv, ExportFormat::Ris] {
        let body = view::review_render(root.clone(), format).await.unwrap();
        assert!(
            body.contains(&title[..20.min(title.len())]),
            "{format:?}: {body}"
        );
    }
    let relative = view::review_export(root.clone(), ExportFormat::Csv, "out.csv".into())
        .await
        .unwrap_err();
    assert_eq!(
        (relative.kind, relative.code.as_str()),
        (ErrorKind::InvalidInput, "bad_path")
    );
}

#[tokio::test]
async fn an_empty_question_is_refused_before_anything_starts() {
    let app = App::new();
    let folder = folder_of(&dev_pdfs("databases", 1));
    let root = app.open(folder.path()).await;
    let err = app.launch(&root, "   ").await.unwrap_err();
    assert_eq!(
        (err.kind, err.code.as_str()),
        (ErrorKind::InvalidInput, "empty_question")
    );
    let opened = view::review_open(&app.ctx, root).await.unwrap();
    assert_eq!(opened.state, ReviewState::New);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quitting_the_app_mid_run_stops_the_review_cleanly_and_keeps_it_resumable() {
    // A slow model, so the run is surely still going when the app quits.
    let server = testkit::ScriptedServer::start(testkit::ServerOptions {
        latency: std::time::Duration::from_millis(400),
        ..testkit::ServerOptions::default()
    })
    .await
    .unwrap();
    let app = App::new();
    let config = scripted_config(&server.base_url(), "concurrency = 1\n");
    std::fs::create_dir_all(&app.ctx.paths().config_dir).unwrap();
    std::fs::copy(
        config.path().join("models.toml"),
        app.ctx.paths().config_dir.join("models.toml"),
    )
    .unwrap();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let root = app.open(folder.path()).await;
    let question = "How are query plans optimised?";
    // No paper is read before the protocol is approved.
    let refused = app
        .launch_with(&root, question, EngineKind::Agent)
        .await
        .unwrap_err();
    assert_eq!(refused.code, "protocol_not_approved");
    let params = ProtocolParams {
        workspace: root.clone(),
        question: question.into(),
        criteria: vec!["reports an experiment".into()],
        profile: None,
        text: None,
    };
    let drafted = protocol_draft(&app.ctx, params.clone()).await.unwrap();
    let draft = drafted.draft.expect("a draft awaits approval");
    assert!(drafted.approved.is_none());
    assert!(draft.text.contains("query plans"), "{}", draft.text);
    let approved = protocol_approve(ProtocolParams {
        text: Some(draft.text.clone()),
        ..params
    })
    .await
    .unwrap();
    assert_eq!(approved.approved.unwrap().hash, draft.hash);
    let mut events = app
        .launch_with(&root, question, EngineKind::Agent)
        .await
        .unwrap();
    while let Some(event) = events.recv().await {
        if matches!(event, RunEvent::RunStarted { .. }) {
            break;
        }
    }

    // What the desktop shell does on its exit event, from a blocking thread.
    let ctx = app.ctx.clone();
    let left =
        tokio::task::spawn_blocking(move || ctx.stop_runs(std::time::Duration::from_secs(20)))
            .await
            .unwrap();
    assert_eq!(left, 0, "every run ended within the grace");
    assert!(!review_cancel(&app.ctx, &root), "the run was released");
    let rest = until_end(&mut events).await;
    assert!(matches!(rest.last(), Some(RunEvent::Cancelled)), "{rest:?}");
    let opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    assert_eq!(opened.state, ReviewState::Cancelled);
    assert_eq!(opened.question.as_deref(), Some(question));
}

#[tokio::test]
async fn a_hand_corrected_title_and_authors_survive_a_rerun_and_reach_the_exports() {
    use quire::commands::metadata::{MetaSetParams, meta_clear, meta_set};
    let app = App::new();
    let folder = folder_of(&dev_pdfs("databases", 2));
    let root = app.open(folder.path()).await;
    let mut events = app
        .launch(&root, "How are queries optimised?")
        .await
        .unwrap();
    until_end(&mut events).await;
    let opened = view::review_open(&app.ctx, root.clone()).await.unwrap();
    let paper = opened.first_rows.rows[0].id.clone();
    let extracted_title = opened.first_rows.rows[0].title.clone();

    let bad = meta_set(MetaSetParams {
        workspace: root.clone(),
        paper: paper.clone(),
        doi: Some("not a doi".into()),
        ..MetaSetParams::default()
    })
    .await
    .unwrap_err();
    assert_eq!(
        (bad.kind, bad.code.as_str()),
        (ErrorKind::InvalidInput, "invalid_metadata")
    );
    meta_set(MetaSetParams {
        workspace: root.clone(),
        paper: paper[..6].to_owned(),
        title: Some("A Corrected Title".into()),
        authors: Some(vec![
            "Robbert van Renesse".into(),
            "Schneider, Fred B.".into(),
        ]),
        year: Some(2004),
        ..MetaSetParams::default()
    })
    .await
    .unwrap();
    // A second correction adds the DOI and keeps the rest.
    let held = meta_set(MetaSetParams {
        workspace: root.clone(),
        paper: paper.clone(),
        doi: Some("10.5555/1251254.1251261".into()),
        ..MetaSetParams::default()
    })
    .await
    .unwrap();
    assert_eq!(held.title.as_deref(), Some("A Corrected Title"));

    // Running the review again re-reads the files; the corrections stand.
    let mut events = app
        .launch(&root, "How are queries optimised?")
        .await
        .unwrap();
    until_end(&mut events).await;
    let detail = view::paper_detail(root.clone(), paper.clone())
        .await
        .unwrap();
    assert_eq!(detail.paper.title.as_deref(), Some("A Corrected Title"));
    assert_eq!(
        detail.paper.authors,
        vec!["Robbert van Renesse", "Fred B. Schneider"]
    );
    let bib = view::review_render(root.clone(), ExportFormat::Bibtex)
        .await
        .unwrap();
    assert!(bib.contains("title = {A Corrected Title}"), "{bib}");
    assert!(
        bib.contains("author = {van Renesse, Robbert and Schneider, Fred B.}"),
        "{bib}"
    );
    assert!(bib.contains("doi = {10.5555/1251254.1251261}"), "{bib}");
    let ris = view::review_render(root.clone(), ExportFormat::Ris)
        .await
        .unwrap();
    assert!(ris.contains("PY  - 2004"), "{ris}");

    meta_clear(root.clone(), paper.clone()).await.unwrap();
    let detail = view::paper_detail(root.clone(), paper).await.unwrap();
    assert_eq!(detail.paper.title, extracted_title);
}

/// An open keeps the rows it built and reads again only the papers whose
/// folder changed since: what another process writes (the CLI labelling,
/// correcting, or a paper added) shows at the next open all the same, and
/// an open with nothing changed gives the same rows.
#[tokio::test]
async fn a_reopened_review_shows_what_was_written_behind_the_apps_back() {
    let app = App::new();
    let folder = folder_of(&dev_pdfs("databases", 3));
    let root = app.open(folder.path()).await;
    let mut events = app
        .launch(&root, "How are query plans optimised?")
        .await
        .unwrap();
    until_end(&mut events).await;
    let mut first = view::review_open(&app.ctx, root.clone()).await.unwrap();
    for _ in 0..200 {
        if first.state != ReviewState::Running {
            break;
        }
        tokio::task::yield_now().await;
        first = view::review_open(&app.ctx, root.clone()).await.unwrap();
    }
    let ids: Vec<String> = first.first_rows.rows.iter().map(|r| r.id.clone()).collect();
    assert_eq!(ids.len(), 3);
    let again = view::review_open(&app.ctx, root.clone()).await.unwrap();
    assert_eq!(
        serde_json::to_value(&again.first_rows).unwrap(),
        serde_json::to_value(&first.first_rows).unwrap(),
        "nothing changed, nothing differs"
    );

    // Written as another process would: straight to the files, not
    // through the app's label command.
    let (labelled, corrected) = (ids[2].clone(), ids[1].clone());
    quire::commands::reviews::label_set(LabelParams {
        workspace: root.clone(),
        paper: labelled.clone(),
        verdict: Some(Verdict::Include),
        score: Some(9.9),
        note: None,
        serve: None,
    })
    .await
    .unwrap();
    quire::commands::metadata::meta_set(quire::commands::metadata::MetaSetParams {
        workspace: root.clone(),
        paper: corrected.clone(),
        title: Some("A title set from the command line".into()),
        authors: None,
        year: None,
        doi: None,
        arxiv: None,
    })
    .await
    .unwrap();
    let after = view::review_open(&app.ctx, root.clone()).await.unwrap();
    let rows = &after.first_rows.rows;
    assert_eq!(rows[0].id, labelled, "the label's 9.9 puts it first");
    assert_eq!(rows[0].shown_verdict, Some(Verdict::Include));
    let renamed = rows.iter().find(|r| r.id == corrected).unwrap();
    assert_eq!(
        renamed.title.as_deref(),
        Some("A title set from the command line")
    );
    let untouched = rows.iter().find(|r| r.id == ids[0]).unwrap();
    let before = first
        .first_rows
        .rows
        .iter()
        .find(|r| r.id == ids[0])
        .unwrap();
    assert_eq!(
        serde_json::to_value(untouched).unwrap(),
        serde_json::to_value(before).unwrap()
    );

    // A paper's folder taken away is a paper gone.
    let ws = quire::workspace::Workspace::open_read_only(&root).unwrap();
    let gone = ws.root().join("papers").join(&ids[0]);
    drop(ws);
    std::fs::remove_dir_all(&gone).unwrap();
    let fewer = view::review_open(&app.ctx, root.clone()).await.unwrap();
    assert_eq!(fewer.first_rows.counts.total, 2);
    assert!(fewer.first_rows.rows.iter().all(|r| r.id != ids[0]));
}
