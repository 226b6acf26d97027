//! `quire-bench eval ask`: does asking the papers find the papers that answer?
//! Each question's answering papers are known from the texts themselves, not
//! from file names or topics: a paper answers when its text uses one of the
//! question's decisive phrases at least twice (once is a passing mention or
//! a reference). The question is asked of the whole corpus with the scripted
//! reader, choosing candidates as the app does and again reading every
//! paper; prints the recall of the answering papers among the papers the
//! answer cites, and how many cited papers are not among them. The rule is
//! the corpus's own, so the same run measures any folder of papers.

use std::collections::BTreeSet;
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

/// Questions and the phrases whose repeated use marks an answering paper.
const QUESTIONS: &[(&str, &[&str])] = &[
    (
        "Which papers use a write-ahead log to recover after a crash?",
        &["write-ahead log", "write ahead log"],
    ),
    (
        "Which papers build on Paxos or Raft for consensus?",
        &["paxos", "raft"],
    ),
    (
        "Which papers regularize neural networks with dropout?",
        &["dropout"],
    ),
    (
        "Which papers study garbage collection pauses?",
        &["garbage collect"],
    ),
    (
        "Which papers evaluate on the ImageNet dataset?",
        &["imagenet"],
    ),
    ("Which papers use Bloom filters?", &["bloom filter"]),
];

fn answers(pages: &[String], phrases: &[&str]) -> bool {
    let text = pages.join(" ").to_lowercase();
    phrases
        .iter()
        .map(|p| text.matches(p).count())
        .sum::<usize>()
        >= 2
}

pub(crate) async fn run(corpus: &Path) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let dev = corpus.join("dev");
    let texts = corpus_texts(&dev, scratch.path()).await?;
    let ws = Workspace::open(&scratch.path().join("corpus")).map_err(|e| e.to_string())?;
    println!("{} readable papers in {}", texts.len(), dev.display());
    let server = Server::start(0, 8, None, None)?;
    let settings = ModelSettings {
        base_url: server.base_url.clone(),
        model: "scripted-reader".into(),
        context_window: 32_768,
        max_output_tokens: 2048,
        concurrency: 8,
        read_timeout_secs: 60.0,
        max_retries: 1,
        ..ModelSettings::default()
    };
    let client = Arc::new(ModelClient::new(
        "eval".to_owned(),
        HttpProvider::new(settings, None).map_err(|e| e.to_string())?,
        PriceTable::builtin(),
    ));
    println!(
        "{:<62} {:>9} {:>22} {:>22}",
        "question", "answering", "recall (candidates)", "recall (every paper)"
    );
    let (mut sum_candidates, mut sum_all, mut counted) = (0.0, 0.0, 0);
    for (question, phrases) in QUESTIONS {
        let answering: BTreeSet<String> = texts
            .iter()
            .filter(|(_, pages)| answers(pages, phrases))
            .map(|(p, _)| p.id.0.clone())
            .collect();
        let mut line = format!("{question:<62} {:>9}", answering.len());
        for read_all in [false, true] {
            let record = ask(
                &ws,
                AskRequest {
                    question: (*question).to_owned(),
                    scope: Scope::All,
                    read_all,
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
            let cited: BTreeSet<String> = record.sources.iter().map(|s| s.paper.clone()).collect();
            let found = cited.intersection(&answering).count();
            let recall = found as f64 / answering.len().max(1) as f64;
            let outside = cited.difference(&answering).count();
            let of = answering.len();
            line.push_str(&format!(" {recall:>14.2} {found:>2}/{of:<2} +{outside:<2}"));
            if !answering.is_empty() {
                if read_all {
                    sum_all += recall;
                } else {
                    sum_candidates += recall;
                }
            }
        }
        if !answering.is_empty() {
            counted += 1;
        }
        println!("{line}");
    }
    println!(
        "mean recall over {counted} questions with answering papers: candidates {:.2}, every paper read {:.2}",
        sum_candidates / counted.max(1) as f64,
        sum_all / counted.max(1) as f64
    );
    println!("(+N: cited papers the phrase rule does not count as answering)");
    Ok(())
}
