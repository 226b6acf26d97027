//! A source with nothing to read ends at once with its reason and a
//! non-zero exit: the engine is not started and no model is called.

use quire::agent::Caps;
use quire::commands::{AppContext, AppPaths, reviews};
use testkit::ServerOptions;

use super::agent_review::Rig;
use super::support::{corpus, quire_bin};

#[tokio::test]
async fn a_folder_of_unreadable_pdfs_calls_no_model_and_says_why_each_cannot_be_read() {
    let bad = corpus().join("bad");
    let pdfs: Vec<_> = [
        "encrypted-aes256-userpw.pdf",
        "text-renamed.pdf",
        "truncated-30pct.pdf",
    ]
    .iter()
    .map(|name| bad.join(name))
    .collect();
    let rig = Rig::new(&pdfs, ServerOptions::default()).await;
    let ctx = AppContext::new(AppPaths::new(rig.data.path()));
    let ended = reviews::start(
        &ctx,
        rig.request(Caps::default()),
        quire::agent::EventLog::new(),
    )
    .finish()
    .await;
    let error = ended.expect_err("nothing to review is not a finished review");
    assert_eq!(error.code, "no_readable_paper", "{error:?}");
    assert!(
        error
            .message
            .contains("none of its 3 PDFs has text to read"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("1 need a password"),
        "{}",
        error.message
    );
    assert!(
        error.message.contains("nothing was sent to a model"),
        "{}",
        error.message
    );
    assert!(rig.server.requests().is_empty(), "no model call");
}

#[test]
fn an_empty_folder_ends_with_a_non_zero_exit_and_its_reason() {
    let empty = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(quire_bin())
        .args([
            "review",
            empty.path().to_str().unwrap(),
            "--question",
            "How do things work?",
        ])
        .env("QUIRE_DATA_DIR", data.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the folder holds no PDF"), "{stderr}");
}

/// A file name that is not valid UTF-8 (Latin-1 `café.pdf`) is read like any
/// other: recorded exactly, extracted, scored.
#[cfg(unix)]
#[test]
fn a_pdf_whose_name_is_not_utf8_is_read_with_the_others() {
    use std::os::unix::ffi::OsStrExt;
    let pdfs = super::support::dev_pdfs("databases", 2);
    let folder = tempfile::tempdir().unwrap();
    let latin1 = std::ffi::OsStr::from_bytes(b"caf\xe9.pdf");
    std::fs::copy(&pdfs[0], folder.path().join(latin1)).unwrap();
    std::fs::copy(&pdfs[1], folder.path().join("plain.pdf")).unwrap();
    let data = tempfile::tempdir().unwrap();
    let review = super::support::quire_json(
        data.path(),
        &[
            "review",
            folder.path().to_str().unwrap(),
            "--question",
            "How do databases recover after a crash?",
            "--json",
        ],
    );
    let papers = review["papers"].as_array().unwrap();
    assert_eq!(papers.len(), 2, "{review:#}");
    assert!(
        papers.iter().all(|p| p["score"].is_number()),
        "both are scored: {review:#}"
    );
    assert_eq!(review["counts"]["screened"], 2, "{review:#}");
}
