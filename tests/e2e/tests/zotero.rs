//! A Zotero collection in the real app under Xvfb: *Open a Zotero
//! collection…* lists the collections of the fixture Zotero (its local API,
//! real response shapes, real PDFs in its storage), one click opens one as a
//! review, an offline review reads its items and their PDFs, and *Write to
//! Zotero* writes the verdicts to the fixture Web API as tags and one note
//! per item, keeping the researcher's own. Ignored by a plain `cargo test`,
//! like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::{Context, Result};
use quire_e2e::{App, corpus, eventually};
use testkit::zotero::{Attachment, Collection, Item, Library, LocalApiServer, write_data_dir};
use testkit::zotero_web::{Object, WebApiServer};

const UI_TIMEOUT: Duration = Duration::from_secs(90);
const KEY: &str = "zkey-e2e-write";

fn library() -> Library {
    let item = |key: &str, title: &str, last: &str, pdf: &str, attachment: &str| Item {
        key: key.into(),
        version: 5,
        item_type: "journalArticle".into(),
        title: title.into(),
        creators: vec![("author".into(), "A.".into(), last.into())],
        date: "2012".into(),
        tags: vec!["to-read".into()],
        notes: vec!["<p>Check the evaluation.</p>".into()],
        collections: vec!["READ0001".into()],
        attachments: vec![Attachment {
            key: attachment.into(),
            file_name: format!("{key}.pdf"),
            source: Some(corpus().join(pdf)),
        }],
        ..Item::default()
    };
    Library {
        groups: Vec::new(),
        collections: vec![Collection {
            library: 0,
            key: "READ0001".into(),
            name: "Transactions".into(),
            parent: None,
        }],
        items: vec![
            item(
                "CALVIN01",
                "Calvin: Fast Distributed Transactions for Partitioned Database Systems",
                "Thomson",
                "dev/databases/calvin-fast-distributed-transactions-for-partitioned-database-systems.pdf",
                "CALVPDF1",
            ),
            item(
                "BTREES02",
                "An Introduction to Bε-trees and Write-Optimization",
                "Bender",
                "dev/databases/b-trees-write-optimization.pdf",
                "BTRPDF02",
            ),
        ],
    }
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_zotero_collection_is_opened_reviewed_and_its_verdicts_written_back() -> Result<()> {
    let zotero = tempfile::tempdir()?;
    write_data_dir(zotero.path(), &library())?;
    let local = LocalApiServer::start(library(), zotero.path(), true)?;
    let online: Vec<Object> = ["CALVIN01", "BTREES02"]
        .iter()
        .map(|key| Object {
            key: (*key).into(),
            version: 5,
            item_type: "journalArticle".into(),
            tags: vec![("to-read".into(), 0)],
            ..Object::default()
        })
        .collect();
    let web = WebApiServer::start(KEY, 475, online)?;
    let (local_url, web_url) = (local.url(), web.url());
    let app = App::start_with(&[
        ("QUIRE_ZOTERO_URL", &local_url),
        ("QUIRE_ZOTERO_WEB_URL", &web_url),
        ("QUIRE_ZOTERO_API_KEY", KEY),
    ])
    .await?;

    app.click("[data-testid=zotero-open]").await?;
    let entry = app
        .wait_text("[data-testid=zotero-collection-READ0001]", UI_TIMEOUT)
        .await?;
    assert!(
        entry.contains("Transactions") && entry.contains("2 items"),
        "{entry}"
    );
    let via = app
        .wait_text("[data-testid=zotero-via]", UI_TIMEOUT)
        .await?;
    assert!(via.contains("running Zotero"), "{via}");
    app.screenshot("zotero-picker").await?;
    app.click("[data-testid=zotero-collection-READ0001]")
        .await?;

    // The review of the collection: its two items, each with its PDF.
    let header = eventually("the collection's review", UI_TIMEOUT, || async {
        let text = app
            .text_content(".review-screen__title .muted")
            .await?
            .unwrap_or_default();
        Ok(text.contains("with full text").then_some(text))
    })
    .await?;
    assert!(
        header.contains("2 records") && header.contains("2 with full text"),
        "{header}"
    );

    // Start waits for the files to be read (the button says so meanwhile).
    app.type_into(
        "[data-testid=question]",
        "How do distributed databases order transactions?",
    )
    .await?;
    eventually(
        "Start enabled once the files are read",
        UI_TIMEOUT,
        || async {
            let start = app
                .client
                .find(fantoccini::Locator::Css("[data-testid=start]"))
                .await?;
            Ok(start.is_enabled().await?.then_some(()))
        },
    )
    .await?;
    app.click("[data-testid=start]").await?;
    eventually("the review done", UI_TIMEOUT, || async {
        if let Some(error) = app.text_content("[role=alert]").await? {
            anyhow::bail!("the app shows an error: {error}");
        }
        let count = app
            .text_content("[data-testid=results-count]")
            .await?
            .unwrap_or_default();
        Ok(count.contains("4 scored").then_some(count))
    })
    .await?;
    // The record (its authors as Zotero has them), not its PDF: the pane
    // shows what the researcher keeps on the item in Zotero.
    eventually("the Zotero record's row", UI_TIMEOUT, || async {
        let rows = app
            .client
            .find_all(fantoccini::Locator::Css("[data-testid=result-row]"))
            .await?;
        // The rows' text as the DOM holds it (WebDriver's rendered text
        // leaves out what CSS clips).
        let texts = app.text_contents("[data-testid=result-row]").await?;
        for (row, text) in rows.into_iter().zip(texts) {
            if text.contains("A. Thomson") {
                row.click().await?;
                return Ok(Some(()));
            }
        }
        Ok(None)
    })
    .await?;
    let facts = app
        .wait_text("[data-testid=pane-zotero]", UI_TIMEOUT)
        .await?;
    assert!(
        facts.contains("to-read") && facts.contains("Check the evaluation."),
        "{facts}"
    );
    app.screenshot("zotero-record").await?;

    app.click("[data-testid=write-to-zotero]").await?;
    let outcome = app
        .wait_text("[data-testid=zotero-push-outcome]", UI_TIMEOUT)
        .await?;
    assert!(
        outcome.contains("Zotero: 2 items. 2 tagged, 2 notes created"),
        "{outcome}"
    );
    app.screenshot("zotero-written").await?;

    for key in ["CALVIN01", "BTREES02"] {
        let item = web.object(key).context("the item")?;
        let tags: Vec<&str> = item.tags.iter().map(|(t, _)| t.as_str()).collect();
        assert!(
            tags.contains(&"to-read"),
            "the researcher's tag stays: {tags:?}"
        );
        assert!(
            tags.iter().any(|t| t.starts_with("quire:score:")),
            "{tags:?}"
        );
        let notes = web.notes_of(key);
        assert_eq!(notes.len(), 1, "one note of Quire's");
        assert!(
            notes[0]
                .note
                .as_deref()
                .unwrap_or_default()
                .contains("zotero://open-pdf/library/items/"),
            "{notes:?}"
        );
    }
    // Settings says where each key is kept, never the key.
    app.click("[data-testid=settings-button]").await?;
    let zotero_key = app
        .wait_text("[data-testid=zotero-key-status]", UI_TIMEOUT)
        .await?;
    assert!(zotero_key.contains("QUIRE_ZOTERO_API_KEY"), "{zotero_key}");
    let openalex = app
        .wait_text("[data-testid=openalex-key-status]", UI_TIMEOUT)
        .await?;
    assert!(openalex.contains("No key"), "{openalex}");
    let page = app.text_content("body").await?.unwrap_or_default();
    assert!(!page.contains(KEY), "a key is shown in the window");
    app.screenshot("settings").await?;
    Ok(())
}
