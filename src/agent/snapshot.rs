//! Reading the workspace snapshot a prompt is built from: the task's todo list
//! and notes, the file tree with large folders elided to counts, and the last
//! k actions (a tail read of the task's own log). Each read is bounded, so the
//! cost of a step does not grow with the workspace.

use std::collections::BTreeMap;

use crate::tools::{Actor, Todo, load_todos, todo_path};
use crate::workspace::{ActionRecord, EntryKind, Workspace, WorkspaceError, WsPath, layout};

/// Folders with more entries than this are shown as counts.
const MAX_LISTED_ENTRIES: usize = 12;
/// How deep the tree is listed.
const MAX_DEPTH: usize = 3;
/// At most this many sub-folders are opened to count what is inside them.
const MAX_COUNTED_FOLDERS: usize = 20_000;
/// Notes are read up to this many bytes; the prompt shows their head anyway.
const MAX_NOTES_BYTES: usize = 64 * 1024;

/// The files part of a snapshot, gathered once per step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub todos: Vec<Todo>,
    pub todo_path: String,
    pub files: Vec<String>,
    pub notes: String,
    pub notes_path: String,
    pub actions: Vec<ActionRecord>,
}

impl Snapshot {
    /// The context builder's input for a step of `spec` on `task` built from
    /// this snapshot.
    #[allow(clippy::too_many_arguments)]
    pub fn context_input<'a>(
        &'a self,
        spec: &'a crate::agent::AgentSpec,
        task: &'a str,
        progress: &'a [String],
        step: u64,
        turn: crate::agent::context::Turn,
        budget: u32,
    ) -> crate::agent::context::ContextInput<'a> {
        crate::agent::context::ContextInput {
            system_prompt: &spec.system_prompt,
            task,
            progress,
            todos: &self.todos,
            files: &self.files,
            notes: &self.notes,
            notes_path: &self.notes_path,
            todo_path: &self.todo_path,
            actions: &self.actions,
            step,
            step_limit: spec.step_limit,
            consolidate_every: spec.consolidate_every,
            turn,
            budget,
        }
    }
}

pub fn notes_path(actor: &Actor) -> Result<WsPath, WorkspaceError> {
    actor.folder.join("notes.md")
}

pub fn gather(ws: &Workspace, actor: &Actor, k: usize) -> Result<Snapshot, WorkspaceError> {
    let todo = todo_path(Some(actor))?;
    let notes = notes_path(actor)?;
    let notes_text = match ws.read(&notes) {
        Ok(mut bytes) => {
            bytes.truncate(MAX_NOTES_BYTES);
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Err(WorkspaceError::NotFound { .. }) => String::new(),
        Err(e) => return Err(e),
    };
    Ok(Snapshot {
        todos: load_todos(ws, &todo)?,
        todo_path: todo.to_string(),
        files: file_tree(ws)?,
        notes: notes_text,
        notes_path: notes.to_string(),
        actions: ws.last_actions(&actor.action_log()?, k)?,
    })
}

/// The workspace's files, one per line, with big folders folded into counts:
/// `papers/: 800 folders; inside them: paper.json ×800, result.json ×312`.
pub fn file_tree(ws: &Workspace) -> Result<Vec<String>, WorkspaceError> {
    let mut lines = Vec::new();
    list(ws, &WsPath::root(), 0, &mut lines)?;
    Ok(lines)
}

fn list(
    ws: &Workspace,
    dir: &WsPath,
    depth: usize,
    lines: &mut Vec<String>,
) -> Result<(), WorkspaceError> {
    // Count first without sizes: a big folder is folded and needs none.
    let names = ws.list_names(dir)?;
    if depth > 0 && names.len() > MAX_LISTED_ENTRIES {
        lines.push(folded(ws, dir, &names)?);
        return Ok(());
    }
    let entries = ws.list_dir(dir)?;
    for entry in entries {
        match entry.kind {
            EntryKind::File => lines.push(format!("{} ({})", entry.path, size(entry.size))),
            EntryKind::Dir if depth + 1 < MAX_DEPTH => list(ws, &entry.path, depth + 1, lines)?,
            EntryKind::Dir => {
                let count = ws.list_dir(&entry.path)?.len();
                lines.push(format!("{}/: {count} entries", entry.path));
            }
            EntryKind::Symlink | EntryKind::Other => {}
        }
    }
    Ok(())
}

fn folded(
    ws: &Workspace,
    dir: &WsPath,
    entries: &[crate::workspace::Entry],
) -> Result<String, WorkspaceError> {
    let folders: Vec<&WsPath> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Dir)
        .map(|e| &e.path)
        .collect();
    let files = entries.iter().filter(|e| e.kind == EntryKind::File).count();
    let mut line = format!("{dir}/: {} folders, {files} files", folders.len());
    let mut inside: BTreeMap<String, usize> = BTreeMap::new();
    for folder in folders.iter().take(MAX_COUNTED_FOLDERS) {
        for entry in ws.list_names(folder)? {
            let name = entry.path.file_name().unwrap_or_default().to_owned();
            let name = if entry.kind == EntryKind::Dir {
                format!("{name}/")
            } else {
                name
            };
            *inside.entry(name).or_default() += 1;
        }
    }
    if !inside.is_empty() {
        // Most common first, then by name, so the line is stable.
        let mut counts: Vec<(String, usize)> = inside.into_iter().collect();
        counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let shown: Vec<String> = counts
            .iter()
            .take(8)
            .map(|(name, n)| format!("{name} ×{n}"))
            .collect();
        line.push_str(&format!("; inside them: {}", shown.join(", ")));
    }
    if !layout::is_reserved(dir.first()) {
        return Ok(line);
    }
    line.push_str(" (read-only)");
    Ok(line)
}

fn size(bytes: u64) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} kB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_big_folder_is_folded_into_counts_of_what_is_inside() {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(dir.path()).unwrap();
        for i in 0..40 {
            let folder = format!("papers/{i:04}");
            ws.write(
                &WsPath::parse(&format!("{folder}/paper.json")).unwrap(),
                b"{}",
            )
            .unwrap();
            if i % 4 == 0 {
                ws.write(
                    &WsPath::parse(&format!("{folder}/result.json")).unwrap(),
                    b"{}",
                )
                .unwrap();
            }
        }
        let tree = file_tree(&ws).unwrap();
        let papers = tree.iter().find(|l| l.starts_with("papers/:")).unwrap();
        assert_eq!(
            papers,
            "papers/: 40 folders, 0 files; inside them: paper.json ×40, result.json ×10 (read-only)"
        );
        assert!(!tree.iter().any(|l| l.contains("papers/0001")));
    }
}

#[cfg(test)]
mod prompt_snapshots {
    use super::*;
    use crate::agent::context::{self, Turn};
    use crate::agent::spec::AgentSet;
    use crate::tools::{Registry, ToolContext, ToolSettings};

    /// A small review workspace, the same every time.
    fn fixed_workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().unwrap();
        let ws = Workspace::open_or_init(dir.path()).unwrap();
        for (path, text) in [
            (
                "plan.md",
                "# Plan\nJudge each paper against the question.\n",
            ),
            ("papers/00aa/paper.json", "{}"),
            ("papers/00aa/text.txt", "=== page 1 ===\nA paper.\n"),
            ("papers/00bb/paper.json", "{}"),
            (
                "tasks/t0001-x/notes.md",
                "Read 1 of 2 papers.\nNext: the other one.\n",
            ),
        ] {
            ws.write(&WsPath::parse(path).unwrap(), text.as_bytes())
                .unwrap();
        }
        (dir, ws)
    }

    const REVIEW_TOOLS: [&str; 4] = [
        "list_papers",
        "read_papers",
        "read_results",
        "answer_from_pdf",
    ];

    fn actor(agent: &str, step: u64) -> Actor {
        Actor {
            agent: agent.into(),
            task: "t0001-x".into(),
            step,
            folder: WsPath::parse("tasks/t0001-x").unwrap(),
        }
    }

    /// Two real actions through the registry, logged as steps 1 and 2.
    async fn act(agent: &str, ws: &Workspace) {
        let registry = Registry::with_builtins();
        let ctx = ToolContext::new(ws.clone(), ToolSettings::default());
        for (step, (tool, args)) in [
            ("ls", serde_json::json!({"path": "papers"})),
            ("read_file", serde_json::json!({"path": "plan.md"})),
        ]
        .into_iter()
        .enumerate()
        {
            let ctx = ctx.for_step(actor(agent, step as u64 + 1));
            registry.call(&ctx, tool, args).await.unwrap();
        }
    }

    /// The prompt of `agent` at step 3, built from the files.
    fn prompt_of(agent: &str, ws: &Workspace) -> context::Prompt {
        let set = AgentSet::builtin(&REVIEW_TOOLS).unwrap();
        let spec = set.get(agent).unwrap();
        let snap = gather(ws, &actor(agent, 3), spec.action_window).unwrap();
        let progress = vec!["Papers: 2 readable, 1 reviewed, 1 open, 0 failed twice".to_owned()];
        context::build(&snap.context_input(
            spec,
            "Review question: Do learned indexes beat B-trees?",
            &progress,
            3,
            Turn::Work,
            spec.prompt_budget,
        ))
    }

    #[tokio::test]
    async fn each_builtin_agents_prompt_for_a_fixed_workspace_is_byte_stable() {
        for agent in ["planner", "reviewer", "writer"] {
            let (_dir, ws) = fixed_workspace();
            act(agent, &ws).await;
            let first = prompt_of(agent, &ws);
            // g is deterministic: the same files and actions, the same bytes.
            assert_eq!(first, prompt_of(agent, &ws));
            insta::assert_snapshot!(
                format!("prompt_{agent}"),
                format!(
                    "=== system ===\n{}\n=== user ===\n{}",
                    first.system, first.user
                )
            );
        }
    }
}
