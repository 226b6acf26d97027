//! Kill -9 at random moments of an agent review run by the real `quire`
//! binary, then resume: every readable paper ends up covered, no paper whose
//! result was already written is read again, and no file of Quire's is torn.

use std::collections::BTreeSet;
use std::time::Duration;

use quire::workspace::Workspace;
use testkit::{ScriptedServer, ServerOptions};

use super::agent_review::{agent_review_command, assert_no_torn_json, reader_calls, results};
use super::support::{dev_pdfs, folder_of, scripted_config};

fn reviewed_titles(root: &std::path::Path) -> BTreeSet<String> {
    match Workspace::open_read_only(root) {
        Ok(ws) => results(&ws).into_iter().map(|r| r.0).collect(),
        Err(_) => BTreeSet::new(),
    }
}

#[tokio::test]
async fn killed_at_ten_random_moments_the_review_resumes_and_reads_no_paper_twice() {
    let server = ScriptedServer::start(ServerOptions {
        latency: Duration::from_millis(15),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let mut papers = dev_pdfs("distributed-systems", 4);
    papers.extend(dev_pdfs("databases", 4));
    let folder = folder_of(&papers);
    let config = scripted_config(&server.base_url(), "concurrency = 2\n");
    let data = tempfile::tempdir().unwrap();
    let ws = data.path().join("ws");
    let seed = std::env::var("QUIRE_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    eprintln!("kill points from seed {seed} (QUIRE_KILL_SEED={seed} repeats them)");
    let mut rng = fastrand::Rng::with_seed(seed);
    let review = || {
        agent_review_command(config.path(), data.path(), &ws, folder.path())
            .spawn()
            .unwrap()
    };

    // The protocol is drafted and shown first; no paper is read by that run.
    let shown = review().wait_with_output().await.unwrap();
    assert_eq!(
        shown.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );

    let mut killed = 0;
    for _ in 0..10 {
        let protected = reviewed_titles(&ws);
        let before = server.requests().len();
        let after_requests = rng.usize(1..=10);
        let extra = Duration::from_millis(rng.u64(0..25));
        let mut child = review();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            if server.requests().len() >= before + after_requests {
                // A little later than the request itself: sometimes in the
                // call, sometimes in the writes that follow it.
                tokio::time::sleep(extra).await;
                child.start_kill().unwrap();
                killed += 1;
                break;
            }
            tokio::time::sleep(Duration::from_millis(3)).await;
        }
        let _ = child.wait().await;
        let requests = server.requests();
        let again = reader_calls(&requests[before..]);
        for title in &protected {
            assert!(!again.contains_key(title), "{title} was read again");
        }
        assert_no_torn_json(&ws);
    }
    assert!(killed >= 5, "only {killed} of the runs were killed mid-way");

    // The last run goes to the end.
    let protected = reviewed_titles(&ws);
    let before = server.requests().len();
    let out = review().wait_with_output().await.unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again = reader_calls(&server.requests()[before..]);
    for title in &protected {
        assert!(!again.contains_key(title), "{title} was read again");
    }
    assert_eq!(reviewed_titles(&ws).len(), 8, "every paper covered");
    assert_no_torn_json(&ws);
}
