//! Looking papers up in the scholarly indexes, against the fixture server
//! (`testkit::scholar`, the real response shapes of Crossref, arXiv and
//! OpenAlex): a review takes their records with each field's source, keeps
//! the researcher's corrections, asks nothing twice, sends nothing offline,
//! and survives every way the network misbehaves. OpenAlex is asked as it
//! works since February 2026: by DOI first (free), by search only for a paper
//! with no identifier, with the researcher's key (which is never written
//! down), and a spent allowance or a refused key is said, once.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use quire::scholar::{Endpoints, Lookup, LookupOptions, Query, Service};
use testkit::scholar::{Answer, ScholarFixture, ScholarServer, Work};

use super::support::{corpus, every_file, quire_bin};

const QUESTION: &str = "How are documents ranked for ad hoc retrieval?";
const GRAPH_OF_WORD: &str = "dev/machine-learning/graph-of-word-and-tw-idf.pdf";
const MIXUP: &str = "dev/machine-learning/semi-2018-mixup.pdf";
const CALVIN: &str =
    "dev/databases/calvin-fast-distributed-transactions-for-partitioned-database-systems.pdf";
const CALVIN_TITLE: &str = "Calvin: Fast Distributed Transactions for Partitioned Database Systems";

fn work(title: &str, authors: &[(&str, &str)], year: u16) -> Work {
    Work {
        title: title.into(),
        authors: authors
            .iter()
            .map(|(g, f)| ((*g).to_owned(), (*f).to_owned()))
            .collect(),
        year,
        ..Work::default()
    }
}

/// Records for the three papers: one found by its DOI, one by its arXiv id,
/// one (which prints neither) by its title, behind a decoy whose title is
/// longer than the printed one.
fn indexes() -> ScholarFixture {
    let mut fixture = ScholarFixture::default();
    fixture.crossref.insert(
        "10.1145/2505515.2505671".into(),
        Answer::Work(Work {
            venue: Some(
                "Proceedings of the 22nd ACM international conference on Information & Knowledge Management".into(),
            ),
            doi: Some("10.1145/2505515.2505671".into()),
            abstract_text: Some("We introduce a graph-based document representation.".into()),
            ..work(
                "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR",
                &[("François", "Rousseau"), ("Michalis", "Vazirgiannis")],
                2013,
            )
        }),
    );
    fixture.arxiv.insert(
        "1710.09412".into(),
        Answer::Work(work(
            "mixup: Beyond Empirical Risk Minimization",
            &[
                ("Hongyi", "Zhang"),
                ("Moustapha", "Cisse"),
                ("Yann N.", "Dauphin"),
                ("David", "Lopez-Paz"),
            ],
            2017,
        )),
    );
    let calvin = Work {
        venue: Some(
            "Proceedings of the 2012 ACM SIGMOD International Conference on Management of Data"
                .into(),
        ),
        doi: Some("10.1145/2213836.2213838".into()),
        ..work(
            CALVIN_TITLE,
            &[("Alexander", "Thomson"), ("Thaddeus", "Diamond")],
            2012,
        )
    };
    let decoy = Work {
        venue: Some("A Retrospective Venue".into()),
        ..work(
            &format!("{CALVIN_TITLE}, Revisited"),
            &[("Some", "One")],
            2022,
        )
    };
    fixture.openalex = vec![
        (decoy.title.clone(), Answer::Work(decoy)),
        (CALVIN_TITLE.into(), Answer::Work(calvin)),
    ];
    fixture
}

fn folder(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in files {
        let from = corpus().join(file);
        std::fs::copy(&from, dir.path().join(from.file_name().unwrap())).unwrap();
    }
    dir
}

fn quire(args: &[&str], data: &Path, env: &[(&str, String)]) -> Output {
    let out = super::support::quire_online(args, data, env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn review(source: &Path, data: &Path, env: &[(&str, String)], extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["review", source.to_str().unwrap(), "-q", QUESTION, "--json"];
    args.extend(extra);
    serde_json::from_slice(&quire(&args, data, env).stdout).unwrap()
}

fn paper<'a>(summary: &'a serde_json::Value, file: &str) -> &'a serde_json::Value {
    let name = Path::new(file).file_name().unwrap().to_str().unwrap();
    summary["papers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["file"].as_str().unwrap().ends_with(name))
        .unwrap()
}

#[test]
fn a_review_takes_the_indexes_records_with_their_sources_and_keeps_corrections() {
    let server = ScholarServer::start(indexes()).unwrap();
    let source = folder(&[GRAPH_OF_WORD, MIXUP, CALVIN]);
    let data = tempfile::tempdir().unwrap();
    let env = server.env();

    let first = review(source.path(), data.path(), &env, &[]);
    let graph = paper(&first, GRAPH_OF_WORD);
    assert_eq!(
        graph["title"],
        "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR"
    );
    assert_eq!(graph["meta"]["authors"][0]["given"], "François");
    assert_eq!(graph["meta"]["sources"]["venue"], "crossref");
    assert_eq!(graph["meta"]["sources"]["authors"], "crossref");
    assert_eq!(
        graph["meta"]["abstract"],
        "We introduce a graph-based document representation."
    );
    let mixup = paper(&first, MIXUP);
    assert_eq!(mixup["title"], "mixup: Beyond Empirical Risk Minimization");
    assert_eq!(mixup["meta"]["authors"].as_array().unwrap().len(), 4);
    assert_eq!(mixup["meta"]["sources"]["title"], "arxiv");
    assert_eq!(mixup["meta"]["year"], 2017);
    let calvin = paper(&first, CALVIN);
    assert_eq!(calvin["title"], CALVIN_TITLE, "the decoy is not taken");
    assert_eq!(calvin["meta"]["doi"], "10.1145/2213836.2213838");
    assert_eq!(calvin["meta"]["sources"]["doi"], "openalex");
    assert!(calvin["meta"]["venue"].as_str().unwrap().contains("SIGMOD"));
    // A field no index gave keeps what the PDF said.
    assert_eq!(mixup["meta"]["sources"]["abstract"], "pdf");

    // Only identifiers and titles were sent, each with the contact address.
    let asked = server.requests();
    assert!(
        asked
            .iter()
            .any(|r| r.service == "crossref" && r.path == "/works/10.1145/2505515.2505671")
    );
    assert!(
        asked
            .iter()
            .any(|r| r.service == "arxiv" && r.path.contains("id_list=1710.09412"))
    );
    assert!(
        asked
            .iter()
            .any(|r| r.service == "openalex" && r.path.contains("mailto=reviewer@example.org"))
    );
    for request in &asked {
        let agent = request.user_agent.as_deref().unwrap_or("");
        assert!(
            agent.starts_with("quire/") && agent.contains("mailto:reviewer@example.org"),
            "{agent}"
        );
        assert!(
            !request.path.to_lowercase().contains("ranked"),
            "the question leaked: {}",
            request.path
        );
    }
    let workspace = first["workspace"].as_str().unwrap().to_owned();
    let bib = std::fs::read_to_string(Path::new(&workspace).join("report.bib")).unwrap();
    assert!(
        bib.contains("howpublished = {Proceedings of the 2012 ACM SIGMOD"),
        "{bib}"
    );

    // The researcher's correction outlives the next run's lookups, which
    // come from the cache.
    let id = &calvin["sha256"].as_str().unwrap()[..12];
    quire(
        &[
            "meta",
            "set",
            &workspace,
            id,
            "--title",
            "Calvin, as I cite it",
        ],
        data.path(),
        &env,
    );
    let again = review(source.path(), data.path(), &env, &[]);
    let calvin = paper(&again, CALVIN);
    assert_eq!(calvin["title"], "Calvin, as I cite it");
    assert_eq!(calvin["meta"]["sources"]["title"], "corrected");
    assert_eq!(calvin["meta"]["sources"]["venue"], "openalex");
    assert_eq!(
        server.requests().len(),
        asked.len(),
        "the second run asked again"
    );
    assert!(
        again["lookups"]["fromCache"].as_u64().unwrap() >= 3,
        "{}",
        again["lookups"]
    );

    // Offline, by flag or by environment, nothing is sent.
    let elsewhere = tempfile::tempdir().unwrap();
    let offline = review(source.path(), elsewhere.path(), &env, &["--offline"]);
    assert!(offline["lookups"].is_null());
    assert_eq!(paper(&offline, MIXUP)["meta"]["sources"]["title"], "pdf");
    let mut quiet = env.clone();
    quiet.push(("QUIRE_OFFLINE", "1".into()));
    let third = tempfile::tempdir().unwrap();
    review(source.path(), third.path(), &quiet, &[]);
    assert_eq!(
        server.requests().len(),
        asked.len(),
        "an offline review sent something"
    );
}

/// Options for a lookup against `server` with short limits.
fn options(endpoints: Endpoints) -> LookupOptions {
    LookupOptions {
        request_timeout: Duration::from_millis(800),
        longest_wait: Duration::from_secs(3),
        ..LookupOptions::new(endpoints, None, None)
    }
}

fn fixture_endpoints(server: &ScholarServer) -> Endpoints {
    Endpoints {
        crossref: server.url("crossref"),
        arxiv: server.url("arxiv"),
        openalex: server.url("openalex"),
    }
}

fn query(doi: Option<&str>, arxiv: Option<&str>, title: &str) -> Query {
    Query {
        doi: doi.map(str::to_owned),
        arxiv: arxiv.map(str::to_owned),
        title: Some(title.to_owned()),
        front_text: format!("{title}\nAn Author\nAbstract\nText."),
    }
}

#[tokio::test]
async fn a_misbehaving_network_costs_only_the_lookups() {
    let mut fixture = ScholarFixture::default();
    fixture.crossref.insert(
        "10.1/limited".into(),
        Answer::RateLimitedOnce {
            retry_after: 1,
            then: Box::new(Answer::Work(work(
                "Patience Is a Virtue",
                &[("A", "Waiter")],
                2020,
            ))),
        },
    );
    fixture.crossref.insert(
        "10.1/cited".into(),
        Answer::Work(work("A Different Paper Entirely", &[("B", "Cited")], 1999)),
    );
    fixture.arxiv.insert("2001.00001".into(), Answer::Malformed);
    fixture.openalex = vec![("Searching Forever and Ever".into(), Answer::Hang)];
    let server = ScholarServer::start(fixture).unwrap();
    let lookup = Lookup::new(options(fixture_endpoints(&server))).unwrap();

    // 429 with Retry-After: waited out, then answered.
    let found = lookup
        .find(&query(Some("10.1/limited"), None, "Patience Is a Virtue"))
        .await
        .unwrap();
    assert_eq!(found.service, Service::Crossref);
    assert_eq!(found.record.authors[0].family, "Waiter");
    assert_eq!(server.requests().len(), 2);

    // A DOI the paper cites (its record's title is not this paper's) is refused,
    // a DOI Crossref does not know is a quick "no", and neither is asked twice.
    for _ in 0..2 {
        assert!(
            lookup
                .find(&query(Some("10.1/cited"), None, "My Own Title Here"))
                .await
                .is_none()
        );
        assert!(
            lookup
                .find(&query(Some("10.1/unknown"), None, "x"))
                .await
                .is_none()
        );
    }
    assert_eq!(server.asked("crossref"), 4);

    // A malformed feed is no record (and not cached); the paper keeps its own.
    assert!(
        lookup
            .find(&query(None, Some("2001.00001v1"), "A"))
            .await
            .is_none()
    );

    // A server that never answers times out, and is not asked again this run.
    let before = server.asked("openalex");
    assert!(
        lookup
            .find(&query(None, None, "Searching Forever and Ever"))
            .await
            .is_none()
    );
    assert!(
        lookup
            .find(&query(None, None, "Searching Forever Again"))
            .await
            .is_none()
    );
    assert_eq!(server.asked("openalex") - before, 1);
    assert!(
        lookup
            .stats()
            .closed
            .iter()
            .any(|c| c.starts_with("openalex: unreachable (timed out)")),
        "{:?}",
        lookup.stats()
    );
}

#[tokio::test]
async fn no_network_is_a_quick_silent_fallback() {
    // Nothing listens on port 9 of this machine (the discard port, closed).
    let nowhere = Endpoints {
        crossref: "http://127.0.0.1:9".into(),
        arxiv: "http://127.0.0.1:9".into(),
        openalex: "http://127.0.0.1:9".into(),
    };
    let lookup = Lookup::new(options(nowhere)).unwrap();
    for n in 0..5 {
        let doi = format!("10.1/{n}");
        assert!(
            lookup
                .find(&query(Some(&doi), Some("2001.00002"), "Some Title Words"))
                .await
                .is_none()
        );
    }
    let stats = lookup.stats();
    // One attempt per service, then each is closed for the run.
    assert_eq!(stats.requests, 3, "{stats:?}");
    assert_eq!(stats.closed.len(), 3, "{stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_run_tells_the_lookups_beginning_and_end_before_it_finishes() {
    use quire::agent::{EventLog, RunEvent};
    use quire::commands::{AppContext, AppPaths, reviews};
    use quire::pdf::ingest::IngestOptions;
    use quire::review::run::{EngineSetup, ReviewRequest};
    use quire::review::{EngineKind, ReviewSpec};

    let server = ScholarServer::start(indexes()).unwrap();
    let source = folder(&[GRAPH_OF_WORD]);
    let data = tempfile::tempdir().unwrap();
    let mut ingest = IngestOptions::new(quire_bin().into());
    ingest.cache_dir = Some(data.path().join("cache"));
    let lookup = Lookup::new(LookupOptions::new(fixture_endpoints(&server), None, None)).unwrap();
    let request = ReviewRequest {
        source: source.path().to_path_buf(),
        spec: ReviewSpec {
            question: QUESTION.into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: data.path().join("ws"),
        ingest,
        engine: EngineSetup::Offline,
        lookup: Some(std::sync::Arc::new(lookup)),
    };
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let events = EventLog::new();
    let summary = reviews::start(&ctx, request, events.clone())
        .finish()
        .await
        .unwrap();
    assert_eq!(summary.lookups.as_ref().map(|l| l.matched), Some(1));
    let events = events.events();
    let at = |wanted: &dyn Fn(&RunEvent) -> bool| events.iter().position(wanted).unwrap();
    let started = at(&|e| matches!(e, RunEvent::LookupsStarted { papers: 1 }));
    let done = at(&|e| {
        matches!(
            e,
            RunEvent::LookupsDone {
                looked_up: 1,
                matched: 1,
                notices: _
            }
        )
    });
    let finished = at(&|e| matches!(e, RunEvent::Finished { .. }));
    assert!(started < done && done < finished, "{events:?}");
}

/// A work only OpenAlex knows by its DOI (a DataCite DOI, which Crossref does
/// not register), and one that prints no identifier at all.
fn openalex_only() -> ScholarFixture {
    let mut fixture = ScholarFixture::default();
    let datacite = Work {
        doi: Some("10.5281/zenodo.1234567".into()),
        ..work(
            "A Dataset Registered with DataCite",
            &[("Dana", "Cite")],
            2021,
        )
    };
    fixture.openalex = vec![
        (datacite.title.clone(), Answer::Work(datacite)),
        (
            "Unnumbered Findings Worth Finding".into(),
            Answer::Work(work(
                "Unnumbered Findings Worth Finding",
                &[("Una", "Numbered")],
                2019,
            )),
        ),
        (
            "Second Title Only Paper".into(),
            Answer::Work(work("Second Title Only Paper", &[("Sec", "Ond")], 2018)),
        ),
        (
            "Third Title Only Paper".into(),
            Answer::Work(work("Third Title Only Paper", &[("Thi", "Rd")], 2017)),
        ),
    ];
    fixture
}

fn keyed(endpoints: Endpoints, key: &str) -> LookupOptions {
    options(endpoints).with_openalex_key(Some(quire::llm::secrets::ApiKey::new(key)))
}

#[tokio::test]
async fn openalex_is_asked_by_doi_for_free_and_searched_only_for_a_paper_without_an_identifier() {
    let mut fixture = openalex_only();
    fixture.openalex_key = Some("oa-test-key".into());
    let server = ScholarServer::start(fixture).unwrap();
    let lookup = Lookup::new(keyed(fixture_endpoints(&server), "oa-test-key")).unwrap();

    // A DOI Crossref does not know is asked of OpenAlex by DOI: free, no search.
    let found = lookup
        .find(&query(
            Some("https://doi.org/10.5281/ZENODO.1234567"),
            None,
            "A Dataset Registered with DataCite",
        ))
        .await
        .unwrap();
    assert_eq!(found.service, Service::Openalex);
    assert_eq!(found.record.authors[0].family, "Cite");
    let asked: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.service == "openalex")
        .map(|r| r.path)
        .collect();
    assert_eq!(
        asked,
        ["/works/doi:10.5281/zenodo.1234567?api_key=oa-test-key"]
    );

    // A DOI nobody knows is not searched for by title: the identifier says
    // which work it is, and a search would spend the allowance for nothing.
    assert!(
        lookup
            .find(&query(
                Some("10.9999/nobody.knows"),
                None,
                "Unnumbered Findings Worth Finding"
            ))
            .await
            .is_none()
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| !r.path.contains("search=")),
        "{:?}",
        server.requests()
    );

    // A paper with no identifier is searched for by its title's words.
    let found = lookup
        .find(&query(None, None, "Unnumbered Findings Worth Finding"))
        .await
        .unwrap();
    assert_eq!(found.record.year, Some(2019));
    let searches: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("search="))
        .map(|r| r.path)
        .collect();
    assert_eq!(
        searches,
        ["/works?search=Unnumbered%20Findings%20Worth%20Finding&per-page=5&api_key=oa-test-key"]
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| !r.path.contains("title.search")),
        "the deprecated filter was used"
    );
    // The allowance OpenAlex told: a dollar a day with the key, less one search.
    let allowance = lookup.stats().openalex_allowance.unwrap();
    assert_eq!(allowance.limit_usd, 1.0);
    assert!(
        (allowance.remaining_usd - 0.999).abs() < 1e-9,
        "{allowance:?}"
    );
    assert!(lookup.stats().notices.is_empty());
}

#[tokio::test]
async fn a_spent_allowance_is_said_once_and_stops_the_searches() {
    // Without a key the day's allowance is a cent; $0.0085 is spent, so one
    // search ($0.001) is paid and the allowance then reads as spent.
    let mut fixture = openalex_only();
    fixture.openalex_spent_usd = 0.0085;
    let server = ScholarServer::start(fixture).unwrap();
    let lookup = Lookup::new(options(fixture_endpoints(&server))).unwrap();
    let titles = [
        "Unnumbered Findings Worth Finding",
        "Second Title Only Paper",
        "Third Title Only Paper",
    ];
    let first = lookup.find(&query(None, None, titles[0])).await;
    assert!(first.is_some());
    for title in &titles[1..] {
        assert!(lookup.find(&query(None, None, title)).await.is_none());
    }
    // The second search was not even sent: the first answer said nothing is left.
    assert_eq!(server.asked("openalex"), 1, "{:?}", server.requests());
    let stats = lookup.stats();
    assert_eq!(stats.notices.len(), 1, "{stats:?}");
    assert!(
        stats.notices[0].contains("one cent a day") && stats.notices[0].contains("Settings"),
        "{}",
        stats.notices[0]
    );
    assert!(
        stats
            .closed
            .iter()
            .any(|c| c == "openalex: daily allowance spent")
    );

    // Spent before the run began: OpenAlex answers 429 with no Retry-After,
    // which is the allowance, not a pause to wait out.
    let mut fixture = openalex_only();
    fixture.openalex_spent_usd = 0.0095;
    fixture.openalex_key = Some("oa-test-key".into());
    let server = ScholarServer::start(fixture).unwrap();
    let lookup = Lookup::new(options(fixture_endpoints(&server))).unwrap();
    for title in titles {
        assert!(lookup.find(&query(None, None, title)).await.is_none());
    }
    assert_eq!(server.asked("openalex"), 1);
    assert_eq!(lookup.stats().notices.len(), 1);
    assert!(lookup.stats().openalex_allowance.unwrap().is_spent());
}

#[tokio::test]
async fn a_refused_key_is_said_and_openalex_is_not_asked_again() {
    let mut fixture = openalex_only();
    fixture.openalex_key = Some("the-right-key".into());
    let server = ScholarServer::start(fixture).unwrap();
    let lookup = Lookup::new(keyed(fixture_endpoints(&server), "a-stale-key")).unwrap();
    for title in [
        "Unnumbered Findings Worth Finding",
        "Second Title Only Paper",
    ] {
        assert!(lookup.find(&query(None, None, title)).await.is_none());
    }
    assert_eq!(server.asked("openalex"), 1);
    let stats = lookup.stats();
    assert_eq!(stats.notices.len(), 1);
    assert!(
        stats.notices[0].contains("refused the API key"),
        "{stats:?}"
    );
    assert!(
        lookup
            .openalex_allowance()
            .await
            .unwrap_err()
            .contains("refused the API key"),
        "the allowance check says so too"
    );
}

#[test]
fn the_openalex_key_is_read_from_stdin_sent_to_openalex_and_never_written_down() {
    use std::io::Write;
    const KEY: &str = "oa-secret-7f3a9c";
    let mut fixture = indexes();
    fixture.openalex_key = Some(KEY.into());
    let server = ScholarServer::start(fixture).unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut env = server.env();
    // The most talkative log (Quire's and the HTTP stack's) must not hold it either.
    env.push(("QUIRE_LOG", "trace".into()));

    let mut child = std::process::Command::new(quire_bin())
        .args(["openalex", "key", "--json"])
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_CONFIG_DIR", data.path().join("config"))
        .env("QUIRE_SECRET_STORE", "file")
        .env("QUIRE_OPENALEX_URL", server.url("openalex"))
        .env_remove("QUIRE_OFFLINE")
        .env_remove("QUIRE_OPENALEX_API_KEY")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "  {KEY}  ").unwrap();
    let saved = child.wait_with_output().unwrap();
    assert!(
        saved.status.success(),
        "{}",
        String::from_utf8_lossy(&saved.stderr)
    );
    let status: serde_json::Value = serde_json::from_slice(&saved.stdout).unwrap();
    assert!(
        status["keySource"].as_str().unwrap().ends_with("keys.toml"),
        "{status}"
    );
    assert_eq!(
        status["allowance"]["limitUsd"], 1.0,
        "checked with the key: {status}"
    );
    let key_file = std::fs::read_to_string(data.path().join("config/keys.toml")).unwrap();
    assert!(key_file.contains("[services]") && key_file.contains(KEY));

    let human = quire(&["openalex", "status", "--check"], data.path(), &env);
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(
        human.contains("Today's allowance: $1.0000 of $1.00 left"),
        "{human}"
    );

    // A review sends the key with every OpenAlex request (Calvin prints no
    // identifier, so it is searched for).
    let source = folder(&[CALVIN]);
    let out = quire(
        &[
            "review",
            source.path().to_str().unwrap(),
            "-q",
            QUESTION,
            "--json",
        ],
        data.path(),
        &env,
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        paper(&summary, CALVIN)["meta"]["sources"]["venue"],
        "openalex"
    );
    let openalex: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.service == "openalex" && r.path.starts_with("/works"))
        .collect();
    assert!(!openalex.is_empty());
    assert!(
        openalex
            .iter()
            .all(|r| r.path.contains(&format!("api_key={KEY}")))
    );
    assert!(
        server
            .requests()
            .iter()
            .all(|r| r.service == "openalex" || !r.path.contains(KEY))
    );

    // Nowhere but the key file: not the output, the debug log, the review's
    // files, the cache or the index.
    for (what, bytes) in [
        ("stdout", &out.stdout),
        ("stderr", &out.stderr),
        ("status stdout", &saved.stdout),
        ("status stderr", &saved.stderr),
    ] {
        assert!(
            !String::from_utf8_lossy(bytes).contains(KEY),
            "the key is in the {what}"
        );
    }
    let workspace = summary["workspace"].as_str().unwrap();
    for root in [data.path(), Path::new(workspace)] {
        for file in every_file(root) {
            if file.ends_with("keys.toml") {
                continue;
            }
            let bytes = std::fs::read(&file).unwrap();
            assert!(
                !bytes.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
                "the key is in {}",
                file.display()
            );
        }
    }

    // Forgotten, the next status has no key.
    let forgot = quire(&["openalex", "forget-key", "--json"], data.path(), &env);
    let forgot: serde_json::Value = serde_json::from_slice(&forgot.stdout).unwrap();
    assert!(forgot["keySource"].is_null(), "{forgot}");
    assert!(
        !std::fs::read_to_string(data.path().join("config/keys.toml"))
            .unwrap()
            .contains(KEY)
    );
}

#[tokio::test]
async fn open_access_downloads_reach_public_https_hosts_only_and_never_carry_the_contact() {
    use quire::scholar::file_hosts::FileHosts;
    use quire::scholar::open_access::OpenAccess;
    use std::sync::atomic::Ordering;
    use testkit::scholar::Hosted;

    let (service, reached) = super::support::unanswering_listener();
    let pdf = corpus().join("dev/databases").join(
        std::fs::read_dir(corpus().join("dev/databases"))
            .unwrap()
            .filter_map(|e| e.ok())
            .find(|e| e.path().extension().is_some_and(|x| x == "pdf"))
            .unwrap()
            .file_name(),
    );
    let server = ScholarServer::start(ScholarFixture {
        files: [
            ("paper.pdf".to_owned(), Hosted::Pdf(pdf)),
            (
                "to-loopback".to_owned(),
                Hosted::RedirectTo(format!("http://{service}/admin")),
            ),
            (
                "to-loopback-https".to_owned(),
                Hosted::RedirectTo(format!("https://{service}/admin")),
            ),
            (
                "to-plain-http".to_owned(),
                Hosted::RedirectTo("http://repository.example.org/paper.pdf".into()),
            ),
        ]
        .into(),
        ..ScholarFixture::default()
    })
    .unwrap();
    let origin = server.file_url("paper.pdf");
    let trusted = origin
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let oa = OpenAccess::with_file_hosts(
        server.url("unpaywall"),
        Some("researcher@university.example".into()),
        FileHosts::trusting(&trusted),
    )
    .unwrap();

    // The trusted host's PDF comes, asked without the contact address.
    let bytes = oa.fetch_pdf(&origin).await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    let agents: Vec<String> = server
        .requests()
        .iter()
        .filter(|r| r.service == "files")
        .filter_map(|r| r.user_agent.clone())
        .collect();
    assert_eq!(agents.len(), 1, "{agents:?}");
    assert!(
        agents
            .iter()
            .all(|a| !a.contains('@') && !a.contains("mailto")),
        "the contact went to a file host: {agents:?}"
    );

    // Redirects into this machine, and a drop from https, are refused
    // before anything is asked of them; so is an address on loopback
    // named directly, and plain http to an untrusted host.
    for (url, says) in [
        (server.file_url("to-loopback"), "loopback"),
        (server.file_url("to-loopback-https"), "loopback"),
        (format!("http://{service}/x.pdf"), "loopback"),
        (format!("https://{service}/x.pdf"), "loopback"),
        ("http://repository.example.org/x.pdf".into(), "https only"),
    ] {
        let why = oa.fetch_pdf(&url).await.unwrap_err();
        assert!(why.contains(says), "{url}: {why}");
    }
    assert_eq!(
        reached.load(Ordering::SeqCst),
        0,
        "a local service was reached"
    );
    // A trusted host may hand on to plain http on another host only if
    // that host is trusted too: this one is not.
    let why = oa
        .fetch_pdf(&server.file_url("to-plain-http"))
        .await
        .unwrap_err();
    assert!(why.contains("https only"), "{why}");
}

#[tokio::test]
async fn a_record_of_the_same_title_that_names_none_of_the_printed_authors_is_not_taken() {
    let title = "Paxos Made Simple";
    let record = |family: &str| ScholarFixture {
        openalex: vec![(
            title.into(),
            Answer::Work(work(title, &[("Some", family)], 2020)),
        )],
        ..ScholarFixture::default()
    };
    let front_text = format!(
        "{title}\nLeslie Lamport\n01 Nov 2001\nAbstract\n{}",
        "The Paxos algorithm, when presented in plain English, is very simple. ".repeat(6)
    );
    let page = Query {
        doi: None,
        arxiv: None,
        title: Some(title.into()),
        front_text,
    };

    // A talk, a thesis or a review of the same name: its people are not on
    // the page, and its year and authors must not replace the page's.
    let server = ScholarServer::start(record("Imposter")).unwrap();
    let lookup = Lookup::new(options(fixture_endpoints(&server))).unwrap();
    assert!(lookup.find(&page).await.is_none());
    assert_eq!(server.asked("openalex"), 1, "it was asked, and refused");

    let server = ScholarServer::start(record("Lamport")).unwrap();
    let lookup = Lookup::new(options(fixture_endpoints(&server))).unwrap();
    let found = lookup.find(&page).await.unwrap();
    assert_eq!(found.record.authors[0].family, "Lamport");
}
