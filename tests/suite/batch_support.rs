//! What the batch tests share: a scripted server playing the Batch API with
//! a client for it, and the check that no shard of a ledger was submitted
//! twice.

use std::collections::BTreeMap;

use quire::llm::ModelSettings;
use quire::llm::batch::openai::BatchApi;
use quire::review::batches::Ledger;
use quire::review::batches::driver::{RUN_KEY, SHARD_KEY};
use testkit::{BatchOptions, ScriptedServer, ServerOptions};

/// A scripted server whose Batch API behaves as `batch` says, a client for
/// it, and the settings the client was made from.
pub(crate) async fn batch_server(batch: BatchOptions) -> (ScriptedServer, BatchApi, ModelSettings) {
    let server = ScriptedServer::start(ServerOptions {
        batch,
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let settings = ModelSettings {
        base_url: server.base_url(),
        model: "scripted-reader".into(),
        ..ModelSettings::default()
    };
    let api = BatchApi::new(&settings, None).unwrap();
    (server, api, settings)
}

/// Each shard of `ledger` has exactly one batch at `server` (found by the
/// run's metadata, as a restarted run finds them), and the server created
/// no other. Returns how many batches there are.
pub(crate) async fn assert_one_batch_per_shard(
    server: &ScriptedServer,
    api: &BatchApi,
    ledger: &Ledger,
) -> usize {
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
    assert_eq!(server.batch_stats().batches_created, batches.len());
    batches.len()
}
