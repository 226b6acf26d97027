//! One isolated call whose answer must be a JSON object: asked again once,
//! with the first answer and what is wanted, when it is not; and the same
//! over a paper's parts, a part the server finds too long asked again in
//! halves, as the review's reader does. Shared by the readers that answer
//! a question of a paper and fill its table cells.

use futures_util::future::join_all;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::chunks::Chunk;
use super::{MIN_PART_BYTES, parse};
use crate::llm::{ChatRequest, LlmError, Message, ModelClient, ModelSettings};

#[derive(Debug, thiserror::Error)]
pub enum JsonCallError {
    #[error(transparent)]
    Model(#[from] LlmError),
    #[error("the model's answer was not the JSON object asked for: {0}")]
    Malformed(String),
}

impl JsonCallError {
    /// A stable code: the model error's, or `malformed_response`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Model(e) => e.code(),
            Self::Malformed(_) => "malformed_response",
        }
    }
}

/// The request [`json_call`] sends for `messages` under `settings`.
fn request(settings: &ModelSettings, messages: Vec<Message>) -> ChatRequest {
    ChatRequest {
        messages,
        max_tokens: Some(settings.max_output_tokens),
        stream: settings.stream,
        cache_prefix: true,
        ..ChatRequest::default()
    }
}

/// Ask `user` under `system`; returns the object and the calls it took.
/// `again` says, on a second ask, what the object holds.
pub async fn json_call(
    client: &ModelClient,
    system: &str,
    user: String,
    purpose: &str,
    again: &str,
    cancel: &CancellationToken,
) -> Result<(Map<String, Value>, u32), JsonCallError> {
    let mut messages = vec![Message::system(system), Message::user(user)];
    for attempt in 1..=2 {
        let request = request(client.settings(), messages.clone());
        let answer = client.complete(&request, purpose, cancel).await?;
        if let Some(object) = parse::json_object(&answer.text) {
            return Ok((object, attempt));
        }
        if attempt == 2 {
            return Err(JsonCallError::Malformed(parse::shown_answer(&answer.text)));
        }
        messages.push(Message::assistant(&answer));
        messages.push(Message::user(format!(
            "That was not the JSON object asked for. Answer again with only the JSON object: {again}."
        )));
    }
    Err(JsonCallError::Malformed(String::new()))
}

/// A part's answer: the part (perhaps a half of one planned), the object,
/// and the calls it took.
pub type PartAnswer = (Chunk, Map<String, Value>, u32);

/// [`json_call`] over `parts`, answers in page order, each part's message
/// made by `message(part, total)`. The parts are asked at once (the
/// client's gate bounds how many calls are in flight), as the review's
/// reader asks them. A part the server refuses as too long, cuts, or fills
/// its window with is asked again in halves, in its place; a part too small
/// to halve ends the paper with the server's error.
pub async fn json_call_parts(
    client: &ModelClient,
    system: &str,
    parts: Vec<Chunk>,
    message: impl Fn(&Chunk, usize) -> String,
    purpose: &str,
    again: &str,
    cancel: &CancellationToken,
) -> Result<Vec<PartAnswer>, JsonCallError> {
    let total = parts.len();
    let mut pending = parts;
    let mut answers = Vec::new();
    while !pending.is_empty() {
        let asked =
            join_all(pending.iter().map(|part| {
                json_call(client, system, message(part, total), purpose, again, cancel)
            }))
            .await;
        let mut next = Vec::new();
        for (part, answer) in pending.into_iter().zip(asked) {
            match answer {
                Ok((object, calls)) => answers.push((part, object, calls)),
                Err(JsonCallError::Model(e)) if e.is_overflow() => {
                    match part.halves().filter(|_| part.text.len() >= MIN_PART_BYTES) {
                        Some((a, b)) => next.extend([a, b]),
                        None => return Err(e.into()),
                    }
                }
                Err(e) => return Err(e),
            }
        }
        pending = next;
    }
    // Parts hold pages of their own, and a page's halves were asked in
    // order: a stable sort by first page is page order.
    answers.sort_by_key(|(part, _, _)| part.first_page);
    Ok(answers)
}
