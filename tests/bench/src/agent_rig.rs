//! What the agent benchmark runs on: the scripted model server as a child
//! process, the corpus's texts, synthetic workspaces of any size made from
//! them, and the baseline's agent specs.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use quire::agent::Caps;
use quire::commands::reviews;
use quire::commands::{AppContext, AppPaths};
use quire::llm::accounting::{CallLog, PriceTable};
use quire::llm::{HttpProvider, ModelSettings};
use quire::pdf::ingest::IngestOptions;
use quire::review::engine::AgentSetup;
use quire::review::engine::agent::{self as agent_engine};
use quire::review::run::{EngineSetup, ReviewRequest};
use quire::review::{EngineKind, ReviewSpec, paper_text};
use quire::workspace::{
    PaperId, PaperRecord, PaperStatus, TaskMeta, Workspace, WorkspaceId, WsPath,
};

use crate::bench_agent::{BASELINE_WINDOW, QUESTION};

/// The scripted model server as a child process.
pub(crate) struct Server {
    child: Child,
    pub(crate) base_url: String,
}

impl Server {
    pub(crate) fn start(
        latency_ms: u64,
        concurrency: usize,
        dump: Option<&Path>,
        fallible: Option<f64>,
    ) -> Result<Self, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let binary = exe.with_file_name("scripted-model");
        if !binary.is_file() {
            return Err(format!(
                "{} is not built; run `cargo build --release -p testkit` (or without --release for a debug quire)",
                binary.display()
            ));
        }
        let mut command = Command::new(&binary);
        if let Some(dir) = dump {
            command.arg("--dump").arg(dir);
        }
        if let Some(rate) = fallible {
            command.args(["--fallible", &rate.to_string(), "--seed", "7"]);
        }
        let mut child = command
            .args([
                "--port",
                "0",
                "--latency-ms",
                &latency_ms.to_string(),
                "--concurrency",
                &concurrency.to_string(),
                "--context-window",
                &BASELINE_WINDOW.to_string(),
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let stdout = child.stdout.take().ok_or("no stdout from the server")?;
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .map_err(|e| e.to_string())?;
        Ok(Self {
            child,
            base_url: line.trim().to_owned(),
        })
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The agent engine's setup against the scripted server at `base_url`: its
/// model with a `window`-token context, `concurrency` calls at once, short
/// backoffs, and every call also given to `extra_log`.
pub(crate) fn scripted_setup(
    base_url: &str,
    concurrency: usize,
    window: u32,
    extra_log: Option<Arc<dyn CallLog>>,
) -> Result<AgentSetup, String> {
    let settings = ModelSettings {
        base_url: base_url.to_owned(),
        model: "scripted-reader".into(),
        context_window: window,
        max_output_tokens: 2048,
        concurrency,
        read_timeout_secs: 60.0,
        max_retries: 1,
        ..ModelSettings::default()
    };
    Ok(AgentSetup {
        profile: "bench".into(),
        endpoints: HttpProvider::new(settings, None)
            .map_err(|e| e.to_string())?
            .into(),
        prices: PriceTable::builtin(),
        caps: Caps::default(),
        base_backoff: Some(Duration::from_millis(20)),
        extra_log,
        pilot: None,
        dual: None,
        batch: None,
    })
}

/// Extract the corpus once (an offline review into a scratch workspace) and
/// return each readable paper's record and pages.
pub(crate) async fn corpus_texts(
    corpus: &Path,
    scratch: &Path,
) -> Result<Vec<(PaperRecord, Vec<String>)>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let data = scratch.join("data");
    let ctx = AppContext::new(AppPaths::new(&data));
    let mut ingest = IngestOptions::new(exe);
    ingest.cache_dir = Some(data.join("cache"));
    let workspace = scratch.join("corpus");
    let request = ReviewRequest {
        source: corpus.to_path_buf(),
        spec: ReviewSpec {
            question: QUESTION.into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        },
        workspace: workspace.clone(),
        ingest,
        engine: EngineSetup::Offline,
        lookup: None,
    };
    reviews::start(&ctx, request, Arc::new(quire::agent::NoEvents))
        .finish()
        .await
        .map_err(|e| e.message)?;
    let ws = Workspace::open_read_only(&workspace).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for paper in ws.papers().map_err(|e| e.to_string())? {
        if !paper.status.is_readable() {
            continue;
        }
        if let Some(pages) = paper_text::load(&ws, &paper.id).map_err(|e| e.to_string())? {
            out.push((paper, pages));
        }
    }
    Ok(out)
}

/// A review workspace of `n` papers, the corpus texts repeated under distinct
/// ids; with `distinct_works`, each repeat's title says which copy it is, so
/// no two papers are read with the same request. Returns the tokens of paper
/// text (four bytes a token, as the server counts).
pub(crate) fn synthetic_workspace(
    root: &Path,
    texts: &[(PaperRecord, Vec<String>)],
    n: usize,
    distinct_works: bool,
) -> Result<u64, String> {
    let err = |e: quire::workspace::WorkspaceError| e.to_string();
    let mut task = TaskMeta::new(
        WorkspaceId(format!("bench-{n}")),
        format!("{n} papers"),
        Path::new("/bench"),
    );
    task.question = Some(QUESTION.into());
    let ws = Workspace::create(root, &task).map_err(err)?;
    let mut tokens = 0u64;
    for i in 0..n {
        let (original, pages) = &texts[i % texts.len()];
        let id = PaperId(format!("{:016x}", 0x5eed_0000_0000_0000u64 + i as u64));
        let mut paper = original.clone();
        paper.id = id.clone();
        paper.sha256 = format!("{}{}", id.0, &original.sha256[16..]);
        paper.file = PathBuf::from(format!("/bench/copy-{i}.pdf"));
        paper.status = PaperStatus::Ok;
        paper.duplicates.clear();
        let copy = i / texts.len();
        if distinct_works && copy > 0 {
            paper.title = paper.title.map(|t| format!("{t} (copy {copy})"));
        }
        ws.save_paper(&paper).map_err(err)?;
        paper_text::save(&ws, &id, pages).map_err(err)?;
        tokens += (paper_text::render(pages).len() as u64).div_ceil(4);
    }
    Ok(tokens)
}

/// The baseline: the built-in agents with every action kept in the prompt
/// (the largest window the runtime allows), nothing elided, no consolidation.
pub(crate) fn baseline_specs(root: &Path) -> Result<(), String> {
    let ws = Workspace::open(root).map_err(|e| e.to_string())?;
    let set =
        quire::agent::AgentSet::builtin(&agent_engine::TOOL_NAMES).map_err(|e| e.to_string())?;
    for name in ["planner", "reviewer", "writer"] {
        let mut spec = set.get(name).map_err(|e| e.to_string())?.clone();
        spec.action_window = 100;
        spec.prompt_budget = 1_000_000;
        spec.consolidate_every = 0;
        let text = toml::to_string(&spec).map_err(|e| e.to_string())?;
        ws.write(
            &WsPath::parse(&format!("agents/{name}.toml")).map_err(|e| e.to_string())?,
            text.as_bytes(),
        )
        .map_err(|e| e.to_string())?;
    }
    Ok(())
}
