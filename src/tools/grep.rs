//! `grep`: search file contents with a regular expression, in-process with
//! ripgrep's own searcher. Binary files are skipped; the output is
//! `{file: [[line_number, text], ...]}` so the model gets exact places to read.

use std::collections::BTreeMap;

use async_trait::async_trait;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde::Deserialize;
use serde_json::{Value, json};

use super::walk::{PathFilter, files_under, truncation_note};
use super::{Tool, ToolContext, ToolError, blocking, parse_args};

pub(crate) struct Grep;

/// Matched lines are cut to this many characters: the model gets a location, then
/// reads around it with `read_file`.
const MAX_MATCH_LINE_CHARS: usize = 300;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    pattern: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    glob: Option<String>,
}

#[async_trait]
impl Tool for Grep {
    fn name(&self) -> &str {
        "grep"
    }

    fn description(&self) -> &str {
        "Search file contents for a regular expression (Rust regex syntax; '(?i)' for \
         case-insensitive). Returns a JSON object mapping each file to its matching lines \
         as [line_number, text] pairs. Narrow with `path` (a folder or file) and `glob` \
         (e.g. '*.md', or 'papers/**/text.md'). Then read around a match with read_file."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for."},
                "path": {"type": "string", "description": "Folder or file to search. Default: the whole workspace."},
                "glob": {"type": "string", "description": "Only search files matching this glob; without '/' it matches file names."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        let ctx = ctx.clone();
        blocking(move || search(&ctx, &args)).await
    }
}

fn search(ctx: &ToolContext, args: &Args) -> Result<String, ToolError> {
    let matcher = RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(&args.pattern)
        .map_err(|e| {
            ToolError::new(
                "invalid_pattern",
                format!("bad regex {:?}: {e}", args.pattern),
            )
        })?;
    let filter = args.glob.as_deref().map(PathFilter::new).transpose()?;
    let (_, walk) = files_under(ctx, args.path.as_deref())?;
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(0))
        .line_number(true)
        .build();

    let limit = ctx.settings.grep_max_matches;
    let mut found: BTreeMap<String, Vec<(u64, String)>> = BTreeMap::new();
    let mut total = 0usize;
    let mut capped = false;
    for file in &walk.files {
        if filter.as_ref().is_some_and(|f| !f.matches(&file.path)) {
            continue;
        }
        let bytes = ctx.workspace.read(&file.path)?;
        let mut lines = Vec::new();
        let sink = Lossy(|line_number, text| {
            if total >= limit {
                capped = true;
                return Ok(false);
            }
            lines.push((line_number, clip_line(text.trim_end_matches(['\r', '\n']))));
            total += 1;
            Ok(true)
        });
        searcher
            .search_slice(&matcher, &bytes, sink)
            .map_err(|e| ToolError::new("io_error", format!("searching {}: {e}", file.path)))?;
        if !lines.is_empty() {
            found.insert(file.path.to_string(), lines);
        }
        if capped {
            break;
        }
    }

    let mut out = serde_json::to_string(&found)
        .map_err(|e| ToolError::fatal("internal_error", e.to_string()))?;
    out.push('\n');
    if found.is_empty() {
        out.push_str(&format!("(no matches for {:?})\n", args.pattern));
    }
    if capped {
        out.push_str(&format!(
            "(stopped at {limit} matching lines; narrow with path, glob or a tighter pattern)\n"
        ));
    }
    out.push_str(truncation_note(&walk));
    Ok(out)
}

fn clip_line(text: &str) -> String {
    if text.chars().count() <= MAX_MATCH_LINE_CHARS {
        return text.to_owned();
    }
    let head: String = text.chars().take(MAX_MATCH_LINE_CHARS).collect();
    format!("{head}… [line cut]")
}
