//! Reading many papers, one loop for every kind of run that does: up to the
//! model's concurrency at once, each paper's worst case checked against the
//! caps beside the calls already in flight, cancellation, and a typed end.
//!
//! The work on one paper (its calls, and keeping what it read, so a run saves
//! as it goes and resumes from what it kept) is the caller's closure; this
//! loop owns only when it starts, and what the outcomes add up to:
//!
//! - a cap that would be crossed stops the loop before the paper that would
//!   cross it, and a call the client refused for a cap (a race between papers
//!   in flight) leaves its paper unread, not failed;
//! - a run in which every paper read failed ends [`Ended::Failed`] with the
//!   cause, never as a run that found nothing.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::{JoinHandle, JoinSet};
use tokio_util::sync::CancellationToken;

use crate::agent::Budget;
use crate::llm::ModelClient;

/// The model a batch reads with: the run's one counted client (every call
/// logged, and held against the caps before it is sent) and its budget.
#[derive(Clone)]
pub struct ReadingModel {
    pub client: Arc<ModelClient>,
    pub budget: Arc<Budget>,
}

/// Why one paper could not be read: a stable code and the reason in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadError {
    pub code: String,
    pub reason: String,
}

impl ReadError {
    pub fn new(code: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            reason: reason.into(),
        }
    }

    /// The client refused the call: a cap, not the paper.
    fn is_cap(&self) -> bool {
        self.code == "over_budget"
    }
}

/// How a batch ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ended {
    /// Every paper was read or failed on its own.
    Done,
    Cancelled,
    /// A cap stopped it; what was read is kept and a new run resumes.
    Stopped(String),
    /// Every paper read failed, none was read before: the cause.
    Failed(String),
}

/// What a batch reads with.
pub struct Limits<'a> {
    /// Papers read at once (the model's concurrency).
    pub concurrency: usize,
    pub budget: &'a Budget,
    /// The most one call may answer, in tokens.
    pub max_output: u64,
    pub cancel: &'a CancellationToken,
    /// Papers of this run already read before it (cached answers, current
    /// cells): with any, the run did not fail whatever this batch does.
    pub read_before: usize,
}

/// One paper to read: its place in the caller's list, the tokens of its
/// prompt (text and instructions), and the work.
pub struct Job<W> {
    pub index: usize,
    pub prompt_tokens: u64,
    pub work: W,
}

/// Each job's outcome by its index (`None`: never read), and how it ended.
pub type Outcomes<T> = Vec<Option<Result<T, ReadError>>>;

/// Read `jobs` with `read`, in order, `limits.concurrency` at a time;
/// `settled` hears each outcome as it arrives (a cap's refusal is not an
/// outcome). `len` is the size of the caller's list the indexes point into.
pub async fn read_many<W, T, F, Fut>(
    len: usize,
    jobs: Vec<Job<W>>,
    limits: Limits<'_>,
    read: F,
    settled: impl FnMut(usize, &Result<T, ReadError>),
) -> (Outcomes<T>, Ended)
where
    W: Send + 'static,
    T: Send + 'static,
    F: Fn(W) -> Fut,
    Fut: Future<Output = Result<T, ReadError>> + Send + 'static,
{
    read_prepared(len, jobs, limits, std::future::ready, read, settled).await
}

/// [`read_many`] for work that is prepared before its calls (a paper loaded
/// and split into parts: CPU work): `prepare` runs a few papers ahead, a core
/// each and in order, while the calls in flight hold the model's slots, so
/// the next paper is ready when a slot frees.
pub async fn read_prepared<W, P, T, Prep, PFut, F, Fut>(
    len: usize,
    jobs: Vec<Job<W>>,
    limits: Limits<'_>,
    prepare: Prep,
    read: F,
    mut settled: impl FnMut(usize, &Result<T, ReadError>),
) -> (Outcomes<T>, Ended)
where
    W: Send + 'static,
    P: Send + 'static,
    T: Send + 'static,
    Prep: Fn(W) -> PFut,
    PFut: Future<Output = P> + Send + 'static,
    F: Fn(P) -> Fut,
    Fut: Future<Output = Result<T, ReadError>> + Send + 'static,
{
    let mut outcomes: Outcomes<T> = (0..len).map(|_| None).collect();
    let slots = Arc::new(Semaphore::new(limits.concurrency.max(1)));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut ahead = Ahead {
        cores: Arc::new(Semaphore::new(cores)),
        most: limits.concurrency.max(1) + cores,
        queue: VecDeque::new(),
    };
    let mut jobs = jobs.into_iter();
    let mut set = JoinSet::new();
    let mut ended = None;
    let mut capped = None;
    // Which paper each task reads: a task that panics reports only its id.
    let mut reading: HashMap<tokio::task::Id, usize> = HashMap::new();
    let mut settle = |done: Result<(usize, Result<T, ReadError>), tokio::task::JoinError>,
                      reading: &mut HashMap<tokio::task::Id, usize>,
                      outcomes: &mut Outcomes<T>,
                      capped: &mut Option<String>| {
        let (i, outcome) = match done {
            Ok(done) => done,
            // A read that panicked (a bug, never the paper's fault) ends its
            // paper with the reason, so it is not left "reading".
            Err(e) => {
                let Some(i) = reading.remove(&e.id()) else {
                    return;
                };
                let why = if e.is_panic() {
                    "reading this paper crashed inside Quire (a bug); reading it again retries it"
                } else {
                    "reading this paper was stopped before it ended"
                };
                (i, Err(ReadError::new("read_crashed", why)))
            }
        };
        match outcome {
            Err(e) if e.is_cap() => {
                capped.get_or_insert(e.reason);
            }
            outcome => {
                settled(i, &outcome);
                outcomes[i] = Some(outcome);
            }
        }
    };
    loop {
        ahead.fill(&mut jobs, &prepare);
        let Some((index, prompt_tokens, prepared)) = ahead.queue.pop_front() else {
            break;
        };
        if limits.cancel.is_cancelled() {
            ended = Some(Ended::Cancelled);
            break;
        }
        // A slot first: the check then counts every paper still in flight.
        let permit = tokio::select! {
            _ = limits.cancel.cancelled() => {
                ended = Some(Ended::Cancelled);
                break;
            }
            permit = slots.clone().acquire_owned() => permit.ok(),
        };
        while let Some(done) = set.try_join_next() {
            settle(done, &mut reading, &mut outcomes, &mut capped);
        }
        if let Some(reason) = capped.clone().or_else(|| limits.budget.halted()) {
            ended = Some(Ended::Stopped(reason));
            break;
        }
        if let Err(over) = limits.budget.check(prompt_tokens, limits.max_output) {
            ended = Some(Ended::Stopped(over.0));
            break;
        }
        let prepared = tokio::select! {
            _ = limits.cancel.cancelled() => {
                ended = Some(Ended::Cancelled);
                break;
            }
            prepared = prepared => prepared,
        };
        // A preparation that panicked leaves its paper without an outcome.
        let Ok(prepared) = prepared else { continue };
        let work = read(prepared);
        let task = set.spawn(async move {
            let outcome = work.await;
            drop(permit);
            (index, outcome)
        });
        reading.insert(task.id(), index);
    }
    // Papers prepared ahead and never read are waited for, not aborted: a
    // preparation is short CPU work that holds what the caller lent it (a
    // workspace, and its lock), which must be free once the batch returns.
    for (_, _, preparing) in ahead.queue {
        let _ = preparing.await;
    }
    while let Some(done) = set.join_next().await {
        settle(done, &mut reading, &mut outcomes, &mut capped);
    }
    let ended = ended
        .or_else(|| limits.cancel.is_cancelled().then_some(Ended::Cancelled))
        .or_else(|| capped.map(Ended::Stopped))
        .or_else(|| limits.budget.halted().map(Ended::Stopped))
        .or_else(|| every_read_failed(&outcomes, limits.read_before).map(Ended::Failed))
        .unwrap_or(Ended::Done);
    (outcomes, ended)
}

/// Papers being prepared ahead of their calls, in order: at most `most`,
/// each holding one of `cores` while it runs.
struct Ahead<P> {
    cores: Arc<Semaphore>,
    most: usize,
    queue: VecDeque<(usize, u64, JoinHandle<P>)>,
}

impl<P: Send + 'static> Ahead<P> {
    fn fill<W, Prep, PFut>(&mut self, jobs: &mut impl Iterator<Item = Job<W>>, prepare: &Prep)
    where
        Prep: Fn(W) -> PFut,
        PFut: Future<Output = P> + Send + 'static,
    {
        while self.queue.len() < self.most {
            let Some(job) = jobs.next() else { return };
            let (work, cores) = (prepare(job.work), self.cores.clone());
            let preparing = tokio::spawn(async move {
                // Semaphores queue fairly: papers take cores in their order.
                let _core = cores.acquire_owned().await.ok();
                work.await
            });
            self.queue
                .push_back((job.index, job.prompt_tokens, preparing));
        }
    }
}

/// The cause, when papers were read and every one failed: the reason most
/// of them failed for, with how many.
fn every_read_failed<T>(outcomes: &Outcomes<T>, read_before: usize) -> Option<String> {
    let failures: Vec<&ReadError> = outcomes
        .iter()
        .flatten()
        .map(|o| o.as_ref().err())
        .collect::<Option<Vec<_>>>()?;
    if failures.is_empty() || read_before > 0 {
        return None;
    }
    let mut by_code: Vec<(&str, usize, &str)> = Vec::new();
    for f in &failures {
        match by_code.iter_mut().find(|(code, ..)| *code == f.code) {
            Some(entry) => entry.1 += 1,
            None => by_code.push((&f.code, 1, &f.reason)),
        }
    }
    by_code.sort_by_key(|entry| std::cmp::Reverse(entry.1));
    let (_, n, reason) = by_code[0];
    let total = failures.len();
    Some(if n == total {
        format!("every paper read failed ({total} of {total}): {reason}")
    } else {
        format!("every paper read failed; {n} of {total} for this: {reason}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Caps;

    fn jobs(n: usize, tokens: u64) -> Vec<Job<usize>> {
        (0..n)
            .map(|i| Job {
                index: i,
                prompt_tokens: tokens,
                work: i,
            })
            .collect()
    }

    fn limits<'a>(budget: &'a Budget, cancel: &'a CancellationToken) -> Limits<'a> {
        Limits {
            concurrency: 3,
            budget,
            max_output: 100,
            cancel,
            read_before: 0,
        }
    }

    #[tokio::test]
    async fn every_paper_is_read_and_heard_in_its_place() {
        let (budget, cancel) = (Budget::default(), CancellationToken::new());
        let mut heard = Vec::new();
        let (outcomes, ended) = read_many(
            5,
            jobs(5, 10),
            limits(&budget, &cancel),
            |i| async move { Ok::<_, ReadError>(i * 10) },
            |i, _| heard.push(i),
        )
        .await;
        assert_eq!(ended, Ended::Done);
        let values: Vec<usize> = outcomes.into_iter().map(|o| o.unwrap().unwrap()).collect();
        assert_eq!(values, vec![0, 10, 20, 30, 40]);
        heard.sort();
        assert_eq!(heard, vec![0, 1, 2, 3, 4]);
    }

    #[tokio::test]
    async fn a_read_that_panics_ends_its_paper_with_the_reason_and_the_others_go_on() {
        let (budget, cancel) = (Budget::default(), CancellationToken::new());
        let mut heard = Vec::new();
        let (outcomes, ended) = read_many(
            3,
            jobs(3, 10),
            limits(&budget, &cancel),
            |i| async move {
                if i == 1 {
                    panic!("a bug in a reader");
                }
                Ok::<_, ReadError>(i)
            },
            |i, outcome: &Result<usize, ReadError>| heard.push((i, outcome.is_ok())),
        )
        .await;
        assert_eq!(ended, Ended::Done);
        let crashed = outcomes[1].as_ref().expect("the paper has an outcome");
        assert_eq!(crashed.as_ref().unwrap_err().code, "read_crashed");
        assert_eq!(outcomes[0].as_ref().unwrap().as_ref().ok(), Some(&0));
        assert_eq!(outcomes[2].as_ref().unwrap().as_ref().ok(), Some(&2));
        // Its caller heard of it, so the paper is not left "reading".
        heard.sort();
        assert_eq!(heard, vec![(0, true), (1, false), (2, true)]);
    }

    #[tokio::test]
    async fn a_run_whose_every_paper_failed_ends_failed_with_the_cause() {
        let (budget, cancel) = (Budget::default(), CancellationToken::new());
        let fail = |_| async {
            Err::<(), _>(ReadError::new(
                "prompt_cut",
                "the model server read only 2048 of the 9000 prompt tokens sent",
            ))
        };
        let (_, ended) = read_many(3, jobs(3, 10), limits(&budget, &cancel), fail, |_, _| {}).await;
        let Ended::Failed(cause) = ended else {
            panic!("{ended:?}")
        };
        assert!(
            cause.contains("3 of 3") && cause.contains("2048"),
            "{cause}"
        );
        // One paper read before this run: the run did not fail.
        let read_before = Limits {
            read_before: 1,
            ..limits(&budget, &cancel)
        };
        let (_, ended) = read_many(3, jobs(3, 10), read_before, fail, |_, _| {}).await;
        assert_eq!(ended, Ended::Done);
    }

    #[tokio::test]
    async fn a_cap_stops_before_the_paper_that_would_cross_it_and_a_refused_call_is_not_a_failure()
    {
        let budget = Budget::new(Caps {
            max_tokens: Some(250),
            max_cost_usd: None,
        });
        let cancel = CancellationToken::new();
        let (outcomes, ended) = read_many(
            4,
            jobs(4, 100),
            limits(&budget, &cancel),
            |i| async move {
                if i == 0 {
                    Ok(i)
                } else {
                    Err(ReadError::new(
                        "over_budget",
                        "the token cap of 250 would be crossed",
                    ))
                }
            },
            |_, _| {},
        )
        .await;
        assert!(
            matches!(ended, Ended::Stopped(ref r) if r.contains("250")),
            "{ended:?}"
        );
        assert!(outcomes[0].is_some());
        assert!(
            outcomes[1..].iter().all(Option::is_none),
            "unread, not failed"
        );
    }

    #[tokio::test]
    async fn a_cancelled_batch_starts_nothing_more() {
        let (budget, cancel) = (Budget::default(), CancellationToken::new());
        cancel.cancel();
        let (outcomes, ended) = read_many(
            3,
            jobs(3, 10),
            limits(&budget, &cancel),
            |i| async move { Ok::<_, ReadError>(i) },
            |_, _| {},
        )
        .await;
        assert_eq!(ended, Ended::Cancelled);
        assert!(outcomes.iter().all(Option::is_none));
    }
}
