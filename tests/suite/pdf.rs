//! Ingestion on real and hostile PDFs: every file gets the right status, nothing
//! crashes or hangs, and a second pass is served from the cache.

use std::path::PathBuf;

use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::sha256_file;
use quire::workspace::PaperStatus;

use super::support::{corpus, dev_pdfs, quire_bin};

fn options(cache: Option<PathBuf>) -> IngestOptions {
    let mut options = IngestOptions::new(PathBuf::from(quire_bin()));
    options.cache_dir = cache;
    options
}

/// Without an OCR engine, as on a machine that has none installed.
fn without_ocr(cache: Option<PathBuf>) -> IngestOptions {
    let mut options = options(cache);
    options.ocr = false;
    options
}

fn with_hashes(files: &[PathBuf]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .map(|f| (f.clone(), sha256_file(f).unwrap()))
        .collect()
}

#[tokio::test]
async fn every_hostile_file_gets_its_expected_status() {
    let bad = corpus().join("bad");
    let expected = [
        ("x.pdf", PaperStatus::NotPdf),
        ("text-renamed.pdf", PaperStatus::NotPdf),
        ("truncated-30pct.pdf", PaperStatus::Damaged),
        ("encrypted-aes256-userpw.pdf", PaperStatus::Encrypted),
        ("encrypted-rc4-ownerpw-only.pdf", PaperStatus::Ok),
        ("no-text-layer-scan.pdf", PaperStatus::NeedsOcr),
        ("huge-2000-pages.pdf", PaperStatus::TooLarge),
        ("flate-bomb-1gib.pdf", PaperStatus::Damaged),
        ("nested-arrays-200k.pdf", PaperStatus::Ok),
    ];
    let files: Vec<PathBuf> = expected.iter().map(|(name, _)| bad.join(name)).collect();
    let results = extract_all(with_hashes(&files), &without_ocr(None), |_, _| {}).await;
    for ((name, status), result) in expected.iter().zip(&results) {
        assert_eq!(result.status, *status, "{name}: {:?}", result.reason);
        if *status != PaperStatus::Ok {
            assert!(
                result.reason.as_deref().is_some_and(|r| r.len() > 10),
                "{name} needs a reason a person can read"
            );
        }
    }
    let owner_only = &results[4];
    assert!(
        owner_only.pages.len() > 5
            && owner_only
                .pages
                .iter()
                .any(|p| p.split_whitespace().count() > 100)
    );
    assert!(results[8].pages[0].contains("Nested arrays hostile test"));
    let scan = results[5].reason.as_deref().unwrap_or_default();
    assert!(
        scan.contains("tesseract-ocr"),
        "says what would read it: {scan}"
    );
    let truncated = &results[2];
    assert!(
        truncated.pages.len() >= 5,
        "the readable part of a truncated file is kept"
    );
}

#[tokio::test]
async fn real_papers_come_out_as_clean_pages_and_the_second_pass_uses_the_cache() {
    let cache = tempfile::tempdir().unwrap();
    let files = dev_pdfs("machine-learning", 3);
    let first = extract_all(
        with_hashes(&files),
        &options(Some(cache.path().into())),
        |_, _| {},
    )
    .await;
    for (file, ex) in files.iter().zip(&first) {
        assert_eq!(
            ex.status,
            PaperStatus::Ok,
            "{}: {:?}",
            file.display(),
            ex.reason
        );
        assert!(!ex.from_cache);
        let text = ex.pages.join("\n");
        assert!(
            !text.contains('\u{FB01}') && !text.contains('\u{FB02}'),
            "ligatures are folded"
        );
        assert!(ex.pages.len() >= 2);
    }
    let second = extract_all(
        with_hashes(&files),
        &options(Some(cache.path().into())),
        |_, _| {},
    )
    .await;
    for (a, b) in first.iter().zip(&second) {
        assert!(b.from_cache);
        assert_eq!(a.pages, b.pages);
    }
}

#[tokio::test]
async fn a_scan_is_read_by_ocr_and_a_scan_cached_before_ocr_was_installed_is_read_again() {
    assert!(
        quire::pdf::ocr::available(),
        "this test needs tesseract and pdftoppm (scripts/setup installs them)"
    );
    let cache = tempfile::tempdir().unwrap();
    let scan = vec![corpus().join("bad/no-text-layer-scan.pdf")];
    let before = extract_all(
        with_hashes(&scan),
        &without_ocr(Some(cache.path().into())),
        |_, _| {},
    )
    .await;
    assert_eq!(before[0].status, PaperStatus::NeedsOcr);

    let read = extract_all(
        with_hashes(&scan),
        &options(Some(cache.path().into())),
        |_, _| {},
    )
    .await;
    let read = &read[0];
    assert!(!read.from_cache, "the needs_ocr entry is not reused");
    assert_eq!(read.status, PaperStatus::Ok, "{:?}", read.reason);
    assert!(read.ocr());
    assert_eq!(read.pages.len(), 4);
    let first = &read.pages[0];
    assert!(
        first.contains("ZooKeeper") && first.contains("coordination"),
        "{first}"
    );

    // Read once, the OCR text comes from the cache.
    let again = extract_all(
        with_hashes(&scan),
        &options(Some(cache.path().into())),
        |_, _| {},
    )
    .await;
    assert!(again[0].from_cache && again[0].ocr());
    assert_eq!(again[0].pages, read.pages);
}

#[tokio::test]
async fn a_scanned_title_page_before_a_text_layer_is_read_by_ocr() {
    assert!(
        quire::pdf::ocr::available(),
        "this test needs tesseract and pdftoppm (scripts/setup installs them)"
    );
    // Its first two pages are page images; the rest has a text layer.
    let paper = vec![corpus().join("dev/databases/datalog-magic-vs-tabling.pdf")];
    let without = extract_all(with_hashes(&paper), &without_ocr(None), |_, _| {}).await;
    assert_eq!(without[0].status, PaperStatus::Ok);
    assert!(without[0].pages[0].is_empty(), "{:?}", without[0].pages[0]);

    let read = extract_all(with_hashes(&paper), &options(None), |_, _| {}).await;
    let read = &read[0];
    assert_eq!(read.status, PaperStatus::Ok, "{:?}", read.reason);
    assert_eq!(read.pages.len(), without[0].pages.len());
    assert!(
        read.pages[0].contains("Recursive Queries") && read.pages[0].contains("Freire"),
        "{}",
        read.pages[0]
    );
    // The text layer's pages are kept as they were.
    assert_eq!(read.pages[2..], without[0].pages[2..]);
    let meta = quire::pdf::metadata::read_metadata(&read.info, &read.pages, &read.head);
    assert_eq!(
        meta.title.as_deref(),
        Some("Using Logic Programming to Efficiently Evaluate Recursive Queries")
    );
}

/// OCR past its time limit is stopped whole: the worker and every program it
/// started, and its page images are removed. (A stand-in `pdftoppm` that hangs, first on the PATH.)
#[test]
fn ocr_past_its_time_limit_leaves_no_program_running() {
    if !quire::pdf::ocr::available() {
        panic!("this test needs tesseract and pdftoppm (scripts/setup installs them)");
    }
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let fake = dir.path().join("pdftoppm");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho $$ >> '{}'\nexec sleep 120\n",
            pids.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        dir.path().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let scan = corpus().join("bad/no-text-layer-scan.pdf");
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = std::process::Command::new(quire_bin())
        .args(["extract", "--json"])
        .arg(&scan)
        .env("PATH", path)
        .env("QUIRE_OCR_TIMEOUT", "2")
        .env("TMPDIR", &tmp)
        .env("QUIRE_DATA_DIR", dir.path().join("data"))
        .output()
        .unwrap();
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&out.stderr));
    });
    assert_eq!(line["status"], "needs_ocr", "{line}");
    let started = std::fs::read_to_string(&pids).unwrap();
    assert!(!started.trim().is_empty(), "the stand-in was run");
    // Killed processes are reaped by whoever adopted them; give that a moment.
    let alive = |pid: &str| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            stat.rsplit(") ")
                .next()
                .is_some_and(|s| !s.starts_with('Z'))
        })
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while started.lines().any(alive) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let left: Vec<&str> = started.lines().filter(|p| alive(p)).collect();
    assert!(
        left.is_empty(),
        "still running after the time limit: {left:?}"
    );
    // Nor are its page images left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&tmp).unwrap().collect();
    assert!(leftovers.is_empty(), "left in TMPDIR: {leftovers:?}");
}
