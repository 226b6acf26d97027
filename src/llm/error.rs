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
        }
    }

    /// Worth trying again with the same request.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Timeout | Self::CutStream
        )
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
