//! Quire's Batch API client against the scripted server's batch endpoints,
//! over real HTTP: a request file uploaded as multipart, a batch created with
//! metadata and found again by it, followed to its end, its results read back
//! out of order and matched by id, failed and expired lines sent again in a
//! second batch, a batch cancelled, a batch that fails validation; and
//! Anthropic's Message Batches, which carry no metadata, found again by when
//! they were created and their size.

use std::collections::{BTreeMap, BTreeSet};

use quire::llm::batch::anthropic::{MessageBatch, MessageBatches};
use quire::llm::batch::lines::parse_result_line;
use quire::llm::batch::openai::{Batch, BatchApi};
use quire::llm::batch::{BatchLine, LineOutcome};
use quire::llm::{ChatRequest, Message, ModelSettings, Protocol};
use testkit::{BatchOptions, ScriptedServer};

async fn server(batch: BatchOptions) -> (ScriptedServer, BatchApi, ModelSettings) {
    super::batch_support::batch_server(batch).await
}

fn lines(settings: &ModelSettings, count: usize) -> Vec<BatchLine> {
    (0..count)
        .map(|i| {
            let request = ChatRequest {
                messages: vec![
                    Message::system("Summarise the passage in one sentence."),
                    Message::user(format!(
                        "Passage {i}: write-ahead logging makes commits durable."
                    )),
                ],
                max_tokens: Some(256),
                ..ChatRequest::default()
            };
            BatchLine::new(settings, &request)
        })
        .collect()
}

/// Poll until the batch has ended: each retrieve moves the scripted batch
/// one state on, so this waits on the client's own polling.
async fn until_finished(api: &BatchApi, id: &str) -> Batch {
    for _ in 0..10 {
        let batch = api.retrieve(id).await.unwrap();
        if batch.is_finished() {
            return batch;
        }
    }
    panic!("batch {id} never finished");
}

/// Every result of a finished batch, by request id.
async fn results(api: &BatchApi, batch: &Batch) -> BTreeMap<String, LineOutcome> {
    let mut found = BTreeMap::new();
    for file in [&batch.output_file_id, &batch.error_file_id]
        .into_iter()
        .flatten()
    {
        for line in api.content(file).await.unwrap().lines() {
            let (id, outcome) = parse_result_line(line).unwrap();
            assert!(
                found.insert(id.clone(), outcome).is_none(),
                "{id} answered twice"
            );
        }
    }
    found
}

fn metadata(run: &str, shard: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("quire_run".to_owned(), run.to_owned()),
        ("quire_shard".to_owned(), shard.to_owned()),
    ])
}

#[tokio::test]
async fn a_batch_is_submitted_found_again_followed_and_its_failures_sent_once_more() {
    let (server, api, settings) = server(BatchOptions {
        fail_every: Some(3),
        expire_every: Some(4),
        ..BatchOptions::default()
    })
    .await;
    let sent = lines(&settings, 10);
    let ids: BTreeSet<String> = sent.iter().map(|l| l.custom_id.clone()).collect();
    assert_eq!(ids.len(), 10, "ten different requests, ten ids");

    let file = api.upload("run-1-shard-0.jsonl", &sent).await.unwrap();
    let created = api.create(&file, &metadata("run-1", "0")).await.unwrap();
    assert_eq!(created.status, "validating");

    // After a restart, the batch is found by its metadata, not remembered.
    let found = api.find("quire_run", "run-1").await.unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].id, created.id);
    assert_eq!(found[0].meta("quire_shard"), Some("0"));
    assert!(api.find("quire_run", "run-2").await.unwrap().is_empty());

    let ended = until_finished(&api, &created.id).await;
    assert_eq!(ended.status, "expired", "lines were left unrun");
    let outcomes = results(&api, &ended).await;
    assert_eq!(
        outcomes.keys().cloned().collect::<BTreeSet<_>>(),
        ids,
        "every line once, by id"
    );
    let answered = outcomes
        .values()
        .filter(
            |o| matches!(o, LineOutcome::Answered(a) if !a.text.is_empty() && a.usage.is_some()),
        )
        .count();
    let retry: Vec<&String> = outcomes
        .iter()
        .filter(|(_, o)| o.is_retryable())
        .map(|(id, _)| id)
        .collect();
    // Lines 3, 6, 9 failed; 4 and 8 expired.
    assert_eq!((answered, retry.len()), (5, 5), "{outcomes:?}");
    assert!(
        outcomes
            .values()
            .any(|o| matches!(o, LineOutcome::NotRun { code, .. } if code == "batch_expired"))
    );
    assert!(
        outcomes
            .values()
            .any(|o| matches!(o, LineOutcome::Failed { status: 500, .. }))
    );

    // The failed and expired lines, and only those, in a second batch.
    let again: Vec<BatchLine> = sent
        .iter()
        .filter(|l| retry.contains(&&l.custom_id))
        .cloned()
        .collect();
    let file = api.upload("run-1-shard-1.jsonl", &again).await.unwrap();
    let second = api.create(&file, &metadata("run-1", "1")).await.unwrap();
    let ended = until_finished(&api, &second.id).await;
    assert_eq!(ended.status, "completed");
    let outcomes = results(&api, &ended).await;
    assert_eq!(outcomes.len(), 5);
    assert!(
        outcomes
            .values()
            .all(|o| matches!(o, LineOutcome::Answered(_)))
    );
    assert_eq!(api.find("quire_run", "run-1").await.unwrap().len(), 2);

    // A batch cancelled before it ends ends cancelled, with no answers.
    let file = api
        .upload("run-3.jsonl", &lines(&settings, 2))
        .await
        .unwrap();
    let third = api.create(&file, &metadata("run-3", "0")).await.unwrap();
    assert_eq!(api.cancel(&third.id).await.unwrap().status, "cancelling");
    let ended = until_finished(&api, &third.id).await;
    assert_eq!(ended.status, "cancelled");
    assert_eq!(ended.output_file_id, None);

    let stats = server.batch_stats();
    assert_eq!(
        (
            stats.files_uploaded,
            stats.batches_created,
            stats.lines_submitted
        ),
        (3, 3, 17)
    );
    assert_eq!(stats.cancelled, 1);
}

#[tokio::test]
async fn a_batch_failing_validation_says_why() {
    let (_server, api, settings) = server(BatchOptions {
        invalid: Some("Line 1: model scripted-reader is not available for batches".into()),
        ..BatchOptions::default()
    })
    .await;
    let file = api.upload("x.jsonl", &lines(&settings, 1)).await.unwrap();
    let created = api.create(&file, &metadata("run", "0")).await.unwrap();
    let ended = until_finished(&api, &created.id).await;
    assert_eq!(ended.status, "failed");
    assert_eq!(
        ended.failure().as_deref(),
        Some("Line 1: model scripted-reader is not available for batches")
    );
}

/// Poll a message batch until it has ended (each retrieve moves it on).
async fn until_ended(api: &MessageBatches, id: &str) -> MessageBatch {
    for _ in 0..10 {
        let batch = api.retrieve(id).await.unwrap();
        if batch.processing_status == "ended" {
            return batch;
        }
    }
    panic!("message batch {id} never ended");
}

#[tokio::test]
async fn a_message_batch_is_created_found_by_its_time_and_size_and_read_back() {
    let (server, settings) = super::batch_support::scripted_batches(
        BatchOptions {
            fail_every: Some(3),
            expire_every: Some(4),
            refuse_every: Some(7),
            ..BatchOptions::default()
        },
        Protocol::Anthropic,
    )
    .await;
    let api = MessageBatches::new(&settings, None).unwrap();
    let sent = lines(&settings, 10);
    assert!(
        sent.iter()
            .all(|l| l.body["messages"].is_array() && l.body["max_tokens"].is_u64()),
        "the lines are Messages requests"
    );
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let created = api.create(&sent).await.unwrap();
    assert_eq!(created.processing_status, "in_progress");
    let other = api.create(&sent[..3]).await.unwrap();

    // No metadata: a restart finds it by when it was created and its size.
    let found = api.created_since(started).await.unwrap();
    let ids: Vec<(&str, u64)> = found.iter().map(|b| (b.id.as_str(), b.total())).collect();
    assert_eq!(
        ids,
        [(other.id.as_str(), 3), (created.id.as_str(), 10)],
        "newest first"
    );
    assert!(found.iter().all(|b| b.created_unix().unwrap() >= started));
    assert!(api.created_since(started + 3600).await.unwrap().is_empty());

    let ended = until_ended(&api, &created.id).await;
    let polled = ended.polled();
    assert!(polled.finished);
    let mut outcomes = BTreeMap::new();
    for line in api.results(&created.id).await.unwrap().lines() {
        let (id, outcome) = parse_result_line(line).unwrap();
        assert!(outcomes.insert(id.clone(), outcome).is_none(), "{id} twice");
    }
    let ids: BTreeSet<String> = sent.iter().map(|l| l.custom_id.clone()).collect();
    assert_eq!(outcomes.keys().cloned().collect::<BTreeSet<_>>(), ids);
    let kinds = |f: fn(&LineOutcome) -> bool| outcomes.values().filter(|o| f(o)).count();
    // Line 7 refused (the 7th id seen); 3, 6 and 9 failed; 4 and 8 expired.
    assert_eq!(
        kinds(|o| matches!(o, LineOutcome::Answered(a) if a.usage.is_some())),
        4
    );
    assert_eq!(
        kinds(|o| matches!(o, LineOutcome::Failed { status: 400, .. })),
        1
    );
    assert_eq!(
        kinds(|o| matches!(o, LineOutcome::Failed { status: 500, .. })),
        3
    );
    assert_eq!(kinds(|o| matches!(o, LineOutcome::NotRun { .. })), 2);
    assert_eq!(
        (
            polled.counts.total,
            polled.counts.completed,
            polled.counts.failed
        ),
        (10, 4, 6)
    );

    // Deleted once kept; a batch still running cannot be, and is cancelled.
    api.delete(&created.id).await.unwrap();
    assert!(api.retrieve(&created.id).await.is_err());
    assert!(api.delete(&other.id).await.is_err());
    assert_eq!(
        api.cancel(&other.id).await.unwrap().processing_status,
        "canceling"
    );
    let ended = until_ended(&api, &other.id).await;
    assert_eq!(ended.request_counts.canceled, 3);
    let stats = server.batch_stats();
    assert_eq!(
        (
            stats.batches_created,
            stats.lines_submitted,
            stats.cancelled,
            stats.batches_deleted
        ),
        (2, 13, 1, 1)
    );
}
