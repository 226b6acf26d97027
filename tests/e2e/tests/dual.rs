//! Dual reading in the real app under Xvfb: an agent review of real papers
//! read twice, the second time by another model server (a stricter
//! screener), the cost of each policy before the run, and the papers the two
//! readings disagree on as a queue with both readings side by side. Ignored
//! by a plain `cargo test`, like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::Result;
use fantoccini::Locator;
use quire_e2e::{App, ModelServer, eventually, folder_of_papers, open_folder_review, profiles_in};

const UI_TIMEOUT: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_dual_read_review_queues_the_disagreements_with_both_readings() -> Result<()> {
    let first = ModelServer::start(&["scripted-reader"], &[])?;
    let second = ModelServer::start(&["strict-screener"], &["--sceptic"])?;
    let data = tempfile::tempdir()?;
    let config = profiles_in(
        data.path(),
        &[
            ("scripted", &first, "scripted-reader"),
            ("strict", &second, "strict-screener"),
        ],
    )?;
    let app = App::start_with(&[("QUIRE_CONFIG_DIR", &config.to_string_lossy())]).await?;
    let papers = folder_of_papers("machine-learning", 4)?;
    open_folder_review(&app, papers.path(), 4).await?;

    app.type_into(
        "[data-testid=question]",
        "Which methods improve generalisation of neural networks?",
    )
    .await?;
    app.approve_drafted_protocol().await?;
    app.select("[data-testid=dual]", "flag").await?;
    eventually("the second profile to be offered", UI_TIMEOUT, || async {
        let options = app
            .text_contents("[data-testid=second-profile] option")
            .await?;
        Ok(options.iter().any(|o| o == "profile strict").then_some(()))
    })
    .await?;
    app.select("[data-testid=second-profile]", "strict").await?;
    let estimate = app
        .client
        .find(Locator::XPath("//button[text()='Estimate cost']"))
        .await?;
    estimate.click().await?;
    let flag = app
        .wait_text("[data-testid=estimate-flag]", UI_TIMEOUT)
        .await?;
    assert!(flag.contains("reader calls"), "{flag}");
    let tie = app
        .wait_text("[data-testid=estimate-tie-breaker]", UI_TIMEOUT)
        .await?;
    assert!(tie.contains("reader calls"), "{tie}");
    app.client
        .execute(
            "document.querySelector('[data-testid=estimate]').scrollIntoView({block: 'center'});",
            vec![],
        )
        .await?;
    app.screenshot("dual-estimate").await?;

    app.click("[data-testid=start]").await?;
    let disagree = eventually("the disagreements", UI_TIMEOUT, || async {
        if let Some(error) = app.text_content("[role=alert]").await? {
            anyhow::bail!("the app shows an error: {error}");
        }
        let rows = app.text_contents("[data-testid=result-row]").await?;
        let scored = rows.iter().filter(|r| r.contains("scored")).count();
        let button = app
            .text_content("[data-testid=filter-disagree]")
            .await?
            .unwrap_or_default();
        Ok((scored == 4 && !button.is_empty()).then_some(button))
    })
    .await?;
    assert!(disagree.starts_with("Readers disagree: "), "{disagree}");
    app.click("[data-testid=filter-disagree]").await?;
    // The filtered page comes from Quire; until then the table is busy.
    let rows = eventually("the disagreements", UI_TIMEOUT, || async {
        let busy = app
            .client
            .find(Locator::Css("[data-testid=results-table]"))
            .await?
            .attr("aria-busy")
            .await?;
        let rows = app.texts("[data-testid=result-row]").await?;
        Ok((busy.as_deref() != Some("true") && !rows.is_empty() && rows.len() < 4).then_some(rows))
    })
    .await?;
    assert!(
        rows.iter().all(|r| r.contains("maybe")),
        "flag: a disagreement is maybe until settled: {rows:?}"
    );
    app.click("[data-testid=result-row]").await?;
    let readings = app
        .wait_text("[data-testid=pane-readings]", UI_TIMEOUT)
        .await?;
    assert!(readings.contains("The readings disagree"), "{readings}");
    assert!(
        readings.contains("Second reading (strict-screener): exclude"),
        "{readings}"
    );
    assert!(readings.contains("Read strictly"), "{readings}");
    app.screenshot("disagreements").await?;

    // Settled from the keyboard, the paper leaves the count to settle.
    app.client
        .find(Locator::Css("[data-testid=results-keys]"))
        .await?
        .send_keys("i")
        .await?;
    let settled = eventually("the label to count", UI_TIMEOUT, || async {
        let text = app
            .text_content("[data-testid=filter-disagree]")
            .await?
            .unwrap_or_default();
        Ok((text != disagree).then_some(text))
    })
    .await?;
    let before: usize = disagree
        .rsplit(" · ")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let expected = if before == 1 {
        "all settled".to_owned()
    } else {
        format!("{} to settle", before - 1)
    };
    assert!(settled.ends_with(&expected), "{disagree} -> {settled}");
    app.stop().await
}
