//! Agent-supplied paths, checked and normalised before they touch the disk.
//!
//! Every path an agent (or the CLI on its behalf) names goes through
//! [`WsPath::parse`]: it must be relative, free of NUL bytes, within the length
//! limits of common filesystems, and it must not climb out of the workspace with
//! `..`. What survives is a normalised list of plain components. This module is
//! purely lexical; symlinks are the job of [`super::Workspace`], which opens
//! everything through a capability handle that refuses to leave the root.

use std::fmt;
use std::path::{Component, Path, PathBuf};

use super::WorkspaceError;

/// Longest single file or directory name we accept, in bytes (ext4, APFS, NTFS: 255).
pub const MAX_NAME_BYTES: usize = 255;
/// Longest whole relative path we accept, in bytes (Linux `PATH_MAX` is 4096).
pub const MAX_PATH_BYTES: usize = 4096;

/// A normalised path relative to the workspace root. The empty path is the root.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WsPath {
    parts: Vec<String>,
}

impl WsPath {
    /// The workspace root itself.
    pub fn root() -> Self {
        Self { parts: Vec::new() }
    }

    /// Check and normalise a path the agent asked for.
    ///
    /// `.` components vanish, `a/../b` becomes `b`, and any `..` that would rise
    /// above the root is refused rather than clamped: silently reading a different
    /// file than the one asked for would teach the model the wrong thing.
    pub fn parse(raw: &str) -> Result<Self, WorkspaceError> {
        let refuse = |e: fn(String) -> WorkspaceError| Err(e(display_raw(raw)));
        if raw.contains('\0') {
            return refuse(|path| WorkspaceError::PathHasNul { path });
        }
        if raw.len() > MAX_PATH_BYTES {
            return refuse(|path| WorkspaceError::PathTooLong { path });
        }
        let path = Path::new(raw);
        if path.is_absolute()
            || raw.starts_with('/')
            || raw.starts_with('\\')
            || raw.starts_with('~')
        {
            return refuse(|path| WorkspaceError::PathAbsolute { path });
        }
        let mut parts: Vec<String> = Vec::new();
        for component in path.components() {
            match component {
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return refuse(|path| WorkspaceError::PathOutsideWorkspace { path });
                    }
                }
                Component::Normal(name) => {
                    let Some(name) = name.to_str() else {
                        return refuse(|path| WorkspaceError::PathInvalid { path });
                    };
                    if name.len() > MAX_NAME_BYTES {
                        return refuse(|path| WorkspaceError::PathTooLong { path });
                    }
                    parts.push(name.to_owned());
                }
                Component::RootDir | Component::Prefix(_) => {
                    return refuse(|path| WorkspaceError::PathAbsolute { path });
                }
            }
        }
        Ok(Self { parts })
    }

    /// Build a path from components the program itself chose (never agent input).
    pub fn from_parts<I, S>(parts: I) -> Result<Self, WorkspaceError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let joined: Vec<String> = parts.into_iter().map(|s| s.as_ref().to_owned()).collect();
        Self::parse(&joined.join("/"))
    }

    pub fn is_root(&self) -> bool {
        self.parts.is_empty()
    }

    pub fn parts(&self) -> &[String] {
        &self.parts
    }

    /// The first component, e.g. `papers` for `papers/p1/result.json`.
    pub fn first(&self) -> Option<&str> {
        self.parts.first().map(String::as_str)
    }

    pub fn file_name(&self) -> Option<&str> {
        self.parts.last().map(String::as_str)
    }

    pub fn parent(&self) -> Option<Self> {
        if self.parts.is_empty() {
            return None;
        }
        Some(Self {
            parts: self.parts[..self.parts.len() - 1].to_vec(),
        })
    }

    pub fn join(&self, name: &str) -> Result<Self, WorkspaceError> {
        if self.is_root() {
            return Self::parse(name);
        }
        Self::parse(&format!("{self}/{name}"))
    }

    /// The path as cap-std wants it: relative, `.` for the root.
    pub fn to_relative(&self) -> PathBuf {
        if self.parts.is_empty() {
            return PathBuf::from(".");
        }
        self.parts.iter().collect()
    }
}

impl fmt::Display for WsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.parts.is_empty() {
            return f.write_str(".");
        }
        f.write_str(&self.parts.join("/"))
    }
}

impl fmt::Debug for WsPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WsPath({self})")
    }
}

/// A path as it may appear in an error message: NULs shown, length bounded, so a
/// hostile path cannot flood the model's context or a log line.
fn display_raw(raw: &str) -> String {
    const SHOWN: usize = 120;
    let visible = raw.replace('\0', "\\0");
    if visible.chars().count() <= SHOWN {
        return visible;
    }
    let head: String = visible.chars().take(SHOWN).collect();
    format!("{head}… ({} bytes)", raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(raw: &str) -> &'static str {
        WsPath::parse(raw).err().map(|e| e.code()).unwrap_or("ok")
    }

    #[test]
    fn normalises_dots_and_inner_parent_steps() {
        assert_eq!(WsPath::parse("./a/./b/../c").unwrap().to_string(), "a/c");
        assert_eq!(WsPath::parse("a/b/").unwrap().to_string(), "a/b");
        assert!(WsPath::parse("").unwrap().is_root());
        assert!(WsPath::parse(".").unwrap().is_root());
        assert!(WsPath::parse("a/..").unwrap().is_root());
    }

    #[test]
    fn refuses_each_hostile_shape_with_its_own_code() {
        assert_eq!(code(".."), "path_outside_workspace");
        assert_eq!(code("a/../../b"), "path_outside_workspace");
        assert_eq!(code("/etc/passwd"), "path_absolute");
        assert_eq!(code("~/secrets"), "path_absolute");
        assert_eq!(code("a\0b"), "path_has_nul");
        assert_eq!(code(&"x".repeat(256)), "path_too_long");
        assert_eq!(code(&"a/".repeat(2100)), "path_too_long");
        assert_eq!(code(&"x".repeat(255)), "ok");
    }

    #[test]
    fn error_messages_stay_short_for_huge_paths() {
        let err = WsPath::parse(&"y".repeat(5000)).unwrap_err();
        assert!(err.to_string().len() < 300, "{}", err);
    }
}
