//! Search records as a user brings them: a database search's export reviewed
//! on its own (every record screened on its title and abstract, every quote
//! found in its record), and `quire import` adding records to a review of
//! PDFs, with duplicates found against the PDFs and an unreadable file named.

use std::path::Path;

use super::support::{dev_pdfs, folder_of, offline_review, quire_bin};

const UI_SET: &str = "../shared/bench/synergy/Cohen_UrinaryIncontinence.csv";

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn papers_of(ws: &Path) -> Vec<serde_json::Value> {
    let mut papers = Vec::new();
    for entry in std::fs::read_dir(ws.join("papers")).unwrap() {
        let dir = entry.unwrap().path();
        let paper: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("paper.json")).unwrap()).unwrap();
        papers.push(paper);
    }
    papers
}

fn result_of(ws: &Path, paper: &serde_json::Value) -> Option<serde_json::Value> {
    let path = ws
        .join("papers")
        .join(paper["id"].as_str().unwrap())
        .join("result.json");
    std::fs::read(path)
        .ok()
        .map(|b| serde_json::from_slice(&b).unwrap())
}

#[test]
fn a_search_export_is_reviewed_on_title_and_abstract_and_every_quote_is_in_its_record() {
    let data = tempfile::tempdir().unwrap();
    let csv_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(UI_SET);
    let question = "Which studies compare the efficacy or harms of drugs for overactive bladder and urinary incontinence?";
    let ws = offline_review(data.path(), &csv_path, question);
    let ws = Path::new(&ws);

    // The export, read apart from Quire: row n is record n.
    let mut reader = csv::Reader::from_path(&csv_path).unwrap();
    let rows: Vec<(String, String)> = reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            (words(&r[1]), words(&r[2]))
        })
        .collect();
    assert_eq!(rows.len(), 327);

    let papers = papers_of(ws);
    let identified: usize = papers
        .iter()
        .map(|p| 1 + p["duplicates"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(
        identified,
        rows.len(),
        "every row is a paper or a named duplicate"
    );
    let mut quotes = 0;
    for paper in &papers {
        let imported = &paper["imported"];
        assert_eq!(imported["format"], "CSV", "{paper}");
        let (title, abstract_text) = &rows[imported["position"].as_u64().unwrap() as usize - 1];
        assert_eq!(
            paper["title"].as_str().map(words).as_deref(),
            Some(title.as_str())
        );
        let record = format!("{title} {abstract_text}");
        let result = result_of(ws, paper).expect("every record with text is scored");
        for quote in result["evidence"].as_array().unwrap() {
            let text = words(quote["text"].as_str().unwrap());
            assert!(
                record.contains(&text),
                "{text:?} is not in record {imported}"
            );
            quotes += 1;
        }
    }
    assert!(
        quotes > papers.len(),
        "{quotes} quotes for {} records",
        papers.len()
    );

    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(report.contains("| Records identified from databases (search exports) | 327 |"));
    assert!(report.contains("(title/abstract)"));
    assert!(!report.contains("(p. 1)"), "a record has no pages");
    assert!(report.contains("screened on title and abstract only"));
}

#[test]
fn quire_import_adds_records_beside_pdfs_and_finds_duplicates_against_them() {
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 2));
    let question = "How do database systems process transactions?";
    let ws = offline_review(data.path(), folder.path(), question);
    let ws = Path::new(&ws);

    // A record of the first PDF as a database would list it: its title,
    // first author and year, as Quire read them from the PDF.
    let pdf = papers_of(ws)
        .into_iter()
        .find(|p| p["title"].as_str().is_some_and(|t| t.len() > 20))
        .expect("a PDF with a title");
    let mut ris = format!("TY  - JOUR\nTI  - {}\n", pdf["title"].as_str().unwrap());
    if let Some(author) = pdf["meta"]["authors"].get(0) {
        ris.push_str(&format!(
            "AU  - {}, {}\n",
            author["family"].as_str().unwrap(),
            author["given"].as_str().unwrap()
        ));
    }
    if let Some(year) = pdf["meta"]["year"].as_u64() {
        ris.push_str(&format!("PY  - {year}\n"));
    }
    ris.push_str("ER  - \n\nTY  - JOUR\nTI  - Serializable snapshot isolation in practice\nAB  - We measure snapshot isolation anomalies in production databases.\nAU  - Ports, Dan\nPY  - 2012\nDO  - 10.14778/2367502.2367523\nER  - \n");
    let bib = "@inproceedings{ports2012,\n  title = {Serializable Snapshot Isolation in {PostgreSQL}},\n  author = {Ports, Dan R. K. and Grittner, Kevin},\n  year = {2012},\n  doi = {https://doi.org/10.14778/2367502.2367523}\n}\n";
    let exports = tempfile::tempdir().unwrap();
    let (ris_path, bib_path, junk) = (
        exports.path().join("scopus.ris"),
        exports.path().join("dblp.bib"),
        exports.path().join("notes.txt"),
    );
    std::fs::write(&ris_path, ris).unwrap();
    std::fs::write(&bib_path, bib).unwrap();
    std::fs::write(&junk, "to read on Monday").unwrap();

    let out = std::process::Command::new(quire_bin())
        .args(["import", "--json", "--into", ws.to_str().unwrap()])
        .args([&ris_path, &bib_path, &junk])
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    // One file could not be read: said, and the exit code says so; the
    // others went in.
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 of 3 files could not be read"),
        "{stderr}"
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["added"], 3, "{summary}");
    let failed: Vec<&serde_json::Value> = summary["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| !f["error"].is_null())
        .collect();
    assert_eq!(failed.len(), 1);
    assert!(
        failed[0]["error"]
            .as_str()
            .unwrap()
            .contains("not a search export")
    );

    let groups = summary["duplicates"].as_array().unwrap();
    let kinds = |why: &str| -> Vec<String> {
        let group = groups
            .iter()
            .find(|g| g["why"] == why)
            .unwrap_or_else(|| panic!("no group by {why}: {summary}"));
        let mut kinds: Vec<String> = group["members"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["kind"].as_str().unwrap().to_owned())
            .collect();
        kinds.sort();
        kinds
    };
    assert_eq!(
        kinds("the same title, year and first author"),
        ["PDF", "RIS record"]
    );
    assert_eq!(kinds("the same DOI"), ["BibTeX record", "RIS record"]);
    // Never merged: two PDFs and three records.
    assert_eq!(papers_of(ws).len(), 5);

    // The next run reads the records beside the PDFs.
    offline_review(data.path(), folder.path(), question);
    let records: Vec<serde_json::Value> = papers_of(ws)
        .into_iter()
        .filter(|p| !p["imported"].is_null())
        .collect();
    assert_eq!(records.len(), 3);
    for record in &records {
        assert!(result_of(ws, record).is_some(), "{record}");
    }
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains("| Records identified from databases (search exports) | 3 |"),
        "{report}"
    );
    assert!(report.contains("| Records identified from files (PDFs) | 2 |"));
    assert!(report.contains("| Duplicates removed before screening | 0 |"));
    assert!(report.contains("| Records screened | 5 |"), "{report}");

    // The researcher sets the BibTeX record aside as a copy of the RIS one:
    // removed before screening, counted as a duplicate, out of the queue.
    let member = |kind: &str| -> String {
        groups
            .iter()
            .flat_map(|g| g["members"].as_array().unwrap())
            .find(|m| m["kind"] == kind)
            .unwrap()["paper"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let (copy, kept) = (member("BibTeX record"), member("RIS record"));
    let set_aside = |args: &[&str]| {
        std::process::Command::new(quire_bin())
            .args(["duplicate", ws.to_str().unwrap()])
            .args(args)
            .arg("--json")
            .env("QUIRE_DATA_DIR", data.path())
            .output()
            .unwrap()
    };
    // Not as a copy of itself.
    let refused = set_aside(&[&copy, "--of", &copy]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("cannot be a duplicate of itself"));
    let out = set_aside(&[&copy[..8], "--of", &kept[..8]]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let after: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let aside: Vec<&serde_json::Value> = after
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["members"].as_array().unwrap())
        .filter(|m| m["setAside"] == true)
        .collect();
    assert_eq!(aside.len(), 1, "{after}");
    assert_eq!(aside[0]["paper"].as_str().unwrap(), copy);
    offline_review(data.path(), folder.path(), question);
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains("| Duplicates removed before screening | 1 |"),
        "{report}"
    );
    assert!(
        report.contains("duplicates removed: 1 (identical files: 0; set aside by the researcher as copies of another record or file: 1)"),
        "{report}"
    );
    assert!(report.contains("| Records screened | 4 |"), "{report}");
    assert!(report.contains("| Records identified from databases (search exports) | 3 |"));
    let screen =
        super::support::quire_json(data.path(), &["screen", ws.to_str().unwrap(), "--json"]);
    assert_eq!(screen["total"], 4, "{screen}");

    // Put back, it is screened again.
    assert!(set_aside(&[&copy, "--put-back"]).status.success());
    let screen =
        super::support::quire_json(data.path(), &["screen", ws.to_str().unwrap(), "--json"]);
    assert_eq!(screen["total"], 5, "{screen}");
}

/// The SYNERGY set's truth, row by row (1 = included by the reviewers).
fn truth_of(csv_path: &Path) -> Vec<bool> {
    let mut reader = csv::Reader::from_path(csv_path).unwrap();
    let column = reader
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "label_included")
        .unwrap();
    reader
        .records()
        .map(|r| &r.unwrap()[column] == "1")
        .collect()
}

#[tokio::test]
async fn the_queue_learns_from_each_label_and_finds_more_than_the_question_alone() {
    use quire::commands::reviews::{LabelParams, label_set};
    use quire::commands::screening::{ScreeningParams, screening_next};
    use quire::commands::{AppContext, AppPaths};
    use quire::review::Verdict;
    use quire::review::queue::{Basis, load_ranking};

    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let csv_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(UI_SET);
    let ws = data.path().join("ws");
    quire::commands::records::records_import(
        &ctx,
        quire::commands::records::ImportParams {
            workspace: ws.clone(),
            files: vec![csv_path.clone()],
            replaces: None,
        },
        std::sync::Arc::new(|_| {}),
    )
    .await
    .unwrap();
    let truth = truth_of(&csv_path);
    let position: std::collections::HashMap<String, usize> = papers_of(&ws)
        .iter()
        .map(|p| {
            let at = p["imported"]["position"].as_u64().unwrap() as usize;
            (p["id"].as_str().unwrap().to_owned(), at - 1)
        })
        .collect();
    let question = "Which studies compare the efficacy or harms of drugs for overactive bladder and urinary incontinence?";
    let params = |count| ScreeningParams {
        workspace: ws.clone(),
        count: Some(count),
        question: Some(question.to_owned()),
        find: None,
    };

    // The order the question alone gives, before any label.
    let before = screening_next(&ctx, params(400)).await.unwrap();
    assert_eq!((before.total, before.basis), (327, Basis::Likeness));
    let budget = before.total / 4;
    let static_found = before.next[..budget]
        .iter()
        .filter(|item| truth[position[&item.paper]])
        .count();

    // Screen a quarter, labelling as the reviewers did, always taking the
    // paper the queue serves next.
    let mut served_orders_changed = 0;
    let mut previous_second: Option<String> = None;
    for _ in 0..budget {
        let view = screening_next(&ctx, params(2)).await.unwrap();
        let next = &view.next[0];
        if previous_second.as_deref().is_some_and(|p| p != next.paper) {
            served_orders_changed += 1;
        }
        previous_second = view.next.get(1).map(|i| i.paper.clone());
        let kept = truth[position[&next.paper]];
        label_set(LabelParams {
            workspace: ws.clone(),
            paper: next.paper.clone(),
            verdict: Some(if kept {
                Verdict::Include
            } else {
                Verdict::Exclude
            }),
            score: None,
            note: None,
            serve: view.serve.clone(),
        })
        .await
        .unwrap();
    }
    let after = screening_next(&ctx, params(5)).await.unwrap();
    assert_eq!(after.screened, budget);
    assert_eq!(after.basis, Basis::Learned);
    let learned_found = after.kept;
    let includes = truth.iter().filter(|t| **t).count();
    println!(
        "after screening {budget} of 327: {learned_found} of {includes} includes found learning, {static_found} by the question alone; the served paper was not the one ranked second before in {served_orders_changed} steps"
    );
    assert!(
        learned_found > static_found,
        "learning found {learned_found}, the question alone {static_found}"
    );
    assert!(served_orders_changed > 0, "labels never changed the order");
    // The curve counts what was kept, one point a label.
    assert_eq!(after.curve.len(), budget);
    assert_eq!(after.curve.last().unwrap().kept, learned_found);

    // The ranking saved is the one the same labels give again, in a new process.
    let fresh = AppContext::new(AppPaths::new(data.path()));
    screening_next(&fresh, params(5)).await.unwrap();
    let workspace = quire::workspace::Workspace::open_read_only(&ws).unwrap();
    let saved = load_ranking(&workspace).unwrap().unwrap();
    assert_eq!(saved.labels.len(), budget);
    assert_eq!(saved.order.len(), 327 - budget);
    assert_eq!(saved.order[0], after.next[0].paper);

    // The report says how the researcher screened, and the CSV keeps the
    // learned order in its own column, apart from the engine's rank.
    let reviewed = offline_review(data.path(), &csv_path, question);
    assert_eq!(Path::new(&reviewed), ws.as_path());
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains(&format!(
            "The researcher screened {budget} papers on title and abstract in Quire's screening queue"
        )),
        "{report}"
    );
    let mut csv = csv::Reader::from_path(ws.join("report.csv")).unwrap();
    let column = csv
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "screening_queue_position")
        .unwrap();
    let positions: Vec<usize> = csv
        .records()
        .filter_map(|r| r.unwrap()[column].parse().ok())
        .collect();
    assert_eq!(positions.len(), 327 - budget, "one per paper not labelled");
}

/// One RIS record, as a database lists a paper.
fn ris_record(title: &str, author: &str, year: Option<u16>, doi: Option<&str>) -> String {
    let mut ris = format!("TY  - JOUR\nTI  - {title}\nAU  - {author}\n");
    if let Some(year) = year {
        ris.push_str(&format!("PY  - {year}\n"));
    }
    if let Some(doi) = doi {
        ris.push_str(&format!("DO  - https://doi.org/{doi}\n"));
    }
    ris.push_str("AB  - The abstract as the database lists it.\nER  - \n\n");
    ris
}

#[test]
fn a_folder_of_pdfs_attached_later_gives_records_their_full_text() {
    let data = tempfile::tempdir().unwrap();
    let corpus =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/dev/machine-learning");
    // Four records with a PDF (two found by their DOI, two by title only,
    // as the hand-checked metadata gives them), one with none; the folder
    // also holds a PDF of no record.
    let ris: String = [
        ris_record(
            "Selective Search for Object Recognition",
            "Uijlings, J. R. R.",
            Some(2013),
            Some("10.1007/S11263-013-0620-5"),
        ),
        ris_record(
            "Robust Multipose Face Detection in Images",
            "Xiao, Rong",
            Some(2004),
            Some("10.1109/TCSVT.2003.818351"),
        ),
        ris_record(
            "Feature Pyramid Networks for Object Detection",
            "Lin, Tsung-Yi",
            Some(2017),
            None,
        ),
        ris_record(
            "SSD: Single Shot MultiBox Detector",
            "Liu, Wei",
            Some(2016),
            None,
        ),
        ris_record(
            "Deep residual learning for image recognition",
            "He, Kaiming",
            Some(2016),
            Some("10.1109/CVPR.2016.90"),
        ),
    ]
    .concat();
    let exports = tempfile::tempdir().unwrap();
    let export = exports.path().join("search.ris");
    std::fs::write(&export, ris).unwrap();
    let folder = folder_of(
        &[
            "2013-selectivesearch.pdf",
            "2004-robust-multipose-face-detection-in-images.pdf",
            "2016-fpn-feature-pyramid-networks.pdf",
            "2016-ssd.pdf",
            "2001-rapid-object-detection-boosted-cascade.pdf",
        ]
        .map(|f| corpus.join(f)),
    );
    let question = "Which methods detect objects in images?";
    let ws = offline_review(data.path(), &export, question);
    let ws = Path::new(&ws);

    let out = std::process::Command::new(quire_bin())
        .args([
            "import",
            "--json",
            "--into",
            ws.to_str().unwrap(),
            "--full-text",
        ])
        .arg(folder.path())
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let full = &summary["fullText"];
    println!("{full:#}");
    assert_eq!(full["pdfs"], 5, "{full}");
    assert_eq!(
        (full["records"].as_u64(), full["withFullText"].as_u64()),
        (Some(5), Some(4)),
        "{full}"
    );
    let attached: std::collections::BTreeMap<String, String> = full["attached"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["file"].as_str().unwrap().to_owned(),
                a["recordTitle"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        attached["2013-selectivesearch.pdf"],
        "Selective Search for Object Recognition"
    );
    assert_eq!(
        attached["2016-ssd.pdf"],
        "SSD: Single Shot MultiBox Detector"
    );
    assert_eq!(
        attached["2016-fpn-feature-pyramid-networks.pdf"],
        "Feature Pyramid Networks for Object Detection"
    );
    assert_eq!(
        attached["2004-robust-multipose-face-detection-in-images.pdf"],
        "Robust Multipose Face Detection in Images"
    );
    let unmatched = full["unmatched"].as_array().unwrap();
    assert_eq!(unmatched.len(), 1, "{full}");
    assert_eq!(
        unmatched[0]["file"],
        "2001-rapid-object-detection-boosted-cascade.pdf"
    );

    // Each side names the other; a full text is no duplicate of its record.
    let papers = papers_of(ws);
    let record = papers
        .iter()
        .find(|p| p["title"] == "SSD: Single Shot MultiBox Detector" && !p["imported"].is_null())
        .unwrap();
    let pdf = papers
        .iter()
        .find(|p| p["id"] == record["fullText"])
        .expect("the record names its PDF");
    assert_eq!(pdf["fullTextOf"], record["id"]);

    // The next run reads the attached PDFs beside the records; the report
    // counts the full text through the records, the lone PDF on its own.
    let review = super::support::quire_json(
        data.path(),
        &["review", export.to_str().unwrap(), "-q", question, "--json"],
    );
    assert_eq!(review["workspace"].as_str().unwrap(), ws.to_str().unwrap());
    assert!(result_of(ws, pdf).is_some(), "the attached PDF was read");
    let report = std::fs::read_to_string(ws.join("report.md")).unwrap();
    assert!(
        report.contains("| Records identified from databases (search exports) | 5 |"),
        "{report}"
    );
    assert!(
        report.contains("| Records identified from files (PDFs) | 1 |"),
        "{report}"
    );
    assert!(
        report.contains("| Records with full text attached (PDF matched to the record) | 4 |"),
        "{report}"
    );
    assert!(report.contains("| Records screened | 6 |"), "{report}");
}
