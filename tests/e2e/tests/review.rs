//! A whole review in the real app under Xvfb: open a folder of real papers,
//! run it (offline, and with the agent against the scripted model server over
//! HTTP), watch the board, read the results, label from the keyboard, export.
//! Ignored by a plain `cargo test`, like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::{Context, Result};
use fantoccini::Locator;
use quire_e2e::{
    App, ModelServer, assert_quotes_on_their_pages, crash_app, eventually, folder_of_papers,
    open_folder_review, terminate_app,
};
use serde_json::json;

const UI_TIMEOUT: Duration = Duration::from_secs(60);

/// The app with a folder of `count` papers of `topic` opened as a workspace
/// (through the command the drop and the dialog call), on its review screen.
async fn open_review(app: &App, topic: &str, count: usize) -> Result<(tempfile::TempDir, String)> {
    let papers = folder_of_papers(topic, count)?;
    let root = open_folder_review(app, papers.path(), count).await?;
    Ok((papers, root))
}

async fn start_review(app: &App, question: &str) -> Result<()> {
    ask(app, question).await?;
    app.click("[data-testid=start]").await
}

async fn ask(app: &App, question: &str) -> Result<()> {
    app.type_into("[data-testid=question]", question).await?;
    app.type_into("[data-testid=criteria]", "Reports an experiment")
        .await
}

/// Rows of the results table once `count` of them are scored.
async fn scored_rows(app: &App, count: usize) -> Result<Vec<String>> {
    eventually("the results table", UI_TIMEOUT, || async {
        if let Some(error) = app.text_content("[role=alert]").await? {
            anyhow::bail!("the app shows an error: {error}");
        }
        let rows = app.text_contents("[data-testid=result-row]").await?;
        let scored = rows.iter().filter(|r| r.contains("scored")).count();
        Ok((scored == count).then_some(rows))
    })
    .await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn an_offline_review_runs_and_its_results_are_labelled_from_the_keyboard_and_exported()
-> Result<()> {
    let app = App::start().await?;
    let (papers, root) = open_review(&app, "databases", 3).await?;
    let agent = app
        .client
        .find(Locator::Css("[data-testid=engine-agent]"))
        .await?;
    assert!(
        !agent.is_enabled().await?,
        "no model is configured, so only offline is offered"
    );
    let hint = app
        .wait_text("[data-testid=no-model-hint]", UI_TIMEOUT)
        .await?;
    assert!(hint.contains("add a model"), "{hint}");
    app.screenshot("new-review").await?;

    start_review(&app, "How are relational query plans optimised?").await?;
    let rows = scored_rows(&app, 3).await?;
    assert_eq!(rows.len(), 3);
    let count = app
        .wait_text("[data-testid=results-count]", UI_TIMEOUT)
        .await?;
    assert_eq!(count, "3 of 3 papers shown · 3 scored");

    // The best paper's detail: summary with pages, evidence quotes.
    app.click("[data-testid=result-row]").await?;
    let title = app
        .wait_text("[data-testid=pane-title]", UI_TIMEOUT)
        .await?;
    assert!(rows[0].contains(&title), "{title} / {rows:?}");
    // The filter is worked out by Quire, which sends the rows that match.
    app.type_into("[data-testid=filter-text]", &title).await?;
    eventually("the filtered table", UI_TIMEOUT, || async {
        let count = app.text_content("[data-testid=results-count]").await?;
        let rows = app.text_contents("[data-testid=result-row]").await?;
        Ok((count.as_deref() == Some("1 of 3 papers shown · 3 scored")
            && rows.len() == 1
            && rows[0].contains(&title))
        .then_some(()))
    })
    .await?;
    app.retype("[data-testid=filter-text]", "").await?;
    eventually("the whole table again", UI_TIMEOUT, || async {
        let rows = app.text_contents("[data-testid=result-row]").await?;
        Ok((rows.len() == 3).then_some(()))
    })
    .await?;
    let summary = app
        .wait_text("[data-testid=pane-summary]", UI_TIMEOUT)
        .await?;
    assert!(summary.contains("p. "), "{summary}");
    let quotes = app.text_contents("[data-testid=quote]").await?;
    assert!(!quotes.is_empty());
    assert_quotes_on_their_pages(papers.path(), &title, &quotes)?;
    app.screenshot("results").await?;

    // A quote opens the paper at its page in the built-in viewer, highlighted.
    let cited: u32 = quotes[0]
        .rsplit("p. ")
        .next()
        .and_then(|p| p.trim().parse().ok())
        .with_context(|| format!("no page in {:?}", quotes[0]))?;
    app.click("[data-testid=quote]").await?;
    let (page, marked) = app.viewer_page_and_mark().await?;
    assert!(page.starts_with(&format!("Page {cited} of ")), "{page}");
    let words: Vec<&str> = quotes[0].split_whitespace().take(3).collect();
    assert!(
        words
            .iter()
            .any(|w| marked.contains(w.trim_matches(|c: char| !c.is_alphanumeric()))),
        "highlighted {marked:?} for the quote {:?}",
        quotes[0]
    );
    app.screenshot("pdf-viewer").await?;
    let viewer = app
        .client
        .find(Locator::Css("[data-testid=pdf-viewer]"))
        .await?;
    viewer.send_keys("\u{E00C}").await?; // Escape
    eventually("the viewer to close", UI_TIMEOUT, || async {
        Ok(app
            .text_content("[data-testid=pdf-viewer]")
            .await?
            .is_none()
            .then_some(()))
    })
    .await?;

    // Keyboard review: exclude the selected paper, then undo and exclude again.
    let keys = app
        .client
        .find(Locator::Css("[data-testid=results-keys]"))
        .await?;
    keys.send_keys("e").await?;
    let label = app
        .wait_text("[data-testid=pane-label]", UI_TIMEOUT)
        .await?;
    assert_eq!(label, "Your label: exclude");
    keys.send_keys("u").await?;
    eventually("the label to be undone", UI_TIMEOUT, || async {
        Ok(app
            .text_content("[data-testid=pane-label]")
            .await?
            .is_none()
            .then_some(()))
    })
    .await?;
    keys.send_keys("e").await?;
    app.wait_text("[data-testid=pane-label]", UI_TIMEOUT)
        .await?;

    // Correcting the paper's details: the pane and the table show them, and
    // the export carries them.
    app.click("[data-testid=meta-edit]").await?;
    let title_input = app
        .client
        .find(Locator::Css("[data-testid=meta-title]"))
        .await?;
    title_input.clear().await?;
    let corrected = "Query Plans, Corrected by Hand";
    title_input.send_keys(corrected).await?;
    let year_input = app
        .client
        .find(Locator::Css("[data-testid=meta-year]"))
        .await?;
    year_input.clear().await?;
    year_input.send_keys("1999").await?;
    app.screenshot("correct-details").await?;
    app.click("[data-testid=meta-save]").await?;
    eventually("the corrected title in the pane", UI_TIMEOUT, || async {
        let shown = app.text_content("[data-testid=pane-title]").await?;
        Ok(shown.filter(|t| t == corrected).map(|_| ()))
    })
    .await?;
    let rows = app.text_contents("[data-testid=result-row]").await?;
    assert!(rows.iter().any(|r| r.contains(corrected)), "{rows:?}");
    let title = corrected.to_owned();

    // The report preview renders the Markdown the export writes, label included.
    app.click("[data-testid=preview-report]").await?;
    let preview = eventually("the report preview", UI_TIMEOUT, || async {
        let text = app.text_content("[data-testid=report-preview] .md").await?;
        Ok(text.filter(|t| t.contains("Researcher's label.")))
    })
    .await?;
    assert!(
        preview.contains("How are relational query plans optimised?"),
        "{preview}"
    );
    let tables = app
        .client
        .find_all(Locator::Css("[data-testid=report-preview] table"))
        .await?;
    assert!(!tables.is_empty(), "the ranking is a table");
    app.screenshot("report-preview").await?;
    app.click("[data-testid=preview-close]").await?;

    // The export the save dialog's path feeds, with the label in it.
    let out = tempfile::tempdir()?;
    let dest = out.path().join("review.md");
    let written = app
        .invoke(
            "review_export",
            json!({ "workspace": root, "format": "markdown", "dest": dest }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("review_export failed: {e}"))?;
    let markdown = std::fs::read_to_string(&dest)?;
    assert_eq!(written["bytes"].as_u64(), Some(markdown.len() as u64));
    assert!(markdown.contains("How are relational query plans optimised?"));
    assert!(
        markdown.contains("**Researcher's label.** exclude"),
        "{markdown}"
    );
    assert!(markdown.contains(&title), "the corrected title: {markdown}");
    assert!(markdown.contains("1999"), "the corrected year: {markdown}");

    // Filters narrow the table; a filter matching nothing says so.
    app.type_into("[data-testid=filter-text]", "zzzz-no-such-paper")
        .await?;
    let empty = app
        .wait_text("[data-testid=results-empty]", UI_TIMEOUT)
        .await?;
    assert_eq!(empty, "No paper matches these filters.");
    let filter = app
        .client
        .find(Locator::Css("[data-testid=filter-text]"))
        .await?;
    // Backspace (WebDriver's U+E003) as a person would, so the input event fires.
    filter.send_keys(&"\u{E003}".repeat(24)).await?;
    scored_rows(&app, 3).await?;

    // Home lists the review with its question.
    app.click("[data-testid=back]").await?;
    let listed = app
        .wait_text("[data-testid=recent-item]", UI_TIMEOUT)
        .await?;
    assert!(
        listed.contains("How are relational query plans optimised?"),
        "{listed}"
    );
    assert!(listed.contains("Done"), "{listed}");
    app.screenshot("home").await?;
    app.stop().await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn an_agent_review_against_a_model_server_shows_its_board_and_results() -> Result<()> {
    // Slow enough answers that the board can be seen while the agents work.
    let server = ModelServer::start(&["scripted-reader"], &["--latency-ms", "150"])?;
    let data = tempfile::tempdir()?;
    let config = server.profile_in(data.path(), "concurrency = 4")?;
    let app = App::start_with(&[("QUIRE_CONFIG_DIR", &config.to_string_lossy())]).await?;
    let (papers, _root) = open_review(&app, "machine-learning", 4).await?;
    let agent = app
        .client
        .find(Locator::Css("[data-testid=engine-agent]"))
        .await?;
    assert!(
        agent.is_selected().await?,
        "a configured model makes the agent the default"
    );

    // No paper is read before the protocol is approved: the model drafts it,
    // the researcher adds a rule and approves it.
    ask(
        &app,
        "Which methods improve generalisation of neural networks?",
    )
    .await?;
    let start = app.client.find(Locator::Css("[data-testid=start]")).await?;
    assert!(!start.is_enabled().await?, "no start before approval");
    app.click("[data-testid=protocol-draft]").await?;
    let draft = eventually("the draft", UI_TIMEOUT, || async {
        let status = app
            .text_content("[data-testid=protocol-status]")
            .await?
            .unwrap_or_default();
        Ok(status.starts_with("Draft").then_some(status))
    })
    .await?;
    assert!(draft.contains("drafted by scripted-reader"), "{draft}");
    let text = app
        .client
        .find(Locator::Css("[data-testid=protocol-text]"))
        .await?;
    let drafted = text.prop("value").await?.unwrap_or_default();
    assert!(drafted.contains("## Scores"), "{drafted}");
    assert!(drafted.contains("generalisation"), "{drafted}");
    // Enter (WebDriver's U+E007) as a person would press it.
    text.send_keys("\u{E007}- Papers that only tune hyperparameters count at most 5.")
        .await?;
    app.screenshot("protocol").await?;
    app.click("[data-testid=protocol-approve]").await?;
    let approved = app.protocol_approved().await?;
    assert!(approved.contains("your text"), "{approved}");

    // A pilot on two papers first, then the rest.
    app.click("[data-testid=pilot]").await?;
    let size = app
        .client
        .find(Locator::Css("[data-testid=pilot-size]"))
        .await?;
    size.clear().await?;
    size.send_keys("2").await?;
    let label = app.wait_text("[data-testid=start]", UI_TIMEOUT).await?;
    assert_eq!(label, "Run pilot on 2 papers");
    app.click("[data-testid=start]").await?;
    let pilot = app
        .wait_text("[data-testid=pilot-done]", UI_TIMEOUT)
        .await?;
    assert!(pilot.contains("A pilot read 2 of 4 papers"), "{pilot}");
    scored_rows(&app, 2).await?;
    app.screenshot("pilot").await?;
    app.click("[data-testid=run-rest]").await?;
    let steps = eventually("an agent step on the board", UI_TIMEOUT, || async {
        let activity = app
            .text_content("[data-testid=activity]")
            .await?
            .unwrap_or_default();
        Ok(activity.contains("step").then_some(activity))
    })
    .await?;
    assert!(
        steps.contains("planner") || steps.contains("reviewer"),
        "{steps}"
    );
    let chart = app
        .wait_text("[data-testid=token-chart]", UI_TIMEOUT)
        .await?;
    assert!(chart.contains("tokens"), "{chart}");
    // The board follows papers into reading and out with a score.
    let busy = "[data-testid=board-paper][data-phase=scored], [data-testid=board-paper][data-phase=reading]";
    eventually("a paper to be read", UI_TIMEOUT, || async {
        let papers = app.client.find_all(Locator::Css(busy)).await?;
        Ok((!papers.is_empty()).then_some(()))
    })
    .await?;
    let header = app
        .text_content(".review-screen__title")
        .await?
        .unwrap_or_default();
    assert!(
        header.contains("Which methods improve generalisation"),
        "{header}"
    );
    app.screenshot("run").await?;

    let rows = scored_rows(&app, 4).await?;
    assert_eq!(rows.len(), 4);
    app.click("[data-testid=result-row]").await?;
    let summary = app
        .wait_text("[data-testid=pane-summary]", UI_TIMEOUT)
        .await?;
    assert!(summary.contains("p. "), "{summary}");
    let quotes = app.text_contents("[data-testid=quote]").await?;
    assert!(
        !quotes.is_empty(),
        "the agent's reader cites quotes with pages"
    );
    let title = app
        .wait_text("[data-testid=pane-title]", UI_TIMEOUT)
        .await?;
    assert_quotes_on_their_pages(papers.path(), &title, &quotes)?;
    app.stop().await
}

/// Markup a paper (and, through the reader, the model) might carry.
const PAYLOAD: &str = r#"<img src=x onerror="window.__pwned='img'"> Hostile <script>window.__pwned='script'</script> <a href="javascript:window.__pwned='link'">neural networks</a>"#;

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn markup_in_a_paper_and_in_model_output_stays_text_in_the_real_webview() -> Result<()> {
    let server = ModelServer::start(&["scripted-reader"], &[])?;
    let data = tempfile::tempdir()?;
    let config = server.profile_in(data.path(), "")?;
    let app = App::start_with(&[("QUIRE_CONFIG_DIR", &config.to_string_lossy())]).await?;
    let papers = folder_of_papers("machine-learning", 1)?;
    let sentence =
        format!("{PAYLOAD} improve generalisation of neural networks in our experiments.");
    let page = [sentence.as_str(); 6].join(" ");
    std::fs::write(
        papers.path().join("hostile.pdf"),
        testkit::pdf::with_pages(Some(PAYLOAD), &[&format!("{PAYLOAD} {page}"), &page]),
    )?;
    app.invoke(
        "workspace_create",
        json!({ "params": { "folder": papers.path() } }),
    )
    .await?
    .map_err(|e| anyhow::anyhow!("workspace_create failed: {e}"))?;
    app.click("[data-testid=recent-open]").await?;
    eventually("both files to be read", UI_TIMEOUT, || async {
        let files = app.texts("[data-testid=file]").await?;
        Ok((files.len() == 2 && files.iter().all(|f| f.contains("Readable"))).then_some(()))
    })
    .await?;
    ask(
        &app,
        "Which methods improve generalisation of neural networks?",
    )
    .await?;
    app.approve_drafted_protocol().await?;
    app.click("[data-testid=start]").await?;
    let rows = scored_rows(&app, 2).await?;
    let hostile = rows
        .iter()
        .position(|r| r.contains("Hostile"))
        .with_context(|| format!("no hostile row in {rows:?}"))?;
    app.client
        .find_all(Locator::Css("[data-testid=result-row]"))
        .await?[hostile]
        .click()
        .await?;
    let summary = app
        .wait_text("[data-testid=pane-summary]", UI_TIMEOUT)
        .await?;
    assert!(
        summary.contains("</a>"),
        "the model's summary shows the markup as text: {summary}"
    );
    let title = app
        .wait_text("[data-testid=pane-title]", UI_TIMEOUT)
        .await?;
    assert!(
        title.contains('<'),
        "the title shows the markup as text: {title}"
    );
    app.click("[data-testid=quote]").await?;
    app.wait_text("[data-testid=pdf-page]", UI_TIMEOUT).await?;
    app.click("[data-testid=pdf-close]").await?;
    app.click("[data-testid=preview-report]").await?;
    eventually("the report preview", UI_TIMEOUT, || async {
        let text = app.text_content("[data-testid=report-preview] .md").await?;
        Ok(text.filter(|t| t.contains("Hostile")).map(|_| ()))
    })
    .await?;

    let state = app
        .client
        .execute(
            "return { pwned: window.__pwned ?? null, \
                      images: document.querySelectorAll('img[src=x]').length, \
                      scripts: [...document.scripts].filter((s) => s.textContent.includes('__pwned')).length, \
                      links: document.querySelectorAll('a[href^=javascript]').length };",
            vec![],
        )
        .await?;
    assert_eq!(
        state,
        json!({ "pwned": null, "images": 0, "scripts": 0, "links": 0 }),
        "markup became live HTML"
    );
    app.stop().await
}

/// An agent review of four papers against a slow scripted server (one call
/// at a time), caught once its first paper is scored: a run to cut off.
struct Midway {
    _server: ModelServer,
    data: tempfile::TempDir,
    _papers: tempfile::TempDir,
    env: Vec<(&'static str, String)>,
}

impl Midway {
    async fn start(topic: &str, question: &str) -> Result<(Self, App)> {
        let server = ModelServer::start(&["scripted-reader"], &["--latency-ms", "300"])?;
        let data = tempfile::tempdir()?;
        let config = server.profile_in(data.path(), "concurrency = 1")?;
        let env = vec![
            ("QUIRE_DATA_DIR", data.path().to_string_lossy().into_owned()),
            ("QUIRE_CONFIG_DIR", config.to_string_lossy().into_owned()),
        ];
        let app = App::start_with(&Self::borrowed(&env)).await?;
        let (papers, _root) = open_review(&app, topic, 4).await?;
        ask(&app, question).await?;
        app.approve_drafted_protocol().await?;
        app.click("[data-testid=start]").await?;
        eventually("a first paper to be scored", UI_TIMEOUT, || async {
            let scored = app
                .client
                .find_all(Locator::Css("[data-testid=board-paper][data-phase=scored]"))
                .await?;
            Ok((!scored.is_empty()).then_some(()))
        })
        .await?;
        let midway = Self {
            _server: server,
            data,
            _papers: papers,
            env,
        };
        Ok((midway, app))
    }

    fn borrowed<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
        env.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }

    fn data(&self) -> &std::path::Path {
        self.data.path()
    }

    /// The environment the app runs in, for starting it again.
    fn env(&self) -> Vec<(&str, &str)> {
        Self::borrowed(&self.env)
    }
}

/// Start the app again on `env`, open the review a run was cut off in, and
/// resume it from its banner (screenshotted as `screenshot`, if given) until
/// all four papers are scored, keeping the one scored before. Returns the
/// banner's text.
async fn reopen_and_resume(env: &[(&str, &str)], screenshot: Option<&str>) -> Result<String> {
    let app = App::start_with(env).await?;
    app.click("[data-testid=recent-open]").await?;
    let banner = app
        .wait_text("[data-testid=interrupted]", UI_TIMEOUT)
        .await?;
    assert!(
        !banner.contains(": 0 of 4"),
        "the scored paper is kept: {banner}"
    );
    if let Some(name) = screenshot {
        app.screenshot(name).await?;
    }
    app.click("[data-testid=resume-interrupted]").await?;
    let rows = scored_rows(&app, 4).await?;
    assert_eq!(rows.len(), 4);
    app.stop().await?;
    Ok(banner)
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_run_cut_off_by_a_crash_resumes_with_one_click_when_reopened() -> Result<()> {
    // First session: start an agent review and crash once a paper is scored.
    let (midway, app) = Midway::start(
        "machine-learning",
        "Which methods improve generalisation of neural networks?",
    )
    .await?;
    let env = midway.env();
    // A crash mid-run (the session's end cannot be relied on to stop the
    // process at once).
    crash_app().await?;
    let _ = app.stop().await;

    // Second session: the review says where it stopped, and one click resumes it.
    let banner = reopen_and_resume(&env, Some("interrupted")).await?;
    assert!(banner.contains("stopped before it finished"), "{banner}");
    Ok(())
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn quitting_the_app_with_sigterm_mid_run_cancels_cleanly_and_resumes() -> Result<()> {
    let (midway, app) = Midway::start(
        "distributed-systems",
        "How do replicated systems agree on an order?",
    )
    .await?;
    let env = midway.env();
    // SIGTERM (a logout, `kill`) quits the way closing the window does: the
    // run is cancelled and writes its state within the app's grace period.
    terminate_app(midway.data(), Duration::from_secs(10)).await?;
    let _ = app.stop().await;

    let banner = reopen_and_resume(&env, None).await?;
    assert!(
        banner.starts_with("This review was cancelled"),
        "a clean stop, not a crash: {banner}"
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_finished_review_whose_question_changes_shows_its_old_results_stale_until_read_again()
-> Result<()> {
    // Slow answers, one at a time: a run under the new question can be
    // quit after its first paper, leaving the others read for the old one.
    let server = ModelServer::start(&["scripted-reader"], &["--latency-ms", "1000"])?;
    let data = tempfile::tempdir()?;
    let config = server.profile_in(data.path(), "concurrency = 1")?;
    let env = [
        ("QUIRE_DATA_DIR", data.path().to_string_lossy().into_owned()),
        ("QUIRE_CONFIG_DIR", config.to_string_lossy().into_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = App::start_with(&env).await?;
    let (_papers, root) = open_review(&app, "databases", 4).await?;
    ask(&app, "How do databases recover from crashes?").await?;
    app.approve_drafted_protocol().await?;
    app.click("[data-testid=start]").await?;
    scored_rows(&app, 4).await?;

    // The researcher changes the question and runs again, then quits once
    // the first paper is read under the new one.
    app.click("[data-testid=new-run]").await?;
    app.retype(
        "[data-testid=question]",
        "How do databases choose an index for a query?",
    )
    .await?;
    app.approve_drafted_protocol().await?;
    app.click("[data-testid=start]").await?;
    // The new run's own count (the last run's board said 4 of 4).
    eventually(
        "a paper read under the new question",
        UI_TIMEOUT,
        || async {
            let counts = app
                .text_content("[data-testid=run-counts]")
                .await?
                .unwrap_or_default();
            let some = ["1 of 4", "2 of 4", "3 of 4"];
            Ok(some.iter().any(|s| counts.starts_with(s)).then_some(()))
        },
    )
    .await?;
    terminate_app(data.path(), Duration::from_secs(10)).await?;
    let _ = app.stop().await;

    // Reopened: the papers read for the old question are stale, count as
    // nothing, and the report says so.
    let app = App::start_with(&env).await?;
    app.click("[data-testid=recent-open]").await?;
    let rows = eventually("the results table", UI_TIMEOUT, || async {
        let rows = app.text_contents("[data-testid=result-row]").await?;
        Ok((rows.len() == 4).then_some(rows))
    })
    .await?;
    let stale = rows.iter().filter(|r| r.ends_with("stale")).count();
    assert!((1..4).contains(&stale), "{rows:?}");
    let count = app
        .wait_text("[data-testid=results-count]", UI_TIMEOUT)
        .await?;
    assert!(count.ends_with(&format!("{} scored", 4 - stale)), "{count}");
    for row in app
        .client
        .find_all(Locator::Css("[data-testid=result-row]"))
        .await?
    {
        if row.text().await?.ends_with("stale") {
            row.click().await?;
            break;
        }
    }
    let pane = app
        .wait_text("[data-testid=pane-stale]", UI_TIMEOUT)
        .await?;
    assert!(pane.contains("made before the question"), "{pane}");
    app.screenshot("stale").await?;
    app.click("[data-testid=preview-report]").await?;
    let preview = eventually("the report preview", UI_TIMEOUT, || async {
        let text = app.text_content("[data-testid=report-preview] .md").await?;
        Ok(text.filter(|t| t.contains("read under earlier inputs")))
    })
    .await?;
    assert!(
        preview.contains("How do databases choose an index"),
        "{preview}"
    );
    app.click("[data-testid=preview-close]").await?;
    let out = tempfile::tempdir()?;
    let dest = out.path().join("review.csv");
    let _written = app
        .invoke(
            "review_export",
            json!({ "workspace": root, "format": "csv", "dest": dest }),
        )
        .await?;
    let csv = std::fs::read_to_string(&dest)?;
    let verdicts = csv
        .lines()
        .skip(1)
        .filter(|l| {
            [",include,", ",maybe,", ",exclude,"]
                .iter()
                .any(|v| l.contains(v))
        })
        .count();
    assert_eq!(
        verdicts,
        4 - stale,
        "only current readings are exported: {csv}"
    );

    // Resumed, the run reads them again under the new question.
    app.click("[data-testid=resume-interrupted]").await?;
    let rows = scored_rows(&app, 4).await?;
    assert!(rows.iter().all(|r| !r.ends_with("stale")), "{rows:?}");
    app.stop().await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_review_run_as_a_batch_lists_its_batches_and_reads_from_their_answers() -> Result<()> {
    let server = ModelServer::start(&["scripted-reader"], &[])?;
    let data = tempfile::tempdir()?;
    let config = server.profile_in(data.path(), "")?;
    let app = App::start_with(&[
        ("QUIRE_CONFIG_DIR", &config.to_string_lossy()),
        ("QUIRE_BATCH_POLL_SECS", "0.05"),
    ])
    .await?;
    let (_papers, root) = open_review(&app, "databases", 2).await?;
    ask(&app, "How do databases recover from crashes?").await?;
    app.approve_drafted_protocol().await?;
    let hint = app
        .wait_text("[data-testid=batch-hint]", UI_TIMEOUT)
        .await?;
    assert!(hint.contains("Batch API"), "{hint}");
    app.click("[data-testid=batch]").await?;
    app.click("[data-testid=start]").await?;
    let batches = eventually("the batch to be done", UI_TIMEOUT, || async {
        let text = app.text_content("[data-testid=batches]").await?;
        Ok(text.filter(|t| t.contains("done")))
    })
    .await?;
    assert!(batches.contains("answered"), "{batches}");
    app.screenshot("review-batch").await?;
    scored_rows(&app, 2).await?;

    // The readings came from the batch: their calls say so.
    let calls = std::fs::read_to_string(std::path::Path::new(&root).join("model-calls.jsonl"))?;
    let batched = calls
        .lines()
        .filter(|l| l.contains("\"purpose\":\"reader\"") && l.contains("\"endpoint\":\"batch\""))
        .count();
    assert!(batched >= 2, "{calls}");
    app.stop().await
}
