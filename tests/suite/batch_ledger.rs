//! A run's requests through the scripted Batch APIs (OpenAI's and
//! Anthropic's), kept in the workspace's ledger: sharded under the limits,
//! failed and expired lines sent again in a second round, and a run stopped
//! dead after each step of the ledger (its future dropped there, as a kill
//! leaves it) taken up again by a new driver: no batch submitted twice, no
//! result lost.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use quire::llm::batch::{BatchLine, BatchService, Limits};
use quire::llm::{ChatRequest, Message, ModelSettings, Protocol};
use quire::review::batches::driver::Seen;
use quire::review::batches::{BatchDriver, Ledger, Settled, Step};
use quire::workspace::Workspace;
use testkit::{BatchOptions, ScriptedServer};

use super::batch_support::{assert_one_batch_per_shard, scripted_batches, service};
use tokio_util::sync::CancellationToken;

const LIMITS: Limits = Limits {
    requests: 10,
    bytes: 1 << 20,
};

const PROTOCOLS: [Protocol; 2] = [Protocol::Openai, Protocol::Anthropic];

struct Rig {
    server: ScriptedServer,
    api: BatchService,
    settings: ModelSettings,
    _dir: tempfile::TempDir,
    ws: Workspace,
}

/// Lines 3, 6, 9… of a batch fail and 5, 10… expire, the first time.
async fn rig(protocol: Protocol) -> Rig {
    let options = BatchOptions {
        fail_every: Some(3),
        expire_every: Some(5),
        ..BatchOptions::default()
    };
    rig_with(protocol, options).await
}

async fn rig_with(protocol: Protocol, options: BatchOptions) -> Rig {
    let (server, settings) = scripted_batches(options, protocol).await;
    let api = service(&settings);
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open_or_init(&dir.path().join("ws")).unwrap();
    Rig {
        server,
        api,
        settings,
        _dir: dir,
        ws,
    }
}

fn lines(settings: &ModelSettings, count: usize) -> Vec<BatchLine> {
    (0..count)
        .map(|i| {
            let request = ChatRequest {
                messages: vec![
                    Message::system("Summarise the passage in one sentence."),
                    Message::user(format!("Passage {i}: a checkpoint bounds recovery time.")),
                ],
                max_tokens: Some(256),
                ..ChatRequest::default()
            };
            BatchLine::new(settings, &request)
        })
        .collect()
}

fn driver(rig: &Rig) -> BatchDriver<'_> {
    BatchDriver {
        ws: &rig.ws,
        dir: "batches",
        api: &rig.api,
        limits: LIMITS,
        poll_every: Duration::from_millis(1),
        max_rounds: 3,
    }
}

/// Run the driver to its end, recording the steps it took.
async fn run_to_end(rig: &Rig, lines: &[BatchLine]) -> (Settled, Vec<Step>) {
    let steps = Arc::new(Mutex::new(Vec::new()));
    let taken = steps.clone();
    let seen = move |s: Seen<'_>| {
        if let Seen::Step(step) = s {
            taken.lock().unwrap().push(step.clone());
        }
    };
    let settled = driver(rig)
        .run(lines, &seen, &CancellationToken::new())
        .await
        .unwrap();
    let steps = steps.lock().unwrap().clone();
    (settled, steps)
}

/// Each shard of the run has exactly one batch at the API.
async fn one_batch_per_shard(rig: &Rig) {
    let ledger = Ledger::load(&rig.ws).unwrap();
    assert_one_batch_per_shard(&rig.server, &rig.settings, &ledger).await;
}

#[tokio::test]
async fn requests_are_sharded_retried_once_and_all_answered() {
    for protocol in PROTOCOLS {
        sharded_retried_and_answered(protocol).await;
    }
}

async fn sharded_retried_and_answered(protocol: Protocol) {
    let rig = rig(protocol).await;
    let sent = lines(&rig.settings, 25);
    let (settled, steps) = run_to_end(&rig, &sent).await;
    assert_eq!(settled.answers.len(), 25, "{:?}", settled.unresolved);
    assert!(settled.unresolved.is_empty());
    let ledger = Ledger::load(&rig.ws).unwrap();
    let rounds: Vec<(u32, usize)> = ledger
        .shards
        .iter()
        .map(|s| (s.round, s.requests))
        .collect();
    // Round 1 in three files of at most 10; lines 3, 6, 9 of each failed
    // and 5 and 10 expired, so round 2 sends those 12 again, in two files.
    assert_eq!(rounds, [(1, 10), (1, 10), (1, 5), (2, 10), (2, 2)]);
    let retried = 5 + 5 + 2;
    assert_eq!(settled.batches, 5);
    let stats = rig.server.batch_stats();
    assert_eq!(stats.lines_submitted, 25 + retried);
    assert_eq!(
        stats.lists, 0,
        "a run that was not stopped looks for no batch"
    );
    let deleted = match protocol {
        // Five request files, five output files, and the three error
        // files of round 1 (round 2 failed nothing).
        Protocol::Openai => (0, 5 + 5 + 3, 0),
        // The batches themselves, with their results.
        Protocol::Anthropic => (0, 0, 5),
    };
    assert_eq!(
        (stats.files_held, stats.files_deleted, stats.batches_deleted),
        deleted,
        "{protocol:?}: every request and result deleted at the provider once kept"
    );
    assert!(matches!(steps[0], Step::Started { .. }));
    one_batch_per_shard(&rig).await;

    // Asked again, nothing is sent: every answer is in the workspace.
    let before = rig.server.batch_stats();
    let (again, _) = run_to_end(&rig, &sent).await;
    assert_eq!(again.answers, settled.answers);
    assert_eq!(rig.server.batch_stats(), before);
}

#[tokio::test]
async fn stopped_dead_after_any_step_the_run_resumes_without_a_second_submission() {
    for protocol in PROTOCOLS {
        stopped_and_resumed(protocol).await;
    }
}

async fn stopped_and_resumed(protocol: Protocol) {
    // The steps of a whole run, to stop after each of them in turn.
    let whole = rig(protocol).await;
    let sent = lines(&whole.settings, 12);
    let (reference, steps) = run_to_end(&whole, &sent).await;
    assert_eq!(reference.answers.len(), 12);
    assert!(steps.len() > 10, "{steps:?}");

    // Stopped after each step; and after each `created`, once more with that
    // line lost, as when the kill came between creating the batch and
    // recording it: the batch must be found (by its metadata, or for
    // Anthropic's by when it was created and its size), not created again.
    let mut stops: Vec<(usize, bool)> = (1..steps.len()).map(|k| (k, false)).collect();
    stops.extend(
        (1..steps.len())
            .filter(|&k| matches!(steps[k - 1], Step::Created { .. }))
            .map(|k| (k, true)),
    );
    for (stop_after, lose_last_line) in stops {
        let rig = rig(protocol).await;
        let stop = CancellationToken::new();
        let recorded = Arc::new(Mutex::new(0usize));
        let (count, trip) = (recorded.clone(), stop.clone());
        let seen = move |s: Seen<'_>| {
            if let Seen::Step(_) = s {
                let mut n = count.lock().unwrap();
                *n += 1;
                if *n == stop_after {
                    trip.cancel();
                }
            }
        };
        let (driven, never) = (driver(&rig), CancellationToken::new());
        // The run's future dropped at its next await once the step is on
        // disk: nothing after it happens, as after a kill.
        tokio::select! {
            biased;
            _ = stop.cancelled() => {}
            _ = driven.run(&sent, &seen, &never) => {
                panic!("the run ended before step {stop_after}");
            }
        }
        if lose_last_line {
            // The ledger as the kill left it: up to the last `created`, not
            // including it (a step recorded after it without an await
            // between, as the next shard's `submitting`, goes with it).
            let ledger = rig.ws.root().join("batches/ledger.jsonl");
            let text = std::fs::read_to_string(&ledger).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let created = lines
                .iter()
                .rposition(|l| l.contains("\"created\""))
                .expect("a batch was created");
            std::fs::write(&ledger, format!("{}\n", lines[..created].join("\n"))).unwrap();
        }
        let (settled, _) = run_to_end(&rig, &sent).await;
        assert_eq!(
            settled.answers.len(),
            12,
            "{protocol:?} stopped after step {stop_after} ({:?}): {:?}",
            steps[stop_after - 1],
            settled.unresolved
        );
        for (id, answer) in &reference.answers {
            assert_eq!(
                settled.answers[id].text, answer.text,
                "the answer to {id} after a stop at step {stop_after}"
            );
        }
        one_batch_per_shard(&rig).await;
    }
}

#[tokio::test]
async fn a_cancelled_run_cancels_its_open_batches() {
    for protocol in PROTOCOLS {
        cancelled(protocol).await;
    }
}

async fn cancelled(protocol: Protocol) {
    let rig = rig(protocol).await;
    let sent = lines(&rig.settings, 4);
    let cancel = CancellationToken::new();
    let trip = cancel.clone();
    let seen = move |s: Seen<'_>| {
        if let Seen::Step(Step::Created { .. }) = s {
            trip.cancel();
        }
    };
    let ended = driver(&rig).run(&sent, &seen, &cancel).await;
    assert!(
        matches!(
            ended,
            Err(quire::review::batches::driver::DriveError::Cancelled)
        ),
        "{ended:?}"
    );
    assert_eq!(rig.server.batch_stats().cancelled, 1);
}

#[tokio::test]
async fn a_request_the_batch_refuses_is_not_sent_again_and_comes_back_with_its_reason() {
    for protocol in PROTOCOLS {
        refused(protocol).await;
    }
}

async fn refused(protocol: Protocol) {
    let options = BatchOptions {
        refuse_every: Some(4),
        ..BatchOptions::default()
    };
    let rig = rig_with(protocol, options).await;
    let sent = lines(&rig.settings, 9);
    let (settled, _) = run_to_end(&rig, &sent).await;
    // The 4th and 8th requests are refused with a 400: not worth a second
    // batch, so there is none, and the caller is told why.
    assert_eq!(settled.answers.len(), 7);
    assert_eq!(settled.batches, 1, "a 400 is not sent again");
    assert_eq!(rig.server.batch_stats().lines_submitted, 9);
    let refused: BTreeSet<&String> = settled.unresolved.keys().collect();
    assert_eq!(
        refused,
        BTreeSet::from([&sent[3].custom_id, &sent[7].custom_id])
    );
    for reason in settled.unresolved.values() {
        assert!(
            reason.contains("HTTP 400") && reason.contains("cannot be taken by a batch"),
            "{protocol:?}: {reason}"
        );
    }
}

#[tokio::test]
async fn a_later_run_with_new_requests_gives_them_their_own_tries() {
    // A first run took two rounds (lines failing and expiring the first
    // time); papers added, their requests get their own three tries, not
    // what the first run's rounds left.
    let rig = rig(Protocol::Openai).await;
    let first = lines(&rig.settings, 12);
    let (settled, _) = run_to_end(&rig, &first).await;
    assert_eq!(settled.answers.len(), 12);
    let mut more = first.clone();
    more.extend(lines(&rig.settings, 20).split_off(12));
    let before = rig.server.batch_stats().lines_submitted;
    let (settled, _) = run_to_end(&rig, &more).await;
    assert_eq!(settled.answers.len(), 20, "{:?}", settled.unresolved);
    let sent = rig.server.batch_stats().lines_submitted - before;
    // The 8 new ones in one batch (its 3rd and 6th fail, its 5th expires),
    // those 3 again in a second: none of the 12 answered before.
    assert_eq!(sent, 8 + 3);
    let ledger = Ledger::load(&rig.ws).unwrap();
    assert!(ledger.attempts.values().all(|&n| n <= 3));
}

#[tokio::test]
async fn after_a_kill_before_created_someone_else_s_batch_is_never_taken_or_deleted() {
    // A run killed between recording `submitting` and `created` (Anthropic's
    // batches carry no metadata to be found by): the ledger as it left it.
    let rig = rig_with(Protocol::Anthropic, BatchOptions::default()).await;
    let sent = lines(&rig.settings, 4);
    let mut ledger = Ledger::load(&rig.ws).unwrap();
    ledger
        .record(&rig.ws, Step::Started { run: "r".into() })
        .unwrap();
    let shard = "r1-0".to_owned();
    let file: String = sent.iter().map(|l| l.to_json_line() + "\n").collect();
    rig.ws
        .write(&ledger.shard_path(&shard).unwrap(), file.as_bytes())
        .unwrap();
    ledger
        .record(
            &rig.ws,
            Step::Round {
                round: 1,
                shards: vec![quire::review::batches::ledger::ShardSize {
                    shard: shard.clone(),
                    requests: sent.len(),
                }],
            },
        )
        .unwrap();
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    ledger
        .record(&rig.ws, Step::Submitting { shard, at })
        .unwrap();
    // The create never reached the API; two batches of the same size by
    // another program on the account did: one made five minutes before the
    // submission began, one just after it.
    let before = rig
        .server
        .plant_foreign_message_batch(sent.len(), Duration::from_secs(300));
    let after = rig
        .server
        .plant_foreign_message_batch(sent.len(), Duration::ZERO);

    let (settled, steps) = run_to_end(&rig, &sent).await;
    assert_eq!(settled.answers.len(), 4, "{:?}", settled.unresolved);
    assert!(
        steps
            .iter()
            .any(|s| matches!(s, Step::Disowned { batch_id, .. } if *batch_id == after)),
        "the batch made after the submission began was followed, then disowned: {steps:?}"
    );
    let held = rig.server.message_batch_ids();
    assert!(
        held.contains(&before) && held.contains(&after),
        "someone else's batch was deleted: {held:?}"
    );
    let answers = std::fs::read_to_string(rig.ws.root().join("batches/answers.jsonl")).unwrap();
    assert!(
        !answers.contains("their-request"),
        "someone else's answers were kept"
    );
    let stats = rig.server.batch_stats();
    assert_eq!(stats.batches_created, 1, "the shard was sent once, by us");
    assert_eq!(stats.batches_deleted, 1, "only our own batch was deleted");
}
