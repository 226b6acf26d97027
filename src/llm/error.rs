//! The errors a caller of a model acts on, and how an HTTP failure maps to them.
//! Messages never include request bodies or headers, so no API key can leak
//! through an error.

use std::time::Duration;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LlmError {
    #[error("rate limited by the model server{}", retry_note(.retry_after))]
    RateLimited { retry_after: Option<Duration> },
    #[error("the conversation is longer than the model's context window: {message}")]
    ContextTooLong { message: String },
    #[error("the model server refused the credentials (HTTP {status}); check the API key")]
    Auth { status: u16 },
    #[error("the model server failed (HTTP {status}): {message}")]
    Server { status: u16, message: String },
    #[error("the request was refused (HTTP {status}): {message}")]
    BadRequest { status: u16, message: String },
    #[error("the model server did not answer in time")]
    Timeout,
    #[error("the stream ended before the model finished")]
    CutStream,
    #[error("the model server's reply could not be read: {0}")]
    Malformed(String),
    #[error("cannot reach the model server at {url}: {message}")]
    Unreachable { url: String, message: String },
    #[error("the request was cancelled")]
    Cancelled,
    /// Not sent: it could cross a token or cost cap, with what is already
    /// spent and held by the calls in flight.
    #[error("{0}")]
    OverBudget(String),
    /// The server answered, but from a prompt it cut to fit its context
    /// (Ollama does this silently, from the front): the answer is void.
    #[error(
        "the model server cut the prompt to fit its context window and answered anyway: it read {read} tokens of a prompt Quire counted at about {sent}. Give the model a larger context (Ollama: OLLAMA_CONTEXT_LENGTH={ctx} for the server, or num_ctx {ctx} in a Modelfile), or set the profile's context_window to {read} so Quire sends less"
    )]
    PromptCut { sent: u64, read: u64, ctx: u64 },
    /// The server read the whole prompt, but its tokenizer made more of it
    /// than Quire's estimate, and it filled the window: no room was left for
    /// the answer (and a server that cuts would have cut it).
    #[error(
        "the model server counted {read} prompt tokens (Quire's estimate: about {sent}), which fill the {window}-token context it serves and leave no room for the answer. The part is sent again in smaller pieces, and later prompts are sized by the server's own count"
    )]
    PromptFilled { sent: u64, read: u64, window: u32 },
    /// Not sent: the profile cannot be used as configured (a pool server's
    /// key variable that is not set).
    #[error("{0}")]
    Config(String),
}

fn retry_note(after: &Option<Duration>) -> String {
    after
        .map(|d| format!(" (retry after {} s)", d.as_secs()))
        .unwrap_or_default()
}

impl LlmError {
    /// A stable code for logs, records and the UI.
    pub fn code(&self) -> &'static str {
        match self {
            Self::RateLimited { .. } => "rate_limited",
            Self::ContextTooLong { .. } => "context_too_long",
            Self::Auth { .. } => "auth",
            Self::Server { .. } => "server_error",
            Self::BadRequest { .. } => "bad_request",
            Self::Timeout => "timeout",
            Self::CutStream => "cut_stream",
            Self::Malformed(_) => "malformed_response",
            Self::Unreachable { .. } => "unreachable",
            Self::Cancelled => "cancelled",
            Self::OverBudget(_) => "over_budget",
            Self::PromptCut { .. } => "prompt_cut",
            Self::PromptFilled { .. } => "prompt_filled",
            Self::Config(_) => "config",
        }
    }

    /// The prompt did not fit: the caller must send less (split the paper,
    /// shrink the context), not the same request again.
    pub fn is_overflow(&self) -> bool {
        matches!(
            self,
            Self::ContextTooLong { .. } | Self::PromptCut { .. } | Self::PromptFilled { .. }
        )
    }

    /// Worth trying again with the same request.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Timeout | Self::CutStream
        )
    }
}

/// What a prompt sent amounts to, counted without any tokenizer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PromptSize {
    /// About four bytes a token, tool schemas included: the figure the
    /// user is told, and what a context would need to hold.
    pub tokens: u64,
    /// The messages' text alone, in bytes: a chat template may leave the
    /// tool schemas out, but every turn's text is read.
    pub text_bytes: u64,
}

/// No real tokenizer packs more than this many bytes of text into a token
/// on average (English runs at four to seven with the largest vocabularies).
const MAX_BYTES_PER_TOKEN: u64 = 10;
/// Below this many bytes of text, a server's count is not judged.
const MIN_JUDGED_BYTES: u64 = 4096;

/// Whether a server that read `read` tokens of `sent`, with `window` tokens
/// a request (what it said it holds, when it said), cut the prompt or
/// filled its window with it; `cuts` when it is a server that cuts a
/// longer prompt to fit (Ollama) rather than refusing it (llama.cpp).
///
/// Judged only by what no tokenizer, chat template or prompt cache can
/// explain. A server that says its window is judged by it alone: a prompt
/// Quire sends leaves room for the answer, so one that reaches the window
/// was cut to fit, on a server that cuts, and else was counted denser than
/// estimated and left no room to answer. Reading less than the window is
/// no cut, however few tokens the server names: Ollama from 0.30 and some
/// llama.cpp builds count only the part of a prompt not already in their
/// cache. A server that does not say its window cut the prompt only when
/// it read fewer tokens than any tokenizer makes of the text sent; a count
/// under the bytes over four is not a cut, as Gemma's or Llama 3's
/// vocabularies count English at five to seven bytes a token.
pub fn prompt_was_cut(
    sent: PromptSize,
    read: u64,
    window: Option<u32>,
    cuts: bool,
) -> Option<LlmError> {
    if read == 0 {
        return None;
    }
    let cut = || LlmError::PromptCut {
        sent: sent.tokens,
        read,
        // A round size above what was sent, as context lengths are set.
        ctx: sent.tokens.max(read + 1).next_power_of_two().max(8192),
    };
    match window {
        Some(window) if read + read / 64 >= u64::from(window) => Some(if cuts {
            cut()
        } else {
            LlmError::PromptFilled {
                sent: sent.tokens,
                read,
                window,
            }
        }),
        Some(_) => None,
        None => (sent.text_bytes >= MIN_JUDGED_BYTES
            && read * MAX_BYTES_PER_TOKEN < sent.text_bytes)
            .then(cut),
    }
}

/// Map a failed HTTP response to the error the caller acts on.
pub fn classify_http(status: u16, retry_after: Option<&str>, body: &str) -> LlmError {
    let message = error_message(body);
    let lower = message.to_lowercase();
    // llama.cpp names the overflow in the error's `type`, not only in its text.
    let typed_overflow = body.contains("exceed_context_size_error");
    match status {
        429 => LlmError::RateLimited {
            retry_after: retry_after.and_then(parse_retry_after),
        },
        401 | 403 => LlmError::Auth { status },
        // 529 is Anthropic's "overloaded".
        500..=599 => LlmError::Server { status, message },
        400 | 413 | 422
            if typed_overflow
                || [
                    "context length",
                    "context window",
                    "context size",
                    "maximum context",
                    "too many tokens",
                    "prompt is too long",
                ]
                .iter()
                .any(|m| lower.contains(m)) =>
        {
            LlmError::ContextTooLong { message }
        }
        _ => LlmError::BadRequest { status, message },
    }
}

/// The `error.message` of an OpenAI- or Anthropic-style error body, else the body
/// itself, clipped.
fn error_message(body: &str) -> String {
    let parsed: Option<String> = serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| {
            v.get("error")
                .and_then(|e| e.get("message").or(Some(e)))
                .and_then(|m| m.as_str().map(str::to_owned))
        });
    let text = parsed.unwrap_or_else(|| body.trim().to_owned());
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// `Retry-After` in seconds (HTTP dates are rare from model servers and ignored).
pub fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds.min(600.0)))
}

/// How long to wait before retry `attempt` (0-based): the server's Retry-After
/// when it gave one, else exponential backoff from `base` with full jitter
/// (`jitter` in 0..1 picks the point in the window), capped at `max`.
pub fn backoff(
    attempt: u32,
    base: Duration,
    max: Duration,
    retry_after: Option<Duration>,
    jitter: f64,
) -> Duration {
    if let Some(after) = retry_after {
        return after.min(max);
    }
    let window = base.saturating_mul(1u32 << attempt.min(16)).min(max);
    window.mul_f64(jitter.clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_prompt_is_cut_only_when_the_server_filled_its_window_or_read_too_little() {
        let sent = |tokens: u64| PromptSize {
            tokens,
            text_bytes: tokens * 4,
        };
        // Ollama: a 15,750-token prompt answered with prompt_eval_count 2051
        // from a 2,048-token context.
        let cut = prompt_was_cut(sent(15_750), 2051, Some(2048), true).unwrap();
        assert_eq!(cut.code(), "prompt_cut");
        assert!(cut.is_overflow() && !cut.is_retryable());
        let message = cut.to_string();
        assert!(message.contains("OLLAMA_CONTEXT_LENGTH=16384"), "{message}");
        // The same, from a server that never said what it holds: no
        // tokenizer makes 2,051 tokens of 63,000 bytes.
        assert!(prompt_was_cut(sent(15_750), 2051, None, false).is_some());
        // An Ollama whose tokenizer made more of a prompt than the estimate
        // and cut it to its 4k window: a cut, said without "only".
        let denser = prompt_was_cut(sent(3_000), 4_090, Some(4_096), true).unwrap();
        assert_eq!(denser.code(), "prompt_cut");
        assert!(!denser.to_string().contains("only"), "{denser}");
        // llama.cpp refuses what it cannot hold: a prompt that reached its
        // window was read whole, counted finer, and left no room to answer.
        let filled = prompt_was_cut(sent(3_000), 4_090, Some(4_096), false).unwrap();
        assert_eq!(filled.code(), "prompt_filled");
        assert!(filled.is_overflow() && !filled.is_retryable());
        assert!(!filled.to_string().contains("cut"), "{filled}");
        // Gemma on llama.cpp, an 8k slot: 8,104 tokens read of about 6,977
        // estimated is the whole prompt, counted finer.
        let message = prompt_was_cut(sent(6_977), 8_104, Some(8_192), false)
            .unwrap()
            .to_string();
        assert!(!message.contains("cut"), "{message}");
        assert!(
            message.contains("counted 8104") && message.contains("8192-token"),
            "{message}"
        );
        // A server that says its window and counts only the uncached part
        // of a prompt (Ollama 0.30, some llama.cpp builds) names few tokens
        // and cut nothing.
        assert!(prompt_was_cut(sent(15_750), 300, Some(32_768), true).is_none());
        // Gemma on llama.cpp with an 8k slot: 954 tokens read of 1,633 by
        // bytes, a dense tokenizer and a template without the tool schemas.
        assert!(prompt_was_cut(sent(1_633), 954, Some(8192), false).is_none());
        assert!(prompt_was_cut(sent(1_633), 954, None, false).is_none());
        // Five to seven bytes a token is a tokenizer, not a cut.
        assert!(prompt_was_cut(sent(15_750), 9_000, Some(32_768), true).is_none());
        assert!(prompt_was_cut(sent(15_750), 9_000, None, false).is_none());
        // Servers that send no count are not judged.
        assert!(prompt_was_cut(sent(15_750), 0, Some(2048), true).is_none());
    }

    use super::*;

    #[test]
    fn classifies_the_failures_a_caller_acts_on() {
        assert_eq!(
            classify_http(429, Some("7"), ""),
            LlmError::RateLimited {
                retry_after: Some(Duration::from_secs(7))
            }
        );
        assert_eq!(
            classify_http(401, None, "{}"),
            LlmError::Auth { status: 401 }
        );
        let too_long = classify_http(
            400,
            None,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens"}}"#,
        );
        assert!(matches!(too_long, LlmError::ContextTooLong { .. }));
        let llama_cpp = classify_http(
            400,
            None,
            r#"{"error":{"code":400,"type":"exceed_context_size_error","message":"request (3049 tokens) exceeds the available context size (1024 tokens), try increasing it","n_prompt_tokens":3049,"n_ctx":1024}}"#,
        );
        assert!(
            matches!(llama_cpp, LlmError::ContextTooLong { .. }),
            "{llama_cpp:?}"
        );
        let overloaded = classify_http(
            529,
            None,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            overloaded,
            LlmError::Server {
                status: 529,
                message: "Overloaded".into()
            }
        );
        let vllm = classify_http(
            400,
            None,
            r#"{"error":{"message":"\"auto\" tool choice requires --enable-auto-tool-choice"}}"#,
        );
        assert!(matches!(vllm, LlmError::BadRequest { status: 400, .. }));
        assert!(!vllm.is_retryable());
        assert!(overloaded.is_retryable());
    }

    #[test]
    fn backoff_honours_retry_after_and_grows_within_its_cap() {
        let base = Duration::from_millis(500);
        let max = Duration::from_secs(30);
        assert_eq!(
            backoff(3, base, max, Some(Duration::from_secs(2)), 0.5),
            Duration::from_secs(2)
        );
        assert_eq!(backoff(0, base, max, None, 1.0), Duration::from_millis(500));
        assert_eq!(backoff(3, base, max, None, 1.0), Duration::from_secs(4));
        assert_eq!(backoff(20, base, max, None, 1.0), max);
        assert!(backoff(2, base, max, None, 0.25) < backoff(2, base, max, None, 0.75));
        assert_eq!(parse_retry_after("not a number"), None);
    }
}
