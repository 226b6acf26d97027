//! Agents as data: an [`AgentSpec`] is a TOML file naming the agent, its level
//! in the hierarchy, what a parent is told about it, its system prompt, the
//! tools it may call (built-in tools and other agents, by name), its model
//! profile, and the limits of its loop.
//!
//! The built-in specs are embedded in the binary; a workspace's `agents/*.toml`
//! overrides a built-in of the same name or adds a new agent. Loading checks
//! every spec against the others (known tools, levels strictly decreasing along
//! every call, so there is no calling up and no cycle) and names the file and
//! field of anything wrong.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::workspace::{EntryKind, Workspace, WorkspaceError, WsPath, layout};

/// The tools every agent has without naming them: its notes and its way out.
pub const RUNTIME_TOOLS: [&str; 2] = [FINISH_TOOL, NOTES_TOOL];
pub const FINISH_TOOL: &str = "finish";
pub const NOTES_TOOL: &str = "write_notes";

const BUILTIN: [(&str, &str); 4] = [
    ("planner.toml", include_str!("builtin/planner.toml")),
    ("reviewer.toml", include_str!("builtin/reviewer.toml")),
    ("writer.toml", include_str!("builtin/writer.toml")),
    ("reader.toml", include_str!("builtin/reader.toml")),
];

/// Where a spec came from, for error messages and `quire agents`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SpecSource {
    Builtin,
    /// `agents/NAME.toml` in the workspace.
    Workspace(String),
}

impl std::fmt::Display for SpecSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Builtin => f.write_str("built-in"),
            Self::Workspace(path) => f.write_str(path),
        }
    }
}

/// Which model an agent runs on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum ModelChoice {
    /// Its parent's (for the top agent: the run's profile).
    #[default]
    Inherit,
    /// A named profile of `models.toml`.
    Profile(String),
}

impl From<String> for ModelChoice {
    fn from(value: String) -> Self {
        if value.is_empty() || value == "inherit" {
            Self::Inherit
        } else {
            Self::Profile(value)
        }
    }
}

impl From<ModelChoice> for String {
    fn from(value: ModelChoice) -> Self {
        match value {
            ModelChoice::Inherit => "inherit".into(),
            ModelChoice::Profile(p) => p,
        }
    }
}

/// One agent, as its TOML file says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub struct AgentSpec {
    pub name: String,
    /// 3 plans and delegates, 2 does a domain's work, 1 is an atomic reader.
    pub level: u8,
    /// What a parent is told about this agent when it is offered as a tool.
    pub description: String,
    pub system_prompt: String,
    /// Built-in tools, review tools and other agents this agent may call.
    #[serde(default)]
    pub tools: Vec<String>,
    #[serde(default)]
    pub model: ModelChoice,
    /// Steps before the loop stops the agent (and says so in its output).
    #[serde(default = "default_step_limit")]
    pub step_limit: u32,
    /// k: how many recent actions each prompt shows.
    #[serde(default = "default_action_window")]
    pub action_window: usize,
    /// N: every N-th step is a consolidation turn; 0 turns it off.
    #[serde(default = "default_consolidate_every")]
    pub consolidate_every: u32,
    /// Tokens the rebuilt part of each prompt (snapshot and recent actions) may take.
    #[serde(default = "default_prompt_budget")]
    pub prompt_budget: u32,
    /// A JSON Schema its answer must follow (the reader's per-paper result).
    #[serde(default)]
    pub output_schema: Option<Value>,
}

fn default_step_limit() -> u32 {
    200
}
fn default_action_window() -> usize {
    10
}
fn default_consolidate_every() -> u32 {
    10
}
fn default_prompt_budget() -> u32 {
    6000
}

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("{file}: cannot read the agent spec: {reason}")]
    Unreadable { file: String, reason: String },
    #[error("{file}: field `{field}`: {reason}")]
    Invalid {
        file: String,
        field: String,
        reason: String,
    },
    #[error("there is no agent named {name:?}; the agents are: {known}")]
    Unknown { name: String, known: String },
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

impl AgentError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unreadable { .. } | Self::Invalid { .. } => "agent_spec_invalid",
            Self::Unknown { .. } => "unknown_agent",
            Self::Workspace(e) => e.code(),
        }
    }
}

/// The effective agents: the built-ins overlaid by a workspace's own.
#[derive(Clone, Debug)]
pub struct AgentSet {
    agents: BTreeMap<String, (AgentSpec, SpecSource)>,
}

impl AgentSet {
    /// The built-in agents, checked against `extra_tools` (the tools the caller
    /// provides beyond the built-in file and todo tools).
    pub fn builtin(extra_tools: &[&str]) -> Result<Self, AgentError> {
        Self::load(None, extra_tools)
    }

    /// The built-ins overlaid by `workspace`'s `agents/*.toml`.
    pub fn load(workspace: Option<&Workspace>, extra_tools: &[&str]) -> Result<Self, AgentError> {
        let mut agents = BTreeMap::new();
        for (file, text) in BUILTIN {
            let spec = parse(text, &format!("built-in {file}"))?;
            agents.insert(spec.name.clone(), (spec, SpecSource::Builtin));
        }
        if let Some(ws) = workspace {
            for (file, text) in workspace_specs(ws)? {
                let spec = parse(&text, &file)?;
                agents.insert(spec.name.clone(), (spec, SpecSource::Workspace(file)));
            }
        }
        let set = Self { agents };
        set.check(extra_tools)?;
        Ok(set)
    }

    pub fn get(&self, name: &str) -> Result<&AgentSpec, AgentError> {
        self.agents
            .get(name)
            .map(|(spec, _)| spec)
            .ok_or_else(|| AgentError::Unknown {
                name: name.to_owned(),
                known: self.agents.keys().cloned().collect::<Vec<_>>().join(", "),
            })
    }

    pub fn is_agent(&self, name: &str) -> bool {
        self.agents.contains_key(name)
    }

    /// Every agent with where it came from, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&AgentSpec, &SpecSource)> {
        self.agents.values().map(|(spec, source)| (spec, source))
    }

    fn check(&self, extra_tools: &[&str]) -> Result<(), AgentError> {
        let builtin_tools: Vec<String> = crate::tools::builtin_tools()
            .iter()
            .map(|t| t.name().to_owned())
            .collect();
        for (spec, source) in self.agents.values() {
            let invalid = |field: &str, reason: String| AgentError::Invalid {
                file: source.to_string(),
                field: field.to_owned(),
                reason,
            };
            if spec.name.is_empty()
                || !spec
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
            {
                return Err(invalid(
                    "name",
                    format!("{:?} must be lower-case letters, digits and _", spec.name),
                ));
            }
            if !(1..=9).contains(&spec.level) {
                return Err(invalid("level", format!("{} is not in 1..=9", spec.level)));
            }
            if spec.step_limit == 0 {
                return Err(invalid("step_limit", "must be at least 1".into()));
            }
            if !(1..=100).contains(&spec.action_window) {
                return Err(invalid(
                    "action_window",
                    format!("{} is not in 1..=100", spec.action_window),
                ));
            }
            if spec.prompt_budget < 500 {
                return Err(invalid(
                    "prompt_budget",
                    format!(
                        "{} tokens is too small to show a workspace",
                        spec.prompt_budget
                    ),
                ));
            }
            if spec.description.trim().is_empty() {
                return Err(invalid("description", "is empty".into()));
            }
            for tool in &spec.tools {
                if let Some((child, _)) = self.agents.get(tool) {
                    if child.level >= spec.level {
                        return Err(invalid(
                            "tools",
                            format!(
                                "{} (level {}) cannot call {} (level {}): an agent calls only agents of a lower level",
                                spec.name, spec.level, child.name, child.level
                            ),
                        ));
                    }
                } else if !builtin_tools.contains(tool)
                    && !extra_tools.contains(&tool.as_str())
                    && !RUNTIME_TOOLS.contains(&tool.as_str())
                {
                    return Err(invalid(
                        "tools",
                        format!(
                            "there is no tool or agent named {tool:?}; tools: {}, {}",
                            builtin_tools.join(", "),
                            extra_tools.join(", ")
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

fn parse(text: &str, file: &str) -> Result<AgentSpec, AgentError> {
    toml::from_str(text).map_err(|e| {
        // toml names the key in its message; keep the first line, which is
        // the one that says what is wrong.
        let message = e.message().to_owned();
        match e.span() {
            Some(span) => {
                let line = text[..span.start.min(text.len())].lines().count().max(1);
                AgentError::Unreadable {
                    file: file.to_owned(),
                    reason: format!("line {line}: {message}"),
                }
            }
            None => AgentError::Unreadable {
                file: file.to_owned(),
                reason: message,
            },
        }
    })
}

/// `agents/*.toml` of a workspace, sorted by name.
fn workspace_specs(ws: &Workspace) -> Result<Vec<(String, String)>, AgentError> {
    let dir = WsPath::parse(layout::AGENTS_DIR)?;
    let entries = match ws.list_dir(&dir) {
        Ok(entries) => entries,
        Err(WorkspaceError::NotFound { .. }) => return Ok(Vec::new()),
        Err(e) => return Err(e.into()),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.path.to_string();
        if entry.kind == EntryKind::File && path.ends_with(".toml") {
            out.push((path, ws.read_string(&entry.path)?));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REVIEW_TOOLS: [&str; 3] = ["list_papers", "read_papers", "read_results"];

    #[test]
    fn builtins_load_and_levels_decrease_along_every_call() {
        let set = AgentSet::builtin(&REVIEW_TOOLS).unwrap();
        let planner = set.get("planner").unwrap();
        assert_eq!(planner.level, 3);
        for tool in &planner.tools {
            if let Ok(child) = set.get(tool) {
                assert!(child.level < planner.level);
            }
        }
        assert_eq!(set.get("reader").unwrap().level, 1);
        assert!(
            set.get("reader").unwrap().tools.is_empty(),
            "the reader has no tools"
        );
    }

    fn workspace_with(spec: &str) -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(dir.path()).unwrap();
        ws.write(
            &WsPath::parse("agents/custom.toml").unwrap(),
            spec.as_bytes(),
        )
        .unwrap();
        (dir, ws)
    }

    #[test]
    fn a_workspace_spec_that_calls_up_is_refused_naming_file_and_field() {
        let (_dir, ws) = workspace_with(
            "name = \"helper\"\nlevel = 2\ndescription = \"d\"\nsystem_prompt = \"s\"\ntools = [\"planner\"]\n",
        );
        let err = AgentSet::load(Some(&ws), &REVIEW_TOOLS).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("agents/custom.toml"), "{text}");
        assert!(text.contains("`tools`"), "{text}");
        assert!(text.contains("lower level"), "{text}");
    }

    #[test]
    fn a_workspace_spec_overrides_a_builtin_and_unknown_keys_are_refused() {
        let (_dir, ws) = workspace_with(
            "name = \"writer\"\nlevel = 2\ndescription = \"mine\"\nsystem_prompt = \"s\"\nstep_limit = 7\n",
        );
        let set = AgentSet::load(Some(&ws), &REVIEW_TOOLS).unwrap();
        assert_eq!(set.get("writer").unwrap().step_limit, 7);
        let (_dir, ws) = workspace_with(
            "name = \"x\"\nlevel = 2\ndescription = \"d\"\nsystem_prompt = \"s\"\nstep_limt = 7\n",
        );
        let err = AgentSet::load(Some(&ws), &REVIEW_TOOLS).unwrap_err();
        assert!(err.to_string().contains("step_limt"), "{err}");
        assert!(err.to_string().contains("agents/custom.toml"), "{err}");
    }
}
