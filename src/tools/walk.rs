//! Shared by `glob` and `grep`: resolve the starting path and walk its files.

use globset::{GlobBuilder, GlobMatcher};

use super::{ToolContext, ToolError};
use crate::workspace::{Walk, WsPath, layout};

/// Walk the files under the agent-supplied `path` (the root when absent). The
/// action log is left out unless asked for by name: every search would otherwise
/// match the log lines of earlier searches.
pub(crate) fn files_under(
    ctx: &ToolContext,
    path: Option<&str>,
) -> Result<(WsPath, Walk), ToolError> {
    let start = WsPath::parse(path.unwrap_or("."))?;
    let mut walk = ctx
        .workspace
        .walk_files(&start, ctx.settings.walk_max_files)?;
    if start.is_root() {
        walk.files
            .retain(|f| f.path.to_string() != layout::ACTIONS_FILE);
    }
    Ok((start, walk))
}

/// Compile a glob. `*` stays within one folder, `**` crosses folders, `{a,b}`
/// alternates, as in a shell with globstar.
pub(crate) fn compile_glob(pattern: &str) -> Result<GlobMatcher, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| ToolError::new("invalid_pattern", format!("bad glob {pattern:?}: {e}")))
}

/// A path filter in ripgrep's style: a pattern without `/` matches file names at
/// any depth, one with `/` matches the whole path from the workspace root.
pub(crate) struct PathFilter {
    matcher: GlobMatcher,
    by_name: bool,
}

impl PathFilter {
    pub(crate) fn new(pattern: &str) -> Result<Self, ToolError> {
        Ok(Self {
            matcher: compile_glob(pattern)?,
            by_name: !pattern.contains('/'),
        })
    }

    pub(crate) fn matches(&self, path: &WsPath) -> bool {
        if self.by_name {
            return path
                .file_name()
                .is_some_and(|name| self.matcher.is_match(name));
        }
        self.matcher.is_match(path.to_string())
    }
}

/// The line that tells the model a walk stopped early, if it did.
pub(crate) fn truncation_note(walk: &Walk) -> &'static str {
    if walk.truncated {
        "(stopped walking at the file limit; give a narrower path)\n"
    } else {
        ""
    }
}
