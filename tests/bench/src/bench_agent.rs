//! `quire-bench bench agent`: the agent runtime's figures, measured side by side in
//! one run against the scripted model server (started here, as a process):
//! prompt size at 10, 80 and 800 papers (and a baseline that keeps its whole
//! history), input tokens per token of paper text, wall time against the
//! ideal at a fixed latency and concurrency, coverage, and the tokens a resume
//! spends again. Every model call is one line of a JSONL file.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use quire::agent::{EventSink, PaperPhase, RunEvent};
use quire::llm::accounting::CallLog;
use quire::review::engine::agent::{self as agent_engine, AgentReport};
use quire::review::{EngineKind, ReviewSpec};
use quire::workspace::{ModelCallRecord, PaperRecord, Workspace, WsPath};
use tokio_util::sync::CancellationToken;

use crate::agent_rig::{Server, baseline_specs, corpus_texts, scripted_setup, synthetic_workspace};

#[derive(Args)]
pub(crate) struct AgentBenchArgs {
    /// The folder of PDFs whose texts the synthetic reviews repeat.
    #[arg(long, default_value = "../shared/corpus/dev")]
    corpus: PathBuf,
    /// Review sizes, in papers.
    #[arg(long, value_delimiter = ',', default_value = "10,80,800")]
    sizes: Vec<usize>,
    /// The scripted server's latency per answer, in milliseconds.
    #[arg(long, default_value_t = 200)]
    latency_ms: u64,
    /// Model calls at once (client and server).
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// The JSONL file of model calls (default: a temp file, printed).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Have the scripted server write every request body to this folder.
    #[arg(long)]
    dump_requests: Option<PathBuf>,
    /// Also review 80 papers with a reader that spoils this share (0-1) of
    /// its answers (bad quotes, invalid JSON, noise): quotes dropped,
    /// re-asks, papers not scored and the tokens it costs.
    #[arg(long)]
    fallible: Option<f64>,
}

pub(crate) const QUESTION: &str = "How do distributed systems reach consensus, replicate state and tolerate failures of machines and networks?";
/// The window the baseline runs under.
pub(crate) const BASELINE_WINDOW: u64 = 32_768;

pub(crate) async fn run(args: AgentBenchArgs) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out_path = match &args.out {
        Some(p) => p.clone(),
        None => scratch.keep().join("agent-bench.jsonl"),
    };
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = Arc::new(Jsonl::create(&out_path)?);
    println!("model calls: {}", out_path.display());

    let texts = corpus_texts(&args.corpus, scratch.path()).await?;
    println!(
        "{} readable papers in {} repeated under distinct ids",
        texts.len(),
        args.corpus.display()
    );
    let server = Server::start(
        args.latency_ms,
        args.concurrency,
        args.dump_requests.as_deref(),
        None,
    )?;
    let latency = Duration::from_millis(args.latency_ms);

    let mut maxima: BTreeMap<usize, u64> = BTreeMap::new();
    let mut ratio_line = None;
    let mut stable = Vec::new();
    for &n in &args.sizes {
        let root = scratch.path().join(format!("agent-{n}"));
        let paper_tokens = synthetic_workspace(&root, &texts, n, false)?;
        let t = Instant::now();
        let (report, calls) = review(&root, &server, &args, out.clone(), n, false, None).await?;
        let wall = t.elapsed();
        let agent_calls: Vec<&Call> = calls.iter().filter(|c| c.agent != "reader").collect();
        let reader_calls = calls.len() - agent_calls.len();
        let max = agent_calls
            .iter()
            .map(|c| c.prompt_tokens)
            .max()
            .unwrap_or(0);
        maxima.insert(n, max);
        let input: u64 = calls.iter().map(|c| c.prompt_tokens).sum();
        stable.push(report.stable_share);
        let ideal =
            latency * (agent_calls.len() as u32 + reader_calls.div_ceil(args.concurrency) as u32);
        println!(
            "\n{n} papers: covered {}/{} (agent {}, sweep {}), {} agent steps, {} reader calls, max prompt {max} tokens",
            report.report.covered_by_agent + report.report.covered_by_sweep,
            report.report.readable,
            report.report.covered_by_agent,
            report.report.covered_by_sweep,
            agent_calls.len(),
            reader_calls,
        );
        println!(
            "  wall {:.1} s vs ideal {:.1} s = {:.2}x [goal <= 1.20]",
            wall.as_secs_f64(),
            ideal.as_secs_f64(),
            wall.as_secs_f64() / ideal.as_secs_f64().max(0.001)
        );
        println!(
            "  input tokens {input} / paper text {paper_tokens} = {:.2} [goal <= 1.30 at 80]",
            input as f64 / paper_tokens.max(1) as f64
        );
        let (cited, included) = synthesis_coverage(&root)?;
        println!(
            "  synthesis cites {cited} of {included} included papers (distinct titles) = {:.2} [goal >= 0.90 at 800]",
            cited as f64 / included.max(1) as f64
        );
        if n == 80 {
            ratio_line = Some(input as f64 / paper_tokens.max(1) as f64);
        }
    }
    if let (Some(small), Some(big)) = (maxima.get(&10), maxima.get(&800)) {
        println!(
            "\nmax prompt tokens per call: 10 papers {small}, 80 {}, 800 {big}; max(800)/max(10) = {:.3} [goal <= 1.05]",
            maxima.get(&80).copied().unwrap_or(0),
            *big as f64 / (*small).max(1) as f64
        );
    }
    if let Some(r) = ratio_line {
        println!("input tokens / paper-text tokens at 80 papers: {r:.2} [goal <= 1.30]");
    }
    let shares: Vec<String> = args
        .sizes
        .iter()
        .zip(&stable)
        .map(|(n, s)| format!("{n} papers {:.0}%", 100.0 * s))
        .collect();
    println!(
        "stable prefix (system prompt, tool specs, task) share of agent prompt tokens: {}",
        shares.join(", ")
    );

    // The baseline: the same tools and loop, but the whole history in every prompt.
    let mut growth = Vec::new();
    for n in [10usize, 80] {
        let root = scratch.path().join(format!("baseline-{n}"));
        synthetic_workspace(&root, &texts, n, false)?;
        baseline_specs(&root)?;
        let (_, calls) = review(&root, &server, &args, out.clone(), n, true, None).await?;
        let agent: Vec<&Call> = calls.iter().filter(|c| c.agent != "reader").collect();
        let max = agent.iter().map(|c| c.prompt_tokens).max().unwrap_or(0);
        let first = agent.first().map(|c| c.prompt_tokens).unwrap_or(0);
        growth.push((n, first, max, agent.len()));
        println!(
            "baseline {n} papers: prompt {first} → {max} tokens over {} steps",
            agent.len()
        );
    }
    if let [(n1, _, m1, _), (n2, _, m2, _)] = growth[..] {
        let per_paper = (m2 as f64 - m1 as f64) / (n2 - n1) as f64;
        let overflow = if per_paper > 0.0 {
            n1 as f64 + (BASELINE_WINDOW as f64 - m1 as f64) / per_paper
        } else {
            f64::INFINITY
        };
        println!(
            "baseline grows {per_paper:.0} prompt tokens per paper: it overflows a {BASELINE_WINDOW}-token window at about paper {overflow:.0}; Quire's prompt stays at {} tokens",
            maxima.values().max().copied().unwrap_or(0)
        );
    }

    if let Some(rate) = args.fallible {
        fallible_figures(&texts, scratch.path(), &args, out.clone(), rate).await?;
    }

    // Resume: stop a run of 80 halfway, resume it, compare with a clean run.
    let root = scratch.path().join("resume-80");
    synthetic_workspace(&root, &texts, 80, false)?;
    let spent = resume_cost(&root, &server, &args, out.clone()).await?;
    // The clean run is the 80-paper run above.
    let clean: u64 = out.total_for(80, false);
    println!(
        "resume: a run stopped after 40 papers and resumed spent {} tokens; a clean run {}: {} again = {:.1}% of the run; one batch of {} papers is {} tokens [goal <= one batch]",
        spent.total,
        clean,
        spent.total.saturating_sub(clean),
        100.0 * spent.total.saturating_sub(clean) as f64 / clean.max(1) as f64,
        spent.batch_papers,
        spent.batch_tokens
    );
    drop(server);
    println!("\nmodel calls written to {}", out_path.display());
    Ok(())
}

/// One model call as the JSONL has it.
#[derive(Clone, Debug, serde::Serialize)]
struct Call {
    papers: usize,
    agent: String,
    step: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    baseline: bool,
    latency_ms: u64,
    /// When the answer arrived, in milliseconds since the run started.
    done_ms: u64,
}

struct Jsonl {
    file: Mutex<std::fs::File>,
    calls: Mutex<Vec<Call>>,
}

impl Jsonl {
    fn create(path: &Path) -> Result<Self, String> {
        Ok(Self {
            file: Mutex::new(std::fs::File::create(path).map_err(|e| e.to_string())?),
            calls: Mutex::new(Vec::new()),
        })
    }

    fn total_for(&self, papers: usize, baseline: bool) -> u64 {
        self.calls
            .lock()
            .map(|c| {
                c.iter()
                    .filter(|c| c.papers == papers && c.baseline == baseline)
                    .map(|c| c.prompt_tokens + c.completion_tokens)
                    .sum()
            })
            .unwrap_or(0)
    }
}

/// Tags a run's calls with its size and kind, into the shared JSONL.
struct RunLog {
    out: Arc<Jsonl>,
    papers: usize,
    baseline: bool,
    started: Instant,
    mine: Mutex<Vec<Call>>,
}

impl CallLog for RunLog {
    fn record(&self, call: &ModelCallRecord) {
        // "agent reviewer step 12" or "reader".
        let words: Vec<&str> = call.purpose.split_whitespace().collect();
        let (agent, step) = match words.as_slice() {
            ["agent", agent, "step", step] => (agent.to_string(), step.parse().unwrap_or(0)),
            _ => (call.purpose.clone(), 0),
        };
        let line = Call {
            papers: self.papers,
            agent,
            step,
            prompt_tokens: call.input_tokens,
            completion_tokens: call.output_tokens,
            baseline: self.baseline,
            latency_ms: call.latency_ms,
            done_ms: self.started.elapsed().as_millis() as u64,
        };
        if let (Ok(mut file), Ok(text)) = (self.out.file.lock(), serde_json::to_string(&line)) {
            let _ = writeln!(file, "{text}");
        }
        if let Ok(mut all) = self.out.calls.lock() {
            all.push(line.clone());
        }
        if let Ok(mut mine) = self.mine.lock() {
            mine.push(line);
        }
    }
}

struct Outcome {
    report: AgentReport,
    /// Share of agent prompt tokens that were the byte-stable prefix.
    stable_share: f64,
}

/// Watches a run's events: sums the stable prefix of every agent step, and
/// stops the run after some papers when asked to.
#[derive(Default)]
struct Watch {
    scored: std::sync::atomic::AtomicUsize,
    stable: std::sync::atomic::AtomicU64,
    prompt: std::sync::atomic::AtomicU64,
    stop_after: Option<(usize, CancellationToken)>,
}

impl EventSink for Watch {
    fn emit(&self, event: RunEvent) {
        use std::sync::atomic::Ordering::SeqCst;
        if let RunEvent::AgentStep {
            prompt_tokens,
            stable_tokens,
            ..
        } = event
        {
            self.stable.fetch_add(stable_tokens, SeqCst);
            self.prompt.fetch_add(prompt_tokens, SeqCst);
        }
        if let RunEvent::PaperStatus {
            phase: PaperPhase::Scored,
            ..
        } = event
        {
            let n = self
                .scored
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
                + 1;
            if let Some((after, token)) = &self.stop_after
                && n >= *after
            {
                token.cancel();
            }
        }
    }
}

/// Run the agent engine on a prepared workspace; `stop_after` cancels it once
/// that many papers are scored.
#[allow(clippy::too_many_arguments)]
async fn review(
    root: &Path,
    server: &Server,
    args: &AgentBenchArgs,
    out: Arc<Jsonl>,
    papers: usize,
    baseline: bool,
    stop_after: Option<usize>,
) -> Result<(Outcome, Vec<Call>), String> {
    let ws = Workspace::open(root).map_err(|e| e.to_string())?;
    let log = Arc::new(RunLog {
        out,
        papers,
        baseline,
        started: Instant::now(),
        mine: Mutex::new(Vec::new()),
    });
    let window = if baseline { 1_000_000 } else { 32_768 };
    let setup = scripted_setup(
        &server.base_url,
        args.concurrency,
        window,
        Some(log.clone()),
    )?;
    let cancel = CancellationToken::new();
    let watch = Arc::new(Watch {
        stop_after: stop_after.map(|n| (n, cancel.clone())),
        ..Watch::default()
    });
    let spec = ReviewSpec {
        question: QUESTION.into(),
        criteria: Vec::new(),
        engine: EngineKind::Agent,
        protocol: None,
    };
    let ran = agent_engine::run_review(&ws, &spec, &setup, watch.clone(), cancel)
        .await
        .map_err(|e| e.to_string())?;
    let report = ran.agent.ok_or("the agent engine gave no report")?;
    let calls = log.mine.lock().map(|c| c.clone()).unwrap_or_default();
    let stable = watch.stable.load(std::sync::atomic::Ordering::SeqCst);
    let counted = watch.prompt.load(std::sync::atomic::Ordering::SeqCst);
    Ok((
        Outcome {
            report,
            stable_share: stable as f64 / counted.max(1) as f64,
        },
        calls,
    ))
}

/// How many of the included papers the model's own synthesis text names, by
/// title: (cited, included), over distinct titles (a synthetic review
/// repeats the corpus's papers under new ids, and a title cited once covers
/// its copies). The lists Quire appends for papers the model left out are
/// not the model's citing, and do not count.
fn synthesis_coverage(root: &Path) -> Result<(usize, usize), String> {
    let ws = Workspace::open_read_only(root).map_err(|e| e.to_string())?;
    let synthesis = ws
        .read_string(
            &WsPath::parse(quire::workspace::layout::SYNTHESIS_FILE).map_err(|e| e.to_string())?,
        )
        .unwrap_or_default();
    let synthesis = quire::review::engine::agent::synthesis::model_text(&synthesis).to_lowercase();
    let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    let synthesis = squeeze(&synthesis);
    let mut included = std::collections::BTreeSet::new();
    for paper in ws.papers().map_err(|e| e.to_string())? {
        let path = agent_engine::result_path(&paper.id).map_err(|e| e.to_string())?;
        let Ok(result) = ws.read_json::<quire::review::PaperResult>(&path) else {
            continue;
        };
        if result.verdict == quire::review::Verdict::Include
            && let Some(title) = paper.title.as_deref().filter(|t| !t.trim().is_empty())
        {
            included.insert(squeeze(&title.to_lowercase()));
        }
    }
    let cited = included
        .iter()
        .filter(|t| synthesis.contains(t.as_str()))
        .count();
    Ok((cited, included.len()))
}

/// The 80-paper review again, against a reader that spoils `rate` of its
/// answers: what its mistakes cost and what became of them.
async fn fallible_figures(
    texts: &[(PaperRecord, Vec<String>)],
    scratch: &Path,
    args: &AgentBenchArgs,
    out: Arc<Jsonl>,
    rate: f64,
) -> Result<(), String> {
    let server = Server::start(args.latency_ms, args.concurrency, None, Some(rate))?;
    let root = scratch.join("fallible-80");
    let paper_tokens = synthetic_workspace(&root, texts, 80, false)?;
    let (outcome, calls) = review(&root, &server, args, out, 80, false, None).await?;
    let ws = Workspace::open_read_only(&root).map_err(|e| e.to_string())?;
    let (mut verified, mut dropped, mut reasked) = (0, 0, 0);
    for paper in ws.papers().map_err(|e| e.to_string())? {
        let path = agent_engine::result_path(&paper.id).map_err(|e| e.to_string())?;
        if let Ok(result) = ws.read_json::<quire::review::PaperResult>(&path) {
            verified += result.provenance.quotes_verified.unwrap_or(0);
            dropped += result.provenance.quotes_dropped.unwrap_or(0);
            reasked += usize::from(result.provenance.reasked.is_some());
        }
    }
    let input: u64 = calls.iter().map(|c| c.prompt_tokens).sum();
    let report = &outcome.report;
    println!(
        "
fallible reader at {:.0}%: covered {}/{}, {} not scored (each with its reason); quotes {verified} verified, {dropped} dropped; {reasked} papers asked again; {} reader calls",
        rate * 100.0,
        report.covered_by_agent + report.covered_by_sweep,
        report.readable,
        report.failed,
        calls.iter().filter(|c| c.agent == "reader").count()
    );
    println!(
        "  input tokens {input} / paper text {paper_tokens} = {:.2} [goal <= 1.50 at 20%]",
        input as f64 / paper_tokens.max(1) as f64
    );
    Ok(())
}

struct Spent {
    total: u64,
    batch_papers: usize,
    batch_tokens: u64,
}

async fn resume_cost(
    root: &Path,
    server: &Server,
    args: &AgentBenchArgs,
    out: Arc<Jsonl>,
) -> Result<Spent, String> {
    let (_, first) = review(root, server, args, out.clone(), 0, false, Some(40)).await?;
    let (_, second) = review(root, server, args, out, 0, false, None).await?;
    let total: u64 = first
        .iter()
        .chain(&second)
        .map(|c| c.prompt_tokens + c.completion_tokens)
        .sum();
    let reader: Vec<&Call> = second.iter().filter(|c| c.agent == "reader").collect();
    let per_paper = reader
        .iter()
        .map(|c| c.prompt_tokens + c.completion_tokens)
        .sum::<u64>()
        / reader.len().max(1) as u64;
    let batch_papers = agent_engine::batch_size(args.concurrency);
    Ok(Spent {
        total,
        batch_papers,
        batch_tokens: per_paper * batch_papers as u64,
    })
}
