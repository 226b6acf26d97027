//! Asking the papers in the real app under Xvfb: a review of real papers, a
//! question answered by the scripted model server over HTTP, a citation that
//! opens the paper at the quoted page with the quote marked, the question
//! kept in the history, priced first, stopped by a token cap, then asked as
//! a batch; then the extraction table priced and filled from the same
//! papers, as a batch.
//! Ignored by a plain `cargo test`, like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::Result;
use quire_e2e::{App, ModelServer, eventually, folder_of_papers, open_folder_review};

const UI_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_question_is_answered_across_the_papers_with_citations_that_open_the_page() -> Result<()>
{
    let server = ModelServer::start(&["scripted-reader"], &[])?;
    let data = tempfile::tempdir()?;
    let config = server.profile_in(data.path(), "")?;
    let app = App::start_with(&[
        ("QUIRE_CONFIG_DIR", &config.to_string_lossy()),
        ("QUIRE_BATCH_POLL_SECS", "0.05"),
    ])
    .await?;
    let papers = folder_of_papers("databases", 4)?;
    open_folder_review(&app, papers.path(), 4).await?;

    // A quick offline screening first: Ask is part of a review.
    app.type_into(
        "[data-testid=question]",
        "How do databases recover from crashes?",
    )
    .await?;
    app.click("[data-testid=engine-offline]").await?;
    app.click("[data-testid=start]").await?;
    app.wait_text("[data-testid=results-count]", UI_TIMEOUT)
        .await?;

    app.click("[data-testid=to-ask]").await?;
    app.select("[data-testid=ask-scope]", "all").await?;
    app.type_into(
        "[data-testid=ask-question]",
        "How do databases recover after a crash and keep committed transactions durable?",
    )
    .await?;

    // Priced before anything is spent: four papers, none read before.
    app.click("[data-testid=spend-estimate]").await?;
    let estimate = app
        .wait_text("[data-testid=spend-line]", UI_TIMEOUT)
        .await?;
    assert!(estimate.starts_with("4 papers to read · "), "{estimate}");
    app.screenshot("ask-estimate").await?;

    // A token cap below one paper's reading stops the question unanswered.
    app.type_into("[data-testid=cap-tokens]", "1000").await?;
    app.click("[data-testid=ask-submit]").await?;
    let stopped = app
        .wait_text("[data-testid=ask-result] [role=status]", UI_TIMEOUT)
        .await?;
    assert!(
        stopped.starts_with("Stopped before it was answered:"),
        "{stopped}"
    );
    assert!(stopped.contains("1000"), "{stopped}");
    app.screenshot("ask-stopped").await?;

    // Without the cap, asked again as a batch, it is answered: the papers
    // read from the scripted Batch API's answers.
    app.retype("[data-testid=cap-tokens]", "").await?;
    app.click("[data-testid=ask-batch]").await?;
    app.click("[data-testid=ask-submit]").await?;
    eventually("the answer", UI_TIMEOUT, || async {
        if let Some(error) = app.text_content("[data-testid=ask] [role=alert]").await? {
            anyhow::bail!("the app shows an error: {error}");
        }
        // The stopped question's empty answer shows until this one's comes.
        let shown = app.text_content("[data-testid=ask-answer]").await?;
        Ok(shown.filter(|a| a.contains("[1]")))
    })
    .await?;
    let coverage = app
        .wait_text("[data-testid=ask-coverage]", UI_TIMEOUT)
        .await?;
    assert!(coverage.starts_with("4 papers considered"), "{coverage}");
    let batches = app.text_contents("[data-testid=ask-batches] li").await?;
    assert!(
        !batches.is_empty() && batches.iter().all(|b| b.contains("· done · ")),
        "{batches:?}"
    );
    assert!(coverage.contains("scripted-reader"), "{coverage}");
    let history = app
        .wait_text("[data-testid=ask-history]", UI_TIMEOUT)
        .await?;
    assert!(
        history.contains("keep committed transactions durable"),
        "{history}"
    );
    app.screenshot("ask").await?;

    // A citation opens its paper at the quoted page, the quote marked.
    app.click("[data-testid=ask-answer] [data-testid=citation]")
        .await?;
    let (page, marked) = app.viewer_page_and_mark().await?;
    assert!(page.starts_with("Page "), "{page}");
    assert!(!marked.trim().is_empty());
    app.screenshot("ask-citation").await?;
    app.client
        .find(fantoccini::Locator::Css("[data-testid=pdf-viewer]"))
        .await?
        .send_keys("\u{E00C}") // Escape
        .await?;

    // The extraction table: a template and a column of the researcher's,
    // filled from the same papers, each value with its page.
    app.click("[data-testid=to-table]").await?;
    app.select("[data-testid=column-template]", "dataset")
        .await?;
    app.type_into("[data-testid=column-name]", "Recovery")
        .await?;
    app.type_into(
        "[data-testid=column-instruction]",
        "How the system recovers after a crash or a failure.",
    )
    .await?;
    app.click("[data-testid=column-add]").await?;
    eventually("two columns", UI_TIMEOUT, || async {
        let chips = app.text_contents("[data-testid=table-columns] li").await?;
        Ok((chips.len() == 2).then_some(()))
    })
    .await?;
    app.click("[data-testid=spend-estimate]").await?;
    let estimate = app
        .wait_text("[data-testid=spend-line]", UI_TIMEOUT)
        .await?;
    assert!(estimate.contains("papers to read · "), "{estimate}");
    // Filled as a batch: the scripted server's Batch API answers every
    // paper's first calls, and the cells are read from those answers.
    app.click("[data-testid=table-batch]").await?;
    let terms = app
        .wait_text("[data-testid=table-batch-hint]", UI_TIMEOUT)
        .await?;
    assert!(terms.contains("Anthropic with the batch"), "{terms}");
    app.click("[data-testid=table-fill]").await?;
    let outcome = app
        .wait_text("[data-testid=table-outcome]", UI_TIMEOUT)
        .await?;
    assert!(outcome.starts_with("4 papers: 4 read now"), "{outcome}");
    let batches = app.text_contents("[data-testid=table-batches] li").await?;
    assert!(
        !batches.is_empty() && batches.iter().all(|b| b.contains("· done · ")),
        "{batches:?}"
    );
    let pages = app.text_contents("[data-testid=cell-page]").await?;
    assert!(pages.len() >= 4, "{pages:?}");
    app.screenshot("table").await?;
    app.stop().await
}
