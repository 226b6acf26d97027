//! The provider seam and its one real implementation: HTTP to an
//! OpenAI-compatible or Anthropic endpoint. A provider makes one attempt;
//! retries, cancellation, concurrency and accounting live in [`super::client`].
//!
//! Streaming is the primary path: the answer's text is handed to `on_text` as it
//! arrives and the assembled answer is returned. A non-streaming exchange (for
//! tool turns on servers that lose streamed tool calls) is the same call with
//! the whole text delivered at once.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::error::{LlmError, classify_http};
use super::http::{auth_headers, http_client};
use super::openai::WireError;
use super::secrets::ApiKey;
use super::served::ServerKind;
use super::settings::{ModelSettings, Protocol};
use super::sse::SseDecoder;
use super::types::{ChatRequest, ChatResponse};
use super::{anthropic, openai};

/// Error bodies are read up to this size; the rest is noise.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Called with each piece of answer text as it arrives.
pub type TextSink<'a> = &'a (dyn Fn(&str) + Send + Sync);

/// One attempt at a chat call.
#[async_trait]
pub trait Provider: Send + Sync {
    fn settings(&self) -> &ModelSettings;

    /// Send `request` once and return the whole answer, streaming its text
    /// into `on_text` when the exchange is streamed.
    async fn attempt(
        &self,
        request: &ChatRequest,
        on_text: TextSink<'_>,
    ) -> Result<ChatResponse, LlmError>;

    /// The tokens one request may hold, when the server says (see
    /// [`super::served`]); `None` when it does not.
    async fn served_window(&self) -> Option<(ServerKind, u32)> {
        None
    }

    /// The endpoint's Batch API, when its protocol has one Quire speaks.
    fn batch_api(&self) -> Option<Result<super::batch::BatchService, LlmError>> {
        None
    }
}

/// A provider speaking HTTP to one endpoint.
pub struct HttpProvider {
    settings: ModelSettings,
    key: Option<ApiKey>,
    http: reqwest::Client,
}

impl HttpProvider {
    pub fn new(settings: ModelSettings, key: Option<ApiKey>) -> Result<Arc<Self>, LlmError> {
        let http = http_client(&settings)?;
        Ok(Arc::new(Self {
            settings,
            key,
            http,
        }))
    }

    /// Whether this exchange streams: streaming is on, and either the turn
    /// offers no tools or the server streams tool calls reliably.
    fn streams(&self, request: &ChatRequest) -> bool {
        self.settings.stream && (request.tools.is_empty() || self.settings.stream_tool_turns)
    }

    fn body(&self, request: &ChatRequest, stream: bool) -> Value {
        super::wire::wire_body(&self.settings, request, stream)
    }
}

#[async_trait]
impl Provider for HttpProvider {
    fn settings(&self) -> &ModelSettings {
        &self.settings
    }

    async fn served_window(&self) -> Option<(ServerKind, u32)> {
        super::served::served_window(&self.settings, self.key.as_ref()).await
    }

    fn batch_api(&self) -> Option<Result<super::batch::BatchService, LlmError>> {
        use super::batch::{BatchService, anthropic::MessageBatches, openai::BatchApi};
        let key = self.key.clone();
        Some(match self.settings.protocol {
            Protocol::Openai => BatchApi::new(&self.settings, key).map(BatchService::OpenAi),
            Protocol::Anthropic => {
                MessageBatches::new(&self.settings, key).map(BatchService::Anthropic)
            }
        })
    }

    async fn attempt(
        &self,
        request: &ChatRequest,
        on_text: TextSink<'_>,
    ) -> Result<ChatResponse, LlmError> {
        let stream = self.streams(request);
        let url = self.settings.chat_url();
        let response = self
            .http
            .post(&url)
            .headers(auth_headers(self.settings.protocol, self.key.as_ref()))
            .json(&self.body(request, stream))
            .send()
            .await
            .map_err(|e| transport_error(&e, &url))?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let body = read_capped(response, MAX_ERROR_BODY).await;
            return Err(classify_http(
                status.as_u16(),
                retry_after.as_deref(),
                &body,
            ));
        }
        if stream {
            read_stream(self.settings.protocol, response, on_text, &url).await
        } else {
            let bytes = response
                .bytes()
                .await
                .map_err(|e| transport_error(&e, &url))?;
            let body: Value = serde_json::from_slice(&bytes)
                .map_err(|e| LlmError::Malformed(format!("the body is not JSON ({e})")))?;
            let answer = match self.settings.protocol {
                Protocol::Openai => openai::parse_response(&body),
                Protocol::Anthropic => anthropic::parse_response(&body),
            }
            .map_err(wire_error)?;
            if !answer.text.is_empty() {
                on_text(&answer.text);
            }
            Ok(answer)
        }
    }
}

/// Either protocol's stream assembler.
enum Assembler {
    Openai(openai::StreamAssembler),
    Anthropic(anthropic::StreamAssembler),
}

impl Assembler {
    fn push(&mut self, data: &str) -> bool {
        match self {
            Self::Openai(a) => a.push_data(data),
            Self::Anthropic(a) => a.push_data(data),
        }
    }

    fn text(&self) -> &str {
        match self {
            Self::Openai(a) => a.text(),
            Self::Anthropic(a) => a.text(),
        }
    }

    fn finish(self) -> Result<ChatResponse, WireError> {
        match self {
            Self::Openai(a) => a.finish(),
            Self::Anthropic(a) => a.finish(),
        }
    }
}

async fn read_stream(
    protocol: Protocol,
    mut response: reqwest::Response,
    on_text: TextSink<'_>,
    url: &str,
) -> Result<ChatResponse, LlmError> {
    let mut decoder = SseDecoder::new();
    let mut assembler = match protocol {
        Protocol::Openai => Assembler::Openai(openai::StreamAssembler::default()),
        Protocol::Anthropic => Assembler::Anthropic(anthropic::StreamAssembler::default()),
    };
    let mut sent = 0;
    let mut push = |assembler: &mut Assembler, data: &str| {
        let done = assembler.push(data);
        let text = assembler.text();
        if text.len() > sent {
            on_text(&text[sent..]);
            sent = text.len();
        }
        done
    };
    'read: loop {
        let chunk = match response.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => return Err(transport_error(&e, url)),
        };
        for event in decoder.feed(&chunk) {
            if push(&mut assembler, &event.data) {
                break 'read;
            }
        }
    }
    for event in decoder.finish() {
        push(&mut assembler, &event.data);
    }
    assembler.finish().map_err(wire_error)
}

fn wire_error(e: WireError) -> LlmError {
    match e {
        WireError::CutStream => LlmError::CutStream,
        WireError::Malformed(m) => LlmError::Malformed(m),
    }
}

/// A failure below HTTP. The URL is ours, never the key; reqwest's own message
/// names only the URL too.
fn transport_error(e: &reqwest::Error, url: &str) -> LlmError {
    if e.is_timeout() {
        LlmError::Timeout
    } else if e.is_connect() {
        LlmError::Unreachable {
            url: url.to_owned(),
            message: root_cause(e),
        }
    } else if e.is_body() || e.is_decode() || e.is_request() {
        // The connection broke mid-answer.
        LlmError::CutStream
    } else {
        LlmError::Malformed(root_cause(e))
    }
}

fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

async fn read_capped(mut response: reqwest::Response, cap: usize) -> String {
    let mut body = Vec::new();
    while let Ok(Some(chunk)) = response.chunk().await {
        body.extend_from_slice(&chunk);
        if body.len() >= cap {
            body.truncate(cap);
            break;
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}
