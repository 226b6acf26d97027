//! The model client every caller uses: a profile's endpoints (one, or a pool
//! spread by [`super::pool`]) plus what makes calls dependable — a concurrency
//! limit per endpoint, retries with exponential backoff and jitter for
//! retryable failures only (honouring Retry-After; in a pool, a retry goes to
//! another endpoint), a budget for the whole call, cancellation that aborts the
//! in-flight request at once, and a record of every attempt (tokens, latency,
//! cost, endpoint) in a [`CallLog`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::accounting::{CallLog, Hold, PriceTable, SpendGate, estimate_usage};
use super::error::{LlmError, PromptSize, backoff, prompt_was_cut};
use super::pool::{Dispatcher, Endpoints, is_endpoint_failure};
use super::served::ServerKind;
use super::settings::{ModelSettings, Protocol};
use super::types::{ChatRequest, ChatResponse, Usage};
use crate::workspace::ModelCallRecord;

/// What a caller sees while a call runs.
#[derive(Debug)]
pub enum StreamEvent<'a> {
    /// More answer text.
    Text(&'a str),
    /// The attempt failed and the call starts over after `after`: text shown so
    /// far is void.
    Restart {
        attempt: u32,
        after: Duration,
        error: &'a LlmError,
    },
}

/// First backoff window; doubles per retry up to [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(60);

pub struct ModelClient {
    profile: String,
    endpoints: Dispatcher,
    prices: Arc<PriceTable>,
    log: Option<Arc<dyn CallLog>>,
    /// The caps every attempt is held against before it is sent.
    caps: Option<Arc<dyn SpendGate>>,
    base_backoff: Duration,
    /// The tokens a request may hold, as the server says (asked once, on
    /// the first answer to judge, unless the setup already knew).
    served_window: tokio::sync::OnceCell<Option<(ServerKind, u32)>>,
    /// The most tokens the server has counted for a thousand of Quire's
    /// (o200k) in one prompt: prompts are sized by it (see
    /// [`Self::prompt_settings`]).
    density: AtomicU64,
    /// Answers Batch APIs already gave, by request id: a call whose request
    /// is among them is answered from here, not sent. `None` until a batch
    /// has answered (the density is then fixed, see [`Self::learn_density`]).
    /// Shared with the client's rehearsals.
    batch_answers: std::sync::RwLock<Option<Arc<BatchAnswers>>>,
    /// Set in a rehearsal (see [`Self::rehearsal`]): the requests it was
    /// asked and could not answer.
    rehearsing: Option<std::sync::Mutex<Vec<ChatRequest>>>,
}

/// Batch answers by request id.
type BatchAnswers = BTreeMap<String, ChatResponse>;

/// Quire's own count, per thousand tokens, until the server shows more.
const PER_MILLE: u64 = 1000;
/// No tokenizer in use counts twice what o200k does on text.
const MAX_DENSITY: u64 = 2 * PER_MILLE;
/// Prompts shorter than this (by Quire's count) say too little of a tokenizer.
const MIN_LEARNT_TOKENS: u64 = 1000;

impl ModelClient {
    /// A client for `profile`'s endpoints: one provider, or [`Endpoints`]
    /// of a pool.
    pub fn new(
        profile: impl Into<String>,
        endpoints: impl Into<Endpoints>,
        prices: PriceTable,
    ) -> Self {
        Self {
            profile: profile.into(),
            endpoints: Dispatcher::new(endpoints.into()),
            prices: Arc::new(prices),
            log: None,
            caps: None,
            base_backoff: BASE_BACKOFF,
            served_window: tokio::sync::OnceCell::new(),
            density: AtomicU64::new(PER_MILLE),
            batch_answers: std::sync::RwLock::new(None),
            rehearsing: None,
        }
    }

    /// A twin of this client that answers only from its batch answers and
    /// sends nothing: every other call fails at once, as a cancelled one
    /// does, and its request is kept ([`Self::rehearsed`]). Work done
    /// through it shows, without waiting on anything, the calls it would
    /// make next having read what the batches answered: the requests a
    /// next batch round can answer ahead (a re-ask, the second part of a
    /// paper). It sizes prompts and judges answers as this client does
    /// (ask [`Self::served_window`] first), so its requests are the ones
    /// this client will send.
    pub fn rehearsal(&self) -> ModelClient {
        Self {
            profile: self.profile.clone(),
            endpoints: Dispatcher::new(self.endpoints.endpoints().clone()),
            prices: self.prices.clone(),
            log: None,
            caps: None,
            base_backoff: self.base_backoff,
            served_window: tokio::sync::OnceCell::new_with(self.served_window.get().copied()),
            density: AtomicU64::new(self.density.load(Ordering::Relaxed)),
            batch_answers: std::sync::RwLock::new(self.held_answers()),
            rehearsing: Some(std::sync::Mutex::new(Vec::new())),
        }
    }

    /// The requests a rehearsal could not answer, in the order asked
    /// (empty for a client that is not one).
    pub fn rehearsed(&self) -> Vec<ChatRequest> {
        self.rehearsing.as_ref().map_or_else(Vec::new, |asked| {
            std::mem::take(
                &mut *asked
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            )
        })
    }

    fn held_answers(&self) -> Option<Arc<BatchAnswers>> {
        self.batch_answers
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Answer calls from `answers` (a Batch API's, by request id) from now
    /// on, beside those of earlier batches (a dual-read review's second
    /// reading is batched after its first); calls not among them are sent
    /// as ever.
    pub fn answer_from_batch(&self, answers: BatchAnswers) {
        let mut held = self
            .batch_answers
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // Copied only while a rehearsal still holds the old set.
        Arc::make_mut(held.get_or_insert_with(Default::default)).extend(answers);
    }

    fn batch_answered(&self) -> bool {
        self.held_answers().is_some()
    }

    /// The Batch API of the profile's (first) endpoint, when its protocol
    /// has one.
    pub fn batch_api(&self) -> Option<Result<super::batch::BatchService, LlmError>> {
        self.endpoints.endpoints().providers()[0].batch_api()
    }

    /// The batch's answer to `request`, if it gave one.
    fn batched(&self, request: &ChatRequest) -> Option<ChatResponse> {
        let answers = self.held_answers()?;
        let id = super::batch::BatchLine::new(self.settings(), request).custom_id;
        answers.get(&id).cloned()
    }

    /// Record every attempt in `log`.
    pub fn with_log(mut self, log: Arc<dyn CallLog>) -> Self {
        self.log = Some(log);
        self
    }

    /// Hold every attempt's worst case against `caps` before it is sent.
    pub fn with_caps(mut self, caps: Arc<dyn SpendGate>) -> Self {
        self.caps = Some(caps);
        self
    }

    /// Shorter backoff (tests and benchmarks against a local server).
    pub fn with_base_backoff(mut self, base: Duration) -> Self {
        self.base_backoff = base;
        self
    }

    /// What the setup learnt the server holds a request (so the client
    /// need not ask it again).
    pub fn with_served_window(self, window: Option<(ServerKind, u32)>) -> Self {
        let _ = self.served_window.set(window);
        self
    }

    pub fn settings(&self) -> &ModelSettings {
        self.endpoints.endpoints().settings()
    }

    /// The settings to size prompts by: the profile's, with a window that
    /// holds, by Quire's count, what the server's own tokenizer fits in it
    /// (the answer's room untouched). A model whose tokenizer splits text
    /// finer than o200k (Gemma's on PDF text, older 32k vocabularies) then
    /// gets parts it can read whole, once one answer has shown it.
    pub fn prompt_settings(&self) -> ModelSettings {
        let mut settings = self.settings().clone();
        let density = self.density.load(Ordering::Relaxed);
        if density > PER_MILLE {
            let prompt_room = u64::from(
                settings
                    .context_window
                    .saturating_sub(settings.max_output_tokens),
            );
            settings.context_window =
                settings.max_output_tokens + (prompt_room * PER_MILLE / density) as u32;
        }
        settings
    }

    /// Learn from a server that read `read` tokens of `request` how finely
    /// its tokenizer splits text, against Quire's count.
    fn learn_density(&self, request: &ChatRequest, read: u64) {
        // Papers were cut into parts for a batch at the density then known;
        // cut differently later, their parts would no longer be the
        // requests the batch answered.
        if self.batch_answered() {
            return;
        }
        // A count well under the bytes over four is a large vocabulary or a
        // cached prefix, never finer than o200k: not worth tokenizing for.
        if read * 5 < prompt_size(request).tokens * 4 {
            return;
        }
        let counted = estimate_usage(request, None).input_tokens;
        if counted < MIN_LEARNT_TOKENS {
            return;
        }
        // A little over what was seen: the next text may be denser still.
        let density = (read * PER_MILLE * 21 / 20 / counted).min(MAX_DENSITY);
        self.density.fetch_max(density, Ordering::Relaxed);
    }

    /// Why `answer` is no answer to `request`: the server read less of
    /// its prompt than was sent (see [`prompt_was_cut`]).
    async fn prompt_cut(&self, request: &ChatRequest, answer: &ChatResponse) -> Option<LlmError> {
        let read = answer.usage.map(|u| u.input_tokens).filter(|&r| r > 0)?;
        let (window, cuts) = match self.served_window().await {
            Some((kind, tokens)) => (Some(tokens), kind.cuts_prompts()),
            None => (None, false),
        };
        prompt_was_cut(prompt_size(request), read, window, cuts)
    }

    /// What the server holds a request, asked once. A rehearsal asks
    /// nothing: it knows what the client it was made from knew.
    pub(crate) async fn served_window(&self) -> Option<(ServerKind, u32)> {
        if self.rehearsing.is_some() {
            return self.served_window.get().copied().flatten();
        }
        *self
            .served_window
            // Every endpoint serves the same model: the first one speaks for them.
            .get_or_init(|| self.endpoints.endpoints().providers()[0].served_window())
            .await
    }

    pub fn profile(&self) -> &str {
        &self.profile
    }

    /// Run a chat call to completion, streaming its text into `on_event`.
    /// `purpose` labels the call in the records.
    pub async fn chat(
        &self,
        request: &ChatRequest,
        purpose: &str,
        cancel: &CancellationToken,
        on_event: &(dyn Fn(StreamEvent<'_>) + Send + Sync),
    ) -> Result<ChatResponse, LlmError> {
        if let Some(answer) = self.batched(request) {
            let attempt = Attempt {
                purpose,
                number: 1,
                endpoint: Some("batch".to_owned()),
                latency: Duration::ZERO,
            };
            // A batch's answer is judged as an interactive one is.
            if let Some(cut) = self.prompt_cut(request, &answer).await {
                tracing::warn!(profile = %self.profile, purpose, error = %cut, "the server cut the batched prompt; its answer is discarded");
                self.record(request, attempt, Some(&answer), cut.code());
                return Err(cut);
            }
            self.record(request, attempt, Some(&answer), "ok");
            on_event(StreamEvent::Text(&answer.text));
            return Ok(answer);
        }
        if let Some(asked) = &self.rehearsing {
            asked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(request.clone());
            return Err(LlmError::Cancelled);
        }
        let settings = self.settings();
        let deadline = tokio::time::Instant::now() + settings.request_timeout();
        let mut attempt = 1u32;
        // The endpoint the last attempt failed at, which a retry avoids.
        let mut failed_at = None;
        loop {
            let lease = tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                lease = self.endpoints.lease(request.affinity.as_deref(), failed_at) => lease,
            };
            let hold = self.hold_for(request);
            if let Some(caps) = &self.caps
                && let Err(reason) = caps.reserve(hold)
            {
                return Err(LlmError::OverBudget(reason));
            }
            let started = Instant::now();
            let on_text = |text: &str| on_event(StreamEvent::Text(text));
            let result = tokio::select! {
                // Dropping the attempt's future closes its connection: the
                // server sees the request aborted at once.
                _ = cancel.cancelled() => Err(LlmError::Cancelled),
                outcome = tokio::time::timeout_at(deadline, lease.provider().attempt(request, &on_text)) => {
                    outcome.unwrap_or(Err(LlmError::Timeout))
                }
            };
            let (endpoint, at) = (self.endpoint_named(lease.label()), lease.index());
            drop(lease);
            self.endpoints.report(at, result.as_ref().map(|_| ()));
            // An answer to a prompt the server cut is no answer: the part it
            // dropped (instructions first) never reached the model.
            // Its tokens were spent all the same, and are counted.
            if let Ok(answer) = &result
                && let Some(read) = answer.usage.map(|u| u.input_tokens).filter(|&r| r > 0)
            {
                self.learn_density(request, read);
                if let Some(cut) = self.prompt_cut(request, answer).await {
                    tracing::warn!(profile = %self.profile, purpose, error = %cut, "the server cut the prompt; its answer is discarded");
                    self.record(
                        request,
                        Attempt {
                            purpose,
                            number: attempt,
                            endpoint,
                            latency: started.elapsed(),
                        },
                        Some(answer),
                        cut.code(),
                    );
                    self.release(hold);
                    return Err(cut);
                }
            }
            let outcome = match &result {
                Ok(_) => "ok",
                Err(e) => e.code(),
            };
            self.record(
                request,
                Attempt {
                    purpose,
                    number: attempt,
                    endpoint,
                    latency: started.elapsed(),
                },
                result.as_ref().ok(),
                outcome,
            );
            self.release(hold);
            let error = match result {
                Ok(answer) => return Ok(answer),
                Err(error) => error,
            };
            let retries_left = attempt <= settings.max_retries;
            // In a pool, a failure of the endpoint (one that cannot be
            // reached, say) is worth the same request elsewhere.
            let elsewhere = is_endpoint_failure(&error) && self.endpoints.has_alternative(at);
            let retryable = error.is_retryable() || elsewhere;
            if !retryable || !retries_left || tokio::time::Instant::now() >= deadline {
                return Err(error);
            }
            failed_at = Some(at);
            let retry_after = match &error {
                LlmError::RateLimited { retry_after } => *retry_after,
                _ => None,
            };
            let wait = backoff(
                attempt - 1,
                self.base_backoff,
                MAX_BACKOFF,
                retry_after,
                fastrand::f64(),
            );
            if tokio::time::Instant::now() + wait >= deadline {
                return Err(error);
            }
            tracing::warn!(
                profile = %self.profile,
                attempt,
                error = %error,
                wait_ms = wait.as_millis() as u64,
                "model call failed; retrying"
            );
            on_event(StreamEvent::Restart {
                attempt,
                after: wait,
                error: &error,
            });
            tokio::select! {
                _ = cancel.cancelled() => return Err(LlmError::Cancelled),
                _ = tokio::time::sleep(wait) => {}
            }
            attempt += 1;
        }
    }

    /// A call whose answer is only wanted whole.
    pub async fn complete(
        &self,
        request: &ChatRequest,
        purpose: &str,
        cancel: &CancellationToken,
    ) -> Result<ChatResponse, LlmError> {
        self.chat(request, purpose, cancel, &|_| {}).await
    }

    /// The most an attempt at `request` can spend: its prompt at three bytes
    /// a token (more tokens than any tokenizer but a symbol-heavy one makes
    /// of it) and the longest answer the server is allowed.
    fn hold_for(&self, request: &ChatRequest) -> Hold {
        let settings = self.settings();
        let size = prompt_size(request);
        let input = size.tokens * 4 / 3 + 1;
        let output = u64::from(request.max_tokens.map_or(settings.max_output_tokens, |m| {
            m.min(settings.max_output_tokens)
        }));
        let model = if request.model.is_empty() {
            &settings.model
        } else {
            &request.model
        };
        Hold {
            tokens: input + output,
            cost_usd: self.prices.cost(
                model,
                Usage {
                    input_tokens: input,
                    output_tokens: output,
                },
            ),
        }
    }

    /// The most `request` can spend as a line of a batch: the same worst
    /// case an interactive attempt holds ([`Self::hold_for`]), at the
    /// Batch API's price. A batch is paid for before its answers are read,
    /// so its lines are weighed against the caps with this before upload.
    pub fn batch_hold(&self, request: &ChatRequest) -> Hold {
        let hold = self.hold_for(request);
        Hold {
            cost_usd: hold
                .cost_usd
                .map(|cost| cost * super::batch::BATCH_PRICE_SHARE),
            ..hold
        }
    }

    fn release(&self, hold: Hold) {
        if let Some(caps) = &self.caps {
            caps.release(hold);
        }
    }

    /// The endpoint a record names: only in a pool, where it tells calls
    /// apart (a lone endpoint is the profile's address).
    fn endpoint_named(&self, label: &str) -> Option<String> {
        (self.endpoints.endpoints().len() > 1).then(|| label.to_owned())
    }

    fn record(
        &self,
        request: &ChatRequest,
        attempt: Attempt<'_>,
        answer: Option<&ChatResponse>,
        outcome: &str,
    ) {
        let settings = self.settings();
        let Attempt {
            purpose,
            number: attempt,
            endpoint,
            latency,
        } = attempt;
        let reported = answer
            .and_then(|a| a.usage)
            .filter(|u| u.input_tokens + u.output_tokens > 0);
        // An answer counts from its usage, or by estimate. A call aborted
        // once the server had the prompt (a timeout, a cut stream, a 5xx, a
        // cancel) counts the prompt it was sent, so a token cap holds
        // whatever goes wrong; one refused before any work (unreachable,
        // 401, 429, too long) counts nothing.
        let aborted = matches!(
            outcome,
            "timeout" | "cut_stream" | "server_error" | "malformed_response" | "cancelled"
        );
        let (usage, estimated) = match (reported, answer) {
            (Some(usage), _) => (usage, false),
            (None, Some(answer)) => (estimate_usage(request, Some(answer)), true),
            // Four bytes a token: quick, where the full count would hold up
            // a cancel while its tables load.
            (None, None) if aborted => (sent_estimate(request), true),
            (None, None) => (Usage::default(), false),
        };
        let model = if request.model.is_empty() {
            settings.model.clone()
        } else {
            request.model.clone()
        };
        let record = ModelCallRecord {
            at: crate::workspace::records::now_rfc3339(),
            profile: self.profile.clone(),
            protocol: match settings.protocol {
                Protocol::Openai => "openai",
                Protocol::Anthropic => "anthropic",
            }
            .to_owned(),
            // Whatever was counted was spent, an aborted call's prompt too;
            // a batch's answer at the batch price.
            cost_usd: (usage.input_tokens + usage.output_tokens > 0)
                .then(|| self.prices.cost(&model, usage))
                .flatten()
                .map(|cost| match endpoint.as_deref() {
                    Some("batch") => cost * super::batch::BATCH_PRICE_SHARE,
                    _ => cost,
                }),
            model,
            purpose: purpose.to_owned(),
            attempt,
            outcome: outcome.to_owned(),
            streamed: settings.stream && (request.tools.is_empty() || settings.stream_tool_turns),
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            tokens_estimated: estimated,
            latency_ms: latency.as_millis() as u64,
            endpoint,
        };
        tracing::info!(
            profile = %record.profile,
            model = %record.model,
            purpose,
            attempt,
            outcome = %record.outcome,
            input_tokens = record.input_tokens,
            output_tokens = record.output_tokens,
            latency_ms = record.latency_ms,
            endpoint = record.endpoint.as_deref().unwrap_or(""),
            "model call"
        );
        if let Some(log) = &self.log {
            log.record(&record);
        }
    }
}

/// One attempt at a call, as its record names it.
struct Attempt<'a> {
    purpose: &'a str,
    number: u32,
    endpoint: Option<String>,
    latency: Duration,
}

/// The prompt a request sent, at about four bytes a token, and its text.
fn prompt_size(request: &ChatRequest) -> PromptSize {
    let text: usize = request
        .messages
        .iter()
        .map(|m| {
            m.content.len()
                + m.tool_calls
                    .iter()
                    .map(|c| c.arguments.to_string().len())
                    .sum::<usize>()
        })
        .sum();
    let tools: usize = request
        .tools
        .iter()
        .map(|t| t.description.len() + t.parameters.to_string().len())
        .sum();
    PromptSize {
        tokens: (text + tools).div_ceil(4) as u64,
        text_bytes: text as u64,
    }
}

/// The prompt a request sent, at about four bytes a token.
fn sent_estimate(request: &ChatRequest) -> Usage {
    Usage {
        input_tokens: prompt_size(request).tokens,
        output_tokens: 0,
    }
}
