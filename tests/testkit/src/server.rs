//! The server: accepts connections on 127.0.0.1, records each request, answers
//! with the next scripted [`Step`] (or the reader policy), and injects the
//! step's faults.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use crate::batch::{BatchOptions, BatchStats, BatchStore};
use crate::fallible::{self, Mistake};
use crate::http::{self, HttpRequest, Piece};
use crate::reader;
use crate::render::{self, Answer};
use crate::request::{Protocol, RecordedRequest};
use crate::script::{Cut, Quirks, Reply, ScriptedCall, Step};
use crate::tokenizer::Tokenizer;

#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Added before every model answer, like a real server's think time.
    pub latency: Duration,
    /// At most this many answers in progress; the rest wait their turn.
    pub concurrency: Option<usize>,
    /// Model ids listed by `GET /v1/models` (and Ollama's `/api/tags`).
    pub models: Vec<String>,
    /// When set, requests must carry this key (`Authorization: Bearer` or
    /// `x-api-key`) or get 401.
    pub api_key: Option<String>,
    /// The gap between streamed events.
    pub event_gap: Duration,
    /// Refuse prompts longer than this many tokens with llama.cpp's 400
    /// `exceed_context_size_error`; `GET /props` then says it as a slot's
    /// `n_ctx`, as llama.cpp's server does.
    pub context_window: Option<u64>,
    /// Read only the last this many tokens of a longer prompt and answer
    /// that with a 200, a normal finish and the tokens kept as
    /// `prompt_tokens`, as Ollama does past its `num_ctx`. The server then
    /// also answers Ollama's own `/api/version`, `/api/generate` (a load)
    /// and `/api/ps` (the loaded models, with this as `context_length`).
    pub cuts_prompts_to: Option<u64>,
    /// How unscripted requests are answered.
    pub policy: Policy,
    /// How prompts are counted: for `prompt_tokens`, the context window and
    /// the Ollama-like cut.
    pub tokenizer: Tokenizer,
    /// Report as `prompt_tokens` only the part of a prompt past the longest
    /// prefix it shares with a prompt already read (the server's prompt
    /// cache), as Ollama 0.30 to 0.31 and some llama.cpp builds did: a
    /// re-ask that repeats a long prompt then names a handful of tokens.
    /// The window is still judged on the whole prompt.
    pub counts_only_uncached: bool,
    /// Answer every chat request with this HTTP status, as a broken replica
    /// behind a pool does (its models list still answers).
    pub failing: Option<u16>,
    /// How OpenAI's Batch API endpoints misbehave ([`crate::batch`]).
    pub batch: BatchOptions,
}

/// The policy for requests no step is scripted for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Policy {
    /// The deterministic reader and agent policies.
    #[default]
    Diligent,
    /// Random but schema-valid tool calls with random arguments, as a small
    /// random-weight model would make; reading requests get the reader's
    /// answer or garbage, at random.
    Chaos { seed: u64 },
    /// The diligent policies, but a share `rate` (0..=1) of reading answers
    /// is spoiled the way real models spoil them ([`crate::fallible`]), by
    /// any of the mistakes in `only` (every kind when it is empty).
    Fallible {
        seed: u64,
        rate: f64,
        only: &'static [Mistake],
    },
    /// The diligent policies, but an agent with papers still open tries to
    /// finish once it has read a batch, as a model eager to be done does;
    /// refused, it gets back to work.
    Impatient,
    /// The diligent policies, but a stricter screener's readings: a paper
    /// the diligent reader scores under 8 loses 4 points, so this reader
    /// excludes papers the diligent one keeps (a second reader that
    /// disagrees, as a different model does).
    Sceptic,
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            latency: Duration::ZERO,
            concurrency: None,
            models: vec!["scripted-reader".to_owned()],
            api_key: None,
            event_gap: Duration::ZERO,
            context_window: None,
            cuts_prompts_to: None,
            policy: Policy::Diligent,
            tokenizer: Tokenizer::QUARTER,
            counts_only_uncached: false,
            failing: None,
            batch: BatchOptions::default(),
        }
    }
}

/// Counters a benchmark reads after a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerStats {
    pub answered: u64,
    pub peak_in_flight: usize,
}

struct Shared {
    options: ServerOptions,
    script: Mutex<VecDeque<Step>>,
    requests: Mutex<Vec<RecordedRequest>>,
    gate: Option<Semaphore>,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    answered: AtomicU64,
    serial: AtomicU64,
    /// The fallible reader's mistakes, in the order it made them.
    mistakes: Mutex<Vec<Mistake>>,
    /// Models an Ollama-like server has loaded (`/api/ps` lists them).
    loaded: Mutex<std::collections::BTreeSet<String>>,
    /// The prompts read lately, as one text each: the prompt cache.
    cached: Mutex<VecDeque<String>>,
    /// The last paper read whose pages differ from the current one's: what
    /// a fallible reader copies a foreign quote from.
    papers_read: Mutex<Vec<Vec<(u32, String)>>>,
    /// The Batch API's files and batches.
    batches: BatchStore,
}

pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

/// A paper read before whose first page differs from `pages`' (which is
/// then remembered too).
fn another_paper(
    read: &Mutex<Vec<Vec<(u32, String)>>>,
    pages: &[(u32, String)],
) -> Option<Vec<(u32, String)>> {
    let mut read = lock(read);
    let first = |p: &[(u32, String)]| p.first().map(|(_, t)| t.clone());
    let other = read.iter().find(|p| first(p) != first(pages)).cloned();
    if !read.iter().any(|p| first(p) == first(pages)) {
        read.push(pages.to_vec());
    }
    other
}

/// The answer the server's policy gives `request` (a chat call's or a batch
/// line's), and the quirks it is rendered with.
fn policy_reply(
    shared: &Shared,
    request: &RecordedRequest,
    quirks: &mut Quirks,
) -> (String, Vec<ScriptedCall>) {
    match shared.options.policy {
        Policy::Diligent => reader::answer(request),
        Policy::Fallible { seed, rate, only } => {
            let (text, calls) = reader::answer(request);
            let pages = reader::reading_document(request);
            match (pages, fallible::mistake_for(request, seed, rate, only)) {
                (Some(pages), Some(mistake)) => {
                    let turns = request.turns();
                    let question = reader::question_of(&turns);
                    let criteria = reader::criteria_of(&turns);
                    let other = another_paper(&shared.papers_read, &pages);
                    let seen = fallible::Seen {
                        question: &question,
                        criteria: &criteria,
                        other: other.as_deref(),
                    };
                    let spoiled = fallible::spoil_seeing(text, calls, mistake, &pages, &seen);
                    if let Some(made) = spoiled.mistake {
                        lock(&shared.mistakes).push(made);
                    }
                    if let Some(reason) = spoiled.finish_reason {
                        quirks.unknown_finish_reason = Some(reason.to_owned());
                    }
                    (spoiled.text, spoiled.calls)
                }
                _ => (text, calls),
            }
        }
        Policy::Sceptic => {
            let (text, calls) = reader::answer(request);
            match reader::reading_document(request) {
                Some(_) => (crate::sceptic::sterner(&text), calls),
                None => (text, calls),
            }
        }
        Policy::Impatient => {
            let turns = request.turns();
            crate::agent_policy::impatient(&turns, &request.tools())
                .unwrap_or_else(|| reader::answer(request))
        }
        Policy::Chaos { seed } => {
            let n = shared.serial.load(Ordering::SeqCst);
            let tools = request.tools();
            if tools.is_empty() && (seed ^ n).is_multiple_of(2) {
                reader::answer(request)
            } else if tools.is_empty() {
                (
                    "{\"score\": \"lots\", \"summary\": 7} not quite json".into(),
                    Vec::new(),
                )
            } else {
                // Even chaos answers a nudge with a call.
                let nudged = request
                    .turns()
                    .iter()
                    .any(|t| t.text.contains("called no tool"));
                crate::agent_policy::chaos(&tools, seed ^ n.wrapping_mul(31), nudged)
            }
        }
    }
}

/// How many prompts the prompt cache keeps (a few slots' worth).
const CACHED_PROMPTS: usize = 8;

/// The tokens of `request` (`read` in all) past the longest prefix it shares
/// with a prompt in `cache`, which then keeps it. At least one token: a
/// server always evaluates the last one.
fn uncached_tokens(
    request: &RecordedRequest,
    read: u64,
    tokenizer: &Tokenizer,
    cache: &mut VecDeque<String>,
) -> u64 {
    let text: String = request.turns().into_iter().map(|t| t.text).collect();
    let shared = cache
        .iter()
        .map(|seen| {
            seen.bytes()
                .zip(text.bytes())
                .take_while(|(a, b)| a == b)
                .count()
        })
        .max()
        .unwrap_or(0);
    if cache.len() == CACHED_PROMPTS {
        cache.pop_front();
    }
    cache.push_back(text);
    read.saturating_sub(tokenizer.tokens_of(shared as u64))
        .max(1)
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ScriptedServer {
    /// Listen on 127.0.0.1 at an ephemeral port.
    pub async fn start(options: ServerOptions) -> std::io::Result<Self> {
        Self::bind(([127, 0, 0, 1], 0).into(), options).await
    }

    pub async fn bind(addr: SocketAddr, options: ServerOptions) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            gate: options.concurrency.map(|n| Semaphore::new(n.max(1))),
            batches: BatchStore::new(options.batch.clone(), options.tokenizer),
            options,
            script: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            answered: AtomicU64::new(0),
            serial: AtomicU64::new(0),
            mistakes: Mutex::new(Vec::new()),
            loaded: Mutex::new(std::collections::BTreeSet::new()),
            cached: Mutex::new(VecDeque::new()),
            papers_read: Mutex::new(Vec::new()),
        });
        let accept_shared = shared.clone();
        let accept = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(serve(stream, accept_shared.clone()));
            }
        });
        Ok(Self {
            addr,
            shared,
            accept,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/v1`, the base URL an OpenAI-style client wants.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT`, the base URL an Anthropic-style client wants.
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queue the next answers, in order.
    pub fn push(&self, steps: impl IntoIterator<Item = Step>) {
        lock(&self.shared.script).extend(steps);
    }

    /// Steps queued but not yet used.
    pub fn pending(&self) -> usize {
        lock(&self.shared.script).len()
    }

    /// Every model request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// The mistakes the fallible reader made so far, in order.
    pub fn mistakes(&self) -> Vec<Mistake> {
        lock(&self.shared.mistakes).clone()
    }

    pub fn stats(&self) -> ServerStats {
        ServerStats {
            answered: self.shared.answered.load(Ordering::SeqCst),
            peak_in_flight: self.shared.peak.load(Ordering::SeqCst),
        }
    }

    /// What the Batch API endpoints were asked.
    pub fn batch_stats(&self) -> BatchStats {
        self.shared.batches.stats()
    }

    /// Someone else's message batch on the same account: `requests`
    /// requests with ids of their own, created `age` ago (not counted in
    /// [`Self::batch_stats`]). Its id.
    pub fn plant_foreign_message_batch(&self, requests: usize, age: std::time::Duration) -> String {
        self.shared.batches.plant_message_batch(requests, age)
    }

    /// The ids of the message batches the server still holds.
    pub fn message_batch_ids(&self) -> Vec<String> {
        self.shared.batches.message_batch_ids()
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

async fn serve(mut stream: TcpStream, shared: Arc<Shared>) {
    let Some(request) = http::read_request(&mut stream).await else {
        return;
    };
    // Socket errors mean the client went away; there is no one left to tell.
    let _ = route(&mut stream, request, &shared).await;
}

async fn route(
    stream: &mut TcpStream,
    request: HttpRequest,
    shared: &Shared,
) -> std::io::Result<()> {
    let path = request.path.split('?').next().unwrap_or("").to_owned();
    let protocol = if request.header("anthropic-version").is_some() || path.ends_with("/messages") {
        Protocol::Anthropic
    } else {
        Protocol::OpenAi
    };
    if !authorised(&request, shared) {
        let body = render::error_body(protocol, 401, "invalid api key");
        return http::write_json(stream, 401, &[], &body).await;
    }
    let query = request.path.split_once('?').map_or("", |(_, q)| q);
    if let Some((status, body)) = shared.batches.route(
        &request.method,
        &path,
        query,
        &request.headers,
        &request.body,
        &|recorded, quirks| policy_reply(shared, recorded, quirks),
    ) {
        tokio::time::sleep(shared.batches.delay()).await;
        return match body {
            // A file's content is its text, as JSON Lines.
            Value::String(text) => {
                http::write_full(
                    stream,
                    status,
                    &[],
                    "application/octet-stream",
                    text.as_bytes(),
                )
                .await
            }
            body => http::write_json(stream, status, &[], &body).await,
        };
    }
    match (request.method.as_str(), path.as_str()) {
        ("GET", p) if p.ends_with("/models") => {
            let data: Vec<Value> = shared
                .options
                .models
                .iter()
                .map(|m| json!({"id": m, "object": "model", "type": "model", "owned_by": "testkit", "display_name": m}))
                .collect();
            let body = json!({"object": "list", "data": data, "has_more": false});
            http::write_json(stream, 200, &[], &body).await
        }
        ("GET", "/props") if shared.options.context_window.is_some() => {
            let body = json!({
                "default_generation_settings": {"n_ctx": shared.options.context_window, "params": {}},
                "total_slots": 1,
                "model_path": "scripted.gguf",
            });
            http::write_json(stream, 200, &[], &body).await
        }
        ("GET", "/api/tags") => {
            let models: Vec<Value> = shared
                .options
                .models
                .iter()
                .map(|m| json!({"name": m, "model": m, "size": 0}))
                .collect();
            let body = json!({"models": models});
            http::write_json(stream, 200, &[], &body).await
        }
        ("GET", "/api/version") if shared.options.cuts_prompts_to.is_some() => {
            http::write_json(stream, 200, &[], &json!({"version": "0.12.6"})).await
        }
        ("POST", "/api/generate") if shared.options.cuts_prompts_to.is_some() => {
            let model = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|b| b.get("model").and_then(Value::as_str).map(str::to_owned));
            let Some(model) = model else {
                let body = json!({"error": "model is required"});
                return http::write_json(stream, 400, &[], &body).await;
            };
            lock(&shared.loaded).insert(model.clone());
            let body = json!({"model": model, "response": "", "done": true, "done_reason": "load"});
            http::write_json(stream, 200, &[], &body).await
        }
        ("GET", "/api/ps") if shared.options.cuts_prompts_to.is_some() => {
            let context = shared.options.cuts_prompts_to;
            let models: Vec<Value> = lock(&shared.loaded)
                .iter()
                .map(|m| json!({"name": m, "model": m, "size": 0, "context_length": context}))
                .collect();
            http::write_json(stream, 200, &[], &json!({"models": models})).await
        }
        ("POST", p) if p.ends_with("/chat/completions") || p.ends_with("/messages") => {
            let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
                let body = render::error_body(protocol, 400, "request body is not JSON");
                return http::write_json(stream, 400, &[], &body).await;
            };
            if let Some(model) = body.get("model").and_then(Value::as_str) {
                lock(&shared.loaded).insert(model.to_owned());
            }
            let recorded = RecordedRequest {
                protocol,
                path: path.clone(),
                headers: request.headers.clone(),
                body,
            };
            lock(&shared.requests).push(recorded.clone());
            let _permit = match &shared.gate {
                Some(gate) => gate.acquire().await.ok(),
                None => None,
            };
            let now = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            shared.peak.fetch_max(now, Ordering::SeqCst);
            let result = answer(stream, &recorded, shared).await;
            shared.in_flight.fetch_sub(1, Ordering::SeqCst);
            shared.answered.fetch_add(1, Ordering::SeqCst);
            result
        }
        _ => {
            let body = render::error_body(protocol, 404, &format!("no route for {path}"));
            http::write_json(stream, 404, &[], &body).await
        }
    }
}

fn authorised(request: &HttpRequest, shared: &Shared) -> bool {
    let Some(key) = &shared.options.api_key else {
        return true;
    };
    let bearer = request
        .header("authorization")
        .and_then(|v| v.strip_prefix("Bearer "));
    bearer == Some(key.as_str()) || request.header("x-api-key") == Some(key.as_str())
}

async fn answer(
    stream: &mut TcpStream,
    request: &RecordedRequest,
    shared: &Shared,
) -> std::io::Result<()> {
    if let Some(status) = shared.options.failing {
        let body = render::error_body(request.protocol, status, "replica unavailable");
        return http::write_json(stream, status, &[], &body).await;
    }
    let tokenizer = shared.options.tokenizer;
    let read = tokenizer.count(request);
    if let Some(window) = shared.options.context_window {
        let tokens = read;
        if tokens > window {
            let body = json!({"error": {
                "code": 400,
                "type": "exceed_context_size_error",
                "message": format!("request ({tokens} tokens) exceeds the available context size ({window} tokens), try increasing it"),
                "n_prompt_tokens": tokens,
                "n_ctx": window,
            }});
            return http::write_json(stream, 400, &[], &body).await;
        }
    }
    // Ollama past its context: the model sees only the prompt's tail, and
    // the server says it read a whole window of it.
    let cut;
    let (request, read) = match shared.options.cuts_prompts_to {
        Some(keep) if read > keep => {
            cut = request.cut_to(keep, &tokenizer);
            (&cut, keep)
        }
        _ => (request, read),
    };
    let read = if shared.options.counts_only_uncached {
        uncached_tokens(request, read, &tokenizer, &mut lock(&shared.cached))
    } else {
        read
    };
    let step = lock(&shared.script)
        .pop_front()
        .unwrap_or_else(|| Reply::Policy.into());
    // The latency is the time to the answer, as a real server's is: the
    // policy's own work happens inside it, not on top of it.
    let due = tokio::time::Instant::now() + shared.options.latency + step.faults.first_byte_delay;
    let mut quirks = step.faults.quirks.clone();
    let (text, calls) = match step.reply {
        Reply::Status {
            status,
            retry_after,
            message,
        } => {
            tokio::time::sleep_until(due).await;
            let body = render::error_body(request.protocol, status, &message);
            let headers: Vec<(&str, String)> = retry_after
                .map(|r| ("retry-after", r))
                .into_iter()
                .collect();
            return http::write_json(stream, status, &headers, &body).await;
        }
        Reply::Text(text) => (text, Vec::new()),
        Reply::ToolCalls { text, calls } => (text, calls),
        Reply::Policy => policy_reply(shared, request, &mut quirks),
    };
    tokio::time::sleep_until(due).await;
    let answer = Answer {
        text,
        calls,
        model: request.model().to_owned(),
        prompt_tokens: read,
        serial: shared.serial.fetch_add(1, Ordering::SeqCst),
    };
    let quirks = &quirks;
    if !request.stream() {
        let body = render::whole(request.protocol, &answer, quirks);
        return http::write_json(stream, 200, &[], &body).await;
    }
    let plan = render::stream(request.protocol, &answer, quirks);
    let cut_after = match step.faults.cut {
        Some(Cut::AfterEvents(n)) => Some(n),
        Some(Cut::MidToolCall) => plan.mid_tool_call,
        None => None,
    };
    let mut pieces = Vec::new();
    for (n, event) in plan.events.into_iter().enumerate() {
        pieces.push(Piece::Data(event));
        if n == 0
            && let Some(pause) = step.faults.stall_after_first_event
        {
            pieces.push(Piece::Stall(pause));
        }
        if cut_after == Some(n + 1) {
            pieces.push(Piece::Cut);
            break;
        }
    }
    http::write_stream(
        stream,
        pieces,
        step.faults.write_size,
        shared.options.event_gap,
    )
    .await
}
