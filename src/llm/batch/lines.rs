//! The lines of a batch request file and of its result files.
//!
//! A request's id is derived from what it sends (model, messages, schema,
//! answer cap), so the same work always has the same id: a restart that
//! builds its requests again finds the answers it already has, and a result
//! is matched to its request by id, whatever order the file gives them in.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::llm::openai::{WireError, parse_response};
use crate::llm::wire::wire_body;
use crate::llm::{ChatRequest, ChatResponse, ModelSettings};

/// The endpoint every line of Quire's batch files calls.
pub const CHAT_ENDPOINT: &str = "/v1/chat/completions";

/// A provider's limits on one batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub requests: usize,
    pub bytes: usize,
}

impl Limits {
    /// OpenAI's: 50,000 requests and 200 MB a file.
    pub const OPENAI: Limits = Limits {
        requests: 50_000,
        bytes: 200 * 1024 * 1024,
    };
    /// Anthropic's: 100,000 requests and 256 MB a batch.
    pub const ANTHROPIC: Limits = Limits {
        requests: 100_000,
        bytes: 256 * 1024 * 1024,
    };
}

/// One request of a batch file.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchLine {
    pub custom_id: String,
    pub body: Value,
}

impl BatchLine {
    /// The line for `request` under `settings`: its wire body, unstreamed,
    /// and the id that body derives.
    pub fn new(settings: &ModelSettings, request: &ChatRequest) -> Self {
        let body = wire_body(settings, request, false);
        Self {
            custom_id: request_id(&body),
            body,
        }
    }

    /// The line as the file holds it (no newline).
    pub fn to_json_line(&self) -> String {
        json!({
            "custom_id": self.custom_id,
            "method": "POST",
            "url": CHAT_ENDPOINT,
            "body": self.body,
        })
        .to_string()
    }
}

/// The id of the request whose wire body is `body`: `q` and the first 24 hex
/// digits of its SHA-256 (serde_json writes an object's keys in order, so
/// the same body always hashes the same).
pub fn request_id(body: &Value) -> String {
    let digest = Sha256::digest(body.to_string().as_bytes());
    format!("q{}", &hex::encode(digest)[..24])
}

/// `lines` cut into files within `limits`, in order; a line is never split.
pub fn shard(lines: Vec<BatchLine>, limits: Limits) -> Vec<Vec<BatchLine>> {
    let mut shards: Vec<Vec<BatchLine>> = Vec::new();
    let (mut count, mut bytes) = (0usize, 0usize);
    for line in lines {
        let size = line.to_json_line().len() + 1;
        let full = count >= limits.requests || (count > 0 && bytes + size > limits.bytes);
        if shards.is_empty() || full {
            shards.push(Vec::new());
            (count, bytes) = (0, 0);
        }
        if let Some(current) = shards.last_mut() {
            current.push(line);
        }
        count += 1;
        bytes += size;
    }
    shards
}

/// What a result or error file says of one request.
#[derive(Clone, Debug, PartialEq)]
pub enum LineOutcome {
    /// Answered (HTTP 200), the answer read as an interactive one is.
    Answered(ChatResponse),
    /// The request was refused or failed (its status and message).
    Failed { status: u16, message: String },
    /// Not run before the batch's window closed, or cancelled with it.
    NotRun { code: String, message: String },
}

impl LineOutcome {
    /// Worth sending again in a new batch.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::Answered(_) => false,
            Self::Failed { status, .. } => *status == 429 || *status >= 500,
            Self::NotRun { .. } => true,
        }
    }
}

/// One line of a result file, OpenAI's (an output or error file) or
/// Anthropic's (a message batch's results): its request's id and outcome.
pub fn parse_result_line(line: &str) -> Result<(String, LineOutcome), String> {
    let value: Value =
        serde_json::from_str(line).map_err(|e| format!("a result line is not JSON: {e}"))?;
    let custom_id = value
        .get("custom_id")
        .and_then(Value::as_str)
        .ok_or("a result line has no custom_id")?
        .to_owned();
    if let Some(result) = value.get("result") {
        return Ok((custom_id, message_batch_outcome(result)));
    }
    let error = value.get("error").filter(|e| !e.is_null());
    let response = value.get("response").filter(|r| !r.is_null());
    let outcome = match (response, error) {
        (Some(response), _) => {
            let status = response
                .get("status_code")
                .and_then(Value::as_u64)
                .unwrap_or(0) as u16;
            let body = response.get("body").cloned().unwrap_or(Value::Null);
            if status == 200 {
                match parse_response(&body) {
                    Ok(answer) => LineOutcome::Answered(answer),
                    Err(e @ (WireError::Malformed(_) | WireError::CutStream)) => {
                        LineOutcome::Failed {
                            status,
                            message: e.to_string(),
                        }
                    }
                }
            } else {
                let message = body
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message")
                    .to_owned();
                LineOutcome::Failed { status, message }
            }
        }
        (None, Some(error)) => LineOutcome::NotRun {
            code: error
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_owned(),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        },
        (None, None) => {
            return Err(format!(
                "the result line for {custom_id} has neither response nor error"
            ));
        }
    };
    Ok((custom_id, outcome))
}

/// The outcome a message batch's `result` says: `succeeded` with the
/// message, `errored` with the API's error (its type read as the HTTP
/// status the interactive API gives it, so a retry is judged the same way),
/// or `canceled` / `expired`, never run.
fn message_batch_outcome(result: &Value) -> LineOutcome {
    let kind = result.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "succeeded" => {
            let message = result.get("message").cloned().unwrap_or(Value::Null);
            match crate::llm::anthropic::parse_response(&message) {
                Ok(answer) => LineOutcome::Answered(answer),
                Err(e) => LineOutcome::Failed {
                    status: 200,
                    message: e.to_string(),
                },
            }
        }
        "errored" => {
            let error = result.pointer("/error/error").unwrap_or(&Value::Null);
            let status = match error.get("type").and_then(Value::as_str) {
                Some("invalid_request_error") => 400,
                Some("authentication_error") => 401,
                Some("permission_error") => 403,
                Some("not_found_error") => 404,
                Some("request_too_large") => 413,
                Some("rate_limit_error") => 429,
                Some("overloaded_error") => 529,
                _ => 500,
            };
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("no message")
                .to_owned();
            LineOutcome::Failed { status, message }
        }
        other => LineOutcome::NotRun {
            code: other.to_owned(),
            message: format!("the message batch's request was {other}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Message;

    fn request(text: &str) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::system("read"), Message::user(text)],
            max_tokens: Some(512),
            ..ChatRequest::default()
        }
    }

    fn settings() -> ModelSettings {
        ModelSettings {
            model: "gpt-4o-mini".into(),
            ..ModelSettings::default()
        }
    }

    #[test]
    fn the_same_work_has_the_same_id_and_other_work_another() {
        let a = BatchLine::new(&settings(), &request("paper one, part 1"));
        let again = BatchLine::new(&settings(), &request("paper one, part 1"));
        let b = BatchLine::new(&settings(), &request("paper one, part 2"));
        let other_model = BatchLine::new(
            &ModelSettings {
                model: "gpt-4o".into(),
                ..settings()
            },
            &request("paper one, part 1"),
        );
        assert_eq!(a.custom_id, again.custom_id);
        assert_ne!(a.custom_id, b.custom_id);
        assert_ne!(a.custom_id, other_model.custom_id);
        assert_eq!(a.custom_id.len(), 25);
        let line: Value = serde_json::from_str(&a.to_json_line()).unwrap();
        assert_eq!(line["url"], CHAT_ENDPOINT);
        assert_eq!(line["method"], "POST");
        assert_eq!(line["body"]["model"], "gpt-4o-mini");
        assert_eq!(line["body"]["stream"], false, "a batch is never streamed");
        assert_eq!(line["body"]["max_tokens"], 512);
    }

    #[test]
    fn files_are_cut_by_requests_and_by_bytes() {
        let lines: Vec<BatchLine> = (0..10)
            .map(|i| {
                BatchLine::new(
                    &settings(),
                    &request(&format!("part {i} {}", "x".repeat(100))),
                )
            })
            .collect();
        let size = lines[0].to_json_line().len() + 1;
        let by_count = shard(
            lines.clone(),
            Limits {
                requests: 4,
                bytes: usize::MAX,
            },
        );
        assert_eq!(by_count.iter().map(Vec::len).collect::<Vec<_>>(), [4, 4, 2]);
        let by_bytes = shard(
            lines.clone(),
            Limits {
                requests: 100,
                bytes: size * 3 + 2,
            },
        );
        assert_eq!(
            by_bytes.iter().map(Vec::len).collect::<Vec<_>>(),
            [3, 3, 3, 1]
        );
        let flat: Vec<String> = by_bytes
            .into_iter()
            .flatten()
            .map(|l| l.custom_id)
            .collect();
        let ids: Vec<String> = lines.into_iter().map(|l| l.custom_id).collect();
        assert_eq!(flat, ids, "in order, none lost");
        // A line larger than the limit goes alone rather than nowhere.
        let one = shard(
            vec![BatchLine::new(&settings(), &request("y"))],
            Limits {
                requests: 10,
                bytes: 1,
            },
        );
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn result_lines_give_answers_refusals_and_requests_never_run() {
        let ok = r#"{"id":"batch_req_1","custom_id":"qabc","response":{"status_code":200,"request_id":"r1","body":{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"{\"score\": 7}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":900,"completion_tokens":40,"total_tokens":940}}},"error":null}"#;
        let (id, outcome) = parse_result_line(ok).unwrap();
        assert_eq!(id, "qabc");
        let LineOutcome::Answered(answer) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(answer.text, "{\"score\": 7}");
        assert_eq!(answer.usage.unwrap().input_tokens, 900);

        let refused = r#"{"id":"batch_req_2","custom_id":"qdef","response":{"status_code":400,"request_id":"r2","body":{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}},"error":null}"#;
        let (_, outcome) = parse_result_line(refused).unwrap();
        assert!(
            matches!(&outcome, LineOutcome::Failed { status: 400, message } if message.contains("maximum context"))
        );
        assert!(!outcome.is_retryable());

        let expired = r#"{"id":"batch_req_3","custom_id":"qghi","response":null,"error":{"code":"batch_expired","message":"This request could not be executed before the completion window expired."}}"#;
        let (_, outcome) = parse_result_line(expired).unwrap();
        assert!(matches!(&outcome, LineOutcome::NotRun { code, .. } if code == "batch_expired"));
        assert!(outcome.is_retryable());

        let busy = r#"{"custom_id":"qjkl","response":{"status_code":500,"body":{"error":{"message":"internal"}}},"error":null}"#;
        assert!(parse_result_line(busy).unwrap().1.is_retryable());
        assert!(parse_result_line("{not json").is_err());
        assert!(parse_result_line(r#"{"custom_id":"q","response":null,"error":null}"#).is_err());
    }

    #[test]
    fn message_batch_result_lines_read_as_the_same_outcomes() {
        let ok = r#"{"custom_id":"qabc","result":{"type":"succeeded","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"text","text":"{\"score\": 7}"}],"stop_reason":"end_turn","usage":{"input_tokens":900,"output_tokens":40}}}}"#;
        let (id, outcome) = parse_result_line(ok).unwrap();
        assert_eq!(id, "qabc");
        let LineOutcome::Answered(answer) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(answer.text, "{\"score\": 7}");
        assert_eq!(answer.usage.unwrap().input_tokens, 900);

        let invalid = r#"{"custom_id":"qdef","result":{"type":"errored","error":{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}}}"#;
        let (_, outcome) = parse_result_line(invalid).unwrap();
        assert!(
            matches!(&outcome, LineOutcome::Failed { status: 400, message } if message.contains("too long")),
            "{outcome:?}"
        );
        assert!(!outcome.is_retryable());

        let overloaded = r#"{"custom_id":"qghi","result":{"type":"errored","error":{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}}}"#;
        assert!(parse_result_line(overloaded).unwrap().1.is_retryable());
        for (kind, id) in [("expired", "qjkl"), ("canceled", "qmno")] {
            let line = format!(r#"{{"custom_id":"{id}","result":{{"type":"{kind}"}}}}"#);
            let (_, outcome) = parse_result_line(&line).unwrap();
            assert!(matches!(&outcome, LineOutcome::NotRun { code, .. } if code == kind));
            assert!(outcome.is_retryable());
        }
    }
}
