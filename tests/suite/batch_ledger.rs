//! A run's requests through the scripted Batch API, kept in the workspace's
//! ledger: sharded under the limits, failed and expired lines sent again in a
//! second round, and a run stopped dead after each step of the ledger (its
//! future dropped there, as a kill leaves it) taken up again by a new driver:
//! no batch submitted twice, no result lost.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use quire::llm::batch::openai::BatchApi;
use quire::llm::batch::{BatchLine, Limits};
use quire::llm::{ChatRequest, Message, ModelSettings};
use quire::review::batches::driver::Seen;
use quire::review::batches::{BatchDriver, Ledger, Settled, Step};
use quire::workspace::Workspace;
use testkit::{BatchOptions, ScriptedServer};

use super::batch_support::{assert_one_batch_per_shard, batch_server};
use tokio_util::sync::CancellationToken;

const LIMITS: Limits = Limits {
    requests: 10,
    bytes: 1 << 20,
};

struct Rig {
    server: ScriptedServer,
    api: BatchApi,
    settings: ModelSettings,
    _dir: tempfile::TempDir,
    ws: Workspace,
}

async fn rig() -> Rig {
    let (server, api, settings) = batch_server(BatchOptions {
        fail_every: Some(3),
        expire_every: Some(5),
        ..BatchOptions::default()
    })
    .await;
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
    assert_one_batch_per_shard(&rig.server, &rig.api, &ledger).await;
}

#[tokio::test]
async fn requests_are_sharded_retried_once_and_all_answered() {
    let rig = rig().await;
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
    assert_eq!(
        (stats.files_held, stats.files_deleted),
        // Five request files, five output files, and the three error
        // files of round 1 (round 2 failed nothing).
        (0, 5 + 5 + 3),
        "every request, output and error file deleted once kept"
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
    // The steps of a whole run, to stop after each of them in turn.
    let whole = rig().await;
    let sent = lines(&whole.settings, 12);
    let (reference, steps) = run_to_end(&whole, &sent).await;
    assert_eq!(reference.answers.len(), 12);
    assert!(steps.len() > 10, "{steps:?}");

    // Stopped after each step; and after each `created`, once more with that
    // line lost, as when the kill came between creating the batch and
    // recording it: the batch must be found, not created again.
    let mut stops: Vec<(usize, bool)> = (1..steps.len()).map(|k| (k, false)).collect();
    stops.extend(
        (1..steps.len())
            .filter(|&k| matches!(steps[k - 1], Step::Created { .. }))
            .map(|k| (k, true)),
    );
    for (stop_after, lose_last_line) in stops {
        let rig = rig().await;
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
            let ledger = rig.ws.root().join("batches/ledger.jsonl");
            let text = std::fs::read_to_string(&ledger).unwrap();
            let kept: Vec<&str> = text.lines().collect();
            assert!(kept.last().unwrap().contains("\"created\""));
            std::fs::write(&ledger, format!("{}\n", kept[..kept.len() - 1].join("\n"))).unwrap();
        }
        let (settled, _) = run_to_end(&rig, &sent).await;
        assert_eq!(
            settled.answers.len(),
            12,
            "stopped after step {stop_after} ({:?}): {:?}",
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
    let rig = rig().await;
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
