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
}
