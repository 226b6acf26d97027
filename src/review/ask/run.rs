//! A question's run, from the papers in scope to the kept record: choose the
//! candidates, read each (cached answers first, then in parallel up to the
//! model's concurrency, each call checked against the run's caps), number
//! the verified claims as sources, and compose the answer from them. With no
//! model the passages are the result.

use std::collections::BTreeSet;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::candidates::{Candidate, candidates};
use super::compose::compose;
use super::paper::{self, PaperAnswer};
use super::{AskRecord, Coverage, Mode, PROMPT_VERSION, Scope, Source, Status, ask_id, save};
use crate::blocking::blocking;
use crate::llm::ModelClient;
use crate::llm::accounting::count_tokens;
use crate::review::ReviewError;
use crate::review::batches::Progress as BatchProgress;
use crate::review::batches::ahead::{Ahead, AheadWork, BatchMode, answer_ahead, batch_mode};
use crate::review::inputs::InputsFile;
use crate::review::reading::batch::{
    Ended, Job, Limits, Outcomes, ReadError, ReadingModel, read_many,
};
use crate::workspace::PaperRecord;
use crate::workspace::Workspace;
use crate::workspace::layout::ASK_BATCHES_DIR;
use crate::workspace::records::now_rfc3339;

/// What a question asks of which papers.
#[derive(Clone, Debug)]
pub struct AskRequest {
    pub question: String,
    pub scope: Scope,
    /// Read every paper in scope, not only the best candidates.
    pub read_all: bool,
    /// Send each paper's calls (first calls, then re-asks) through the profile's Batch API
    /// ([`crate::review::batches::ahead`], the ledger in `batches/ask`).
    pub batch: Option<BatchMode>,
}

/// Where a run is, for a host's progress display.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "AskProgress"))]
pub enum Progress {
    /// The candidates chosen: `papers` to read, `cached` of them answered before.
    Reading { papers: usize, cached: usize },
    /// One paper read; `answers` when a claim of it stands.
    Read { title: String, answers: bool },
    /// Every paper read: the answer is being composed from the sources.
    Composing { sources: usize },
    /// A batch of the papers' calls as last polled: the Batch API's status
    /// (`submitted` before its first poll) and its requests done.
    Batch(BatchProgress),
}

/// Ask `request` of the papers in `ws`; the record is kept in `asks/<id>/`
/// as it starts and when it ends.
pub async fn run(
    ws: &Workspace,
    request: AskRequest,
    model: Option<ReadingModel>,
    cancel: CancellationToken,
    progress: Arc<dyn Fn(Progress) + Send + Sync>,
) -> Result<AskRecord, ReviewError> {
    let question = request.question.trim().to_owned();
    if question.is_empty() {
        return Err(ReviewError::EmptyQuestion);
    }
    let (considered, chosen) = {
        let (ws, question, scope) = (ws.clone(), question.clone(), request.scope.clone());
        let (read_all, offline) = (request.read_all, model.is_none());
        blocking(move || candidates(&ws, &question, &scope, read_all, offline)).await?
    };
    let id = ask_id(&question, &request.scope, request.read_all);
    let previous = super::load(ws, &id).ok().flatten();
    let mut record = AskRecord {
        id,
        question: question.clone(),
        scope: request.scope.clone(),
        read_all: request.read_all,
        mode: if model.is_some() {
            Mode::Answer
        } else {
            Mode::Passages
        },
        status: Status::Running,
        answer: String::new(),
        sources: Vec::new(),
        papers_read: chosen.iter().map(title).collect(),
        coverage: Coverage {
            considered,
            read: chosen.len(),
            ..Coverage::default()
        },
        model: model.as_ref().map(|m| m.client.settings().model.clone()),
        prompt_version: super::PROMPT_VERSION.to_owned(),
        started_at: now_rfc3339(),
        finished_at: None,
        stopped: None,
        // Asked again, a question keeps its place in the report.
        in_report: previous.as_ref().is_some_and(|r| r.in_report),
        review_inputs: InputsFile::load(ws)?
            .current
            .map(|inputs| inputs.fingerprint()),
        stale: None,
    };
    // Asked again, a question keeps its last answer (which the report may
    // quote) until a new one is complete: a cancel, a cap, a failure or a
    // kill on the way loses nothing.
    let keeps = Keeps {
        answered_before: previous.is_some_and(|r| r.status == Status::Done),
    };
    if !keeps.answered_before {
        keep(ws, &record).await?;
    }
    let Some(model) = model else {
        record.sources = passages_of(&chosen);
        record.coverage.contributed = distinct_papers(&record.sources);
        return finish(ws, &keeps, record, Status::Done).await;
    };
    let batch = {
        let (ws, asked) = (ws.clone(), request.batch);
        blocking(move || Ok::<_, ReviewError>(batch_mode(&ws, ASK_BATCHES_DIR, asked)?)).await?
    };
    let reading = Reading {
        question: &question,
        model: &model,
        batch,
        cancel: &cancel,
        progress: &progress,
    };
    let (answers, ended) = read_all(ws, &chosen, &reading).await?;
    // Read means answered now or before; a run stopped early read fewer.
    record.papers_read.clear();
    for (candidate, answer) in chosen.iter().zip(&answers) {
        match answer {
            Some(Ok(a)) => {
                record.coverage.quotes_dropped += a.quotes_dropped;
                record.papers_read.push(title(candidate));
            }
            Some(Err(e)) => record
                .coverage
                .failed
                .push((title(candidate), e.reason.clone())),
            None => {}
        }
    }
    record.coverage.read = record.papers_read.len();
    let (status, why) = match ended {
        Ended::Done => (Status::Done, None),
        Ended::Cancelled => (Status::Cancelled, None),
        Ended::Stopped(reason) => (Status::Stopped, Some(reason)),
        Ended::Failed(cause) => (Status::Failed, Some(cause)),
    };
    if status != Status::Done {
        record.stopped = why;
        return finish(ws, &keeps, record, status).await;
    }
    record.sources = sources_of(&chosen, &answers);
    record.coverage.contributed = distinct_papers(&record.sources);
    if chosen.is_empty() {
        record.answer = format!(
            "None of the {considered} papers in scope uses the question's words, so none was read. Asking again with every paper read has each one read in full."
        );
        return finish(ws, &keeps, record, Status::Done).await;
    }
    if record.sources.is_empty() {
        let failed = record.coverage.failed.len();
        if record.coverage.read == 0 && failed > 0 {
            // Nothing answered because nothing could be read: a failed run,
            // never "none of the papers answers this".
            record.stopped = Some(could_not_read(&record.coverage.failed));
            return finish(ws, &keeps, record, Status::Failed).await;
        }
        record.answer = format!(
            "None of the {} papers read answers this question with a quote found on its page.",
            record.coverage.read
        );
        if failed > 0 {
            record
                .answer
                .push_str(&format!(" {}", could_not_read(&record.coverage.failed)));
        }
        return finish(ws, &keeps, record, Status::Done).await;
    }
    progress(Progress::Composing {
        sources: record.sources.len(),
    });
    let estimate = record
        .sources
        .iter()
        .map(|s| count_tokens(&s.quote) + count_tokens(&s.claim) + 20)
        .sum::<u64>()
        + 600;
    if let Err(over) = model.budget.check(estimate, 1_200) {
        record.stopped = Some(over.0);
        return finish(ws, &keeps, record, Status::Stopped).await;
    }
    match compose(&model.client, &question, &record.sources, &cancel).await {
        Ok(composed) => {
            record.answer = composed.text;
            record.coverage.unsupported = composed.unsupported;
            record.coverage.composing_calls = composed.calls;
            record.coverage.composing_rounds = composed.rounds;
        }
        Err(_) if cancel.is_cancelled() => {
            return finish(ws, &keeps, record, Status::Cancelled).await;
        }
        Err(e) => {
            // The per-paper answers stand: each claim with its source.
            record.answer = format!(
                "The model could not compose the answer ({e}); each paper's claims with their sources:\n\n{}",
                claims_by_paper(&record.sources)
            );
        }
    }
    finish(ws, &keeps, record, Status::Done).await
}

/// What asking `request` would take with `settings`, before anything is
/// spent: the candidates not answered before, and the composing calls for
/// about two claims a paper.
pub async fn estimate(
    ws: &Workspace,
    request: AskRequest,
    settings: &crate::llm::ModelSettings,
    prices: &crate::llm::accounting::PriceTable,
) -> Result<super::estimate::Estimate, ReviewError> {
    let (ws, settings, prices) = (ws.clone(), settings.clone(), prices.clone());
    blocking(move || {
        let (_, chosen) = candidates(
            &ws,
            &request.question,
            &request.scope,
            request.read_all,
            false,
        )?;
        let mut done = Vec::new();
        for c in &chosen {
            let key = paper::cache_key(&c.paper, &request.question, &settings.model);
            done.push(paper::cached(&ws, &key)?.is_some());
        }
        let estimate = super::estimate::of_papers(
            &settings,
            chosen
                .iter()
                .zip(done)
                .map(|(c, done)| (&c.paper, c.pages.as_slice(), done)),
        );
        let composing = super::compose::expected_calls(CLAIM_TOKENS * 2 * chosen.len() as u64);
        Ok(estimate.finish(&settings.model, &prices, composing))
    })
    .await
}

/// A paper's work to read for the question: the paper, its pages, and the
/// key its answer is kept under.
type PaperJob = Job<(PaperRecord, Vec<String>, String)>;

/// A question asked of each paper, as [`paper::answer`] asks it.
struct Asking {
    question: String,
}

impl AheadWork for Asking {
    type Item = PaperJob;

    fn rehearse<'a>(&'a self, job: &'a PaperJob, client: Arc<ModelClient>) -> BoxFuture<'a, ()> {
        let (paper, pages, _) = &job.work;
        Box::pin(async move {
            let cancel = CancellationToken::new();
            let _ = paper::answer(&client, paper, pages, &self.question, &cancel).await;
        })
    }
}

fn title(c: &Candidate) -> String {
    c.paper.title.clone().unwrap_or_else(|| {
        c.paper
            .file
            .file_name()
            .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
    })
}

/// Tokens of one claim as a source line (title, claim, quote), about.
const CLAIM_TOKENS: u64 = 90;

type Answers = Outcomes<PaperAnswer>;

/// How a question's papers are read.
struct Reading<'a> {
    question: &'a str,
    model: &'a ReadingModel,
    /// As a batch: each paper's calls answered ahead, round after round.
    batch: Option<BatchMode>,
    cancel: &'a CancellationToken,
    progress: &'a Arc<dyn Fn(Progress) + Send + Sync>,
}

/// Read every candidate (cached answers first) through the one batch
/// reader; returns each one's answer (or why it failed, or `None` when never
/// read) and how the reading ended.
async fn read_all(
    ws: &Workspace,
    chosen: &[Candidate],
    reading: &Reading<'_>,
) -> Result<(Answers, Ended), ReviewError> {
    let Reading {
        question,
        model,
        batch,
        cancel,
        progress,
    } = *reading;
    let model_id = model.client.settings().model.clone();
    let mut cached: Vec<Option<PaperAnswer>> = Vec::new();
    let mut jobs = Vec::new();
    for (i, c) in chosen.iter().enumerate() {
        let key = paper::cache_key(&c.paper, question, &model_id);
        let answer = paper::cached(ws, &key)?;
        if answer.is_none() {
            jobs.push(Job {
                index: i,
                prompt_tokens: crate::review::reading::chunks::rough_tokens(&c.pages) + 900,
                work: (c.paper.clone(), c.pages.clone(), key),
            });
        }
        cached.push(answer);
    }
    let read_before = cached.iter().flatten().count();
    progress(Progress::Reading {
        papers: chosen.len(),
        cached: read_before,
    });
    if let Some(mode) = batch {
        let polled = |p: &BatchProgress| progress(Progress::Batch(p.clone()));
        let ahead = Ahead {
            ws,
            dir: ASK_BATCHES_DIR,
            client: &model.client,
            budget: &model.budget,
            mode,
            progress: &polled,
            cancel,
        };
        let asking = Arc::new(Asking {
            question: question.to_owned(),
        });
        jobs = answer_ahead(&ahead, asking, jobs).await?;
    }
    let limits = Limits {
        concurrency: model.client.settings().total_concurrency(),
        budget: &model.budget,
        max_output: model.client.settings().max_output_tokens as u64,
        cancel,
        read_before,
    };
    let read = |(paper, pages, key): (PaperRecord, Vec<String>, String)| {
        let (client, ws, question, cancel) = (
            model.client.clone(),
            ws.clone(),
            question.to_owned(),
            cancel.clone(),
        );
        async move {
            let answer = paper::answer(&client, &paper, &pages, &question, &cancel)
                .await
                .map_err(|e| ReadError::new(e.code(), e.to_string()))?;
            let kept = answer.clone();
            tokio::task::spawn_blocking(move || paper::cache(&ws, &key, &kept))
                .await
                .map_err(|e| ReadError::new("internal", e.to_string()))?
                .map_err(|e| ReadError::new(e.code(), format!("could not keep the answer: {e}")))?;
            Ok(answer)
        }
    };
    let (mut answers, ended) = read_many(chosen.len(), jobs, limits, read, |i, answer| {
        progress(Progress::Read {
            title: title(&chosen[i]),
            answers: answer.as_ref().is_ok_and(|a| a.answers),
        });
    })
    .await;
    for (slot, cached) in answers.iter_mut().zip(cached) {
        if let Some(answer) = cached {
            *slot = Some(Ok(answer));
        }
    }
    Ok((answers, ended))
}

/// The verified claims, numbered in the candidates' order.
fn sources_of(chosen: &[Candidate], answers: &Answers) -> Vec<Source> {
    let mut sources = Vec::new();
    for (c, answer) in chosen.iter().zip(answers) {
        let Some(Ok(answer)) = answer else { continue };
        for claim in &answer.claims {
            sources.push(Source {
                n: sources.len() + 1,
                paper: c.paper.id.0.clone(),
                title: title(c),
                page: claim.page,
                quote: claim.quote.clone(),
                claim: claim.claim.clone(),
                record: c.paper.is_record(),
            });
        }
    }
    sources
}

/// Offline: each candidate's best passages as sources.
fn passages_of(chosen: &[Candidate]) -> Vec<Source> {
    let mut sources = Vec::new();
    for c in chosen {
        for quote in &c.passages.quotes {
            sources.push(Source {
                n: sources.len() + 1,
                paper: c.paper.id.0.clone(),
                title: title(c),
                page: quote.page,
                quote: quote.text.clone(),
                claim: String::new(),
                record: c.paper.is_record(),
            });
        }
    }
    sources
}

fn distinct_papers(sources: &[Source]) -> usize {
    sources
        .iter()
        .map(|s| &s.paper)
        .collect::<BTreeSet<_>>()
        .len()
}

fn claims_by_paper(sources: &[Source]) -> String {
    sources
        .iter()
        .map(|s| format!("- *{}*: {} [{}]", s.title, s.claim, s.n))
        .collect::<Vec<_>>()
        .join("\n")
}

async fn keep(ws: &Workspace, record: &AskRecord) -> Result<(), ReviewError> {
    let (ws, record) = (ws.clone(), record.clone());
    blocking(move || Ok::<_, ReviewError>(save(&ws, &record)?)).await
}

/// What a run of a question must not overwrite.
struct Keeps {
    /// The question has a complete answer from before.
    answered_before: bool,
}

/// The record as it ended; kept, unless it is incomplete and a complete
/// answer from before stands.
async fn finish(
    ws: &Workspace,
    keeps: &Keeps,
    mut record: AskRecord,
    status: Status,
) -> Result<AskRecord, ReviewError> {
    record.status = status;
    record.finished_at = Some(now_rfc3339());
    record.prompt_version = PROMPT_VERSION.to_owned();
    if status == Status::Done || !keeps.answered_before {
        keep(ws, &record).await?;
    }
    Ok(record)
}

/// "3 papers could not be read: the model server did not answer (2); the
/// answer was not JSON (1)." Reasons grouped, most frequent first.
fn could_not_read(failed: &[(String, String)]) -> String {
    let mut reasons: Vec<(&str, usize)> = Vec::new();
    for (_, reason) in failed {
        match reasons.iter_mut().find(|(r, _)| *r == reason.as_str()) {
            Some((_, n)) => *n += 1,
            None => reasons.push((reason, 1)),
        }
    }
    reasons.sort_by_key(|r| std::cmp::Reverse(r.1));
    let listed: Vec<String> = reasons.iter().map(|(r, n)| format!("{r} ({n})")).collect();
    let papers = if failed.len() == 1 {
        "1 paper"
    } else {
        "papers"
    };
    let count = if failed.len() == 1 {
        String::new()
    } else {
        format!("{} ", failed.len())
    };
    format!("{count}{papers} could not be read: {}.", listed.join("; "))
}

#[cfg(test)]
mod tests {
    use super::could_not_read;

    #[test]
    fn papers_that_could_not_be_read_are_counted_by_reason() {
        let failed = |reasons: &[&str]| -> Vec<(String, String)> {
            reasons
                .iter()
                .enumerate()
                .map(|(i, r)| (format!("Paper {i}"), (*r).to_owned()))
                .collect()
        };
        assert_eq!(
            could_not_read(&failed(&["no answer", "not JSON", "no answer"])),
            "3 papers could not be read: no answer (2); not JSON (1)."
        );
        assert_eq!(
            could_not_read(&failed(&["not JSON"])),
            "1 paper could not be read: not JSON (1)."
        );
    }
}
