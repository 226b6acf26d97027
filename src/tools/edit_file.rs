//! `edit_file`: replace an exact piece of text in a file. An edit whose `old` text
//! occurs more than once is refused unless `replace_all` is set, because guessing
//! which occurrence was meant silently corrupts the file.

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::write_file::{check_size, writable_path};
use super::{Tool, ToolContext, ToolError, blocking, parse_args};

pub(crate) struct EditFile;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    path: String,
    old: String,
    new: String,
    #[serde(default)]
    replace_all: bool,
}

#[async_trait]
impl Tool for EditFile {
    fn name(&self) -> &str {
        "edit_file"
    }

    fn description(&self) -> &str {
        "Replace the exact text `old` with `new` in a workspace file. `old` must match the \
         file exactly (whitespace included) and occur exactly once, unless `replace_all` is \
         true. Returns the number of replacements, not the file."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File to edit, relative to the workspace root."},
                "old": {"type": "string", "description": "Exact text to replace; include enough context to make it unique."},
                "new": {"type": "string", "description": "Text to put in its place."},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence. Default false."}
            },
            "required": ["path", "old", "new"],
            "additionalProperties": false
        })
    }

    async fn call(&self, ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: Args = parse_args(args)?;
        if args.old.is_empty() {
            return Err(ToolError::invalid_arguments(
                "`old` is empty; use write_file to create a file",
            ));
        }
        if args.old == args.new {
            return Err(ToolError::invalid_arguments(
                "`old` and `new` are the same; nothing to do",
            ));
        }
        let ctx = ctx.clone();
        blocking(move || {
            let path = writable_path(&args.path)?;
            let bytes = ctx.workspace.read(&path)?;
            let text = String::from_utf8(bytes)
                .map_err(|_| ToolError::new("not_text", format!("{path} is not UTF-8 text")))?;
            let (edited, count) = apply_edit(&text, &args.old, &args.new, args.replace_all)
                .map_err(|e| ToolError::new(e.code, format!("{} in {path}", e.message)))?;
            check_size(edited.len(), ctx.settings.max_write_bytes)?;
            ctx.workspace.write(&path, edited.as_bytes())?;
            let noun = if count == 1 {
                "replacement"
            } else {
                "replacements"
            };
            Ok(format!(
                "edited {path} ({count} {noun}, now {} bytes)",
                edited.len()
            ))
        })
        .await
    }
}

struct EditRefusal {
    code: &'static str,
    message: String,
}

fn apply_edit(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<(String, usize), EditRefusal> {
    let count = text.matches(old).count();
    match count {
        0 => Err(EditRefusal {
            code: "no_match",
            message: "`old` text not found (it must match exactly; read the file to copy it)"
                .into(),
        }),
        n if n > 1 && !replace_all => Err(EditRefusal {
            code: "ambiguous_edit",
            message: format!(
                "`old` text occurs {n} times; add surrounding text to make it unique, or set replace_all"
            ),
        }),
        n if replace_all => Ok((text.replace(old, new), n)),
        _ => Ok((text.replacen(old, new, 1), 1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_unique_match_only() {
        let (out, n) = apply_edit("a b c", "b", "B", false).ok().unwrap();
        assert_eq!((out.as_str(), n), ("a B c", 1));
    }

    #[test]
    fn refuses_ambiguous_edits_unless_replace_all() {
        let err = apply_edit("x x x", "x", "y", false).err().unwrap();
        assert_eq!(err.code, "ambiguous_edit");
        assert!(err.message.contains("3 times"));
        let (out, n) = apply_edit("x x x", "x", "y", true).ok().unwrap();
        assert_eq!((out.as_str(), n), ("y y y", 3));
    }

    #[test]
    fn reports_a_missing_match() {
        assert_eq!(
            apply_edit("abc", "z", "y", false).err().unwrap().code,
            "no_match"
        );
    }
}
