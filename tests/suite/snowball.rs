//! Citation searching from a review, against the scholarly fixture's
//! OpenAlex (its 2026 shapes and prices: free singletons, paid lists, a
//! merged id answering 301, page-number paging, a 429 with `Retry-After`).
//! The plan makes no paid call and counts exactly the calls the round then
//! makes; works the review has in any version are duplicates with their
//! reason; the new ones are records with the seeds that led to them; a
//! second round follows only the newly included paper and finds nothing the
//! review or the first round has.

use std::path::Path;
use std::process::Output;

use std::collections::HashMap;

use testkit::scholar::{
    CitationGraph, GraphWork, Hosted, OaLocation, ScholarFixture, ScholarServer, Work,
};

use super::support::{corpus, ok_json, quire_online};

fn quire(args: &[&str], data: &Path, env: &[(&str, String)]) -> Output {
    quire_online(args, data, env)
}

fn work(title: &str, family: &str, year: u16, doi: Option<&str>) -> Work {
    Work {
        title: title.into(),
        authors: vec![("A.".into(), family.into())],
        year,
        doi: doi.map(Into::into),
        abstract_text: Some(format!("{title}: an abstract.")),
        ..Work::default()
    }
}

fn node(id: &str, work: Work, references: &[&str]) -> GraphWork {
    GraphWork {
        id: id.into(),
        work,
        references: references.iter().map(|r| (*r).to_owned()).collect(),
        ..GraphWork::default()
    }
}

/// Calvin and Spanner (the seeds), what they cite, and what cites them:
/// Paxos (in the review without a DOI), Bigtable's OSDI 2006 paper (the
/// review has its 2008 journal version), a work OpenAlex merged (W999 →
/// W702), and 150 works citing Spanner (two pages).
fn graph() -> CitationGraph {
    let mut works = vec![
        node(
            "W100",
            work(
                "Calvin: Fast Distributed Transactions for Partitioned Database Systems",
                "Thomson",
                2012,
                Some("10.1145/2213836.2213838"),
            ),
            &["W400", "W700", "W701", "W999"],
        ),
        node(
            "W200",
            work(
                "Spanner: Google's Globally-Distributed Database",
                "Corbett",
                2013,
                Some("10.1145/2491245"),
            ),
            &["W400", "W700", "W703"],
        ),
        node(
            "W400",
            work(
                "Paxos Made Simple",
                "Lamport",
                2001,
                Some("10.1145/568425.568433"),
            ),
            &[],
        ),
        node(
            "W700",
            work(
                "H-Store: a high-performance, distributed main memory transaction processing system",
                "Kallman",
                2008,
                Some("10.14778/1454159.1454211"),
            ),
            &[],
        ),
        node(
            "W701",
            work(
                "The case for determinism in database systems",
                "Thomson",
                2010,
                Some("10.14778/1920841.1920855"),
            ),
            &[],
        ),
        GraphWork {
            merged_from: vec!["W999".into()],
            ..node(
                "W702",
                work(
                    "Consistency Tradeoffs in Modern Distributed Database System Design",
                    "Abadi",
                    2012,
                    Some("10.1109/mc.2012.33"),
                ),
                &[],
            )
        },
        node(
            "W703",
            work(
                "Bigtable: A Distributed Storage System for Structured Data",
                "Chang",
                2006,
                None,
            ),
            &[],
        ),
        GraphWork {
            open_copy: Some((
                "/files/faleiro.pdf".into(),
                "arXiv (Cornell University)".into(),
                "submittedVersion".into(),
                Some("cc-by".into()),
            )),
            ..node(
                "W800",
                work(
                    "Rethinking serializable multiversion concurrency control",
                    "Faleiro",
                    2015,
                    Some("10.14778/2809974.2809981"),
                ),
                &["W100", "W801"],
            )
        },
        GraphWork {
            pmid: Some("28000001".into()),
            ..node(
                "W801",
                work(
                    "An evaluation of distributed concurrency control",
                    "Harding",
                    2017,
                    Some("10.14778/3055540.3055548"),
                ),
                &["W100"],
            )
        },
    ];
    for i in 0..150 {
        works.push(node(
            &format!("W9{i:03}"),
            work(
                &format!("Citing study number {i} of globally distributed databases"),
                &format!("Author{i}"),
                2020,
                None,
            ),
            &["W200"],
        ));
    }
    CitationGraph { works }
}

/// Unpaywall: Harding's paper in a repository, H-Store's behind a login
/// page; the determinism paper unknown (404).
fn unpaywall() -> HashMap<String, Option<OaLocation>> {
    let copy = |url: &str, version: &str, licence: Option<&str>| {
        Some((
            url.into(),
            "repository".into(),
            version.into(),
            licence.map(Into::into),
        ))
    };
    [
        (
            "10.14778/3055540.3055548".to_owned(),
            copy("/files/harding.pdf", "acceptedVersion", Some("cc-by-nc-nd")),
        ),
        (
            "10.14778/1454159.1454211".to_owned(),
            copy("/files/hstore.pdf", "publishedVersion", None),
        ),
    ]
    .into()
}

/// The files the hosts serve: real PDFs, and a login page in place of one.
fn files() -> HashMap<String, Hosted> {
    [
        (
            "faleiro.pdf".to_owned(),
            Hosted::Pdf(corpus().join(CALVIN_PDF)),
        ),
        (
            "harding.pdf".to_owned(),
            Hosted::Pdf(corpus().join(GRAPH_OF_WORD_PDF)),
        ),
        ("hstore.pdf".to_owned(), Hosted::LoginPage),
    ]
    .into()
}

const CALVIN_PDF: &str =
    "dev/databases/calvin-fast-distributed-transactions-for-partitioned-database-systems.pdf";
const GRAPH_OF_WORD_PDF: &str = "dev/machine-learning/graph-of-word-and-tw-idf.pdf";

/// The review: Calvin and Spanner included by the researcher; Paxos (no
/// DOI) and Bigtable's 2008 journal paper in it, not included.
const REVIEW_RIS: &str = "TY  - CONF
TI  - Calvin: Fast Distributed Transactions for Partitioned Database Systems
AU  - Thomson, Alexander
PY  - 2012
DO  - 10.1145/2213836.2213838
AB  - Calvin orders transactions before executing them.
ER  - 
TY  - JOUR
TI  - Spanner: Google's Globally-Distributed Database
AU  - Corbett, James C.
PY  - 2013
DO  - 10.1145/2491245
AB  - Spanner is Google's scalable, multi-version, globally-distributed database.
ER  - 
TY  - JOUR
TI  - Paxos made simple
AU  - Lamport, Leslie
PY  - 2001
AB  - The Paxos algorithm, when presented in plain English, is very simple.
ER  - 
TY  - JOUR
TI  - Bigtable: A Distributed Storage System for Structured Data
AU  - Chang, Fay
PY  - 2008
DO  - 10.1145/1365815.1365816
AB  - Bigtable is a distributed storage system for managing structured data.
ER  - 
";

fn paper_titled(ws: &Path, title: &str) -> serde_json::Value {
    std::fs::read_dir(ws.join("papers"))
        .unwrap()
        .filter_map(|e| {
            let text = std::fs::read_to_string(e.ok()?.path().join("paper.json")).ok()?;
            serde_json::from_str::<serde_json::Value>(&text).ok()
        })
        .find(|p| p["title"] == title)
        .unwrap_or_else(|| panic!("no paper titled {title}"))
}

#[test]
fn a_round_follows_the_included_papers_both_ways_and_adds_only_what_the_review_lacks() {
    let server = ScholarServer::start(ScholarFixture {
        graph: graph(),
        list_rate_limited_once: Some(1),
        unpaywall: unpaywall(),
        files: files(),
        ..ScholarFixture::default()
    })
    .unwrap();
    let env = server.env();
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ris = dir.path().join("search.ris");
    std::fs::write(&ris, REVIEW_RIS).unwrap();
    let ws = dir.path().join("review");
    let ws_arg = ws.to_str().unwrap();
    let imported = ok_json(&quire(
        &["import", "--into", ws_arg, ris.to_str().unwrap(), "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(imported["added"], 4, "{imported}");
    for title in [
        "Calvin: Fast Distributed Transactions for Partitioned Database Systems",
        "Spanner: Google's Globally-Distributed Database",
    ] {
        let id = paper_titled(&ws, title)["id"].as_str().unwrap().to_owned();
        let out = quire(
            &["label", ws_arg, &id, "--verdict", "include"],
            data.path(),
            &env,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // The plan: both seeds known by DOI (free), one list of references,
    // one page citing Calvin and two citing Spanner; no paid call yet.
    let plan = ok_json(&quire(
        &["snowball", ws_arg, "--plan", "--json"],
        data.path(),
        &env,
    ));
    let seeds: Vec<&str> = plan["seeds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["openalex"].as_str().unwrap())
        .collect();
    assert_eq!(seeds.len(), 2, "{plan}");
    assert!(seeds.contains(&"W100") && seeds.contains(&"W200"), "{plan}");
    assert_eq!(plan["backwardCalls"], 1, "{plan}");
    assert_eq!(plan["forwardCalls"], 3, "{plan}");
    assert_eq!(plan["references"], 5, "{plan}");
    assert_eq!(plan["citing"], 152, "{plan}");
    assert!(
        (plan["costUsd"].as_f64().unwrap() - 0.0004).abs() < 1e-9,
        "{plan}"
    );
    assert_eq!(plan["planning"]["search"], 0, "{plan}");
    assert_eq!(plan["affordable"], true, "{plan}");
    let paid = |server: &ScholarServer| {
        server
            .requests()
            .iter()
            .filter(|r| r.service == "openalex" && r.path.contains("filter="))
            .count()
    };
    let text = quire(&["snowball", ws_arg, "--plan"], data.path(), &env);
    let shown = String::from_utf8_lossy(&text.stdout);
    eprintln!("{shown}");
    assert!(
        shown.contains("Cost: $0.0004 at OpenAlex's prices"),
        "{shown}"
    );
    assert!(
        shown.contains("[W100: 4 references, cited by 2]"),
        "{shown}"
    );
    assert_eq!(paid(&server), 0, "planning made a paid call");

    // The round.
    let round = ok_json(&quire(&["snowball", ws_arg, "--json"], data.path(), &env));
    eprintln!("{round:#}");
    assert_eq!(round["round"], 1, "{round}");
    assert_eq!(round["complete"], true, "{round}");
    assert_eq!(round["found"], 157, "{round}");
    assert_eq!(round["duplicates"], 2, "{round}");
    assert_eq!(round["added"], 155, "{round}");
    assert_eq!(round["backward"], 3, "{round}");
    assert_eq!(round["forward"], 152, "{round}");
    assert_eq!(round["openCopies"], 1, "{round}");
    assert_eq!(round["calls"]["list"], 4, "{round}");
    // The 429 was waited out and asked again: five list requests, four paid.
    assert_eq!(paid(&server), 5);
    // Every page asked for 100 works and every filter named at most 100 ids.
    for r in server
        .requests()
        .iter()
        .filter(|r| r.path.contains("filter="))
    {
        assert!(r.path.contains("per-page=100"), "{}", r.path);
    }

    let file = ws.join("citations/round-1.citations.json");
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let dup_reasons: Vec<(&str, &str)> = kept["duplicates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["openalex"].as_str().unwrap(), d["why"].as_str().unwrap()))
        .collect();
    assert!(
        dup_reasons.contains(&("W400", "the same title, year and first author")),
        "{dup_reasons:?}"
    );
    assert!(
        dup_reasons
            .iter()
            .any(|(id, why)| *id == "W703" && why.starts_with("another version")),
        "{dup_reasons:?}"
    );

    // The merged reference is its new work, remembered under both ids.
    let merged = paper_titled(
        &ws,
        "Consistency Tradeoffs in Modern Distributed Database System Design",
    );
    assert_eq!(merged["imported"]["citation"]["openalex"], "W702");
    let kept_merged = kept["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["openalex"] == "W702")
        .unwrap();
    assert_eq!(kept_merged["mergedFrom"], serde_json::json!(["W999"]));
    // H-Store is in both seeds' references: one record, two seeds.
    let hstore = paper_titled(
        &ws,
        "H-Store: a high-performance, distributed main memory transaction processing system",
    );
    let via = hstore["imported"]["citation"]["via"].as_array().unwrap();
    assert_eq!(via.len(), 2, "{hstore}");
    assert!(via.iter().all(|v| v["direction"] == "backward"));
    assert_eq!(hstore["meta"]["sources"]["title"], "openalex");
    assert_eq!(hstore["imported"]["format"], "citation searching");
    // A forward find keeps its open copy (listed, not downloaded) and PMID.
    let faleiro = paper_titled(
        &ws,
        "Rethinking serializable multiversion concurrency control",
    );
    let copy = &faleiro["imported"]["citation"]["openCopy"];
    assert_eq!(copy["licence"], "cc-by", "{faleiro}");
    assert_eq!(copy["version"], "submittedVersion");
    assert_eq!(
        faleiro["imported"]["citation"]["via"][0]["direction"],
        "forward"
    );
    assert!(!ws.join("fulltext").exists() && !ws.join("downloads").exists());
    let harding = paper_titled(&ws, "An evaluation of distributed concurrency control");
    assert_eq!(harding["imported"]["pmid"], "28000001");

    // Nothing new is included: a second round has nothing to follow.
    let again = ok_json(&quire(
        &["snowball", ws_arg, "--plan", "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(again["round"], 2);
    assert_eq!(again["seeds"], serde_json::json!([]), "{again}");
    let out = quire(&["snowball", ws_arg], data.path(), &env);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("no seed"), "{said}");
    assert!(!ws.join("citations/round-2.citations.json").exists());

    // Include Faleiro's paper: round 2 follows it alone. It cites Calvin
    // (in the review, by DOI) and Harding (found in round 1: not fetched).
    let id = faleiro["id"].as_str().unwrap();
    let out = quire(
        &["label", ws_arg, id, "--verdict", "include"],
        data.path(),
        &env,
    );
    assert!(out.status.success());
    let before = paid(&server);
    let second = ok_json(&quire(&["snowball", ws_arg, "--json"], data.path(), &env));
    assert_eq!(second["round"], 2, "{second}");
    assert_eq!(second["seeds"], 1, "{second}");
    assert_eq!(second["added"], 0, "{second}");
    assert_eq!(second["duplicates"], 1, "{second}");
    assert_eq!(second["calls"]["list"], 1, "{second}");
    assert_eq!(paid(&server) - before, 1);
    let kept: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ws.join("citations/round-2.citations.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(kept["duplicates"][0]["openalex"], "W100");
    assert_eq!(kept["duplicates"][0]["why"], "the same DOI");

    // Open copies: listed with host, version and licence, nothing fetched
    // until approved; two approved downloads become full text, a login page
    // served in place of a PDF is refused with what it was.
    let label = |title: &str, verdict: &str| {
        let id = paper_titled(&ws, title)["id"].as_str().unwrap().to_owned();
        let out = quire(
            &["label", ws_arg, &id, "--verdict", verdict],
            data.path(),
            &env,
        );
        assert!(out.status.success());
        id
    };
    let harding_id = label(
        "An evaluation of distributed concurrency control",
        "include",
    );
    let hstore_id = label(
        "H-Store: a high-performance, distributed main memory transaction processing system",
        "maybe",
    );
    label("The case for determinism in database systems", "include");
    let offers = ok_json(&quire(
        &["snowball", ws_arg, "--copies", "--json"],
        data.path(),
        &env,
    ));
    let offers = offers.as_array().unwrap();
    assert_eq!(offers.len(), 4, "{offers:?}");
    let offer = |title: &str| offers.iter().find(|o| o["title"] == title).unwrap().clone();
    let f = offer("Rethinking serializable multiversion concurrency control");
    assert_eq!(f["from"], "OpenAlex");
    assert_eq!(f["copy"]["host"], "arXiv (Cornell University)");
    let h = offer("An evaluation of distributed concurrency control");
    assert_eq!(h["from"], "Unpaywall");
    assert_eq!(h["copy"]["version"], "acceptedVersion");
    assert_eq!(h["copy"]["licence"], "cc-by-nc-nd");
    let d = offer("The case for determinism in database systems");
    assert_eq!(d["copy"], serde_json::Value::Null);
    assert_eq!(
        d["noneBecause"],
        "no open-access copy known (OpenAlex, Unpaywall)"
    );
    assert!(!ws.join("downloads").exists(), "listing fetched something");
    assert!(
        server.requests().iter().all(|r| r.service != "files"),
        "a file was asked for before any approval"
    );

    let fetched = ok_json(&quire(
        &[
            "snowball",
            ws_arg,
            "--fetch",
            id,
            "--fetch",
            &harding_id,
            "--fetch",
            &hstore_id,
            "--json",
        ],
        data.path(),
        &env,
    ));
    let fetched = fetched.as_array().unwrap();
    assert_eq!(fetched.len(), 3);
    let by_paper = |p: &str| fetched.iter().find(|o| o["paper"] == p).unwrap()["retrieval"].clone();
    assert_eq!(by_paper(id)["retrieved"], true, "{fetched:?}");
    assert_eq!(by_paper(&harding_id)["retrieved"], true, "{fetched:?}");
    let refused = by_paper(&hstore_id);
    assert_eq!(refused["retrieved"], false);
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("served a web page instead of the PDF"),
        "{refused}"
    );
    for record in [id, harding_id.as_str()] {
        let pdf = std::fs::read(ws.join(format!("downloads/{record}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"));
        let paper: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(ws.join(format!("papers/{record}/paper.json"))).unwrap(),
        )
        .unwrap();
        let full_text = paper["fullText"]
            .as_str()
            .expect("the record has its full text");
        let pdf_paper: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(ws.join(format!("papers/{full_text}/paper.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(pdf_paper["fullTextOf"], *record);
    }
    assert!(!ws.join(format!("downloads/{hstore_id}.pdf")).exists());
    let retrieval: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(ws.join("citations/retrieval.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(retrieval.as_object().unwrap().len(), 3);
    // What is left to fetch: H-Store (its failure kept) and the
    // determinism paper.
    let left = ok_json(&quire(
        &["snowball", ws_arg, "--copies", "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(left.as_array().unwrap().len(), 2, "{left}");
    let shown = quire(&["snowball", ws_arg, "--copies"], data.path(), &env);
    let shown = String::from_utf8_lossy(&shown.stdout);
    eprintln!("{shown}");
    assert!(
        shown.contains("served a web page instead of the PDF"),
        "{shown}"
    );
    assert!(
        shown.contains("Approve a download with `--fetch PAPER`"),
        "{shown}"
    );
}

#[test]
fn a_spent_allowance_stops_the_round_and_keeps_what_was_found() {
    // Without a key the day holds a cent, of which $0.0099 is spent: the
    // first page of Spanner's citing works is paid, the second is not sent.
    let server = ScholarServer::start(ScholarFixture {
        graph: graph(),
        openalex_spent_usd: 0.0099,
        ..ScholarFixture::default()
    })
    .unwrap();
    let env = server.env();
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ris = dir.path().join("search.ris");
    std::fs::write(&ris, REVIEW_RIS).unwrap();
    let ws = dir.path().join("review");
    let ws_arg = ws.to_str().unwrap();
    ok_json(&quire(
        &["import", "--into", ws_arg, ris.to_str().unwrap(), "--json"],
        data.path(),
        &env,
    ));
    let spanner = paper_titled(&ws, "Spanner: Google's Globally-Distributed Database");
    let round = ok_json(&quire(
        &[
            "snowball",
            ws_arg,
            "--seed",
            spanner["id"].as_str().unwrap(),
            "--direction",
            "forward",
            "--json",
        ],
        data.path(),
        &env,
    ));
    assert_eq!(round["complete"], false, "{round}");
    assert_eq!(round["calls"]["list"], 1, "{round}");
    assert_eq!(round["added"], 100, "{round}");
    let paid = server
        .requests()
        .iter()
        .filter(|r| r.path.contains("filter="))
        .count();
    assert_eq!(paid, 1, "a call the allowance could not pay was sent");
    let notices = round["notices"].to_string();
    assert!(notices.contains("allowance is spent"), "{notices}");
    let text = quire(&["snowball", ws_arg, "--plan"], data.path(), &env);
    let shown = String::from_utf8_lossy(&text.stdout);
    assert!(
        shown.contains("Downloads: none until you approve them."),
        "{shown}"
    );
}

/// A review of [`REVIEW_RIS`] against the fixture `files`, with Calvin and
/// Spanner labelled include (the seeds), for the tests that start from a
/// round: the server, the folders, and the review's workspace.
struct SeededReview {
    server: ScholarServer,
    data: tempfile::TempDir,
    _dir: tempfile::TempDir,
    ws: std::path::PathBuf,
}

impl SeededReview {
    fn start(files: HashMap<String, Hosted>) -> Self {
        let server = ScholarServer::start(ScholarFixture {
            graph: graph(),
            unpaywall: unpaywall(),
            files,
            ..ScholarFixture::default()
        })
        .unwrap();
        let data = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ris = dir.path().join("search.ris");
        std::fs::write(&ris, REVIEW_RIS).unwrap();
        let review = Self {
            server,
            data,
            ws: dir.path().join("review"),
            _dir: dir,
        };
        review.run(&["import", "--into", review.ws_arg(), ris.to_str().unwrap()]);
        review.include("Calvin: Fast Distributed Transactions for Partitioned Database Systems");
        review.include("Spanner: Google's Globally-Distributed Database");
        review
    }

    fn ws_arg(&self) -> &str {
        self.ws.to_str().unwrap()
    }

    /// `quire ARGS`, which must succeed.
    fn run(&self, args: &[&str]) -> Output {
        let out = quire(args, self.data.path(), &self.server.env());
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Label the paper titled `title` include; its id.
    fn include(&self, title: &str) -> String {
        let id = paper_titled(&self.ws, title)["id"]
            .as_str()
            .unwrap()
            .to_owned();
        self.run(&["label", self.ws_arg(), &id, "--verdict", "include"]);
        id
    }
}

#[test]
fn a_download_that_starts_like_a_pdf_but_does_not_open_is_not_retrieved() {
    // Harding's host serves a file with a PDF's first bytes and nothing a
    // reader can open after them; the real PDF on the other host comes.
    let mut files = files();
    files.insert(
        "harding.pdf".to_owned(),
        Hosted::Bytes(b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog".repeat(40)),
    );
    let review = SeededReview::start(files);
    let (ws, ws_arg) = (&review.ws, review.ws_arg());
    review.run(&["snowball", ws_arg, "--json"]);
    let harding = review.include("An evaluation of distributed concurrency control");
    let faleiro = review.include("Rethinking serializable multiversion concurrency control");

    let fetched = ok_json(&review.run(&[
        "snowball", ws_arg, "--fetch", &harding, "--fetch", &faleiro, "--json",
    ]));
    let by_paper = |p: &str| {
        fetched
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["paper"] == p)
            .unwrap()["retrieval"]
            .clone()
    };
    let refused = by_paper(&harding);
    assert_eq!(refused["retrieved"], false, "{fetched}");
    assert!(
        refused["reason"]
            .as_str()
            .unwrap()
            .contains("does not open as one"),
        "{refused}"
    );
    assert!(!ws.join(format!("downloads/{harding}.pdf")).exists());
    assert_eq!(by_paper(&faleiro)["retrieved"], true, "{fetched}");
    assert!(ws.join(format!("downloads/{faleiro}.pdf")).exists());
}

#[test]
fn a_round_killed_before_its_works_were_added_has_them_added_by_the_next_plan() {
    let review = SeededReview::start(files());
    let (ws, ws_arg) = (&review.ws, review.ws_arg());
    let run = |args: &[&str]| review.run(args);
    let round = ok_json(&run(&["snowball", ws_arg, "--json"]));
    let added = round["added"].as_u64().unwrap() as usize;
    assert!(added > 100, "{round}");
    let records = |ws: &Path| {
        std::fs::read_dir(ws.join("papers"))
            .unwrap()
            .filter(|e| {
                let text = std::fs::read_to_string(e.as_ref().unwrap().path().join("paper.json"))
                    .unwrap_or_default();
                text.contains("\"citation\"")
            })
            .count()
    };
    assert_eq!(records(ws), added);

    // The state a kill between writing the round's file and importing its
    // works leaves: the round is on disk (its seeds followed), its works
    // are not in the review.
    for entry in std::fs::read_dir(ws.join("papers")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(path.join("paper.json")).unwrap_or_default();
        if text.contains("\"citation\"") {
            std::fs::remove_dir_all(&path).unwrap();
        }
    }
    assert_eq!(records(ws), 0);

    // The next plan adds them, once, and says nothing is left undone.
    let plan = ok_json(&run(&["snowball", ws_arg, "--plan", "--json"]));
    assert_eq!(records(ws), added, "{plan}");
    assert!(
        !plan["notices"].to_string().contains("not all added"),
        "{plan}"
    );
    run(&["snowball", ws_arg, "--plan", "--json"]);
    assert_eq!(records(ws), added, "imported twice");
}
