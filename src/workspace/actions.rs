//! The append-only action log, `actions.jsonl`.
//!
//! Every tool call is one line: when, which tool, its arguments (clipped), and the
//! outcome. Lines are appended with `O_APPEND` and synced, so concurrent appends
//! never interleave within a line and a crash loses at most the line being
//! written; readers skip a torn last line instead of failing. The context builder
//! reads the last k lines of this file to show the agent its recent actions.

use serde::{Deserialize, Serialize};

/// Arguments longer than this are clipped in the log: the file content of a
/// `write_file` belongs in the file it wrote, not twice on disk.
pub const MAX_LOGGED_ARGS_BYTES: usize = 2048;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionRecord {
    pub at: String,
    pub tool: String,
    /// The call's JSON arguments, clipped to [`MAX_LOGGED_ARGS_BYTES`].
    pub args: String,
    pub ok: bool,
    /// The error code when the tool refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// First line of the result or error, for a glance at the log.
    pub summary: String,
}

impl ActionRecord {
    pub fn new(tool: &str, args: &serde_json::Value, outcome: Result<&str, (&str, &str)>) -> Self {
        let (ok, code, text) = match outcome {
            Ok(text) => (true, None, text),
            Err((code, message)) => (false, Some(code.to_owned()), message),
        };
        Self {
            at: super::records::now_rfc3339(),
            tool: tool.to_owned(),
            args: clip(&args.to_string(), MAX_LOGGED_ARGS_BYTES),
            ok,
            code,
            summary: clip(text.lines().next().unwrap_or_default(), 200),
        }
    }
}

/// Cut `text` to at most `max` bytes on a char boundary, marking the cut.
pub(crate) fn clip(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes clipped]", &text[..end], text.len() - end)
}

/// Parse an append-only log, skipping lines that do not parse (a torn final line
/// after a crash).
pub(crate) fn parse_log<T: serde::de::DeserializeOwned>(text: &str) -> Vec<T> {
    text.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_respects_char_boundaries_and_marks_the_cut() {
        let clipped = clip("ééééé", 3);
        assert!(clipped.starts_with('é'));
        assert!(clipped.contains("bytes clipped"));
        assert_eq!(clip("short", 10), "short");
    }

    #[test]
    fn parse_log_skips_a_torn_last_line() {
        let good = ActionRecord::new("ls", &serde_json::json!({}), Ok("a\nb"));
        let text = format!("{}\n{{\"at\":\"2026", serde_json::to_string(&good).unwrap());
        assert_eq!(parse_log::<ActionRecord>(&text), vec![good]);
    }
}
