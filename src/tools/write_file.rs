//! `write_file`: create or replace a file, atomically. Returns a one-line receipt,
//! never the content: the context grows by a line, not by the file.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, blocking, parse_args};
use crate::workspace::{WsPath, layout};

pub(crate) struct WriteFile;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    content: String,
}

#[async_trait]
impl Tool for WriteFile {
    fn name(&self) -> &str {
        "write_file"
    }

    fn description(&self) -> &str {
        "Create or replace a text file in the workspace with `content`; missing folders are \
         created. The write is atomic. Returns 'saved PATH (N bytes)'. To change part of an \
         existing file, use edit_file instead."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to write, relative to the workspace root."},
                "content": {"type": "string", "description": "The complete new content of the file."}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        let ctx = ctx.clone();
        blocking(move || {
            let path = writable_path(&args.path)?;
            check_size(args.content.len(), ctx.settings.max_write_bytes)?;
            ctx.workspace.write(&path, args.content.as_bytes())?;
            Ok(format!("saved {path} ({} bytes)", args.content.len()))
        })
        .await
    }
}

/// Parse a path the agent wants to change, refusing Quire's own files.
pub(crate) fn writable_path(raw: &str) -> Result<WsPath, ToolError> {
    let path = WsPath::parse(raw)?;
    if path.is_root() {
        return Err(ToolError::new(
            "not_a_file",
            "the workspace root is a folder, name a file",
        ));
    }
    if layout::is_reserved(path.first()) {
        return Err(crate::workspace::WorkspaceError::PathReadOnly {
            path: path.to_string(),
        }
        .into());
    }
    Ok(path)
}

pub(crate) fn check_size(len: usize, max: usize) -> Result<(), ToolError> {
    if len > max {
        return Err(ToolError::new(
            "content_too_large",
            format!("content is {len} bytes, the limit is {max}; split it into several files"),
        ));
    }
    Ok(())
}
