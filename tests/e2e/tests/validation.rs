//! Screening validation in the real app under Xvfb: an offline review of real
//! papers, a sample labelled blind from the keyboard, the figures, and the
//! calibrated cut-offs applied and taken back. Ignored by a plain `cargo
//! test`, like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::{Context, Result};
use fantoccini::Locator;
use quire_e2e::{App, eventually, folder_of_papers, open_folder_review};

const UI_TIMEOUT: Duration = Duration::from_secs(60);

/// Press `key` on the labelling queue.
async fn press_on_queue(app: &App, key: &str) -> Result<()> {
    app.client
        .find(Locator::Css("[data-testid=validation-queue]"))
        .await?
        .send_keys(key)
        .await
        .context("pressing a key on the queue")
}

/// The paper on top of the queue, once it is not `previous`.
async fn queue_paper(app: &App, previous: Option<&str>) -> Result<String> {
    eventually("the next paper to label", UI_TIMEOUT, || async {
        let id = app
            .client
            .execute(
                "const e = document.querySelector('[data-testid=queue-paper]'); return e === null ? null : e.dataset.paper;",
                vec![],
            )
            .await?;
        Ok(id
            .as_str()
            .filter(|id| Some(*id) != previous)
            .map(str::to_owned))
    })
    .await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_sample_is_labelled_blind_and_the_cut_offs_it_supports_are_applied_on_request()
-> Result<()> {
    let app = App::start().await?;
    // One paper on the question and four the engine scores low, which the
    // researcher will nevertheless call relevant: their labels ask for a
    // lower cut-off.
    let papers = folder_of_papers("distributed-systems", 4)?;
    let far = folder_of_papers("programming-languages", 1)?;
    for entry in std::fs::read_dir(far.path())? {
        let path = entry?.path();
        std::fs::copy(
            &path,
            papers.path().join(path.file_name().context("a name")?),
        )?;
    }
    let root = open_folder_review(&app, papers.path(), 5).await?;
    app.type_into(
        "[data-testid=question]",
        "How do garbage collectors reclaim memory in language runtimes?",
    )
    .await?;
    app.click("[data-testid=start]").await?;
    eventually("the results", UI_TIMEOUT, || async {
        let rows = app.text_contents("[data-testid=result-row]").await?;
        Ok((rows.len() == 5).then_some(()))
    })
    .await?;

    app.click("[data-testid=to-validation]").await?;
    let figures = eventually("the validation figures", UI_TIMEOUT, || async {
        if let Some(error) = app.text_content("[role=alert]").await? {
            anyhow::bail!("the app shows an error: {error}");
        }
        app.text_content("[data-testid=validation-figures]").await
    })
    .await?;
    assert!(figures.contains("uncalibrated"), "{figures}");
    let size = app
        .client
        .find(Locator::Css("[data-testid=sample-size]"))
        .await?;
    size.clear().await?;
    size.send_keys("5").await?;
    app.click("[data-testid=propose-sample]").await?;

    // Label the five from the keyboard: the engine's call is not on screen.
    let mut previous: Option<String> = None;
    for (i, key) in ["i", "m", "i", "i", "i"].iter().enumerate() {
        let paper = queue_paper(&app, previous.as_deref()).await?;
        assert_eq!(app.text_content("[data-testid=queue-engine]").await?, None);
        if i == 2 {
            app.screenshot("validation-queue").await?;
        }
        press_on_queue(&app, key).await?;
        previous = Some(paper);
    }
    let done = app
        .wait_text("[data-testid=sample-done]", UI_TIMEOUT)
        .await?;
    assert!(
        done.contains("All 5 papers of the sample are labelled"),
        "{done}"
    );
    let figures = eventually("the figures of 5 labels", UI_TIMEOUT, || async {
        let text = app
            .text_content("[data-testid=validation-figures]")
            .await?
            .unwrap_or_default();
        Ok(text
            .contains("Agreement on the sample's 5 labelled papers")
            .then_some(text))
    })
    .await?;
    // The whole review was the sample: the estimate is its census.
    assert!(figures.contains("5 labels count here"), "{figures}");
    assert!(
        figures.contains("Recall at the cut-offs in force"),
        "{figures}"
    );
    // The papers the engine excludes are lost evidence, by name.
    assert!(
        figures.contains(
            "Lost evidence (labelled relevant, in the sample or not, excluded by the engine)"
        ),
        "{figures}"
    );
    assert!(
        figures.contains("Automatic exclusion: not supported"),
        "{figures}"
    );
    app.screenshot("validation").await?;

    // The sample cannot support exclusion: the engine excludes papers
    // labelled relevant, and the panel says no number of labels would.
    let done = app
        .text_content("[data-testid=sample-done]")
        .await?
        .unwrap_or_default();
    assert!(done.contains("No number of further labels would"), "{done}");

    // Half the sample's labels ask for a lower maybe cut-off; it applies
    // only on the button.
    let apply = app
        .wait_text("[data-testid=apply-cutoffs]", UI_TIMEOUT)
        .await?;
    assert!(
        apply.starts_with("Apply: include from 6.5, maybe from"),
        "{apply}"
    );
    let before = std::fs::read_to_string(std::path::Path::new(&root).join("report.md"))?;
    assert!(!before.contains("fitted on 3 labelled"));
    app.click("[data-testid=apply-cutoffs]").await?;
    app.wait_text("[data-testid=reset-cutoffs]", UI_TIMEOUT)
        .await?;
    let report = std::fs::read_to_string(std::path::Path::new(&root).join("report.md"))?;
    // Fitted on every other draw (3 of the 5), all relevant.
    assert!(
        report.contains("fitted on 3 labelled papers of half the validation sample (3 relevant)"),
        "{report}"
    );
    app.click("[data-testid=reset-cutoffs]").await?;
    eventually("the defaults again", UI_TIMEOUT, || async {
        let text = app
            .text_content("[data-testid=validation-figures]")
            .await?
            .unwrap_or_default();
        Ok(text.contains("the defaults, uncalibrated").then_some(()))
    })
    .await?;

    // The PRISMA flow of the same review: the researcher's five labels decide
    // every paper, so automation excluded none.
    app.click("[data-testid=to-results]").await?;
    app.click("[data-testid=show-flow]").await?;
    let screened = app
        .wait_text("[data-testid=prisma-screened]", UI_TIMEOUT)
        .await?;
    assert!(screened.contains("n = 5"), "{screened}");
    let excluded = app
        .text_content("[data-testid=prisma-excluded]")
        .await?
        .unwrap_or_default();
    assert!(
        excluded.contains("By automation (the engine, unchecked): 0"),
        "{excluded}"
    );
    let included = app
        .text_content("[data-testid=prisma-included]")
        .await?
        .unwrap_or_default();
    assert!(
        included.contains("Labelled include by the researcher: 4"),
        "{included}"
    );
    app.screenshot("prisma-flow").await?;
    app.click("[data-testid=prisma-close]").await?;
    app.stop().await
}
