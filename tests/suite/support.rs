//! Shared helpers: temp workspaces, the shared corpus, the built `quire` binary.

use std::path::{Path, PathBuf};

use quire::tools::{Registry, ToolContext, ToolSettings};
use quire::workspace::Workspace;

/// `../shared/corpus`, next to the repository (read-only, never copied into it).
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// A few real PDFs from one topic of the dev corpus.
pub fn dev_pdfs(topic: &str, count: usize) -> Vec<PathBuf> {
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(corpus().join("dev").join(topic))
        .expect("the shared corpus is next to the repository")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    pdfs.sort();
    pdfs.truncate(count);
    assert_eq!(pdfs.len(), count, "not enough PDFs in {topic}");
    pdfs
}

/// A folder with copies of `pdfs` in it.
pub fn folder_of(pdfs: &[PathBuf]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for pdf in pdfs {
        std::fs::copy(pdf, dir.path().join(pdf.file_name().unwrap())).unwrap();
    }
    dir
}

/// A config folder whose `models.toml` has one default profile, `scripted`,
/// pointing at a scripted model server (plus `extra` settings lines).
pub fn scripted_config(base_url: &str, extra: &str) -> tempfile::TempDir {
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("models.toml"),
        format!(
            "default = \"scripted\"\n\n[profiles.scripted]\nbase_url = \"{base_url}\"\nmodel = \"scripted-reader\"\n{extra}"
        ),
    )
    .unwrap();
    config
}

pub fn quire_bin() -> &'static str {
    env!("CARGO_BIN_EXE_quire")
}

/// A fresh workspace in a temp dir with the built-in tools.
pub struct ToolBench {
    /// Keeps the temp folder alive for as long as the bench.
    _dir: tempfile::TempDir,
    pub ctx: ToolContext,
    pub registry: Registry,
}

impl ToolBench {
    pub fn new() -> Self {
        Self::with_settings(ToolSettings::default())
    }

    pub fn with_settings(settings: ToolSettings) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = Workspace::open_or_init(dir.path()).unwrap();
        Self {
            _dir: dir,
            ctx: ToolContext::new(workspace, settings),
            registry: Registry::with_builtins(),
        }
    }

    pub fn root(&self) -> &Path {
        self.ctx.workspace.root()
    }

    pub async fn ok(&self, tool: &str, args: serde_json::Value) -> String {
        match self.registry.call(&self.ctx, tool, args.clone()).await {
            Ok(text) => text,
            Err(e) => panic!("{tool}({args}) failed: {e}"),
        }
    }

    /// Write a file as Quire itself does (not through a tool).
    pub fn put(&self, path: &str, content: &str) {
        let path = quire::workspace::WsPath::parse(path).unwrap();
        self.ctx.workspace.write(&path, content.as_bytes()).unwrap();
    }

    /// The error code of a call that must fail.
    pub async fn code(&self, tool: &str, args: serde_json::Value) -> String {
        match self.registry.call(&self.ctx, tool, args.clone()).await {
            Ok(text) => panic!("{tool}({args}) should have failed but returned {text:?}"),
            Err(e) => e.code,
        }
    }
}

/// Every file under `dir`, recursively.
pub fn every_file(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(every_file(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// A real PDF whose pages carry `pages` as lines of text (see [`testkit::pdf`]).
pub fn pdf_with_pages(pages: &[&str]) -> Vec<u8> {
    testkit::pdf::with_pages(None, pages)
}

/// Records the model calls a client makes (a `CallLog` at the edge of the
/// client, for asserting on outcomes and tokens).
#[derive(Default)]
pub struct Calls(pub std::sync::Mutex<Vec<quire::workspace::ModelCallRecord>>);

impl quire::llm::accounting::CallLog for Calls {
    fn record(&self, call: &quire::workspace::ModelCallRecord) {
        self.0.lock().unwrap().push(call.clone());
    }
}

impl Calls {
    /// Each call's outcome (`ok` or an error code), in order.
    pub fn outcomes(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.outcome.clone())
            .collect()
    }

    /// Calls whose purpose starts with `purpose` that the server answered
    /// from a prompt it cut.
    pub fn cut(&self, purpose: &str) -> usize {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|c| c.outcome == "prompt_cut" && c.purpose.starts_with(purpose))
            .count()
    }
}

/// The `quire` binary set up as a user's, against the model profiles in
/// `config` and the data folder `data`, and hermetic: no scholarly lookups,
/// no OS secret store, no local Ollama.
pub fn quire_command(config: &Path, data: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(quire_bin());
    command
        .env("QUIRE_CONFIG_DIR", config)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_OFFLINE", "1")
        .env("QUIRE_SECRET_STORE", "file")
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9");
    command
}

/// `quire ARGS...` as a user's, asking the scholarly indexes wherever `env`
/// points them (a fixture): not offline, no OpenAlex key from the shell it
/// runs in, a contact address, keys in a file under `data`.
pub fn quire_online(args: &[&str], data: &Path, env: &[(&str, String)]) -> std::process::Output {
    let mut command = std::process::Command::new(quire_bin());
    command
        .args(args)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_CONFIG_DIR", data.join("config"))
        .env("QUIRE_SECRET_STORE", "file")
        .env_remove("QUIRE_OPENALEX_API_KEY")
        .env_remove("QUIRE_OFFLINE")
        .env("QUIRE_CONTACT_EMAIL", "reviewer@example.org");
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().unwrap()
}

/// Assert a `quire` run succeeded and read what it printed as JSON.
pub fn ok_json(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `quire ARGS...` as [`quire_command`] runs it, awaited: a scripted server
/// on the test's runtime must not be blocked by the wait.
pub async fn quire_await(config: &Path, data: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::from(quire_command(config, data))
        .args(args)
        .output()
        .await
        .unwrap()
}

/// `quire review FOLDER --question Q --engine agent --approve EXTRA...`, as
/// [`quire_command`] runs it: the drafted protocol approved as it stands.
/// A first run with nothing drafted shows the draft and stops (exit 4, no
/// paper read); the same command again approves what it showed.
pub async fn quire_review(
    folder: &Path,
    question: &str,
    config: &Path,
    data: &Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec!["--approve"];
    args.extend_from_slice(extra);
    let out = quire_agent_review(folder, question, config, data, &args).await;
    if out.status.code() == Some(4) {
        return quire_agent_review(folder, question, config, data, &args).await;
    }
    out
}

/// `quire review FOLDER --question Q --engine agent EXTRA...`, as
/// [`quire_command`] runs it.
pub async fn quire_agent_review(
    folder: &Path,
    question: &str,
    config: &Path,
    data: &Path,
    extra: &[&str],
) -> std::process::Output {
    tokio::process::Command::from(quire_command(config, data))
        .args(["review", &folder.to_string_lossy(), "--question", question])
        .args(["--engine", "agent"])
        .args(extra)
        .output()
        .await
        .unwrap()
}

/// Run the built `quire` with its data in `data` and no lookups (hermetic),
/// assert it succeeded, and read its standard output as JSON (`Null` when
/// it printed none).
pub fn quire_json(data: &Path, args: &[&str]) -> serde_json::Value {
    let output = std::process::Command::new(quire_bin())
        .args(args)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_OFFLINE", "1")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "quire {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null)
}

/// A scripted server answering one call at a time after 300 ms, and a config
/// pointing at it: slow enough for a test to kill a run between two calls.
pub async fn one_call_at_a_time() -> (testkit::ScriptedServer, tempfile::TempDir) {
    let server = testkit::ScriptedServer::start(testkit::ServerOptions {
        latency: std::time::Duration::from_millis(300),
        ..testkit::ServerOptions::default()
    })
    .await
    .unwrap();
    let config = scripted_config(&server.base_url(), "concurrency = 1\n");
    (server, config)
}

/// Review `folder` offline (no model) with `question`; the workspace's path.
pub fn offline_review(data: &Path, folder: &Path, question: &str) -> String {
    let review = quire_json(
        data,
        &["review", folder.to_str().unwrap(), "-q", question, "--json"],
    );
    review["workspace"].as_str().unwrap().to_owned()
}

/// The JSON files in `dir` (none when it does not exist), leaving out the
/// dot-files a write in progress leaves.
pub fn json_files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| {
        d.filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.ends_with(".json") && !name.starts_with('.')
            })
            .count()
    })
}

/// The user message of every request `server` got whose system message
/// contains `marker` (which of Quire's prompts it was), in order.
pub fn user_messages_under(server: &testkit::ScriptedServer, marker: &str) -> Vec<String> {
    server
        .requests()
        .iter()
        .filter_map(|r| {
            let turns = r.turns();
            turns
                .iter()
                .any(|t| t.role == "system" && t.text.contains(marker))
                .then(|| {
                    turns
                        .iter()
                        .find(|t| t.role == "user")
                        .map(|t| t.text.clone())
                })
                .flatten()
        })
        .collect()
}

/// Every chat request `server` got fit a window of `window` tokens, as the
/// server counts them: nothing was sent that it had to cut or refuse.
pub fn assert_every_prompt_within(server: &testkit::ScriptedServer, window: u64) {
    let chats: Vec<_> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.ends_with("/chat/completions"))
        .collect();
    assert!(!chats.is_empty(), "no chat request was sent");
    for r in &chats {
        assert!(
            r.prompt_tokens() <= window,
            "a prompt of {} tokens",
            r.prompt_tokens()
        );
    }
}

/// A client of `settings` (with `key`) whose every call is counted and held
/// against a token cap of `cap`, and the budget it is held against.
pub fn capped_client(
    settings: quire::llm::ModelSettings,
    key: Option<String>,
    cap: u64,
) -> (
    quire::llm::ModelClient,
    std::sync::Arc<quire::agent::Budget>,
) {
    let budget = std::sync::Arc::new(quire::agent::Budget::new(quire::agent::Caps {
        max_tokens: Some(cap),
        max_cost_usd: None,
    }));
    let provider =
        quire::llm::HttpProvider::new(settings, key.map(quire::llm::secrets::ApiKey::new)).unwrap();
    let client = quire::llm::ModelClient::new(
        "scripted",
        provider,
        quire::llm::accounting::PriceTable::builtin(),
    )
    .with_log(budget.clone())
    .with_caps(budget.clone());
    (client, budget)
}

/// A listener on loopback that counts the connections it gets and answers
/// none: a service on this machine a request must never reach, or a proxy
/// one must never go through. Its `host:port`, and the count.
pub fn unanswering_listener() -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let reached = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = reached.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            counter.fetch_add(1, Ordering::SeqCst);
            drop(stream);
        }
    });
    (addr.to_string(), reached)
}
