//! `quire-bench bench zotero`: a big Zotero collection in and its verdicts
//! out, through the real client code against the fixture Zotero (the local
//! API server and a `zotero.sqlite` built from Zotero's schema) and the
//! fixture Web API. Items are SYNERGY records (title, abstract, authors,
//! year, each with the researcher's own tag). Prints the read time both ways,
//! the review, and two pushes: the first writes every item (requests, write
//! sizes, time), the second, with nothing changed, must write nothing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use clap::Args;
use quire::agent::NoEvents;
use quire::commands::{AppContext, AppPaths, WorkspaceCreateParams, reviews, workspace_create};
use quire::llm::secrets::ApiKey;
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::zotero_push::{plan, push};
use quire::review::{EngineKind, ReviewSpec};
use quire::workspace::Workspace;
use quire::zotero::web_api::WebApi;
use quire::zotero::{ZoteroPlaces, read_collection, snapshot};
use testkit::zotero::{Collection, Item, Library, LocalApiServer, write_data_dir};
use testkit::zotero_web::{Object, WebApiServer};

use super::bench_screening::rows_in;

#[derive(Args)]
pub(crate) struct ZoteroBenchArgs {
    /// The folder of SYNERGY CSVs the items come from.
    #[arg(long, default_value = "../shared/bench/synergy")]
    dir: PathBuf,
    /// Items in the collection.
    #[arg(long, default_value_t = 1_000)]
    items: usize,
}

const KEY: &str = "zkey-bench";

pub(crate) async fn run(args: ZoteroBenchArgs) -> Result<(), String> {
    let pool = rows_in(&args.dir)?;
    if pool.is_empty() {
        return Err(format!("no SYNERGY CSV in {}", args.dir.display()));
    }
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let items: Vec<Item> = (0..args.items)
        .map(|n| {
            let row = &pool[n % pool.len()];
            let (last, first) = row
                .authors
                .split(';')
                .next()
                .unwrap_or("")
                .split_once(',')
                .unwrap_or((row.authors.as_str(), ""));
            Item {
                key: format!("B{n:07}"),
                version: 1 + n as u64,
                item_type: "journalArticle".into(),
                title: format!("{} (item {n})", row.title),
                creators: vec![("author".into(), first.trim().into(), last.trim().into())],
                date: row.year.clone(),
                abstract_text: Some(row.abstract_text.clone()).filter(|a| !a.is_empty()),
                tags: vec!["to-screen".into()],
                collections: vec!["BENCH001".into()],
                ..Item::default()
            }
        })
        .collect();
    let library = Library {
        groups: Vec::new(),
        collections: vec![Collection {
            library: 0,
            key: "BENCH001".into(),
            name: "Bench".into(),
            parent: None,
        }],
        items,
    };
    let zotero_dir = scratch.path().join("Zotero");
    write_data_dir(&zotero_dir, &library).map_err(|e| e.to_string())?;
    let local =
        LocalApiServer::start(library.clone(), &zotero_dir, true).map_err(|e| e.to_string())?;

    let started = Instant::now();
    let (collection, read, _) = read_collection(
        &ZoteroPlaces {
            local_api: local.url(),
            data_dir: None,
        },
        "Bench",
    )
    .await
    .map_err(|e| e.to_string())?;
    let by_api = started.elapsed();
    let api_requests = local.requests().len();
    let started = Instant::now();
    let (_, from_db, _) = read_collection(
        &ZoteroPlaces {
            local_api: "http://127.0.0.1:9".into(),
            data_dir: Some(zotero_dir.clone()),
        },
        "Bench",
    )
    .await
    .map_err(|e| e.to_string())?;
    let by_db = started.elapsed();
    if from_db != read {
        return Err("the database and the local API read different items".into());
    }

    let ctx = AppContext::new(AppPaths::new(scratch.path().join("data")));
    let path = snapshot::write(
        &ctx.paths().data_dir,
        &collection,
        read,
        quire::zotero::Via::LocalApi,
    )
    .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let row = workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: path.clone(),
        },
    )
    .await
    .map_err(|e| e.message)?;
    let import = started.elapsed();
    let root = PathBuf::from(&row.root);

    let started = Instant::now();
    let request = ReviewRequest {
        source: path.clone(),
        spec: ReviewSpec {
            question: "Does the intervention reduce symptoms compared with placebo?".into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: root.clone(),
        ingest: ctx.ingest_options().map_err(|e| e.message)?,
        engine: EngineSetup::Offline,
        lookup: None,
    };
    let summary = reviews::start(&ctx, request, Arc::new(NoEvents))
        .finish()
        .await
        .map_err(|e| e.message)?;
    let review = started.elapsed();

    let online: Vec<Object> = library
        .items
        .iter()
        .map(|i| Object {
            key: i.key.clone(),
            version: i.version,
            item_type: i.item_type.clone(),
            tags: vec![("to-screen".into(), 0)],
            ..Object::default()
        })
        .collect();
    let web = WebApiServer::start(KEY, 475, online).map_err(|e| e.to_string())?;
    let ws = Workspace::open_read_only(&root).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let desired = plan(&ws).map_err(|e| e.to_string())?;
    let planned = started.elapsed();
    let api = WebApi::new(&web.url(), ApiKey::new(KEY)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let first = push(&desired, &api).await.map_err(|e| e.to_string())?;
    let first_time = started.elapsed();
    let traffic = web.traffic();
    web.reset_traffic();
    let api = WebApi::new(&web.url(), ApiKey::new(KEY)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let second = push(&desired, &api).await.map_err(|e| e.to_string())?;
    let second_time = started.elapsed();
    let again = web.traffic();

    println!(
        "zotero {} items: read by the local API {} ms ({api_requests} requests), by a private copy of zotero.sqlite {} ms (same items); workspace made {} ms; offline review {:.1} s ({} screened)",
        args.items,
        by_api.as_millis(),
        by_db.as_millis(),
        import.as_millis(),
        review.as_secs_f64(),
        summary.counts.screened
    );
    let largest = traffic.write_sizes.iter().max().copied().unwrap_or(0);
    println!(
        "first push: {} items, {} tagged, {} notes created, planned in {} ms, written in {:.1} s: {} requests ({} reads, {} writes of at most {largest} objects, at most {} at once)",
        first.items,
        first.tagged,
        first.notes_created,
        planned.as_millis(),
        first_time.as_secs_f64(),
        first.requests,
        traffic.gets,
        traffic.posts,
        traffic.max_in_flight
    );
    println!(
        "second push, nothing changed: {} unchanged in {} ms: {} requests, {} writes",
        second.unchanged,
        second_time.as_millis(),
        second.requests,
        again.posts
    );
    if again.posts != 0 || largest > 50 || traffic.max_in_flight > 4 {
        return Err("a push broke Zotero's limits or wrote with nothing changed".into());
    }
    Ok(())
}
