//! A Zotero collection in the real app under Xvfb: *Open a Zotero
//! collection…* lists the collections of the fixture Zotero (its local API,
//! real response shapes, real PDFs in its storage), one click opens one as a
//! review, an offline review reads its items and their PDFs, and *Write to
//! Zotero* writes the verdicts to the fixture Web API as tags and one note
//! per item, keeping the researcher's own. Then *Find more by citations*:
//! the plan, one round against the fixture's OpenAlex (its citation graph in
//! 2026 shapes), and two approved open-access downloads (one OpenAlex knows,
//! one Unpaywall knows) that become their records' full text. Ignored by a
//! plain `cargo test`, like the other end-to-end tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use anyhow::{Context, Result};
use quire_e2e::{App, corpus, eventually};
use testkit::scholar::{
    CitationGraph, GraphWork, Hosted, ScholarFixture, ScholarServer, Work as IndexedWork,
};
use testkit::zotero::{Attachment, Collection, Item, Library, LocalApiServer, write_data_dir};
use testkit::zotero_web::{Object, WebApiServer};

const UI_TIMEOUT: Duration = Duration::from_secs(90);
const KEY: &str = "zkey-e2e-write";
const CALVIN_TITLE: &str = "Calvin: Fast Distributed Transactions for Partitioned Database Systems";
const CALVIN_DOI: &str = "10.1145/2213836.2213838";
const HSTORE: &str =
    "H-Store: a high-performance, distributed main memory transaction processing system";
const DETERMINISM: &str = "The case for determinism in database systems";

/// OpenAlex's view of Calvin: it cites H-Store (open at a repository, as
/// OpenAlex knows) and the determinism paper (open as Unpaywall knows), and
/// one later paper cites it.
fn scholarly() -> ScholarFixture {
    let work = |title: &str, family: &str, year: u16, doi: &str| IndexedWork {
        title: title.into(),
        authors: vec![("A.".into(), family.into())],
        year,
        doi: Some(doi.into()),
        abstract_text: Some(format!("{title}: an abstract.")),
        ..IndexedWork::default()
    };
    let node = |id: &str, work: IndexedWork, references: &[&str]| GraphWork {
        id: id.into(),
        work,
        references: references.iter().map(|r| (*r).to_owned()).collect(),
        ..GraphWork::default()
    };
    ScholarFixture {
        graph: CitationGraph {
            works: vec![
                node(
                    "W100",
                    work(CALVIN_TITLE, "Thomson", 2012, CALVIN_DOI),
                    &["W700", "W701"],
                ),
                GraphWork {
                    open_copy: Some((
                        "/files/hstore.pdf".into(),
                        "VLDB Endowment repository".into(),
                        "publishedVersion".into(),
                        Some("cc-by".into()),
                    )),
                    ..node(
                        "W700",
                        work(HSTORE, "Kallman", 2008, "10.14778/1454159.1454211"),
                        &[],
                    )
                },
                node(
                    "W701",
                    work(DETERMINISM, "Thomson", 2010, "10.14778/1920841.1920855"),
                    &[],
                ),
                node(
                    "W800",
                    work(
                        "Rethinking serializable multiversion concurrency control",
                        "Faleiro",
                        2015,
                        "10.14778/2809974.2809981",
                    ),
                    &["W100"],
                ),
            ],
        },
        unpaywall: [(
            "10.14778/1920841.1920855".to_owned(),
            Some((
                "/files/determinism.pdf".to_owned(),
                "repository".to_owned(),
                "acceptedVersion".to_owned(),
                None,
            )),
        )]
        .into(),
        files: [
            (
                "hstore.pdf".to_owned(),
                Hosted::Pdf(corpus().join("dev/databases/b-trees-write-optimization.pdf")),
            ),
            (
                "determinism.pdf".to_owned(),
                Hosted::Pdf(corpus().join("dev/machine-learning/graph-of-word-and-tw-idf.pdf")),
            ),
        ]
        .into(),
        ..ScholarFixture::default()
    }
}

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
    let mut calvin = item(
        "CALVIN01",
        CALVIN_TITLE,
        "Thomson",
        "dev/databases/calvin-fast-distributed-transactions-for-partitioned-database-systems.pdf",
        "CALVPDF1",
    );
    calvin.doi = Some(CALVIN_DOI.into());
    Library {
        groups: Vec::new(),
        collections: vec![Collection {
            library: 0,
            key: "READ0001".into(),
            name: "Transactions".into(),
            parent: None,
        }],
        items: vec![
            calvin,
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

/// Click the first result row holding `text`, once one does. The rows'
/// text is read as the DOM holds it (WebDriver's rendered text leaves out
/// what CSS clips).
async fn click_row(app: &App, text: &str) -> Result<()> {
    eventually("a row holding the text", UI_TIMEOUT, || async {
        let rows = app
            .client
            .find_all(fantoccini::Locator::Css("[data-testid=result-row]"))
            .await?;
        let texts = app.text_contents("[data-testid=result-row]").await?;
        for (row, held) in rows.into_iter().zip(texts) {
            if held.contains(text) {
                row.click().await?;
                return Ok(Some(()));
            }
        }
        Ok(None)
    })
    .await
}

/// The paper pane's title starts like this (it may wrap or be cut).
fn title_start(title: &str) -> &str {
    title.split(':').next().unwrap_or(title)
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
    // The scholarly indexes are the fixture's: lookups and citation
    // searching ask it, never the internet.
    let indexes = ScholarServer::start(scholarly())?;
    let index_env = indexes.env();
    let mut env: Vec<(&str, &str)> = vec![
        ("QUIRE_ZOTERO_URL", &local_url),
        ("QUIRE_ZOTERO_WEB_URL", &web_url),
        ("QUIRE_ZOTERO_API_KEY", KEY),
        ("QUIRE_OFFLINE", "0"),
        ("QUIRE_CONTACT_EMAIL", "reviewer@example.org"),
    ];
    env.extend(index_env.iter().map(|(k, v)| (*k, v.as_str())));
    let app = App::start_with(&env).await?;

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
    click_row(&app, "A. Thomson").await?;
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
    // Citation searching from the included paper: Calvin, labelled here.
    app.client
        .find(fantoccini::Locator::Css("[data-testid=results-keys]"))
        .await?
        .send_keys("i")
        .await?;
    let label = app
        .wait_text("[data-testid=pane-label]", UI_TIMEOUT)
        .await?;
    assert_eq!(label, "Your label: include");
    app.click("[data-testid=find-by-citations]").await?;
    let seed = app
        .wait_text("[data-testid=snowball-seed]", UI_TIMEOUT)
        .await?;
    // Any other paper the offline engine included is left out: the round
    // follows Calvin alone.
    let seeds = app.text_contents("[data-testid=snowball-seed]").await?;
    let boxes = app
        .client
        .find_all(fantoccini::Locator::Css(
            "[data-testid=snowball-seed] input",
        ))
        .await?;
    let mut calvin = false;
    for (text, checkbox) in seeds.iter().zip(boxes) {
        if text.contains("W100: 2 references, cited by 1") {
            calvin = true;
        } else if checkbox.is_enabled().await? {
            checkbox.click().await?;
        }
    }
    assert!(calvin, "{seed} / {seeds:?}");
    eventually("the plan for Calvin alone", UI_TIMEOUT, || async {
        let cost = app
            .text_content("[data-testid=snowball-cost]")
            .await?
            .unwrap_or_default();
        Ok(cost
            .contains("Cost: $0.0002 at OpenAlex's prices")
            .then_some(()))
    })
    .await?;
    assert!(
        indexes
            .requests()
            .iter()
            .all(|r| !r.path.contains("filter=")),
        "a paid call before the round"
    );
    app.screenshot("snowball-plan").await?;
    app.click("[data-testid=snowball-run]").await?;
    let outcome = app
        .wait_text("[data-testid=snowball-outcome]", UI_TIMEOUT)
        .await?;
    assert!(
        outcome.contains("Round 1: 3 works found, 3 new to the review"),
        "{outcome}"
    );
    app.click("[data-testid=snowball-close]").await?;

    // The two references, kept by the researcher.
    for title in [HSTORE, DETERMINISM] {
        click_row(&app, title).await?;
        app.client
            .find(fantoccini::Locator::Css("[data-testid=results-keys]"))
            .await?
            .send_keys("i")
            .await?;
        eventually("the label", UI_TIMEOUT, || async {
            let label = app
                .text_content("[data-testid=pane-label]")
                .await?
                .unwrap_or_default();
            let pane = app
                .text_content("[data-testid=paper-pane]")
                .await?
                .unwrap_or_default();
            Ok((label == "Your label: include" && pane.contains(title_start(title))).then_some(()))
        })
        .await?;
    }
    app.click("[data-testid=find-by-citations]").await?;
    // The panel plans the next round first; listing waits for it.
    eventually("the plan to be made", UI_TIMEOUT, || async {
        let list = app
            .client
            .find(fantoccini::Locator::Css(
                "[data-testid=snowball-list-copies]",
            ))
            .await?;
        Ok(list.is_enabled().await?.then_some(()))
    })
    .await?;
    app.click("[data-testid=snowball-list-copies]").await?;
    let offers = eventually("two open copies", UI_TIMEOUT, || async {
        let texts = app.text_contents("[data-testid=snowball-offer]").await?;
        Ok((texts.len() == 2).then_some(texts))
    })
    .await?;
    assert!(
        offers.iter().any(|o| o.contains(
            "VLDB Endowment repository · publishedVersion · licence cc-by · from OpenAlex"
        )),
        "{offers:?}"
    );
    assert!(
        offers
            .iter()
            .any(|o| o.contains("acceptedVersion · licence not stated · from Unpaywall")),
        "{offers:?}"
    );
    assert!(
        indexes.requests().iter().all(|r| r.service != "files"),
        "a download before approval"
    );
    for checkbox in app
        .client
        .find_all(fantoccini::Locator::Css(
            "[data-testid=snowball-offer] input",
        ))
        .await?
    {
        checkbox.click().await?;
    }
    app.screenshot("snowball-copies").await?;
    app.click("[data-testid=snowball-fetch]").await?;
    let fetched = eventually("the downloads", UI_TIMEOUT, || async {
        let items = app
            .text_contents("[data-testid=snowball-fetched-item]")
            .await?;
        Ok((items.len() == 2).then_some(items))
    })
    .await?;
    assert!(
        fetched
            .iter()
            .all(|f| f.contains("downloaded, now its full text")),
        "{fetched:?}"
    );
    assert_eq!(
        indexes
            .requests()
            .iter()
            .filter(|r| r.service == "files")
            .count(),
        2
    );
    app.screenshot("snowball-downloaded").await?;
    app.click("[data-testid=snowball-close]").await?;

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
