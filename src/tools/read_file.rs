//! `read_file`: a window of a text file as numbered lines, `cat -n` style.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, blocking, parse_args};
use crate::workspace::WsPath;

pub(crate) struct ReadFile;

/// The default and the largest window, in lines.
pub(crate) const DEFAULT_LIMIT: usize = 2000;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    #[serde(default)]
    offset: usize,
    #[serde(default)]
    limit: Option<usize>,
}

#[async_trait]
impl Tool for ReadFile {
    fn name(&self) -> &str {
        "read_file"
    }

    fn description(&self) -> &str {
        "Read a text file from the workspace as numbered lines ('   12\\tline'). Reads \
         `limit` lines (default and maximum 2000) starting after `offset` lines (default 0). \
         Very long lines are cut with a marker. Use grep to find line numbers first, then \
         read just that window."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to read, relative to the workspace root."},
                "offset": {"type": "integer", "minimum": 0, "description": "Number of lines to skip. Default 0."},
                "limit": {"type": "integer", "minimum": 1, "maximum": DEFAULT_LIMIT, "description": "Number of lines to return. Default 2000."}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        let limit = args.limit.unwrap_or(DEFAULT_LIMIT);
        if limit == 0 || limit > DEFAULT_LIMIT {
            return Err(ToolError::invalid_arguments(format!(
                "limit must be between 1 and {DEFAULT_LIMIT}, got {limit}"
            )));
        }
        let ctx = ctx.clone();
        blocking(move || {
            let path = WsPath::parse(&args.path)?;
            let bytes = ctx.workspace.read(&path)?;
            if bytes.iter().take(8192).any(|&b| b == 0) {
                return Err(ToolError::new(
                    "binary_file",
                    format!(
                        "{path} is a binary file ({} bytes) and cannot be shown as text",
                        bytes.len()
                    ),
                ));
            }
            let text = String::from_utf8_lossy(&bytes);
            render_window(
                &path,
                &text,
                args.offset,
                limit,
                ctx.settings.max_line_chars,
            )
        })
        .await
    }
}

fn render_window(
    path: &WsPath,
    text: &str,
    offset: usize,
    limit: usize,
    max_line_chars: usize,
) -> Result<String, ToolError> {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return Ok(format!("{path} is empty"));
    }
    if offset >= lines.len() {
        return Err(ToolError::new(
            "offset_past_end",
            format!(
                "offset {offset} is past the end of {path}, which has {} lines",
                lines.len()
            ),
        ));
    }
    let end = (offset + limit).min(lines.len());
    let mut out = String::new();
    for (index, line) in lines[offset..end].iter().enumerate() {
        out.push_str(&format!(
            "{:>6}\t{}\n",
            offset + index + 1,
            cut(line, max_line_chars)
        ));
    }
    if end < lines.len() {
        out.push_str(&format!(
            "(lines {}-{end} of {}; continue with offset={end})\n",
            offset + 1,
            lines.len()
        ));
    }
    Ok(out)
}

fn cut(line: &str, max_chars: usize) -> String {
    let line = line.trim_end_matches('\r');
    match line.char_indices().nth(max_chars) {
        None => line.to_owned(),
        Some((byte, _)) => {
            let rest = line[byte..].chars().count();
            format!("{}… [line cut, {rest} more characters]", &line[..byte])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> WsPath {
        WsPath::parse("notes/a.md").unwrap()
    }

    #[test]
    fn numbers_lines_from_the_offset_and_points_to_the_next_window() {
        let text = "one\ntwo\nthree\nfour\n";
        let out = render_window(&path(), text, 1, 2, 100).unwrap();
        assert_eq!(
            out,
            "     2\ttwo\n     3\tthree\n(lines 2-3 of 4; continue with offset=3)\n"
        );
    }

    #[test]
    fn cuts_long_lines_with_a_marker_counting_what_was_cut() {
        let out = render_window(&path(), &"é".repeat(10), 0, 10, 4).unwrap();
        assert_eq!(out, "     1\téééé… [line cut, 6 more characters]\n");
    }

    #[test]
    fn offset_past_the_end_is_an_error_that_says_how_long_the_file_is() {
        let err = render_window(&path(), "a\nb\n", 2, 10, 100).unwrap_err();
        assert_eq!(err.code, "offset_past_end");
        assert!(err.message.contains("has 2 lines"), "{}", err.message);
    }

    #[test]
    fn crlf_line_endings_are_not_shown() {
        let out = render_window(&path(), "a\r\nb\r\n", 0, 10, 100).unwrap();
        assert_eq!(out, "     1\ta\n     2\tb\n");
    }
}
