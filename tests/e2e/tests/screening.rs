//! Title/abstract screening in the real app under Xvfb: a database search's
//! RIS export (real records of a SYNERGY set) opened as a review, labelled
//! from the keyboard in the Screen panel as its reviewers did, the order
//! changing with the labels, and the export keeping the learned order apart
//! from the engine's. Ignored by a plain `cargo test`, like the other
//! end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::time::Duration;

use anyhow::{Context, Result};
use fantoccini::Locator;
use quire_e2e::{App, eventually, repo_root};

const UI_TIMEOUT: Duration = Duration::from_secs(60);
/// Labels given in the test.
const LABELS: usize = 12;

/// A RIS export of the set's first 15 included and first 45 excluded
/// records, and each title's truth.
fn ris_from_synergy(dir: &std::path::Path) -> Result<(std::path::PathBuf, HashMap<String, bool>)> {
    let set = repo_root().join("../shared/bench/synergy/Cohen_UrinaryIncontinence.csv");
    let mut reader = csv::Reader::from_path(&set).context("the SYNERGY set")?;
    let (mut included, mut excluded) = (0, 0);
    let mut ris = String::new();
    let mut truth = HashMap::new();
    for row in reader.records() {
        let row = row?;
        let (title, abstract_text, authors, year, label) =
            (&row[1], &row[2], &row[3], &row[4], &row[6]);
        let kept = label == "1";
        if (kept && included == 15) || (!kept && excluded == 45) || title.trim().is_empty() {
            continue;
        }
        if kept {
            included += 1;
        } else {
            excluded += 1;
        }
        ris.push_str(&format!("TY  - JOUR\nTI  - {}\n", title.trim()));
        if !abstract_text.trim().is_empty() {
            ris.push_str(&format!(
                "AB  - {}\n",
                abstract_text
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        // The set prints "Alan D Garely"; a RIS export says "Garely, Alan D".
        for author in authors.split(';').filter(|a| !a.trim().is_empty()) {
            let words: Vec<&str> = author.split_whitespace().collect();
            let (family, given) = words.split_last().context("a name")?;
            ris.push_str(&format!("AU  - {family}, {}\n", given.join(" ")));
        }
        if !year.is_empty() {
            ris.push_str(&format!("PY  - {year}\n"));
        }
        ris.push_str("ER  - \n\n");
        truth.insert(title.split_whitespace().collect::<Vec<_>>().join(" "), kept);
    }
    let path = dir.join("pubmed-search.ris");
    std::fs::write(&path, ris)?;
    Ok((path, truth))
}

/// The paper the panel serves now, once it is not `previous`, and the one
/// listed after it.
async fn served(app: &App, previous: Option<&str>) -> Result<(String, String, Option<String>)> {
    eventually("the next paper to screen", UI_TIMEOUT, || async {
        let now = app
            .client
            .execute(
                "const e = document.querySelector('[data-testid=screen-current]'); \
                 const next = document.querySelector('[data-testid=screen-next] li'); \
                 return e === null ? null : [e.dataset.paper, e.querySelector('h2').textContent, next === null ? null : next.textContent];",
                vec![],
            )
            .await?;
        let Some(now) = now.as_array() else { return Ok(None) };
        let id = now[0].as_str().unwrap_or_default().to_owned();
        if Some(id.as_str()) == previous {
            return Ok(None);
        }
        Ok(Some((
            id,
            now[1].as_str().unwrap_or_default().to_owned(),
            now[2].as_str().map(str::to_owned),
        )))
    })
    .await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn an_ris_export_is_screened_from_the_keyboard_and_the_order_learns_from_each_label()
-> Result<()> {
    let app = App::start().await?;
    let exports = tempfile::tempdir()?;
    let (ris, truth) = ris_from_synergy(exports.path())?;
    // The command a drop of the file calls.
    let summary = app
        .invoke(
            "workspace_create",
            serde_json::json!({ "params": { "folder": ris } }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("workspace_create failed: {e}"))?;
    let root = summary["root"].as_str().context("no root")?.to_owned();
    app.click("[data-testid=recent-open]").await?;
    let header = eventually("the review's header", UI_TIMEOUT, || async {
        let text = app
            .text_content(".review-screen__title .muted")
            .await?
            .unwrap_or_default();
        Ok(text.contains("records").then_some(text))
    })
    .await?;
    assert!(header.contains("60 records"), "{header}");

    app.click("[data-testid=to-screen]").await?;
    let progress = app
        .wait_text("[data-testid=screen-progress]", UI_TIMEOUT)
        .await?;
    assert!(progress.contains("Screened 0 of 60"), "{progress}");
    app.type_into(
        "[data-testid=screen-question]",
        "Which studies compare the efficacy or harms of drugs for overactive bladder and urinary incontinence?",
    )
    .await?;
    app.click("[data-testid=screen-question-go]").await?;
    let basis = eventually("ordered by the question", UI_TIMEOUT, || async {
        let basis = app
            .text_content("[data-testid=screen-basis]")
            .await?
            .unwrap_or_default();
        Ok(basis.contains("likeness").then_some(basis))
    })
    .await?;
    assert!(basis.contains("question"), "{basis}");

    let mut previous: Option<String> = None;
    let mut expected_next: Option<String> = None;
    let (mut kept, mut reordered) = (0, 0);
    for i in 0..LABELS {
        let (id, title, up_next) = served(&app, previous.as_deref()).await?;
        // The paper listed next before the last label is not always the one
        // served after it: the label reordered the queue.
        if expected_next.as_deref().is_some_and(|t| t != title) {
            reordered += 1;
        }
        let keep = *truth
            .get(&title)
            .with_context(|| format!("a title not in the set: {title}"))?;
        kept += usize::from(keep);
        if i == 6 {
            app.screenshot("screening").await?;
        }
        app.client
            .find(Locator::Css("[data-testid=screen-panel]"))
            .await?
            .send_keys(if keep { "i" } else { "e" })
            .await?;
        previous = Some(id);
        expected_next = up_next;
    }
    let progress = eventually("every label counted", UI_TIMEOUT, || async {
        let text = app
            .text_content("[data-testid=screen-progress]")
            .await?
            .unwrap_or_default();
        Ok(text
            .contains(&format!("Screened {LABELS} of 60"))
            .then_some(text))
    })
    .await?;
    assert!(progress.contains(&format!("kept {kept}")), "{progress}");
    assert!(reordered > 0, "no label ever changed the order");
    let curve = app
        .wait_text("[data-testid=recall-curve]", UI_TIMEOUT)
        .await?;
    assert!(
        curve.contains(&format!("{kept} kept in the first {LABELS} screened")),
        "{curve}"
    );
    // Every label was given as the queue served it: the stopping criterion
    // has a p-value, and 12 of 60 cannot show 95% recall.
    let stopping = app
        .wait_text("[data-testid=screen-stopping]", UI_TIMEOUT)
        .await?;
    assert!(
        stopping.starts_with("Keep screening: 95% recall is not shown yet (p = "),
        "{stopping}"
    );
    // How well the order learns is measured on whole sets (the suite and
    // `quire-bench eval synergy`); here, what the researcher sees of it.
    eprintln!(
        "{kept} of the first {LABELS} served were relevant; the order changed in {reordered} steps"
    );

    // The export keeps the learned order in its own column.
    let csv = app
        .invoke(
            "review_render",
            serde_json::json!({ "workspace": root, "format": "csv" }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("review_render failed: {e}"))?;
    let csv = csv.as_str().context("the CSV as text")?;
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let column = rows
        .headers()?
        .iter()
        .position(|h| h == "screening_queue_position")
        .context("no screening column")?;
    let placed = rows
        .records()
        .filter(|r| r.as_ref().is_ok_and(|r| !r[column].is_empty()))
        .count();
    assert_eq!(placed, 60 - LABELS);
    app.stop().await
}
