//! What the batch tests share: a scripted server playing the Batch APIs with
//! a client for it, and the check that no shard of a ledger was submitted
//! twice.

use std::collections::{BTreeMap, BTreeSet};

use quire::llm::batch::BatchService;
use quire::llm::batch::anthropic::MessageBatches;
use quire::llm::batch::openai::BatchApi;
use quire::llm::{ModelSettings, Protocol};
use quire::review::batches::Ledger;
use quire::review::batches::driver::{RUN_KEY, SHARD_KEY};
use testkit::{BatchOptions, Mistake, Policy, ScriptedServer, ServerOptions};

/// A model that answers every first ask with JSON that does not parse, and
/// well when asked again.
pub(crate) const SPOILS_FIRST_JSON: Policy = Policy::Fallible {
    seed: 0,
    rate: 1.0,
    only: &[Mistake::InvalidJsonFirst],
};

/// A scripted server whose Batch APIs behave as `batch` says, and settings
/// for it speaking `protocol`.
pub(crate) async fn scripted_batches(
    batch: BatchOptions,
    protocol: Protocol,
) -> (ScriptedServer, ModelSettings) {
    let server = ScriptedServer::start(ServerOptions {
        batch,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        protocol,
        ..ModelSettings::default()
    };
    (server, settings)
}

/// The OpenAI Batch API of a scripted server, with its settings.
pub(crate) async fn batch_server(batch: BatchOptions) -> (ScriptedServer, BatchApi, ModelSettings) {
    let (server, settings) = scripted_batches(batch, Protocol::Openai).await;
    let api = BatchApi::new(&settings, None).unwrap();
    (server, api, settings)
}

/// The Batch API `settings` speak to.
pub(crate) fn service(settings: &ModelSettings) -> BatchService {
    match settings.protocol {
        Protocol::Openai => BatchService::OpenAi(BatchApi::new(settings, None).unwrap()),
        Protocol::Anthropic => {
            BatchService::Anthropic(MessageBatches::new(settings, None).unwrap())
        }
    }
}

/// Each shard of `ledger` has its own batch and the server created no
/// other; an OpenAI batch is also found by the run's metadata, as a
/// restarted run finds it. Returns how many batches there are.
pub(crate) async fn assert_one_batch_per_shard(
    server: &ScriptedServer,
    settings: &ModelSettings,
    ledger: &Ledger,
) -> usize {
    let ids: BTreeSet<&str> = ledger
        .shards
        .iter()
        .map(|s| s.batch_id.as_deref().expect("every shard has a batch"))
        .collect();
    assert_eq!(ids.len(), ledger.shards.len(), "two shards share a batch");
    assert_eq!(
        server.batch_stats().batches_created,
        ledger.shards.len(),
        "a shard was submitted twice"
    );
    if settings.protocol == Protocol::Openai {
        let api = BatchApi::new(settings, None).unwrap();
        let batches = api
            .find(RUN_KEY, ledger.run.as_deref().unwrap())
            .await
            .unwrap();
        let mut per_shard: BTreeMap<String, usize> = BTreeMap::new();
        for batch in &batches {
            *per_shard
                .entry(batch.meta(SHARD_KEY).unwrap().to_owned())
                .or_default() += 1;
        }
        assert!(
            per_shard.values().all(|&n| n == 1),
            "a shard was submitted twice: {per_shard:?}"
        );
        assert_eq!(per_shard.len(), ledger.shards.len());
    }
    ledger.shards.len()
}

/// A scripted server playing the Batch APIs as `batch` says, answering by
/// `policy`, and a config whose profile speaks `protocol` to it.
pub(crate) async fn scripted_batch_config(
    batch: BatchOptions,
    policy: Policy,
    protocol: Protocol,
) -> (ScriptedServer, tempfile::TempDir) {
    let server = ScriptedServer::start(ServerOptions {
        batch,
        policy,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let profile = match protocol {
        Protocol::Openai => "",
        Protocol::Anthropic => "protocol = \"anthropic\"\n",
    };
    let config = super::support::scripted_config(&server.base_url(), profile);
    (server, config)
}

/// Work kept in `ws` whose ledger is in `dir` sent its calls through
/// batches: a round 1 of at least `min_first` requests (the first call of
/// each part), later rounds (the test's server spoils lines the first time,
/// and re-asks follow answers that were not JSON), one batch per shard, and
/// every `purpose` call recorded as answered by a batch, one per request
/// sent: round 1's and the re-asks. Returns how many re-asks there were.
pub(crate) async fn assert_calls_batched(
    server: &ScriptedServer,
    protocol: Protocol,
    ws: &std::path::Path,
    dir: &str,
    purpose: &str,
    min_first: usize,
) -> usize {
    let workspace = quire::workspace::Workspace::open_read_only(ws).unwrap();
    let ledger = Ledger::load_in(&workspace, dir).unwrap();
    let first_round = first_round(&ledger);
    assert!(
        first_round >= min_first,
        "{protocol:?}: {:?}",
        ledger.shards
    );
    assert!(
        ledger.shards.iter().any(|s| s.round == 2),
        "{protocol:?}: spoiled lines sent again"
    );
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        protocol,
        ..ModelSettings::default()
    };
    assert_one_batch_per_shard(server, &settings, &ledger).await;
    let calls: Vec<serde_json::Value> = std::fs::read_to_string(ws.join("model-calls.jsonl"))
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .filter(|c: &serde_json::Value| c["purpose"] == purpose)
        .collect();
    let (_, reasks) = later_rounds(ws, dir);
    assert_eq!(
        calls.len(),
        first_round + reasks,
        "{protocol:?}: one call record per request"
    );
    assert!(
        calls.iter().all(|c| c["endpoint"] == "batch"),
        "{protocol:?}: {calls:?}"
    );
    reasks
}

/// Put a price on the scripted server's model in the config folder's price
/// table (a dollar a million tokens either way), so caps in dollars hold.
pub(crate) fn price_the_scripted_model(config: &std::path::Path) {
    std::fs::write(
        config.join("prices.toml"),
        "[models.\"scripted-reader\"]\ninput = 1.0\noutput = 1.0\n",
    )
    .unwrap();
}

/// The requests of `ledger`'s first round: each part's first call.
pub(crate) fn first_round(ledger: &Ledger) -> usize {
    ledger
        .shards
        .iter()
        .filter(|s| s.round == 1)
        .map(|s| s.requests)
        .sum()
}

/// The requests `dir`'s ledger sent in rounds after the first, and how many
/// of them are re-asks: a request carrying the model's earlier answer (one that
/// was not JSON) or saying why the paper is asked about again (a reading
/// that could not stand).
pub(crate) fn later_rounds(ws: &std::path::Path, dir: &str) -> (usize, usize) {
    let workspace = quire::workspace::Workspace::open_read_only(ws).unwrap();
    let ledger = Ledger::load_in(&workspace, dir).unwrap();
    // A line that failed in its round is sent again in the next: each
    // request counts once.
    let mut later = BTreeMap::new();
    for shard in ledger.shards.iter().filter(|s| s.round > 1) {
        let text =
            std::fs::read_to_string(ws.join(dir).join(format!("{}.jsonl", shard.name))).unwrap();
        for line in text.lines() {
            let line: serde_json::Value = serde_json::from_str(line).unwrap();
            let body = line["body"].to_string();
            let reask = body.contains(r#""role":"assistant""#)
                || body.contains("You were asked about this paper before");
            later.insert(line["custom_id"].as_str().unwrap().to_owned(), reask);
        }
    }
    (later.len(), later.values().filter(|&&r| r).count())
}
