//! A Zotero collection reviewed as a researcher keeps one: read from the
//! running Zotero (the local API fixture, its real response shapes) or, with
//! Zotero closed, from a private copy of its database (a `zotero.sqlite`
//! built from Zotero's schema, real PDFs in `storage/`). Items become
//! records with their key, version, tags and notes; their PDFs are their
//! full text; the database is never written; an item edited in Zotero stays
//! the same paper; a Zotero that refuses other applications says how to fix it.

use std::path::Path;
use std::process::Output;

use sha2::{Digest, Sha256};
use testkit::zotero::{Attachment, Collection, Item, Library, LocalApiServer, write_data_dir};

use super::support::{corpus, ok_json, quire_bin};

const QUESTION: &str = "How do distributed databases order transactions?";
const CALVIN: &str =
    "dev/databases/calvin-fast-distributed-transactions-for-partitioned-database-systems.pdf";
const GRAPH_OF_WORD: &str = "dev/machine-learning/graph-of-word-and-tw-idf.pdf";
const CALVIN_TITLE: &str = "Calvin: Fast Distributed Transactions for Partitioned Database Systems";

fn creator(first: &str, last: &str) -> (String, String, String) {
    ("author".into(), first.into(), last.into())
}

/// A thesis library: "Thesis / Chapter 2" holds two papers with their PDFs
/// and one whose PDF was never downloaded; a trashed item and an item of
/// another collection stay out; a group library has a collection too.
fn library() -> Library {
    let collection = |library, key: &str, name: &str, parent: Option<&str>| Collection {
        library,
        key: key.into(),
        name: name.into(),
        parent: parent.map(Into::into),
    };
    Library {
        groups: vec![(4711, "Lab".into())],
        collections: vec![
            collection(0, "THESIS01", "Thesis", None),
            collection(0, "CHAP0002", "Chapter 2", Some("THESIS01")),
            collection(0, "OTHER003", "Other", None),
            collection(4711, "READ0004", "Reading", None),
        ],
        items: vec![
            Item {
                key: "CALVIN01".into(),
                version: 41,
                item_type: "conferencePaper".into(),
                title: CALVIN_TITLE.into(),
                creators: vec![
                    creator("Alexander", "Thomson"),
                    creator("Thaddeus", "Diamond"),
                    ("editor".into(), "Ed".into(), "Itor".into()),
                ],
                date: "May 2012".into(),
                doi: Some("10.1145/2213836.2213838".into()),
                publication: Some("Proceedings of SIGMOD 2012".into()),
                abstract_text: Some("Calvin orders transactions before executing them.".into()),
                tags: vec!["deterministic".into(), "to-read".into()],
                notes: vec!["<p>Compare with <b>Spanner</b> in section 3.</p>".into()],
                collections: vec!["CHAP0002".into()],
                attachments: vec![Attachment {
                    key: "CALVPDF1".into(),
                    file_name: "Thomson et al. - 2012 - Calvin.pdf".into(),
                    source: Some(corpus().join(CALVIN)),
                }],
                ..Item::default()
            },
            Item {
                key: "GRAPHW02".into(),
                version: 7,
                item_type: "journalArticle".into(),
                title: "Graph-of-word and TW-IDF: New Approach to Ad Hoc IR".into(),
                creators: vec![
                    creator("François", "Rousseau"),
                    creator("Michalis", "Vazirgiannis"),
                ],
                date: "2013".into(),
                doi: Some("10.1145/2505515.2505671".into()),
                collections: vec!["CHAP0002".into()],
                attachments: vec![Attachment {
                    key: "GRAPHPD2".into(),
                    file_name: "graph-of-word.pdf".into(),
                    source: Some(corpus().join(GRAPH_OF_WORD)),
                }],
                ..Item::default()
            },
            Item {
                key: "NOFILE03".into(),
                version: 3,
                item_type: "journalArticle".into(),
                title: "Spanner: Google's Globally Distributed Database".into(),
                creators: vec![creator("James C.", "Corbett")],
                date: "2013".into(),
                abstract_text: Some("Spanner is a globally distributed database.".into()),
                // Zotero keeps a PMID and an arXiv id in Extra, as its
                // PubMed and arXiv translators write them.
                extra: Some("PMID: 23456789\narXiv: 1207.00001v3\ntex.ids: spanner".into()),
                collections: vec!["CHAP0002".into()],
                attachments: vec![Attachment {
                    key: "SPANPDF3".into(),
                    file_name: "spanner.pdf".into(),
                    source: None,
                }],
                ..Item::default()
            },
            Item {
                key: "TRASH004".into(),
                version: 2,
                item_type: "journalArticle".into(),
                title: "A Paper Moved to the Trash".into(),
                collections: vec!["CHAP0002".into()],
                trashed: true,
                ..Item::default()
            },
            Item {
                key: "ELSEWH05".into(),
                version: 2,
                item_type: "journalArticle".into(),
                title: "A Paper of Another Collection".into(),
                collections: vec!["OTHER003".into()],
                ..Item::default()
            },
        ],
    }
}

fn quire(args: &[&str], data: &Path, env: &[(&str, String)]) -> Output {
    let mut command = std::process::Command::new(quire_bin());
    command
        .args(args)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_CONFIG_DIR", data.join("config"))
        .env("QUIRE_OFFLINE", "1")
        .env("QUIRE_SECRET_STORE", "file");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

fn papers_of(ws: &Path) -> Vec<serde_json::Value> {
    std::fs::read_dir(ws.join("papers"))
        .unwrap()
        .map(|e| {
            let dir = e.unwrap().path();
            serde_json::from_slice(&std::fs::read(dir.join("paper.json")).unwrap()).unwrap()
        })
        .collect()
}

fn record<'a>(papers: &'a [serde_json::Value], key: &str) -> &'a serde_json::Value {
    papers
        .iter()
        .find(|p| p["imported"]["zotero"]["key"] == key)
        .unwrap_or_else(|| panic!("no record of {key}"))
}

/// What a review of Chapter 2 must hold, however Zotero was read.
fn assert_chapter_two(review: &serde_json::Value) {
    let ws = Path::new(review["workspace"].as_str().unwrap());
    let papers = papers_of(ws);
    let records: Vec<_> = papers.iter().filter(|p| !p["imported"].is_null()).collect();
    assert_eq!(
        records.len(),
        3,
        "trashed and other items stay out: {records:#?}"
    );
    let calvin = record(&papers, "CALVIN01");
    assert_eq!(calvin["title"], CALVIN_TITLE);
    assert_eq!(calvin["imported"]["format"], "Zotero");
    assert_eq!(calvin["imported"]["zotero"]["version"], 41);
    assert_eq!(calvin["imported"]["zotero"]["library"], "users/0");
    assert_eq!(
        calvin["imported"]["zotero"]["tags"],
        serde_json::json!(["deterministic", "to-read"])
    );
    assert_eq!(
        calvin["imported"]["zotero"]["notes"],
        serde_json::json!(["Compare with Spanner in section 3."])
    );
    // Authors, not the editor; every field from Zotero.
    assert_eq!(calvin["meta"]["authors"].as_array().unwrap().len(), 2);
    assert_eq!(calvin["meta"]["authors"][0]["family"], "Thomson");
    assert_eq!(calvin["meta"]["year"], 2012);
    assert_eq!(calvin["meta"]["venue"], "Proceedings of SIGMOD 2012");
    for field in ["title", "authors", "year", "venue", "doi", "abstract"] {
        assert_eq!(calvin["meta"]["sources"][field], "zotero", "{field}");
    }
    // Its PDF is its full text, read by the run.
    let pdf = papers
        .iter()
        .find(|p| p["id"] == calvin["fullText"])
        .expect("the record names its PDF");
    assert_eq!(pdf["fullTextOf"], calvin["id"]);
    assert!(
        pdf["file"]
            .as_str()
            .unwrap()
            .ends_with("Thomson et al. - 2012 - Calvin.pdf")
    );
    assert!(
        ws.join("papers")
            .join(pdf["id"].as_str().unwrap())
            .join("result.json")
            .is_file(),
        "the PDF was read with the review"
    );
    assert!(!record(&papers, "GRAPHW02")["fullText"].is_null());
    // An item whose file was never downloaded is a record without full
    // text, and says why.
    let spanner = record(&papers, "NOFILE03");
    assert!(spanner["fullText"].is_null());
    // Extra's identifiers are the record's.
    assert_eq!(spanner["imported"]["pmid"], "23456789", "{spanner}");
    assert_eq!(spanner["meta"]["arxiv"], "1207.00001", "{spanner}");
    assert!(calvin["imported"]["pmid"].is_null());
    assert!(
        spanner["imported"]["zotero"]["missingPdfs"][0]
            .as_str()
            .unwrap()
            .contains("spanner.pdf"),
        "{spanner}"
    );
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains("| Records with full text attached (PDF matched to the record) | 2 |"),
        "{report}"
    );
}

#[test]
fn a_zotero_collection_is_reviewed_from_the_running_zotero() {
    let zotero = tempfile::tempdir().unwrap();
    write_data_dir(zotero.path(), &library()).unwrap();
    let server = LocalApiServer::start(library(), zotero.path(), true).unwrap();
    let data = tempfile::tempdir().unwrap();
    let env = [("QUIRE_ZOTERO_URL", server.url())];

    let listed = ok_json(&quire(
        &["zotero", "collections", "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(listed["via"], "localApi");
    let paths: Vec<String> = listed["collections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{} / {} ({})",
                c["library"]["name"].as_str().unwrap(),
                c["path"].as_str().unwrap(),
                c["items"]
            )
        })
        .collect();
    assert_eq!(
        paths,
        [
            "My Library / Other (1)",
            "My Library / Thesis (0)",
            "My Library / Thesis / Chapter 2 (3)",
            "Lab / Reading (0)"
        ]
    );

    let out = quire(
        &[
            "review",
            "--zotero",
            "thesis/chapter 2",
            "-q",
            QUESTION,
            "--json",
        ],
        data.path(),
        &env,
    );
    let review = ok_json(&out);
    assert_chapter_two(&review);
    let requests = server.requests();
    assert!(
        requests
            .iter()
            .all(|r| r.api_version.as_deref() == Some("3"))
    );
    assert!(
        requests.iter().any(|r| r
            .path
            .starts_with("/api/users/0/items/CALVPDF1/file/view/url")),
        "{requests:?}"
    );

    // Edited in Zotero, the item stays the same paper, its record renewed;
    // the review is the same one, found by its collection.
    let ws = review["workspace"].as_str().unwrap().to_owned();
    let calvin_id = record(&papers_of(Path::new(&ws)), "CALVIN01")["id"].clone();
    let spanner_id = record(&papers_of(Path::new(&ws)), "NOFILE03")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let spanner_result = || {
        std::fs::read_to_string(Path::new(&ws).join(format!("papers/{spanner_id}/result.json")))
            .unwrap()
    };
    assert!(spanner_result().contains("Spanner is a globally distributed database"));
    let mut edited = library();
    edited.items[0].title = "Calvin (edited in Zotero)".into();
    edited.items[0].version = 42;
    // An abstract corrected in Zotero: the reading of the old one is no
    // result of the record now (its quotes are not in its text).
    assert_eq!(edited.items[2].key, "NOFILE03");
    edited.items[2].abstract_text = Some(
        "Spanner shards data across many sets of Paxos state machines in datacenters all over the world."
            .into(),
    );
    edited.items[2].version = 4;
    let server = LocalApiServer::start(edited, zotero.path(), true).unwrap();
    let env = [("QUIRE_ZOTERO_URL", server.url())];
    let again = ok_json(&quire(
        &["review", "--zotero", "CHAP0002", "-q", QUESTION, "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(again["workspace"].as_str().unwrap(), ws);
    let papers = papers_of(Path::new(&ws));
    let calvin = record(&papers, "CALVIN01");
    assert_eq!(calvin["id"], calvin_id);
    assert_eq!(calvin["title"], "Calvin (edited in Zotero)");
    assert_eq!(calvin["imported"]["zotero"]["version"], 42);
    let read_again = spanner_result();
    assert!(
        !read_again.contains("Spanner is a globally distributed database"),
        "the reading of the old abstract survived: {read_again}"
    );
    assert!(read_again.contains("Paxos state machines"), "{read_again}");
    assert!(
        !calvin["fullText"].is_null(),
        "the full text stays attached"
    );
    assert_eq!(
        papers.iter().filter(|p| !p["imported"].is_null()).count(),
        3
    );
}

#[test]
fn with_zotero_closed_a_private_copy_of_its_database_is_read_and_never_written() {
    let zotero = tempfile::tempdir().unwrap();
    write_data_dir(zotero.path(), &library()).unwrap();
    let database = zotero.path().join("zotero.sqlite");
    let before = Sha256::digest(std::fs::read(&database).unwrap());
    let modified = std::fs::metadata(&database).unwrap().modified().unwrap();
    let data = tempfile::tempdir().unwrap();
    // Nothing listens on the discard port: Zotero is closed.
    let env = [
        ("QUIRE_ZOTERO_URL", "http://127.0.0.1:9".to_owned()),
        ("QUIRE_ZOTERO_DATA_DIR", zotero.path().display().to_string()),
    ];
    let listed = ok_json(&quire(
        &["zotero", "collections", "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(listed["via"], "database");
    assert_eq!(listed["collections"].as_array().unwrap().len(), 4);
    let human = quire(&["zotero", "collections"], data.path(), &env);
    let human = String::from_utf8_lossy(&human.stdout).into_owned();
    assert!(
        human.contains("CHAP0002  My Library / Thesis / Chapter 2  (3 items)"),
        "{human}"
    );

    let out = quire(
        &["review", "--zotero", "Chapter 2", "-q", QUESTION, "--json"],
        data.path(),
        &env,
    );
    assert_chapter_two(&ok_json(&out));
    assert_eq!(Sha256::digest(std::fs::read(&database).unwrap()), before);
    assert_eq!(
        std::fs::metadata(&database).unwrap().modified().unwrap(),
        modified
    );
    assert!(
        !zotero.path().join("zotero.sqlite-journal").exists()
            && !zotero.path().join("zotero.sqlite-wal").exists()
    );
}

#[test]
fn zotero_says_what_to_tick_and_which_collections_there_are() {
    let zotero = tempfile::tempdir().unwrap();
    write_data_dir(zotero.path(), &library()).unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = LocalApiServer::start(library(), zotero.path(), false).unwrap();
    let out = quire(
        &["review", "--zotero", "Chapter 2", "-q", QUESTION],
        data.path(),
        &[("QUIRE_ZOTERO_URL", server.url())],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Allow other applications on this computer to communicate with Zotero"),
        "{err}"
    );

    let server = LocalApiServer::start(library(), zotero.path(), true).unwrap();
    let env = [("QUIRE_ZOTERO_URL", server.url())];
    let out = quire(
        &["review", "--zotero", "Chapter 9", "-q", QUESTION],
        data.path(),
        &env,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("no Zotero collection is called \"Chapter 9\"")
            && err.contains("My Library / Thesis / Chapter 2 (CHAP0002)"),
        "{err}"
    );
    let out = quire(
        &["review", "--zotero", "Lab / Reading", "-q", QUESTION],
        data.path(),
        &env,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("the Zotero collection holds no item"), "{err}");

    // Zotero closed and no data folder: where it looked, and how to point it.
    let nowhere = data.path().join("no-zotero-here");
    let out = quire(
        &["zotero", "collections"],
        data.path(),
        &[
            ("QUIRE_ZOTERO_URL", "http://127.0.0.1:9".to_owned()),
            ("QUIRE_ZOTERO_DATA_DIR", nowhere.display().to_string()),
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("QUIRE_ZOTERO_DATA_DIR") && err.contains("no-zotero-here"),
        "{err}"
    );
}

/// The same items as Zotero's online library holds them (synced), each
/// with the researcher's own tags and a note of their own.
fn online_library() -> Vec<testkit::zotero_web::Object> {
    use testkit::zotero_web::Object;
    let mut objects = Vec::new();
    for (key, version) in [("CALVIN01", 41), ("GRAPHW02", 7), ("NOFILE03", 3)] {
        objects.push(Object {
            key: key.into(),
            version,
            item_type: "journalArticle".into(),
            tags: vec![("to-read".into(), 0), ("Databases".into(), 1)],
            ..Object::default()
        });
        objects.push(Object {
            key: format!("USRN{}", &key[4..]),
            version,
            item_type: "note".into(),
            parent: Some(key.into()),
            note: Some("<p>My own reading notes.</p>".into()),
            ..Object::default()
        });
    }
    objects
}

#[test]
fn verdicts_go_back_to_zotero_as_tags_and_one_note_each_and_only_what_changed_is_written() {
    use testkit::zotero_web::{Quirks, WebApiServer};
    const KEY: &str = "zkey-writes-4711";
    let zotero = tempfile::tempdir().unwrap();
    write_data_dir(zotero.path(), &library()).unwrap();
    let local = LocalApiServer::start(library(), zotero.path(), true).unwrap();
    let web = WebApiServer::start(KEY, 475, online_library()).unwrap();
    let data = tempfile::tempdir().unwrap();
    let env = [
        ("QUIRE_ZOTERO_URL", local.url()),
        ("QUIRE_ZOTERO_WEB_URL", web.url()),
    ];
    let review = ok_json(&quire(
        &["review", "--zotero", "Chapter 2", "-q", QUESTION, "--json"],
        data.path(),
        &env,
    ));
    let ws = review["workspace"].as_str().unwrap().to_owned();
    let papers = papers_of(Path::new(&ws));
    let spanner = record(&papers, "NOFILE03")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let label = |verdict: &str| {
        let out = quire(
            &["label", &ws, &spanner, "--verdict", verdict],
            data.path(),
            &env,
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    label("exclude");

    // Without a key, the push says where to get one.
    let out = quire(&["zotero", "push", &ws], data.path(), &env);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("zotero.org/settings/keys"));

    // The key is read from stdin and kept out of sight.
    let mut child = std::process::Command::new(quire_bin())
        .args(["zotero", "key"])
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_CONFIG_DIR", data.path().join("config"))
        .env("QUIRE_SECRET_STORE", "file")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        writeln!(child.stdin.take().unwrap(), "{KEY}").unwrap();
    }
    let saved = child.wait_with_output().unwrap();
    assert!(saved.status.success());
    assert!(!String::from_utf8_lossy(&saved.stdout).contains(KEY));

    let push = |expect_ok: bool| {
        let out = quire(&["zotero", "push", &ws, "--json"], data.path(), &env);
        assert_eq!(
            out.status.success(),
            expect_ok,
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stdout).contains(KEY));
        assert!(!String::from_utf8_lossy(&out.stderr).contains(KEY));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let first = push(true);
    println!("first push: {first}");
    assert_eq!(first["items"], 3);
    assert_eq!(first["tagged"], 3);
    assert_eq!(first["notesCreated"], 3);
    assert_eq!(first["unchanged"], 0);
    assert_eq!(first["failed"], serde_json::json!([]));

    let tags = |key: &str| -> Vec<(String, u8)> {
        let mut tags = web.object(key).unwrap().tags;
        tags.sort();
        tags
    };
    let spanner_tags = tags("NOFILE03");
    assert!(
        spanner_tags.contains(&("to-read".into(), 0)),
        "{spanner_tags:?}"
    );
    assert!(
        spanner_tags.contains(&("Databases".into(), 1)),
        "the translator's tag stays"
    );
    assert!(
        spanner_tags.contains(&("screen:exclude".into(), 0)),
        "{spanner_tags:?}"
    );
    let calvin_tags = tags("CALVIN01");
    let engine: Vec<&str> = calvin_tags
        .iter()
        .filter(|(t, kind)| t.starts_with("quire:") && *kind == 1)
        .map(|(t, _)| t.as_str())
        .collect();
    assert!(
        engine
            .iter()
            .any(|t| ["quire:include", "quire:maybe", "quire:exclude"].contains(t))
            && engine.iter().any(|t| t.starts_with("quire:score:")),
        "{calvin_tags:?}"
    );
    assert!(
        !calvin_tags.iter().any(|(t, _)| t.starts_with("screen:")),
        "no label, no screen tag"
    );
    // One note of Quire's beside the researcher's own, untouched.
    let notes = web.notes_of("CALVIN01");
    assert_eq!(notes.len(), 2);
    assert!(
        notes
            .iter()
            .any(|n| n.note.as_deref() == Some("<p>My own reading notes.</p>"))
    );
    let ours = notes
        .iter()
        .find(|n| n.tags.iter().any(|(t, _)| t == "quire:note"))
        .unwrap();
    let html = ours.note.clone().unwrap();
    println!("{html}");
    assert!(html.contains("data-quire-review="), "{html}");
    assert!(html.contains(QUESTION), "{html}");
    assert!(html.contains("<h2>Rationale</h2>"), "{html}");
    assert!(
        html.contains("zotero://open-pdf/library/items/CALVPDF1?page="),
        "quotes link to their page in the PDF: {html}"
    );

    // The researcher's own screening tag and another tool's, put on in
    // Zotero: Quire did not write them, so they are not Quire's to remove.
    web.edit("CALVIN01", |o| {
        o.tags.push(("screen:exclude".into(), 0));
        o.tags.push(("screen:pending".into(), 0));
    });

    // Nothing changed of Quire's part: a second push reads and writes
    // nothing, and leaves their tags.
    web.reset_traffic();
    let second = push(true);
    assert_eq!(second["unchanged"], 3, "{second}");
    assert_eq!(
        (
            second["tagged"].as_u64(),
            second["notesCreated"].as_u64(),
            second["notesUpdated"].as_u64()
        ),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(web.traffic().posts, 0, "a push with nothing changed wrote");

    // The researcher tags in Zotero and changes their label: the label's
    // tag moves, their new tag stays.
    web.edit("NOFILE03", |o| o.tags.push(("important".into(), 0)));
    label("include");
    web.reset_traffic();
    let third = push(true);
    assert_eq!(third["tagged"], 1, "{third}");
    let spanner_tags = tags("NOFILE03");
    assert!(spanner_tags.contains(&("important".into(), 0)));
    assert!(spanner_tags.contains(&("screen:include".into(), 0)));
    assert!(!spanner_tags.contains(&("screen:exclude".into(), 0)));
    assert_eq!(web.traffic().posts, 1);

    // Edited in Zotero between Quire's read and its write (412): read again,
    // Quire's part applied afresh, the researcher's edit kept. A 429 and a
    // Backoff on the way are waited out.
    label("maybe");
    web.quirks(Quirks {
        edit_after_read: Some(("NOFILE03".into(), "edited-meanwhile".into())),
        rate_limit_next_write: true,
        backoff_next: true,
    });
    web.reset_traffic();
    let fourth = push(true);
    assert_eq!(fourth["conflictsResolved"], 1, "{fourth}");
    assert_eq!(fourth["failed"], serde_json::json!([]), "{fourth}");
    let spanner_tags = tags("NOFILE03");
    assert!(
        spanner_tags.contains(&("edited-meanwhile".into(), 0)),
        "{spanner_tags:?}"
    );
    assert!(
        spanner_tags.contains(&("screen:maybe".into(), 0)),
        "{spanner_tags:?}"
    );
    let traffic = web.traffic();
    assert!(
        traffic.waited_ms.iter().all(|ms| *ms >= 900),
        "waits obeyed: {traffic:?}"
    );
    assert!(traffic.max_in_flight <= 4);
    assert_eq!(traffic.bad_keys, 0);

    // A label on the item that carries the researcher's own screening tag:
    // theirs stays, Quire's is not written beside it, and the push says so.
    let calvin = record(&papers, "CALVIN01")["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let out = quire(
        &["label", &ws, &calvin, "--verdict", "include"],
        data.path(),
        &env,
    );
    assert!(out.status.success());
    let fifth = push(true);
    let calvin_tags = tags("CALVIN01");
    for theirs in ["screen:exclude", "screen:pending"] {
        assert!(
            calvin_tags.contains(&(theirs.into(), 0)),
            "{theirs} was removed: {calvin_tags:?}"
        );
    }
    assert!(
        !calvin_tags.contains(&("screen:include".into(), 0)),
        "{calvin_tags:?}"
    );
    let kept = fifth["theirScreenTagsKept"].as_array().unwrap();
    assert_eq!(kept.len(), 1, "{fifth}");
    assert!(
        kept[0].as_str().unwrap().contains("screen:exclude"),
        "{fifth}"
    );
}

#[test]
fn with_zotero_10_running_one_approval_lets_quire_write_locally_with_no_cloud_key() {
    use testkit::zotero_web::{Consent, WebApiServer};
    let zotero = tempfile::tempdir().unwrap();
    write_data_dir(zotero.path(), &library()).unwrap();
    let local = LocalApiServer::start(library(), zotero.path(), true).unwrap();
    let data = tempfile::tempdir().unwrap();
    let review = ok_json(&quire(
        &["review", "--zotero", "Chapter 2", "-q", QUESTION, "--json"],
        data.path(),
        &[("QUIRE_ZOTERO_URL", local.url())],
    ));
    let ws = review["workspace"].as_str().unwrap().to_owned();

    // Zotero 10 runs; the Web API is out of reach, so any write that lands
    // came through the local API.
    let z10 = WebApiServer::start_local("db-42", Consent::AlwaysAllow, online_library()).unwrap();
    let env = [
        ("QUIRE_ZOTERO_URL", z10.url()),
        ("QUIRE_ZOTERO_WEB_URL", "http://127.0.0.1:9".to_owned()),
    ];
    let out = quire(&["zotero", "push", &ws], data.path(), &env);
    assert!(!out.status.success());
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("quire zotero authorize"), "{said}");
    assert_eq!(z10.traffic().posts, 0);

    let allowed = ok_json(&quire(
        &["zotero", "authorize", "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(allowed["serverId"], "db-42");
    assert!(
        allowed["keySource"].as_str().unwrap().contains("keys.toml"),
        "{allowed}"
    );
    assert_eq!(z10.asked_by(), ["Quire"]);
    let kept = std::fs::read_to_string(data.path().join("config/keys.toml")).unwrap();
    assert!(kept.contains("zotero-local:db-42"), "{kept}");

    // With a proxy set for plain http, the local key never goes to it:
    // local clients never use a proxy.
    let (proxy, proxied) = super::support::unanswering_listener();
    let mut through_proxy = env.to_vec();
    for name in ["http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"] {
        through_proxy.push((name, format!("http://{proxy}")));
    }
    let pushed = ok_json(&quire(
        &["zotero", "push", &ws, "--json"],
        data.path(),
        &through_proxy,
    ));
    assert_eq!(
        proxied.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "a local write went through the proxy"
    );
    assert_eq!(pushed["tagged"], 3, "{pushed}");
    assert_eq!(pushed["notesCreated"], 3, "{pushed}");
    let calvin = z10.object("CALVIN01").unwrap();
    assert!(
        calvin
            .tags
            .iter()
            .any(|(t, kind)| t.starts_with("quire:") && *kind == 1),
        "{calvin:?}"
    );
    assert!(calvin.tags.iter().any(|(t, _)| t == "to-read"));
    assert_eq!(
        z10.notes_of("CALVIN01").len(),
        2,
        "the researcher's note and Quire's"
    );
    // A second push with nothing changed writes nothing, locally too.
    let posts = z10.traffic().posts;
    let again = ok_json(&quire(
        &["zotero", "push", &ws, "--json"],
        data.path(),
        &env,
    ));
    assert_eq!(again["unchanged"], 3, "{again}");
    assert_eq!(z10.traffic().posts, posts);

    // Another Zotero database (another computer's library, a new profile):
    // the key granted for db-42 is not used, and a denial is said as one.
    let other = WebApiServer::start_local("db-99", Consent::Deny, online_library()).unwrap();
    let env = [
        ("QUIRE_ZOTERO_URL", other.url()),
        ("QUIRE_ZOTERO_WEB_URL", "http://127.0.0.1:9".to_owned()),
    ];
    let out = quire(&["zotero", "push", &ws], data.path(), &env);
    assert!(!out.status.success());
    assert_eq!(other.traffic().posts, 0);
    let out = quire(&["zotero", "authorize"], data.path(), &env);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("denied"));
}
