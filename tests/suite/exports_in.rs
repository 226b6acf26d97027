//! Real database exports read right (issue 49's cases, from the
//! fixtures in `tests/fixtures/exports`, whose sources are in its
//! SOURCES.md): Ovid RIS without phantom records or cited names as
//! authors, Web of Science plain text, Scopus BibTeX with its header and
//! odd field names, one broken BibTeX entry skipped by name, LaTeX decoded,
//! MEDLINE with one unreadable date, any encoding and line end, and a file
//! cut short said so.

use std::path::{Path, PathBuf};

use quire::records::{self, Format};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/exports")
        .join(name)
}

fn fixture_text(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

#[test]
fn ovid_ris_gives_one_record_a_record_with_its_own_authors_alone() {
    let export = records::read_file(&fixture("ovid.ris")).unwrap();
    assert_eq!(export.format, Format::Ris);
    assert_eq!(
        export.records.len(),
        3,
        "the NL and Link lines make no records"
    );
    assert!(export.notices.is_empty(), "{:?}", export.notices);
    let titles: Vec<&str> = export.records.iter().map(|r| r.title.as_str()).collect();
    assert_eq!(titles[0], "Creationism and the Dinosaur Boom.");
    let psyc = &export.records[2];
    assert_eq!(
        psyc.authors,
        ["Keefer, Amy", "Vasa, Roma A"],
        "A2 names cited authors"
    );
    assert_eq!(psyc.year, Some(2021));
    assert_eq!(psyc.doi.as_deref(), Some("10.1186/s11689-021-09396-9"));
    assert_eq!(
        psyc.journal.as_deref(),
        Some("Journal of Neurodevelopmental Disorders")
    );
    assert!(
        psyc.abstract_text
            .as_deref()
            .unwrap()
            .starts_with("Background: Anxiety")
    );
    assert_eq!(
        export.records[1].doi.as_deref(),
        Some("10.1080/21548455.2016.1200155")
    );
}

#[test]
fn web_of_science_plain_text_is_read_with_full_names_and_identifiers() {
    let export = records::read_file(&fixture("wos-savedrecs.txt")).unwrap();
    assert_eq!(export.format, Format::WebOfScience);
    assert_eq!(export.records.len(), 2);
    let first = &export.records[0];
    assert_eq!(
        first.title,
        "Caregivers' views on stigmatization and discrimination of people affected by leprosy in Ghana"
    );
    assert_eq!(
        first.authors,
        [
            "Asampong, Emmanuel",
            "Gyeke, Mavis Dako Plusminus",
            "Oduro, Razak"
        ]
    );
    assert_eq!(first.year, Some(2018));
    assert_eq!(first.doi.as_deref(), Some("10.1371/journal.pntd.0006219"));
    assert_eq!(first.pmid.as_deref(), Some("29377890"));
    assert_eq!(
        first.journal.as_deref(),
        Some("PLOS NEGLECTED TROPICAL DISEASES")
    );
    assert!(export.records[1].keywords.contains(&"IMPACT".to_owned()));
}

#[test]
fn scopus_bibtex_is_read_and_a_broken_entry_is_skipped_by_name_and_line() {
    let export = records::read_file(&fixture("scopus.bib")).unwrap();
    assert_eq!(export.format, Format::Bibtex);
    let titles: Vec<&str> = export.records.iter().map(|r| r.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "MGMASR: Multi-Graph and Multi-Aspect Neural Network for Service Recommendation in Internet of Services",
            "A Survey on Service Recommendation in the Internet of Things",
            "Neural Über-models",
        ]
    );
    let jia = &export.records[0];
    assert_eq!(jia.authors, ["Jia, Zhixuan", "Fan, Yushun", "Zhang, Jia"]);
    assert_eq!(jia.doi.as_deref(), Some("10.1109/tnsm.2023.3239847"));
    assert_eq!(
        jia.keywords,
        ["service recommendation", "graph neural network"]
    );
    assert_eq!(
        export.records[1].abstract_text.as_deref(),
        Some("The Über-service recommender of the 11. century, called \"the best\", is surveyed.")
    );
    assert_eq!(
        export.records[2].authors,
        ["van der Steen, Martijn Pieter", "Türkmen, Ali"]
    );
    let said = export.notices.join("\n");
    assert!(said.contains("\"Broken2021\" at line 33"), "{said}");
    assert!(said.contains("@set entry at line 40"), "{said}");
}

#[test]
fn the_same_work_from_ris_and_from_latex_bibtex_without_a_doi_is_found_a_duplicate() {
    let bib = records::parse(
        "@article{k, author = {T{\\\"u}rkmen, Ali}, title = {{\\\"U}ber die {Entwicklung} von Tests}, year = {2019}}",
        Path::new("refs.bib"),
    )
    .unwrap();
    let ris = records::parse(
        "TY  - JOUR\nTI  - Über die Entwicklung von Tests\nAU  - Türkmen, Ali\nPY  - 2019\nER  - \n",
        Path::new("search.ris"),
    )
    .unwrap();
    let (a, b) = (&bib.records[0], &ris.records[0]);
    assert_eq!(a.title, b.title);
    assert_eq!(a.authors, b.authors);
    assert_eq!(a.year, b.year);
}

#[test]
fn one_unreadable_medline_date_flags_its_record_and_keeps_the_file() {
    let text = fixture_text("pubmed.nbib").replace("DP  - 2023 Apr 25", "DP  - Spring");
    let export = records::parse(&text, Path::new("pubmed.nbib")).unwrap();
    assert_eq!(export.records.len(), 3);
    assert_eq!(export.records[1].year, None);
    assert_eq!(export.records[0].authors[0], "Griffin, Darren K");
    assert_eq!(
        export.records[0].doi.as_deref(),
        Some("10.1016/j.ejmg.2019.03.004")
    );
    assert_eq!(export.notices.len(), 1, "{:?}", export.notices);
    assert!(
        export.notices[0].contains("PMID 37068225"),
        "{:?}",
        export.notices
    );
}

#[test]
fn every_encoding_and_line_end_a_tool_writes_gives_the_same_records() {
    let text = fixture_text("ovid.ris").replace("Keefer, Amy", "Kéefer, Åmy");
    let dir = tempfile::tempdir().unwrap();
    let expected = records::parse(&text, Path::new("x.ris")).unwrap().records;
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let cp1252: Vec<u8> = text
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    let cr_only = text.replace('\n', "\r").into_bytes();
    let crlf = text.replace('\n', "\r\n").into_bytes();
    for (name, bytes, guessed) in [
        ("utf16.ris", utf16, false),
        ("cp1252.ris", cp1252, true),
        ("mac.ris", cr_only, false),
        ("windows.ris", crlf, false),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        let export = records::read_file(&path).unwrap();
        let got: Vec<_> = export
            .records
            .iter()
            .map(|r| (&r.title, &r.authors))
            .collect();
        let want: Vec<_> = expected.iter().map(|r| (&r.title, &r.authors)).collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(
            export.notices.iter().any(|n| n.contains("Windows-1252")),
            guessed,
            "{name}: {:?}",
            export.notices
        );
    }
}

#[test]
fn a_file_cut_inside_a_record_is_said() {
    let text = fixture_text("wos-savedrecs.txt");
    let cut = &text[..text.find("PY 2018\nVL 12\nIS 1\nAR e0006178").unwrap()];
    let export = records::parse(cut, Path::new("savedrecs.txt")).unwrap();
    assert_eq!(export.records.len(), 2);
    assert!(
        export
            .notices
            .iter()
            .any(|n| n.contains("ends inside record 2")),
        "{:?}",
        export.notices
    );
    let ris = fixture_text("ovid.ris");
    let cut = &ris[..ris.rfind("M3  - ").unwrap()];
    let export = records::parse(cut, Path::new("x.ris")).unwrap();
    assert!(
        export
            .notices
            .iter()
            .any(|n| n.contains("ends inside record 3")),
        "{:?}",
        export.notices
    );
}

#[test]
fn an_import_whose_files_all_fail_makes_no_review() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("notes.txt");
    std::fs::write(&junk, "to read on Monday").unwrap();
    let missing = dir.path().join("gone.ris");
    let review = dir.path().join("new-review");
    let out = std::process::Command::new(crate::suite::support::quire_bin())
        .args(["import", "--into", review.to_str().unwrap()])
        .args([&junk, &missing])
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no review was made"), "{stderr}");
    assert!(
        stderr.contains("notes.txt") && stderr.contains("gone.ris"),
        "{stderr}"
    );
    assert!(!review.exists(), "nothing was made at {}", review.display());

    // One readable file makes the review, the failed one named beside it.
    let ris = dir.path().join("search.ris");
    std::fs::write(&ris, "TY  - JOUR\nTI  - A readable record\nER  - \n").unwrap();
    let out = std::process::Command::new(crate::suite::support::quire_bin())
        .args(["import", "--into", review.to_str().unwrap()])
        .args([&junk, &ris])
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(review.join("task.json").is_file());
}

/// The first record of a table fixture, and the file's notices.
fn first_row(name: &str) -> (records::Record, Vec<String>, usize) {
    let export = records::read_file(&fixture(name)).unwrap();
    assert_eq!(export.format, Format::Csv, "{name}");
    let count = export.records.len();
    (export.records[0].clone(), export.notices, count)
}

#[test]
fn the_tables_of_the_major_databases_and_tools_are_read_by_their_headers() {
    // Scopus: full names without their author ids, the source title.
    let (scopus, notices, n) = first_row("scopus.csv");
    assert_eq!(n, 1);
    assert_eq!(scopus.authors.len(), 8);
    assert_eq!(scopus.authors[0], "Wilson, Lauren N.");
    assert_eq!(scopus.journal.as_deref(), Some("Nature Communications"));
    assert_eq!(
        (scopus.year, scopus.doi.as_deref()),
        (Some(2024), Some("10.1038/s41467-024-46843-2"))
    );
    assert!(
        scopus
            .abstract_text
            .unwrap()
            .starts_with("Global climate patterns")
    );
    assert!(
        notices[0].contains("authors from “Author full names”"),
        "{notices:?}"
    );

    // Embase: past its preamble; "Author Names" parted at its commas.
    let (embase, notices, n) = first_row("embase.csv");
    assert_eq!(n, 2);
    assert_eq!(
        embase.authors,
        ["Yang, Z.", "Jiang, B.", "Xu, J.", "McNamara, M.E."]
    );
    assert_eq!(embase.year, Some(2024));
    assert_eq!(embase.pmid.as_deref(), Some("38773066"));
    assert_eq!(embase.journal.as_deref(), Some("Nature Communications"));
    assert!(
        notices[0].contains("3 lines before the header"),
        "{notices:?}"
    );
    assert!(
        notices[1].contains("authors from “Author Names”"),
        "{notices:?}"
    );

    // PubMed: "Griffin DK, Larkin DM, O'Connor RE.", Journal/Book.
    let (pubmed, _, n) = first_row("pubmed.csv");
    assert_eq!(n, 4);
    assert_eq!(
        pubmed.authors,
        ["Griffin, DK", "Larkin, DM", "O'Connor, RE"]
    );
    assert_eq!(pubmed.journal.as_deref(), Some("Eur J Med Genet"));
    assert_eq!(pubmed.pmid.as_deref(), Some("30922926"));

    // Zotero: Publication Title is the journal, not the title; Extra's PMID.
    let (zotero, _, n) = first_row("zotero.csv");
    assert_eq!(n, 2);
    assert!(
        zotero
            .title
            .starts_with("The Value of Radiologic Interventions")
    );
    assert_eq!(
        zotero.journal.as_deref(),
        Some("Molecular imaging and biology")
    );
    assert_eq!(zotero.authors[0], "Blomberg, Björn A.");
    assert_eq!(zotero.pmid.as_deref(), Some("22752652"));

    // Covidence and Rayyan: semicolons, " and ", a DOI cell with a link after it.
    let (covidence, _, _) = first_row("covidence.csv");
    assert_eq!(
        covidence.authors,
        ["Yang, Z.", "Jiang, B.", "Xu, J.", "McNamara, M.E."]
    );
    assert_eq!(covidence.year, Some(2024));
    let (rayyan, _, n) = first_row("rayyan.csv");
    assert_eq!(n, 2);
    assert_eq!(rayyan.authors, covidence.authors);
    assert_eq!(rayyan.doi.as_deref(), Some("10.1038/s41467-024-48400-3"));
    assert_eq!(rayyan.keywords[0], "keratin");

    // Web of Science tab-delimited, a .txt with a title column headed TI.
    let (wos, notices, n) = first_row("wos-tab.txt");
    assert_eq!(n, 1);
    assert!(
        wos.title
            .starts_with("Towards unravelling the relationship")
    );
    assert_eq!(
        wos.authors,
        ["Kanjo, Eiman", "Younis, Eman M. G.", "Sherkat, Nasser"]
    );
    assert_eq!(
        (wos.year, wos.journal.as_deref()),
        (Some(2018), Some("INFORMATION FUSION"))
    );
    assert_eq!(wos.doi.as_deref(), Some("10.1016/j.inffus.2017.05.005"));
    assert!(notices[0].contains("title from “TI”"), "{notices:?}");
}

#[tokio::test]
async fn a_record_a_file_holds_twice_is_counted_twice_and_shown_a_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let record = |title: &str, doi: &str| {
        format!("TY  - JOUR\nTI  - {title}\nAU  - Smith, John\nPY  - 2004\nDO  - {doi}\nER  - \n\n")
    };
    let repeated = record("Methylphenidate in children", "10.1000/adhd.1");
    let ris = dir.path().join("search.ris");
    std::fs::write(
        &ris,
        format!(
            "{repeated}{}{repeated}",
            record("Atomoxetine in adults", "10.1000/adhd.2")
        ),
    )
    .unwrap();
    let review = dir.path().join("review");
    let import = || {
        quire::review::imports::import_files(
            &quire::workspace::Workspace::open_or_init(&review).unwrap(),
            std::slice::from_ref(&ris),
        )
        .unwrap()
    };
    std::fs::create_dir_all(&review).unwrap();
    let task = quire::workspace::TaskMeta::new(
        quire::workspace::WorkspaceId("r".into()),
        "r".into(),
        dir.path(),
    );
    drop(quire::workspace::Workspace::create(&review, &task).unwrap());
    let summary = import();
    assert_eq!(
        (summary.files[0].records, summary.added),
        (3, 3),
        "{summary:?}"
    );
    assert_eq!(summary.duplicates.len(), 1, "{summary:?}");
    assert_eq!(summary.duplicates[0].members.len(), 2);
    // Imported again, the file is the same three papers.
    let again = import();
    assert_eq!(again.added, 0);
    assert_eq!(again.papers, summary.papers);

    let flow = quire::commands::review_view::review_flow(review.clone())
        .await
        .unwrap();
    assert_eq!((flow.identified, flow.from_databases), (3, 3), "{flow:?}");
}

#[test]
fn an_import_killed_midway_leaves_the_review_as_it_was_and_run_again_goes_in_whole() {
    let data = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let review = dir.path().join("review");
    let import = |file: &Path| {
        let mut command = std::process::Command::new(crate::suite::support::quire_bin());
        command
            .args(["import", "--into", review.to_str().unwrap()])
            .arg(file)
            .env("QUIRE_DATA_DIR", data.path())
            .env("QUIRE_OFFLINE", "1")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        command
    };
    let first = dir.path().join("first.ris");
    std::fs::write(
        &first,
        "TY  - JOUR\nTI  - An earlier record\nER  - \n\nTY  - JOUR\nTI  - Another earlier record\nER  - \n",
    )
    .unwrap();
    assert!(import(&first).status().unwrap().success());

    let big = dir.path().join("big.csv");
    let mut csv = String::from("title,abstract,year\n");
    for n in 0..4000 {
        csv.push_str(&format!(
            "\"Record {n} of a large search\",\"An abstract of record {n}, long enough to be read as one.\",2020\n"
        ));
    }
    std::fs::write(&big, csv).unwrap();
    let papers = || {
        quire::workspace::Workspace::open(&review)
            .unwrap()
            .papers()
            .unwrap()
            .len()
    };

    // Killed while its records are being taken in: the review as it was.
    let mut child = import(&big).spawn().unwrap();
    let staging = review.join(".quire").join("batch");
    let killed_midway = loop {
        if child.try_wait().unwrap().is_some() {
            break false;
        }
        let staged = std::fs::read_dir(&staging).map_or(0, |d| d.count());
        if staged >= 300 {
            child.kill().unwrap();
            child.wait().unwrap();
            break true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert!(
        killed_midway,
        "the import finished before it could be killed"
    );
    let after_kill = papers();
    assert!(
        after_kill == 2 || after_kill == 4002,
        "half an import: {after_kill} papers"
    );
    assert!(!staging.exists(), "the staged files were swept on open");

    // Run again, it goes in whole.
    assert!(import(&big).status().unwrap().success());
    assert_eq!(papers(), 4002);
}

/// A review made in `dir` ("review"), for tests that import into one.
fn new_review(dir: &Path) -> PathBuf {
    let review = dir.join("review");
    let task =
        quire::workspace::TaskMeta::new(quire::workspace::WorkspaceId("r".into()), "r".into(), dir);
    drop(quire::workspace::Workspace::create(&review, &task).unwrap());
    review
}

#[tokio::test]
async fn an_updated_search_reimported_keeps_its_labels_rereads_what_changed_and_lists_what_left() {
    use quire::review::imports::{import_exports, import_files, read_exports};
    use quire::workspace::{PaperFile, PaperId, Workspace};

    let dir = tempfile::tempdir().unwrap();
    let review = new_review(dir.path());
    let fixture = fixture_text("pubmed.nbib");
    // The search as first run: the eLife record had no DOI yet.
    let earlier = dir.path().join("pubmed-2026-06.nbib");
    std::fs::write(
        &earlier,
        fixture.replace("LID - 10.7554/eLife.80092 [doi]\n", ""),
    )
    .unwrap();
    let first = import_files(
        &Workspace::open(&review).unwrap(),
        std::slice::from_ref(&earlier),
    )
    .unwrap();
    assert_eq!(first.added, 3, "{first:?}");
    let [genomics, beetles, spinosaurus] = <[String; 3]>::try_from(first.papers.clone()).unwrap();

    // The researcher labels all three; the engine has read all three.
    for (paper, verdict) in [
        (&genomics, quire::review::Verdict::Exclude),
        (&beetles, quire::review::Verdict::Include),
        (&spinosaurus, quire::review::Verdict::Include),
    ] {
        quire::commands::reviews::label_set(quire::commands::reviews::LabelParams {
            workspace: review.clone(),
            paper: paper.clone(),
            verdict: Some(verdict),
            score: None,
            note: Some("checked by hand".into()),
            serve: None,
        })
        .await
        .unwrap();
    }
    let ws = Workspace::open(&review).unwrap();
    let result_of = |paper: &str| PaperFile::Result.path(&PaperId(paper.to_owned())).unwrap();
    for paper in [&genomics, &beetles, &spinosaurus] {
        ws.write_json(&result_of(paper), &serde_json::json!({"read": "before"}))
            .unwrap();
    }
    drop(ws);

    // Run again six months on: PubMed added the DOI, the beetles abstract
    // was corrected, the genomics review left the search, one record is new.
    let newer = dir.path().join("pubmed-2026-12.nbib");
    let genomics_record = fixture.split("\n\n").next().unwrap().to_owned();
    let new_record = "PMID- 39000001\nOWN - NLM\nDP  - 2024 Jan\nTI  - Feathered dinosaurs from the Jehol Biota revisited.\nAB  - A new look at the feathered dinosaurs of the Jehol Biota.\nFAU - Xu, Xing\nAU  - Xu X\nJT  - Nature\nSO  - Nature. 2024 Jan.\n";
    let updated = fixture
        .replacen(&format!("{genomics_record}\n\n"), "", 1)
        .replace("a panoply of symbiotic", "a wide range of symbiotic")
        + "\n"
        + new_record;
    std::fs::write(&newer, &updated).unwrap();
    let exports: Vec<_> = read_exports(std::slice::from_ref(&newer))
        .into_iter()
        .map(|e| e.replacing(&earlier))
        .collect();
    let ws = Workspace::open(&review).unwrap();
    let summary = import_exports(&ws, &exports, &|_| {}).unwrap();
    let line = &summary.files[0];
    assert_eq!(
        (line.records, line.added, line.updated, line.reread),
        (3, 1, 2, 1),
        "{line:?}"
    );
    assert_eq!(
        line.replaces.as_deref(),
        Some(std::fs::canonicalize(&earlier).unwrap().to_str().unwrap())
    );
    assert_eq!(line.left.len(), 1, "{line:?}");
    assert_eq!(line.left[0].paper, genomics);
    assert_eq!(
        line.left[0].title.as_deref(),
        Some("Time lapse: A glimpse into prehistoric genomics.")
    );

    // The same papers, no second unlabelled one: four in all.
    let papers = ws.papers().unwrap();
    assert_eq!(papers.len(), 4, "{papers:?}");
    let paper = |id: &str| papers.iter().find(|p| p.id.0 == id).unwrap().clone();
    for id in [&genomics, &beetles, &spinosaurus] {
        let label = quire::review::labels::load(&ws, &PaperId(id.clone()))
            .unwrap()
            .unwrap_or_else(|| panic!("{id} lost its label"));
        assert_eq!(label.note.as_deref(), Some("checked by hand"));
    }
    // The DOI is the record's now, and it points at the newer file; its
    // reading (of the same title and abstract) stays.
    let spinosaurus_now = paper(&spinosaurus);
    assert_eq!(
        spinosaurus_now.meta.doi.as_deref(),
        Some("10.7554/elife.80092")
    );
    assert_eq!(spinosaurus_now.file, std::fs::canonicalize(&newer).unwrap());
    assert!(ws.read(&result_of(&spinosaurus)).is_ok());
    // The corrected abstract is read again: its reading is gone, its text new.
    assert!(ws.read(&result_of(&beetles)).is_err());
    assert!(
        paper(&beetles)
            .meta
            .abstract_text
            .unwrap()
            .contains("a wide range of symbiotic")
    );
    let text = quire::review::paper_text::load(&ws, &PaperId(beetles.clone()))
        .unwrap()
        .unwrap();
    assert!(text[0].contains("a wide range of symbiotic"), "{text:?}");
    // What left the search stays, read and labelled, marked so.
    let left = paper(&genomics);
    assert!(left.imported.as_ref().unwrap().left_search);
    assert!(ws.read(&result_of(&genomics)).is_ok());
    drop(ws);

    // The newer file imported again is the same review.
    let again = import_files(
        &Workspace::open(&review).unwrap(),
        std::slice::from_ref(&newer),
    )
    .unwrap();
    let line = &again.files[0];
    assert_eq!(
        (line.added, line.updated, line.left.len()),
        (0, 0, 1),
        "{line:?}"
    );

    // The file exported over in place, the genomics record back in it: it
    // is found again as it was, no longer marked as having left.
    std::fs::write(&newer, format!("{genomics_record}\n\n{updated}")).unwrap();
    let back = import_files(
        &Workspace::open(&review).unwrap(),
        std::slice::from_ref(&newer),
    )
    .unwrap();
    let line = &back.files[0];
    assert_eq!(
        (line.added, line.updated, line.left.len()),
        (0, 0, 0),
        "{line:?}"
    );
    let ws = Workspace::open(&review).unwrap();
    let genomics_now = ws
        .papers()
        .unwrap()
        .into_iter()
        .find(|p| p.id.0 == genomics)
        .unwrap();
    assert!(!genomics_now.imported.unwrap().left_search);
    assert_eq!(genomics_now.file, std::fs::canonicalize(&newer).unwrap());
    assert_eq!(ws.papers().unwrap().len(), 4);
}
