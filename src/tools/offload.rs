//! Offloading: an output too large for the prompt is saved to `tool-results/` and
//! the model gets its path with a short head and tail. Nothing is lost; the agent
//! narrows it with grep and reads windows of it with read_file.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

const PREVIEW_HEAD_LINES: usize = 15;
const PREVIEW_TAIL_LINES: usize = 5;
const PREVIEW_LINE_CHARS: usize = 160;

static SEQUENCE: AtomicU64 = AtomicU64::new(0);

/// Save `output` of `tool` and return what the model sees instead.
pub(crate) fn offload(
    workspace: &Workspace,
    tool: &str,
    output: &str,
) -> Result<String, WorkspaceError> {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let seq = SEQUENCE.fetch_add(1, Ordering::Relaxed);
    let name = format!("{millis}-{}-{seq}-{tool}.txt", std::process::id());
    let path = WsPath::from_parts([layout::TOOL_RESULTS_DIR, &name])?;
    workspace.write(&path, output.as_bytes())?;
    Ok(preview(&path, output))
}

fn preview(path: &WsPath, output: &str) -> String {
    let lines: Vec<&str> = output.lines().collect();
    let mut out = format!(
        "The output was too large for the context ({} bytes, {} lines), so it was saved to \
         {path}. Narrow it with grep(pattern, path=\"{path}\") or read a window with \
         read_file(path=\"{path}\", offset, limit).\n",
        output.len(),
        lines.len()
    );
    let head_end = PREVIEW_HEAD_LINES.min(lines.len());
    out.push_str("--- first lines ---\n");
    for line in &lines[..head_end] {
        out.push_str(&short(line));
        out.push('\n');
    }
    let tail_start = lines.len().saturating_sub(PREVIEW_TAIL_LINES).max(head_end);
    if tail_start < lines.len() {
        out.push_str(&format!(
            "--- last lines (from line {}) ---\n",
            tail_start + 1
        ));
        for line in &lines[tail_start..] {
            out.push_str(&short(line));
            out.push('\n');
        }
    }
    out
}

fn short(line: &str) -> String {
    match line.char_indices().nth(PREVIEW_LINE_CHARS) {
        None => line.to_owned(),
        Some((byte, _)) => format!("{}…", &line[..byte]),
    }
}
