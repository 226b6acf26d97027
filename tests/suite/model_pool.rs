//! A profile whose calls go to a pool of endpoints serving one model, from
//! the outside (the CLI against several scripted servers over real HTTP):
//! the calls are spread over the endpoints that serve the model, one
//! serving another model is left out before anything is sent, a broken one
//! is rested after a few failures and its calls move on, every part of a
//! paper is read at one endpoint, and every call's record names its endpoint.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;
use testkit::{ScriptedServer, ServerOptions};

use super::support::{dev_pdfs, every_file, folder_of, quire_await, quire_review, scripted_config};

const QUESTION: &str = "How do databases recover from crashes and keep commits durable?";

async fn replica(options: ServerOptions) -> ScriptedServer {
    ScriptedServer::start(options).await.unwrap()
}

/// The papers (by the "Paper:" line of a reading prompt) whose parts
/// `server` read.
fn papers_read_at(server: &ScriptedServer) -> BTreeSet<String> {
    server
        .requests()
        .iter()
        .flat_map(|r| r.turns())
        .filter(|t| t.role == "user" && t.text.contains("judge this part"))
        .filter_map(|t| {
            t.text
                .lines()
                .find_map(|l| l.strip_prefix("Paper: "))
                .map(str::to_owned)
        })
        .collect()
}

fn chat_requests(server: &ScriptedServer) -> usize {
    server.requests().len()
}

fn call_records(data: &Path) -> Vec<Value> {
    let files: Vec<PathBuf> = every_file(data)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "model-calls.jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "one review, one call log: {files:?}");
    std::fs::read_to_string(&files[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[tokio::test]
async fn a_review_over_a_pool_keeps_papers_together_rests_a_broken_replica_and_names_endpoints() {
    let (first, second) = (
        replica(ServerOptions::default()).await,
        replica(ServerOptions::default()).await,
    );
    let broken = replica(ServerOptions {
        failing: Some(502),
        ..ServerOptions::default()
    })
    .await;
    let other_model = replica(ServerOptions {
        models: vec!["another-model".into()],
        ..ServerOptions::default()
    })
    .await;
    // A small window, so papers are read in several parts.
    let pool = format!(
        "context_window = 6144\nmax_output_tokens = 1024\nconcurrency = 2\npool_cooldown_secs = 600\n\
         [[profiles.scripted.pool]]\nbase_url = \"{}\"\n\
         [[profiles.scripted.pool]]\nbase_url = \"{}\"\nconcurrency = 1\n\
         [[profiles.scripted.pool]]\nbase_url = \"{}\"\n",
        second.base_url(),
        broken.base_url(),
        other_model.base_url()
    );
    let config = scripted_config(&first.base_url(), &pool);
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 4));

    // The connection test asks every endpoint what it serves.
    let listed = quire_await(
        config.path(),
        data.path(),
        &["models", "--profile", "scripted", "--json"],
    )
    .await;
    let listing: Value = serde_json::from_slice(&listed.stdout).unwrap_or_else(|_| {
        panic!("{}", String::from_utf8_lossy(&listed.stderr));
    });
    let checks = listing["endpoints"].as_array().unwrap();
    assert_eq!(checks.len(), 4);
    assert_eq!(
        checks.iter().filter(|c| c["serves"] == true).count(),
        3,
        "{checks:?}"
    );
    let wrong = &checks[3];
    assert_eq!(wrong["reached"], true);
    assert!(
        wrong["problem"]
            .as_str()
            .unwrap()
            .contains("serves another-model, not scripted-reader"),
        "{wrong}"
    );

    let out = quire_review(folder.path(), QUESTION, config.path(), data.path(), &[]).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("is left out of the pool"),
        "the endpoint serving another model is named: {stderr}"
    );
    assert_eq!(
        chat_requests(&other_model),
        0,
        "nothing is sent to an endpoint serving another model"
    );

    // The broken replica (one call at a time) failed three calls in a row
    // and was rested for the rest of the run.
    let failed = chat_requests(&broken);
    assert_eq!(
        failed,
        quire::llm::pool::FAILURES_BEFORE_REST as usize,
        "the broken replica got {failed} calls"
    );
    assert!(stderr.contains("resting it"), "the rest is said: {stderr}");

    // Both healthy replicas worked, and each paper's parts were read at one
    // of them.
    let (at_first, at_second) = (papers_read_at(&first), papers_read_at(&second));
    assert!(!at_first.is_empty() && !at_second.is_empty());
    assert!(
        at_first.is_disjoint(&at_second),
        "a paper's parts went to both replicas: {:?}",
        at_first.intersection(&at_second).collect::<Vec<_>>()
    );
    let multi_part = first
        .requests()
        .iter()
        .chain(second.requests().iter())
        .flat_map(|r| r.turns())
        .filter(|t| t.role == "user" && t.text.contains("This is part 2 of"))
        .count();
    assert!(multi_part > 0, "some paper was read in several parts");

    // Every call's record names the endpoint that took it: the failures the
    // broken one, the answers a healthy one.
    let records = call_records(data.path());
    let mut by_endpoint: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for record in &records {
        let endpoint = record["endpoint"]
            .as_str()
            .expect("every record names its endpoint");
        let counts = by_endpoint.entry(endpoint.to_owned()).or_default();
        if record["outcome"] == "ok" {
            counts.0 += 1;
        } else {
            counts.1 += 1;
        }
    }
    let label = |s: &ScriptedServer| s.base_url().trim_end_matches('/').to_owned();
    assert_eq!(by_endpoint.get(&label(&broken)), Some(&(0, failed)));
    assert_eq!(
        by_endpoint[&label(&first)],
        (chat_requests(&first), 0),
        "{by_endpoint:?}"
    );
    assert_eq!(by_endpoint[&label(&second)], (chat_requests(&second), 0));
    assert!(!by_endpoint.contains_key(&label(&other_model)));
    assert!(
        first.stats().peak_in_flight <= 2 && second.stats().peak_in_flight <= 2,
        "each endpoint within its concurrency: {} and {}",
        first.stats().peak_in_flight,
        second.stats().peak_in_flight
    );
}

#[tokio::test]
async fn each_server_of_a_pool_gets_its_own_key_when_it_names_one_and_an_unset_one_sends_nothing() {
    let (first, second) = (
        replica(ServerOptions::default()).await,
        replica(ServerOptions::default()).await,
    );
    let pool = format!(
        "api_key_env = \"QUIRE_TEST_PROFILE_KEY\"\n\
         [[profiles.scripted.pool]]\nbase_url = \"{}\"\napi_key_env = \"QUIRE_TEST_SECOND_KEY\"\n",
        second.base_url()
    );
    let config = scripted_config(&first.base_url(), &pool);
    let data = tempfile::tempdir().unwrap();
    let folder = folder_of(&dev_pdfs("databases", 2));
    let review = |keys: &[(&str, &str)]| {
        let mut command = super::support::quire_command(config.path(), data.path());
        command
            .args(["review", "--engine", "agent", "--approve", "-q", QUESTION])
            .arg(folder.path())
            .envs(keys.iter().copied());
        tokio::process::Command::from(command)
    };

    // The second server's key variable unset: refused before anything is
    // sent, rather than the profile's key sent in its place.
    let refused = review(&[("QUIRE_TEST_PROFILE_KEY", "sk-profile-key")])
        .output()
        .await
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(said.contains("QUIRE_TEST_SECOND_KEY"), "{said}");
    assert!(first.requests().is_empty() && second.requests().is_empty());

    let keys = [
        ("QUIRE_TEST_PROFILE_KEY", "sk-profile-key"),
        ("QUIRE_TEST_SECOND_KEY", "sk-second-key"),
    ];
    for _ in 0..2 {
        // The first run shows the protocol; the second reads.
        review(&keys).output().await.unwrap();
    }
    let bearers = |server: &ScriptedServer| -> BTreeSet<String> {
        server
            .requests()
            .iter()
            .filter_map(|r| r.header("authorization").map(str::to_owned))
            .collect()
    };
    assert_eq!(
        bearers(&first),
        BTreeSet::from(["Bearer sk-profile-key".to_owned()])
    );
    assert_eq!(
        bearers(&second),
        BTreeSet::from(["Bearer sk-second-key".to_owned()]),
        "the second server got another key than its own"
    );
}
