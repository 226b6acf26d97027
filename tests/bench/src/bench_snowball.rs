//! `quire-bench bench snowball`: a round of citation searching at scale,
//! through the real planning and round code against the scholarly fixture's
//! OpenAlex (a citation graph in OpenAlex's 2026 shapes and prices, a key
//! with a dollar a day). The review holds the seeds, some of their
//! references, and preprint versions of others; the graph merges a few
//! referenced ids into other works. Prints the plan against the round (calls
//! and cost must agree), the calls against the fewest the limits allow, the
//! time, and the duplicates found against the ones built in (precision and
//! recall). Fails when a filter names more than 100 ids, a page asks for
//! more than 100 works, a list page is asked twice, the round makes other
//! calls than planned, or a built-in duplicate is missed or a new work taken
//! for one.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use clap::Args;
use quire::llm::secrets::ApiKey;
use quire::review::Verdict;
use quire::review::imports::import_files;
use quire::review::labels::{self, Label};
use quire::review::snowball::{SnowballOptions, plan, run_round};
use quire::scholar::{Endpoints, Lookup, LookupOptions};
use quire::workspace::{TaskMeta, Workspace, WorkspaceId};
use testkit::scholar::{CitationGraph, GraphWork, ScholarFixture, ScholarServer, Work};

#[derive(Args)]
pub(crate) struct SnowballBenchArgs {
    /// Included papers the round starts from.
    #[arg(long, default_value_t = 40)]
    seeds: usize,
    /// References of each seed (drawn from a shared pool, so seeds overlap).
    #[arg(long, default_value_t = 40)]
    references: usize,
    /// Works citing each seed.
    #[arg(long, default_value_t = 250)]
    citing: usize,
}

const KEY: &str = "openalex-bench-key";

fn work(title: String, family: String, year: u16, doi: Option<String>) -> Work {
    Work {
        title,
        authors: vec![("A.".into(), family)],
        year,
        doi,
        abstract_text: Some("An abstract of the work.".into()),
        ..Work::default()
    }
}

fn node(id: String, work: Work, references: Vec<String>) -> GraphWork {
    GraphWork {
        id,
        work,
        references,
        ..GraphWork::default()
    }
}

/// The graph, and which of its works the review has (in any version).
struct Built {
    graph: CitationGraph,
    /// RIS records of the review.
    ris: String,
    /// Graph ids the review has.
    in_review: HashSet<String>,
}

fn build(args: &SnowballBenchArgs) -> Built {
    let pool = args.seeds * args.references / 2 + 1;
    let mut works = Vec::new();
    let mut ris = String::new();
    let mut in_review = HashSet::new();
    let record = |ris: &mut String, title: &str, family: &str, year: u16, doi: Option<&str>| {
        ris.push_str(&format!(
            "TY  - JOUR\nTI  - {title}\nAU  - {family}, A.\nPY  - {year}\n{}AB  - An abstract.\nER  - \n",
            doi.map(|d| format!("DO  - {d}\n")).unwrap_or_default()
        ));
    };
    // The pool of referenced works: every 7th is in the review by DOI,
    // every 11th as its preprint a year earlier (no DOI), every 13th merged
    // into another id that the seeds still cite by its old one.
    for r in 0..pool {
        let id = format!("W5{r:06}");
        let title = format!("Referenced study {r} on distributed transaction ordering");
        let family = format!("Ref{r}");
        let doi = format!("10.5555/ref.{r}");
        if r.is_multiple_of(7) {
            record(&mut ris, &title, &family, 2015, Some(&doi));
            in_review.insert(id.clone());
        } else if r.is_multiple_of(11) {
            record(&mut ris, &title, &family, 2014, None);
            in_review.insert(id.clone());
        }
        let mut n = node(id.clone(), work(title, family, 2015, Some(doi)), Vec::new());
        if r.is_multiple_of(13) {
            n.merged_from = vec![format!("W9{r:06}")];
        }
        works.push(n);
    }
    for s in 0..args.seeds {
        let id = format!("W1{s:06}");
        let title = format!("Seed paper {s} on deterministic database systems");
        let family = format!("Seed{s}");
        let doi = format!("10.5555/seed.{s}");
        record(&mut ris, &title, &family, 2018, Some(&doi));
        in_review.insert(id.clone());
        let references = (0..args.references)
            .map(|k| {
                let r = (s * args.references / 2 + k) % pool;
                if r.is_multiple_of(13) {
                    format!("W9{r:06}")
                } else {
                    format!("W5{r:06}")
                }
            })
            .collect();
        works.push(node(id, work(title, family, 2018, Some(doi)), references));
        for c in 0..args.citing {
            // One citing work in ten also cites the next seed.
            let both = c.is_multiple_of(10) && s + 1 < args.seeds;
            let mut cites = vec![format!("W1{s:06}")];
            if both {
                cites.push(format!("W1{:06}", s + 1));
            }
            works.push(node(
                format!("W7{s:04}{c:04}"),
                work(
                    format!("Citing study {c} of seed {s}, an evaluation of ordering"),
                    format!("Cit{s}x{c}"),
                    2022,
                    None,
                ),
                cites,
            ));
        }
    }
    Built {
        graph: CitationGraph { works },
        ris,
        in_review,
    }
}

pub(crate) async fn run(args: SnowballBenchArgs) -> Result<(), String> {
    let built = build(&args);
    let fixture = ScholarServer::start(ScholarFixture {
        graph: built.graph,
        openalex_key: Some(KEY.into()),
        ..ScholarFixture::default()
    })
    .map_err(|e| e.to_string())?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let ris = scratch.path().join("search.ris");
    std::fs::write(&ris, &built.ris).map_err(|e| e.to_string())?;
    let root = scratch.path().join("review");
    let task = TaskMeta::new(
        WorkspaceId("snowball-bench".into()),
        "snowball bench".into(),
        &ris,
    );
    let ws = Workspace::create(&root, &task).map_err(|e| e.to_string())?;
    let imported = import_files(&ws, std::slice::from_ref(&ris)).map_err(|e| e.to_string())?;
    let papers = ws.papers().map_err(|e| e.to_string())?;
    for p in papers.iter().filter(|p| {
        p.title
            .as_deref()
            .is_some_and(|t| t.starts_with("Seed paper"))
    }) {
        let label = Label {
            verdict: Some(Verdict::Include),
            score: None,
            note: None,
            at: "2026-12-04T12:00:00Z".into(),
            question: None,
            queued: false,
        };
        labels::save(&ws, &p.id, &label).map_err(|e| e.to_string())?;
    }
    let endpoints = Endpoints {
        openalex: fixture.url("openalex"),
        ..Endpoints::default()
    };
    let lookup = Lookup::new(
        LookupOptions::new(endpoints, Some("bench@example.org".into()), None)
            .with_openalex_key(Some(ApiKey::new(KEY.to_owned()))),
    )?;

    let started = Instant::now();
    let planned = plan(&ws, &lookup, &SnowballOptions::default())
        .await
        .map_err(|e| e.to_string())?;
    let plan_ms = started.elapsed().as_millis();
    let (backward, forward, cost) = (
        planned.backward_calls,
        planned.forward_calls,
        planned.cost_usd,
    );
    let seeds = planned.seeds.len();
    let started = Instant::now();
    let round = run_round(&ws, &lookup, planned)
        .await
        .map_err(|e| e.to_string())?;
    let round_ms = started.elapsed().as_millis();

    // The fewest list calls OpenAlex's limits allow: references not in the
    // review, 100 ids a call; citing works, 100 a page per seed.
    let requests = fixture.requests();
    let lists: Vec<&str> = requests
        .iter()
        .filter(|r| r.path.contains("filter="))
        .map(|r| r.path.as_str())
        .collect();
    let mut failures = Vec::new();
    let mut seen = HashSet::new();
    for path in &lists {
        let query = path.split_once('?').map_or("", |(_, q)| q);
        let value = |name: &str| {
            query
                .split('&')
                .find_map(|kv| kv.strip_prefix(&format!("{name}=")))
                .unwrap_or("")
                .to_owned()
        };
        let ids = value("filter").matches("%7C").count() + 1;
        if value("filter").starts_with("openalex") && ids > 100 {
            failures.push(format!("a filter named {ids} ids"));
        }
        if value("per-page").parse::<usize>().unwrap_or(0) > 100 {
            failures.push("a page asked for more than 100 works".to_owned());
        }
        let without_key = path.replace(&format!("api_key={KEY}"), "");
        if !seen.insert(without_key) {
            failures.push(format!("a list page asked twice: {path}"));
        }
    }
    if round.calls.list != backward + forward {
        failures.push(format!(
            "planned {} list calls, made {}",
            backward + forward,
            round.calls.list
        ));
    }
    if !round.complete {
        failures.push(format!("the round is incomplete: {:?}", round.notices));
    }

    // Duplicates found against the ones built in.
    let kept: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("citations/round-1.citations.json"))
            .map_err(|e| e.to_string())?,
    )
    .map_err(|e| e.to_string())?;
    let said_dup: HashSet<String> = kept["duplicates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["openalex"].as_str().map(str::to_owned))
        .collect();
    let found_new: HashSet<String> = kept["records"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["openalex"].as_str().map(str::to_owned))
        .collect();
    let truly_dup: HashSet<&String> = said_dup
        .iter()
        .chain(found_new.iter())
        .filter(|id| built.in_review.contains(*id))
        .collect();
    let right = said_dup
        .iter()
        .filter(|id| built.in_review.contains(*id))
        .count();
    let precision = right as f64 / said_dup.len().max(1) as f64;
    let recall = right as f64 / truly_dup.len().max(1) as f64;
    if precision < 1.0 || recall < 1.0 {
        failures.push(format!(
            "duplicates: precision {precision:.3}, recall {recall:.3}"
        ));
    }
    let mut reasons: HashMap<String, usize> = HashMap::new();
    for d in kept["duplicates"].as_array().into_iter().flatten() {
        *reasons
            .entry(d["why"].as_str().unwrap_or("?").to_owned())
            .or_default() += 1;
    }

    println!(
        "snowball: {} records in the review, {seeds} seeds ({} references each, {} citing works each)",
        imported.added, args.references, args.citing
    );
    println!(
        "plan: {plan_ms} ms, {} free lookups; {backward} backward + {forward} forward list calls, ${cost:.4}",
        args.seeds
    );
    println!(
        "round: {round_ms} ms; {} list calls ({} planned), {} free lookups ({seeds} seeds, {} merged ids), ${:.4}; largest filter {} ids; {} requests in all (a merged id's redirect is two)",
        round.calls.list,
        backward + forward,
        round.calls.singleton,
        round.calls.singleton - seeds as u64,
        round.calls.cost_usd,
        lists
            .iter()
            .map(|p| p.matches("%7C").count() + 1)
            .max()
            .unwrap_or(0),
        requests.len(),
    );
    println!(
        "found {} works: {} new ({} backward, {} forward), {} already in the review",
        round.found, round.added, round.backward, round.forward, round.duplicates
    );
    let mut reasons: Vec<(String, usize)> = reasons.into_iter().collect();
    reasons.sort();
    for (why, n) in reasons {
        println!("  duplicates by {why}: {n}");
    }
    println!("duplicates against the built-in truth: precision {precision:.3}, recall {recall:.3}");
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failures.join("; "))
    }
}
