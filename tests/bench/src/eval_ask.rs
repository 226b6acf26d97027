//! `quire-bench eval ask`: does asking the papers find the papers that answer?
//! The questions and their answering papers were judged by reading the
//! shared corpus's papers (`data/ask-truth.tsv`), not by a phrase rule, and
//! the questions avoid the papers' own key phrases, so a reader that only
//! matches words finds few of them. Each question is asked of the whole
//! corpus, choosing candidates as the app does and again reading every
//! paper; prints the recall of the answering papers among the papers the
//! answer cites, and how many cited papers were judged not to answer
//! (borderline papers count neither way). With the scripted reader (the
//! default) it measures the candidate search and the plumbing; with
//! `--base-url` and `--model` it measures a real model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use quire::agent::{Budget, Caps};
use quire::llm::accounting::PriceTable;
use quire::llm::{HttpProvider, ModelClient, ModelSettings};
use quire::review::ask::Scope;
use quire::review::ask::run::{AskRequest, run as ask};
use quire::review::reading::batch::ReadingModel;
use quire::workspace::Workspace;
use tokio_util::sync::CancellationToken;

use crate::agent_rig::{Server, corpus_texts};

/// The judged questions, next to this crate.
const TRUTH: &str = include_str!("../data/ask-truth.tsv");

/// One question and its judged papers (file stems).
#[derive(Debug, Default)]
struct Judged {
    answers: BTreeSet<String>,
    borderline: BTreeSet<String>,
}

/// The questions of `text` in the order they first appear, with their
/// judgements; a malformed line is an error naming it.
fn judged(text: &str) -> Result<Vec<(String, Judged)>, String> {
    let mut order = Vec::new();
    let mut by_question: BTreeMap<String, Judged> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [question, paper, judgement, _why] = fields[..] else {
            return Err(format!("ask-truth.tsv line {}: want 4 fields", n + 1));
        };
        if !by_question.contains_key(question) {
            order.push(question.to_owned());
        }
        let entry = by_question.entry(question.to_owned()).or_default();
        match judgement {
            "answers" => entry.answers.insert(paper.to_owned()),
            "borderline" => entry.borderline.insert(paper.to_owned()),
            other => return Err(format!("ask-truth.tsv line {}: judgement {other:?}", n + 1)),
        };
    }
    Ok(order
        .into_iter()
        .map(|q| {
            let j = by_question.remove(&q).unwrap_or_default();
            (q, j)
        })
        .collect())
}

/// Which reader answers: the scripted one, or a real model's server.
#[derive(clap::Args)]
pub(crate) struct AskEvalArgs {
    /// An OpenAI-compatible server to ask instead of the scripted reader
    /// (`http://127.0.0.1:8080/v1`).
    #[arg(long, requires = "model")]
    base_url: Option<String>,
    /// The model to ask on `--base-url`.
    #[arg(long, requires = "base_url")]
    model: Option<String>,
    /// The model's context window in tokens (with `--base-url`).
    #[arg(long, default_value_t = 8192)]
    context_window: u32,
    /// Ask only the candidates, not every paper again (a real model is slow).
    #[arg(long)]
    candidates_only: bool,
}

pub(crate) async fn run(corpus: &Path, args: AskEvalArgs) -> Result<(), String> {
    let questions = judged(TRUTH)?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dev = corpus.join("dev");
    let texts = corpus_texts(&dev, scratch.path()).await?;
    let ws = Workspace::open(&scratch.path().join("corpus")).map_err(|e| e.to_string())?;
    println!("{} readable papers in {}", texts.len(), dev.display());
    let stems: BTreeMap<String, String> = texts
        .iter()
        .filter_map(|(p, _)| Some((p.id.0.clone(), p.file.file_stem()?.to_str()?.to_owned())))
        .collect();
    for (question, judged) in &questions {
        let missing: Vec<&String> = judged
            .answers
            .iter()
            .chain(&judged.borderline)
            .filter(|s| !stems.values().any(|v| v == *s))
            .collect();
        if !missing.is_empty() {
            return Err(format!("{question}: not in the corpus: {missing:?}"));
        }
    }
    let server;
    let settings = match (&args.base_url, &args.model) {
        (Some(base_url), Some(model)) => ModelSettings {
            base_url: base_url.clone(),
            model: model.clone(),
            context_window: args.context_window,
            max_output_tokens: 768,
            concurrency: 2,
            request_timeout_secs: 900.0,
            ..ModelSettings::default()
        },
        _ => {
            server = Server::start(0, 8, None, None)?;
            ModelSettings {
                base_url: server.base_url.clone(),
                model: "scripted-reader".into(),
                context_window: 32_768,
                max_output_tokens: 2048,
                concurrency: 8,
                read_timeout_secs: 60.0,
                max_retries: 1,
                ..ModelSettings::default()
            }
        }
    };
    println!("reader: {} at {}", settings.model, settings.base_url);
    let client = Arc::new(ModelClient::new(
        "eval".to_owned(),
        HttpProvider::new(settings, None).map_err(|e| e.to_string())?,
        PriceTable::builtin(),
    ));
    println!(
        "{:<90} {:>6} {:>20} {:>20}",
        "question", "answer", "recall (candidates)", "recall (every paper)"
    );
    let modes: &[bool] = if args.candidates_only {
        &[false]
    } else {
        &[false, true]
    };
    let mut sums = [0.0f64; 2];
    let mut wrong = [0usize; 2];
    for (question, judged) in &questions {
        let of = judged.answers.len();
        let mut line = format!("{question:<90} {of:>6}");
        for &read_all in modes {
            let record = ask(
                &ws,
                AskRequest {
                    question: question.clone(),
                    scope: Scope::All,
                    read_all,
                    batch: None,
                },
                Some(ReadingModel {
                    client: client.clone(),
                    budget: Arc::new(Budget::new(Caps::default())),
                }),
                CancellationToken::new(),
                Arc::new(|_| {}),
            )
            .await
            .map_err(|e| e.to_string())?;
            let cited: BTreeSet<&str> = record
                .sources
                .iter()
                .filter_map(|s| stems.get(&s.paper).map(String::as_str))
                .collect();
            let found = cited
                .iter()
                .filter(|s| judged.answers.contains(**s))
                .count();
            let not_answering = cited
                .iter()
                .filter(|s| !judged.answers.contains(**s) && !judged.borderline.contains(**s))
                .count();
            let recall = found as f64 / of.max(1) as f64;
            sums[usize::from(read_all)] += recall;
            wrong[usize::from(read_all)] += not_answering;
            line.push_str(&format!(
                " {recall:>9.2} {found:>2}/{of:<2} -{not_answering:<3}"
            ));
        }
        println!("{line}");
    }
    let n = questions.len().max(1) as f64;
    for &read_all in modes {
        let i = usize::from(read_all);
        println!(
            "{}: mean recall {:.2} over {} judged questions; {} cited papers judged not to answer",
            if read_all {
                "every paper read"
            } else {
                "candidates"
            },
            sums[i] / n,
            questions.len(),
            wrong[i]
        );
    }
    println!("(-N: cited papers judged not to answer; borderline papers count neither way)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_judged_questions_parse_and_every_one_has_answering_papers() {
        let questions = judged(TRUTH).unwrap();
        assert_eq!(questions.len(), 6);
        for (question, j) in &questions {
            assert!(!j.answers.is_empty(), "{question}");
            assert!(j.answers.is_disjoint(&j.borderline), "{question}");
        }
        assert!(judged("q\tp\tmaybe\twhy\n").unwrap_err().contains("line 1"));
        assert!(judged("q\tp\n").unwrap_err().contains("4 fields"));
    }
}
