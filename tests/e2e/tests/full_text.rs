//! Search records and their full text in the real app under Xvfb: a RIS
//! export opened as a review, a folder of real PDFs attached through the
//! app's command (the one *Attach PDFs…* calls after its folder dialog),
//! the header counting the records with full text, and a copy set aside
//! from the duplicate groups by a click. Ignored by a plain `cargo test`,
//! like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::{Context, Result};
use quire_e2e::{App, eventually, repo_root};

const UI_TIMEOUT: Duration = Duration::from_secs(60);

/// Three records: two with a PDF in the folder (one found by its DOI, one
/// by its title), and the second listed again, with the same DOI, as a
/// second database would.
const RIS: &str = "TY  - JOUR
TI  - Selective Search for Object Recognition
AU  - Uijlings, J. R. R.
PY  - 2013
DO  - 10.1007/s11263-013-0620-5
AB  - Selective search generates object locations for recognition.
ER  - 

TY  - JOUR
TI  - SSD: Single Shot MultiBox Detector
AU  - Liu, Wei
PY  - 2016
DO  - 10.1007/978-3-319-46448-0_2
AB  - A single network detects objects in images.
ER  - 

TY  - CONF
TI  - SSD: single shot multibox detector (conference version)
AU  - Liu, W.
PY  - 2016
DO  - 10.1007/978-3-319-46448-0_2
ER  - 
";

/// The review header's counts, once they say `want`.
async fn header_saying(app: &App, want: &str) -> Result<String> {
    eventually(want, UI_TIMEOUT, || async {
        let text = app
            .text_content(".review-screen__title .muted")
            .await?
            .unwrap_or_default();
        Ok(text.contains(want).then_some(text))
    })
    .await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn pdfs_attached_to_records_are_counted_as_their_full_text_and_a_copy_is_set_aside()
-> Result<()> {
    let app = App::start().await?;
    let dir = tempfile::tempdir()?;
    let ris = dir.path().join("scopus.ris");
    std::fs::write(&ris, RIS)?;
    let pdfs = dir.path().join("pdfs");
    std::fs::create_dir(&pdfs)?;
    let corpus = repo_root().join("../shared/corpus/dev/machine-learning");
    for pdf in ["2013-selectivesearch.pdf", "2016-ssd.pdf"] {
        std::fs::copy(corpus.join(pdf), pdfs.join(pdf)).context("the shared corpus")?;
    }

    let summary = app
        .invoke(
            "workspace_create",
            serde_json::json!({ "params": { "folder": ris } }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("workspace_create failed: {e}"))?;
    let root = summary["root"].as_str().context("no root")?.to_owned();
    app.click("[data-testid=recent-open]").await?;
    header_saying(&app, "3 records").await?;
    app.wait_text("[data-testid=attach-full-text]", UI_TIMEOUT)
        .await?;

    // What *Attach PDFs…* calls with the folder chosen.
    let attached = app
        .invoke(
            "records_attach",
            serde_json::json!({ "params": { "workspace": root, "folder": pdfs } }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("records_attach failed: {e}"))?;
    assert_eq!(attached["pdfs"], 2, "{attached}");
    assert_eq!(attached["withFullText"], 2, "{attached}");
    let by: Vec<&str> = attached["attached"]
        .as_array()
        .context("attached")?
        .iter()
        .filter_map(|a| a["by"].as_str())
        .collect();
    assert!(by.contains(&"DOI"), "{attached}");

    // Opened again, the review counts them.
    app.click("[data-testid=back]").await?;
    app.click("[data-testid=recent-open]").await?;
    let header = header_saying(&app, "with full text").await?;
    assert!(
        header.contains("2 files · 3 records · 2 with full text"),
        "{header}"
    );

    // The two SSD records share a DOI: a group, settled by a click.
    app.click("[data-testid=duplicates] summary").await?;
    app.click("[data-testid=duplicate-set-aside]").await?;
    let settled = eventually("the group settled", UI_TIMEOUT, || async {
        let text = app
            .text_content("[data-testid=duplicates] summary")
            .await?
            .unwrap_or_default();
        Ok(text.contains("settled").then_some(text))
    })
    .await?;
    assert!(
        settled.contains("1 group of possible duplicates (1 settled)"),
        "{settled}"
    );
    app.screenshot("full-text").await?;

    // PRISMA counts the copy as a duplicate and the PDFs through their records.
    let flow = app
        .invoke("review_flow", serde_json::json!({ "workspace": root }))
        .await?
        .map_err(|e| anyhow::anyhow!("review_flow failed: {e}"))?;
    // Whichever SSD record is kept has the PDF: a record set aside hands
    // its full text on.
    let counts: Vec<u64> = ["duplicates", "setAside", "screened", "withFullText"]
        .iter()
        .map(|k| flow[*k].as_u64().unwrap_or(u64::MAX))
        .collect();
    assert_eq!(counts, [1, 1, 2, 2], "{flow}");
    Ok(())
}
