//! `quire-bench bench ask`: asking the papers and filling the extraction
//! table against the scripted model server, at 10, 80 and 800 papers (the
//! corpus's texts repeated under distinct ids). Prints the largest prompt of
//! the composing calls (flat: it must not grow with the papers), reader calls
//! and tokens per paper, wall time against the ideal at the concurrency, the
//! share of cited quotes found on their pages, and cells filled.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use quire::agent::{Budget, Caps};
use quire::llm::accounting::{CallLog, PriceTable};
use quire::llm::{HttpProvider, ModelClient, ModelSettings};
use quire::review::ask::run::{AskRequest, run as ask};
use quire::review::ask::{Scope, Status};
use quire::review::reading::batch::ReadingModel;
use quire::review::table::fill::fill;
use quire::review::table::{Column, columns};
use quire::workspace::{ModelCallRecord, Workspace};
use tokio_util::sync::CancellationToken;

use crate::agent_rig::{Server, corpus_texts, synthetic_workspace};

#[derive(Args)]
pub(crate) struct AskBenchArgs {
    /// The corpus whose texts fill the synthetic reviews.
    #[arg(long, default_value = "../shared/corpus/dev")]
    corpus: PathBuf,
    /// Papers per question.
    #[arg(long, value_delimiter = ',', default_value = "10,80,800")]
    sizes: Vec<usize>,
    /// Papers per table fill.
    #[arg(long, value_delimiter = ',', default_value = "80,800")]
    table_sizes: Vec<usize>,
    /// The server's latency per answer, in milliseconds (as `bench agent`:
    /// a model's compute is its latency; far below it, the two processes'
    /// own CPU work on 2 cores is what gets measured).
    #[arg(long, default_value_t = 200)]
    latency_ms: u64,
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Answers the scripted reader spoils (a quote paraphrased or on the
    /// wrong page, a "not" left out, JSON cut or broken, a refusal...), as
    /// real models do; 0 for a reader that never errs.
    #[arg(long, default_value_t = 0.2)]
    fallible: f64,
    /// The question asked (default: one nearly every paper answers).
    #[arg(long, default_value = QUESTION)]
    question: String,
}

/// A question nearly every paper answers, so the composing calls carry the
/// most they ever can at each size: the case in which their prompts would
/// grow if anything did.
const QUESTION: &str =
    "How do the authors evaluate their approach, and what results do they report?";

/// Every call's purpose and prompt size.
#[derive(Default)]
struct Calls(Mutex<Vec<(String, u64)>>);

impl CallLog for Calls {
    fn record(&self, call: &ModelCallRecord) {
        if let Ok(mut calls) = self.0.lock() {
            calls.push((call.purpose.clone(), call.input_tokens));
        }
    }
}

impl Calls {
    fn take(&self) -> Vec<(String, u64)> {
        self.0
            .lock()
            .map(|mut c| std::mem::take(&mut *c))
            .unwrap_or_default()
    }
}

fn model(server: &Server, concurrency: usize, log: Arc<Calls>) -> Result<ReadingModel, String> {
    let settings = ModelSettings {
        base_url: server.base_url.clone(),
        model: "scripted-reader".into(),
        context_window: 32_768,
        max_output_tokens: 2048,
        concurrency,
        read_timeout_secs: 60.0,
        max_retries: 1,
        ..ModelSettings::default()
    };
    let provider = HttpProvider::new(settings, None).map_err(|e| e.to_string())?;
    let client =
        ModelClient::new("bench".to_owned(), provider, PriceTable::builtin()).with_log(log);
    Ok(ReadingModel {
        client: Arc::new(client),
        budget: Arc::new(Budget::new(Caps::default())),
    })
}

pub(crate) async fn run(args: AskBenchArgs) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let texts = corpus_texts(&args.corpus, scratch.path()).await?;
    println!(
        "{} readable papers in {}, repeated under distinct ids",
        texts.len(),
        args.corpus.display()
    );
    // The tokenizer's tables load once a process (a few hundred ms), not
    // once a question: load them before anything is timed.
    quire::llm::accounting::count_tokens("warm");
    let server = Server::start(
        args.latency_ms,
        args.concurrency,
        None,
        (args.fallible > 0.0).then_some(args.fallible),
    )?;
    println!(
        "scripted reader spoiling {:.0}% of its answers, {} ms an answer, {} at once",
        args.fallible * 100.0,
        args.latency_ms,
        args.concurrency
    );
    let latency = Duration::from_millis(args.latency_ms);
    let log = Arc::new(Calls::default());
    let model = model(&server, args.concurrency, log.clone())?;

    println!(
        "\nAsk (every paper read: --read-all), question: {}",
        args.question
    );
    let mut maxima: BTreeMap<usize, u64> = BTreeMap::new();
    for &n in &args.sizes {
        let root = scratch.path().join(format!("ask-{n}"));
        let paper_tokens = synthetic_workspace(&root, &texts, n, false)?;
        let ws = Workspace::open(&root).map_err(|e| e.to_string())?;
        log.take();
        let t = Instant::now();
        let record = ask(
            &ws,
            AskRequest {
                question: args.question.clone(),
                scope: Scope::All,
                read_all: true,
                batch: None,
            },
            Some(ReadingModel {
                client: model.client.clone(),
                budget: model.budget.clone(),
            }),
            CancellationToken::new(),
            Arc::new(|_| {}),
        )
        .await
        .map_err(|e| e.to_string())?;
        let wall = t.elapsed();
        if record.status != Status::Done {
            return Err(format!(
                "the question at {n} papers ended {:?}",
                record.status
            ));
        }
        let calls = log.take();
        let readers: Vec<u64> = calls
            .iter()
            .filter(|c| c.0 == "ask_paper")
            .map(|c| c.1)
            .collect();
        let groups = calls.iter().filter(|c| c.0 == "ask_compose").count();
        let merges = calls.iter().filter(|c| c.0 == "ask_merge").count();
        let composing: Vec<u64> = calls
            .iter()
            .filter(|c| c.0 == "ask_compose" || c.0 == "ask_merge")
            .map(|c| c.1)
            .collect();
        let max = composing.iter().copied().max().unwrap_or(0);
        let max_of = |purpose: &str| {
            calls
                .iter()
                .filter(|c| c.0 == purpose)
                .map(|c| c.1)
                .max()
                .unwrap_or(0)
        };
        let (max_group, max_merge) = (max_of("ask_compose"), max_of("ask_merge"));
        maxima.insert(n, max);
        // The ideal: the readers in waves of the concurrency, then the
        // groups' waves, then the merges: at least a wave per level after
        // the groups, and at least their number over the concurrency.
        let rounds = record.coverage.composing_rounds as usize;
        let merge_waves = rounds
            .saturating_sub(1)
            .max(merges.div_ceil(args.concurrency));
        let waves = readers.len().div_ceil(args.concurrency)
            + groups.div_ceil(args.concurrency)
            + merge_waves;
        let ideal = latency * waves as u32;
        let (verified, unfound) = quotes_on_their_pages(&ws, &texts, &record.sources)?;
        println!(
            "{n} papers: {} reader calls ({:.2} a paper, {:.0} prompt tokens a paper; paper text {:.0} tokens a paper), {groups} composing + {merges} merging calls in {rounds} rounds, max composing prompt {max} tokens (composing {max_group}, merging {max_merge})",
            readers.len(),
            readers.len() as f64 / n as f64,
            readers.iter().sum::<u64>() as f64 / n as f64,
            paper_tokens as f64 / n as f64,
        );
        println!(
            "  {} contributed of {} read, {} failed; quotes not on their page dropped {}; cited quotes on their pages {verified}/{} = {:.2} [goal 1.00]; {} sentences unsupported",
            record.coverage.contributed,
            record.coverage.read,
            record.coverage.failed.len(),
            record.coverage.quotes_dropped,
            record.sources.len(),
            verified as f64 / record.sources.len().max(1) as f64,
            record.coverage.unsupported
        );
        // What the independent check could not find, to read: Quire's
        // error, or poppler reading the page otherwise.
        for quote in unfound.iter().take(3) {
            println!("    not found by poppler's text: {quote}");
        }
        println!(
            "  wall {:.2} s vs ideal {:.2} s = {:.2}x [goal <= 1.20]",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64().max(0.001)
        );
    }
    if let (Some(small), Some(big)) = (maxima.get(&10), maxima.get(&800)) {
        println!(
            "max composing prompt: 10 papers {small}, 80 {}, 800 {big}; max(800)/max(10) = {:.3} [goal <= 1.05], max(800)/max(80) = {:.3}",
            maxima.get(&80).copied().unwrap_or(0),
            *big as f64 / (*small).max(1) as f64,
            *big as f64 / maxima.get(&80).copied().unwrap_or(1).max(1) as f64,
        );
    }

    println!("\nExtraction table, 5 columns (templates), every paper");
    for &n in &args.table_sizes {
        let root = scratch.path().join(format!("table-{n}"));
        synthetic_workspace(&root, &texts, n, false)?;
        let ws = Workspace::open(&root).map_err(|e| e.to_string())?;
        let five: Vec<Column> = columns::templates().into_iter().take(5).collect();
        columns::save(&ws, &five).map_err(|e| e.to_string())?;
        log.take();
        let t = Instant::now();
        let outcome = fill_all(&ws, &model).await?;
        let wall = t.elapsed();
        let calls = log.take();
        let ideal = latency * calls.len().div_ceil(args.concurrency) as u32;
        println!(
            "{n} papers: {} calls ({:.2} a paper, {:.0} prompt tokens a paper), {} of {} cells filled, {} low-confidence, {} failed; wall {:.2} s vs ideal {:.2} s = {:.2}x [goal <= 1.20]",
            calls.len(),
            calls.len() as f64 / n as f64,
            calls.iter().map(|c| c.1).sum::<u64>() as f64 / n as f64,
            outcome.cells_filled,
            n * five.len(),
            outcome.low_confidence,
            outcome.failed.len(),
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64().max(0.001)
        );
        // Adding a column reads only that column.
        let mut six = five.clone();
        six.push(columns::templates().remove(5));
        columns::save(&ws, &six).map_err(|e| e.to_string())?;
        fill_all(&ws, &model).await?;
        let again = log.take();
        println!(
            "  a sixth column: {} calls, {:.0} prompt tokens a paper",
            again.len(),
            again.iter().map(|c| c.1).sum::<u64>() as f64 / n as f64
        );
    }
    Ok(())
}

/// Fill the table for every paper of `ws`.
async fn fill_all(
    ws: &Workspace,
    model: &ReadingModel,
) -> Result<quire::review::table::fill::FillOutcome, String> {
    fill(
        ws,
        &Scope::All,
        model,
        None,
        &CancellationToken::new(),
        Arc::new(|_| {}),
    )
    .await
    .map_err(|e| e.to_string())
}

/// How many of `sources` are on the page they cite, by a check apart from
/// Quire's: poppler's text of the corpus PDF's page, matched letters and
/// digits only ([`testkit::quote_match`]). A synthetic paper is its corpus
/// original under a new id (its hash keeps the original's tail). Returns
/// the count and the quotes not found, with their file and page.
fn quotes_on_their_pages(
    ws: &Workspace,
    corpus: &[(quire::workspace::PaperRecord, Vec<String>)],
    sources: &[quire::review::ask::Source],
) -> Result<(usize, Vec<String>), String> {
    let originals: BTreeMap<&str, &PathBuf> = corpus
        .iter()
        .map(|(p, _)| (&p.sha256[16..], &p.file))
        .collect();
    let files: BTreeMap<String, PathBuf> = ws
        .papers()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter_map(|p| {
            let file = originals.get(p.sha256.get(16..)?)?;
            Some((p.id.0.clone(), (*file).clone()))
        })
        .collect();
    let mut pages: BTreeMap<(PathBuf, usize), Vec<String>> = BTreeMap::new();
    let mut on_page = 0;
    let mut unfound = Vec::new();
    for source in sources {
        let Some(file) = files.get(&source.paper) else {
            unfound.push(format!("{:?}: no corpus file", source.quote));
            continue;
        };
        let text = pages
            .entry((file.clone(), source.page))
            .or_insert_with(|| testkit::quote_match::pdftotext_page(file, source.page as u32));
        if text
            .iter()
            .any(|t| testkit::quote_match::on_page(&source.quote, t))
        {
            on_page += 1;
        } else {
            let name = file.file_name().unwrap_or_default().to_string_lossy();
            unfound.push(format!("{name} p. {}: {:?}", source.page, source.quote));
        }
    }
    Ok((on_page, unfound))
}
