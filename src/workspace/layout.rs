//! Where things live inside a task workspace. `docs/workspace.md` is the prose
//! version of this file; keep the two in step.

/// Task metadata: id, title, question, source folder, status.
pub const TASK_FILE: &str = "task.json";
/// The plan as a Markdown checklist, written by `write_todos`.
pub const TODO_FILE: &str = "todo.md";
/// Free-form notes of the agents.
pub const NOTES_DIR: &str = "notes";
/// One folder per paper: `papers/<paper-id>/paper.json`, text, result.
pub const PAPERS_DIR: &str = "papers";
/// One JSON file per run of an engine over the workspace.
pub const RUNS_DIR: &str = "runs";
/// Tool outputs too large for a prompt, offloaded by the tool registry.
pub const TOOL_RESULTS_DIR: &str = "tool-results";
/// Append-only log of every action taken in the workspace, one JSON object a line.
pub const ACTIONS_FILE: &str = "actions.jsonl";
/// Append-only log of every model call (tokens, latency, cost; never the
/// messages), one JSON object a line.
pub const MODEL_CALLS_FILE: &str = "model-calls.jsonl";
/// The agent task graph: one entry per agent task (id, parent, agent, input,
/// status, result path, timestamps), rewritten atomically on every change.
pub const TASKS_FILE: &str = "tasks.json";
/// One folder per agent task: `tasks/<task-id>/` with its action log, notes and output.
pub const TASKS_DIR: &str = "tasks";
/// Agent specs that override or add to the built-in ones, one TOML file each.
pub const AGENTS_DIR: &str = "agents";
/// The review's plan, written by the planner.
pub const PLAN_FILE: &str = "plan.md";
/// The report's synthesis section, written by the writer.
pub const SYNTHESIS_FILE: &str = "synthesis.md";
/// The synthesis's digests of the included papers, group by group: Quire's
/// cache, written by the program only.
pub const DIGESTS_DIR: &str = "digests";
/// The review as Markdown.
pub const REPORT_FILE: &str = "report.md";
/// The validation sample and the screening cut-offs in force (Quire's, not the agents').
pub const VALIDATION_FILE: &str = "validation.json";
/// The review's protocol: every draft, approval and pilot (Quire's, not the agents').
pub const PROTOCOL_FILE: &str = "protocol.json";
/// The approved protocol's text, for the agents to read (never to write).
pub const PROTOCOL_TEXT_FILE: &str = "protocol.md";
/// The dual-reading policy a review's papers are read twice under (Quire's).
pub const DUAL_FILE: &str = "dual.json";
/// The inputs of the latest run and a few earlier ones: what tells a current
/// result from a stale one (Quire's).
pub const INPUTS_FILE: &str = "inputs.json";
/// Questions asked of the papers: `asks/<id>/ask.json` and `answer.md`, and
/// `asks/cache/` with each paper's answer to each question (Quire's).
pub const ASKS_DIR: &str = "asks";
/// The extraction table: `table/columns.json`, `table/cells/<paper>.json`,
/// `table/corrections.json` (Quire's).
pub const TABLE_DIR: &str = "table";
/// The screening queue's ranking and the labels it learned from (Quire's).
pub const SCREENING_FILE: &str = "screening.json";
/// Quire's private state (the lock); hidden from and closed to the agent.
pub const PRIVATE_DIR: &str = ".quire";
/// The lock file inside [`PRIVATE_DIR`].
pub const LOCK_FILE: &str = "lock";
/// The name prefix of in-flight atomic writes; such files are never shown and are
/// swept when a workspace is opened.
pub const TEMP_PREFIX: &str = ".quire-tmp-";

/// Directories created with every workspace.
pub const DIRS: [&str; 4] = [NOTES_DIR, PAPERS_DIR, RUNS_DIR, TOOL_RESULTS_DIR];

/// Citation searching's rounds: `round-<n>.citations.json`, each the
/// records a round found and what it counted.
pub const CITATIONS_DIR: &str = "citations";

/// Open-access PDFs fetched for records, as the researcher approved:
/// `<paper-id>.pdf`, each its record's full text.
pub const DOWNLOADS_DIR: &str = "downloads";

/// Calls sent through a Batch API: `ledger.jsonl` (each shard's steps),
/// `<shard>.jsonl` (its request file) and `answers.jsonl` (the results).
/// The review's readings keep theirs here; other work in a folder of its own
/// under it.
pub const BATCHES_DIR: &str = "batches";

/// The extraction table's fills sent through a Batch API, as [`BATCHES_DIR`].
pub const TABLE_BATCHES_DIR: &str = "batches/table";

/// The `screen:` tags Quire wrote on each Zotero item at its last push, so
/// a push removes only its own and never the researcher's or another tool's.
pub const ZOTERO_TAGS_FILE: &str = "zotero-tags.json";

/// Questions' papers read through a Batch API, as [`BATCHES_DIR`].
pub const ASK_BATCHES_DIR: &str = "batches/ask";

/// Files and folders only Quire itself may write: the agent can read the action
/// logs, task metadata, agent specs and paper records, but must not rewrite
/// history, its own instructions, or a paper's text and result (results are
/// written by the reading tools, which check them, never by a file tool).
///
/// Names are compared as a case-insensitive file system would see them
/// (macOS, Windows, a FAT stick): `Papers/x/result.json` is
/// `papers/x/result.json` there, and Windows also drops trailing dots and
/// spaces (`papers.`).
pub fn is_reserved(first_component: Option<&str>) -> bool {
    let Some(name) = first_component else {
        return false;
    };
    let folded = name.trim_end_matches(['.', ' ']).to_lowercase();
    [
        PRIVATE_DIR,
        ACTIONS_FILE,
        MODEL_CALLS_FILE,
        TASK_FILE,
        RUNS_DIR,
        TASKS_FILE,
        TASKS_DIR,
        AGENTS_DIR,
        PAPERS_DIR,
        DIGESTS_DIR,
        VALIDATION_FILE,
        PROTOCOL_FILE,
        PROTOCOL_TEXT_FILE,
        DUAL_FILE,
        INPUTS_FILE,
        ASKS_DIR,
        TABLE_DIR,
        SCREENING_FILE,
        CITATIONS_DIR,
        DOWNLOADS_DIR,
        BATCHES_DIR,
    ]
    .iter()
    .any(|reserved| folded == *reserved || name == *reserved)
}

/// Whether a directory entry is Quire bookkeeping that listings should not show.
pub fn is_hidden_entry(name: &str, at_root: bool) -> bool {
    name.starts_with(TEMP_PREFIX) || (at_root && name == PRIVATE_DIR)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names_are_reserved_in_any_case_and_with_trailing_dots() {
        for name in [
            "papers",
            "Papers",
            "PAPERS",
            "papers.",
            "Papers. ",
            "AGENTS",
            "Task.json",
            "RUNS",
            ".QUIRE",
        ] {
            assert!(is_reserved(Some(name)), "{name}");
        }
        for name in ["notes", "paper", "papers2", "plan.md", "synthesis.md"] {
            assert!(!is_reserved(Some(name)), "{name}");
        }
        assert!(!is_reserved(None));
    }
}
