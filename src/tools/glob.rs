//! `glob`: find files by path pattern.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::walk::{compile_glob, files_under, truncation_note};
use super::{Tool, ToolContext, ToolError, blocking, parse_args};

pub(crate) struct Glob;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
}

#[async_trait]
impl Tool for Glob {
    fn name(&self) -> &str {
        "glob"
    }

    fn description(&self) -> &str {
        "Find files whose path from the workspace root matches a glob pattern, e.g. \
         'papers/**/result.json' or 'notes/*.md'. '*' matches within one folder, '**' \
         across folders, '{a,b}' either. Returns matching paths, one per line, sorted."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob matched against the whole path from the workspace root."},
                "path": {"type": "string", "description": "Only search under this folder. Default: the root."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        let ctx = ctx.clone();
        blocking(move || {
            let matcher = compile_glob(&args.pattern)?;
            let (_, walk) = files_under(&ctx, args.path.as_deref())?;
            let matches: Vec<String> = walk
                .files
                .iter()
                .map(|f| f.path.to_string())
                .filter(|p| matcher.is_match(p))
                .collect();
            if matches.is_empty() {
                return Ok(format!("no files match {:?}", args.pattern));
            }
            let shown = matches.len().min(ctx.settings.glob_max_paths);
            let mut out = matches[..shown].join("\n");
            out.push('\n');
            if shown < matches.len() {
                out.push_str(&format!(
                    "(showing {shown} of {} matches; narrow the pattern)\n",
                    matches.len()
                ));
            }
            out.push_str(truncation_note(&walk));
            Ok(out)
        })
        .await
    }
}
