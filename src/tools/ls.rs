//! `ls`: list one folder of the workspace.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Tool, ToolContext, ToolError, blocking, parse_args};
use crate::workspace::{EntryKind, WsPath};

pub(crate) struct Ls;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    #[serde(default)]
    path: Option<String>,
}

#[async_trait]
impl Tool for Ls {
    fn name(&self) -> &str {
        "ls"
    }

    fn description(&self) -> &str {
        "List the entries of a folder in the workspace, one per line: folders end with '/', \
         files show their size in bytes. Paths are relative to the workspace root; omit \
         `path` for the root."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Folder to list, relative to the workspace root. Default: the root."}
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        let ctx = ctx.clone();
        blocking(move || {
            let path = WsPath::parse(args.path.as_deref().unwrap_or("."))?;
            let entries = ctx.workspace.list_dir(&path)?;
            if entries.is_empty() {
                return Ok(format!("{path}/ is empty"));
            }
            let shown = entries.len().min(ctx.settings.ls_max_entries);
            let mut out = String::new();
            for entry in &entries[..shown] {
                let name = entry.path.file_name().unwrap_or_default();
                let line = match entry.kind {
                    EntryKind::Dir => format!("{name}/"),
                    EntryKind::File => format!("{name}  ({} bytes)", entry.size),
                    EntryKind::Symlink => format!("{name}  (symlink)"),
                    EntryKind::Other => format!("{name}  (special file)"),
                };
                out.push_str(&line);
                out.push('\n');
            }
            if shown < entries.len() {
                out.push_str(&format!(
                    "(showing {shown} of {} entries; use glob to narrow)\n",
                    entries.len()
                ));
            }
            Ok(out)
        })
        .await
    }
}
