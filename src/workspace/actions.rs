//! Append-only action logs: `actions.jsonl` for calls made outside any agent,
//! and `tasks/<task-id>/actions.jsonl` for each agent task.
//!
//! Every tool call is one line: when, which agent and step, which tool, its
//! arguments (clipped), and the outcome with a short preview. Lines are appended
//! with `O_APPEND` and synced, so concurrent appends never interleave within a
//! line and a crash loses at most the line being written; readers skip a torn
//! last line instead of failing. The context builder reads the last k lines of
//! a task's log from the end of the file ([`tail_lines`]), so step 10,000 costs
//! what step 10 does.

use std::io::{Read, Seek, SeekFrom};

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
    /// The agent that made the call, when an agent did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The agent task (see `tasks.json`) the call belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// The step of that task, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<u64>,
    /// The start of the result or error, what the agent's next prompt shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
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
            agent: None,
            task: None,
            step: None,
            preview: Some(clip(text, MAX_PREVIEW_BYTES)),
        }
    }

    /// The same record, attributed to `step` of the agent task `task`.
    pub fn by(mut self, agent: &str, task: &str, step: u64) -> Self {
        self.agent = Some(agent.to_owned());
        self.task = Some(task.to_owned());
        self.step = Some(step);
        self
    }
}

/// How much of a result an action record keeps for the next prompts. Agents
/// offload results larger than this to files, so a preview is the whole
/// result or the offload notice with its head and tail.
pub const MAX_PREVIEW_BYTES: usize = 6 * 1024;

/// The last `n` complete lines of an append-only log, read backwards from its
/// end in blocks, so the cost depends on `n` and the line length, not on how
/// long the log has grown. A torn (unterminated) last line is left out.
pub(crate) fn tail_lines(file: &mut impl ReadSeek, n: usize) -> std::io::Result<Vec<String>> {
    const BLOCK: u64 = 16 * 1024;
    let len = file.seek(SeekFrom::End(0))?;
    let mut end = len;
    let mut buf: Vec<u8> = Vec::new();
    loop {
        if n == 0 || end == 0 {
            break;
        }
        let start = end.saturating_sub(BLOCK);
        let mut block = vec![0u8; (end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block)?;
        block.extend_from_slice(&buf);
        buf = block;
        end = start;
        let newlines = buf.iter().filter(|&&b| b == b'\n').count();
        if newlines > n {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf);
    // Everything after the last newline is a line still being written.
    let complete = match text.rfind('\n') {
        Some(last) => &text[..last],
        None => return Ok(Vec::new()),
    };
    let mut lines: Vec<String> = complete
        .rsplit('\n')
        .take(n)
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect();
    // Reading stopped only once the buffer held more than `n` newlines, so a
    // first line cut at a block boundary is never among the last `n`.
    lines.reverse();
    Ok(lines)
}

pub(crate) trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

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
    fn tail_lines_reads_the_last_complete_lines_of_a_long_log() {
        let mut text = String::new();
        for i in 0..5000 {
            text.push_str(&format!("{{\"line\":{i}}}\n"));
        }
        text.push_str("{\"torn");
        let mut file = std::io::Cursor::new(text.into_bytes());
        let tail = tail_lines(&mut file, 3).unwrap();
        assert_eq!(
            tail,
            vec!["{\"line\":4997}", "{\"line\":4998}", "{\"line\":4999}"]
        );
        let mut short = std::io::Cursor::new(b"a\nb\n".to_vec());
        assert_eq!(tail_lines(&mut short, 10).unwrap(), vec!["a", "b"]);
        let mut empty = std::io::Cursor::new(Vec::new());
        assert!(tail_lines(&mut empty, 10).unwrap().is_empty());
    }

    #[test]
    fn parse_log_skips_a_torn_last_line() {
        let good = ActionRecord::new("ls", &serde_json::json!({}), Ok("a\nb"));
        let text = format!("{}\n{{\"at\":\"2026", serde_json::to_string(&good).unwrap());
        assert_eq!(parse_log::<ActionRecord>(&text), vec![good]);
    }
}
