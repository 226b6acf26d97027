//! The context builder: c_t = g(F_t, a_{t-k..t-1}).
//!
//! Every prompt is rebuilt from scratch out of a snapshot of the workspace and
//! the agent's last k actions; there is no conversation history. [`build`] is a
//! pure function of its [`ContextInput`], so the same workspace and actions give
//! byte-identical prompts.
//!
//! Parts, in this order (what never changes between steps first, so provider
//! prompt caches hit):
//! 1. system prompt (the spec's, plus the runtime's rules), tool specs;
//! 2. the task;
//! 3. the snapshot: progress counters, todo list, file tree, the agent's notes;
//! 4. the last k actions, rendered compactly;
//! 5. the instruction for this step.
//!
//! Parts 3 and 4 each get a fixed share of the spec's prompt budget and stay
//! inside it however large the workspace grows: a part that would overflow is
//! cut at a line and says so, with counts and the file to read for the rest.
//! The system prompt and the task are never cut.

use crate::llm::accounting::count_tokens;
use crate::tools::{Todo, TodoStatus};
use crate::workspace::ActionRecord;

/// The runtime's rules, appended to every agent's system prompt.
pub const RUNTIME_RULES: &str = "\
Rules of this workspace:
- Each turn you see your task, a snapshot of the workspace and your last few actions. \
Nothing else is remembered between turns: what you need later, keep in files (your todo \
list, your notes) and read it back.
- Every turn calls at least one tool. Large results are saved to files; read them with \
read_file (offset, limit) or search them with grep.
- Call finish with your final answer when the task is done; only that answer goes back to \
whoever gave you the task.";

/// Shares of the prompt budget, in percent. They add up to 100.
const SHARE_PROGRESS: u32 = 6;
const SHARE_TODOS: u32 = 14;
const SHARE_FILES: u32 = 16;
const SHARE_NOTES: u32 = 14;
const SHARE_ACTIONS: u32 = 50;
/// Of the actions' share, what the latest action may take.
const LATEST_ACTION_PERCENT: u64 = 60;
/// An earlier action is a reminder, one compact line: what was called and how
/// it went. Its full result is in the task's action log.
const EARLIER_ACTION_TOKENS: u64 = 80;

/// Todo lists up to this long are shown whole.
const SHORT_TODO_LIST: usize = 20;

/// What kind of turn this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    Work,
    /// Rewrite plan, todos and notes; the next prompt is built from them.
    Consolidation,
    /// The previous answer called no tool.
    Nudge,
}

/// Everything a prompt is built from. Gathered from the workspace by
/// [`super::snapshot::gather`].
#[derive(Clone, Debug)]
pub struct ContextInput<'a> {
    pub system_prompt: &'a str,
    pub task: &'a str,
    /// Counters computed from the files (papers read, open...), one per line.
    pub progress: &'a [String],
    pub todos: &'a [Todo],
    /// The file tree, already elided per folder, one entry per line.
    pub files: &'a [String],
    pub notes: &'a str,
    pub notes_path: &'a str,
    pub todo_path: &'a str,
    pub actions: &'a [ActionRecord],
    pub step: u64,
    pub step_limit: u32,
    pub consolidate_every: u32,
    pub turn: Turn,
    /// Tokens for parts 3 and 4 together.
    pub budget: u32,
}

/// A built prompt and what it is made of.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// Tokens of each part, by name, in prompt order.
    pub parts: Vec<(&'static str, u64)>,
    /// Parts that were cut to fit their share.
    pub degraded: Vec<&'static str>,
}

impl Prompt {
    /// Tokens of the system prompt and task: the prefix that repeats byte for
    /// byte from step to step (tool specs come on top of it).
    pub fn stable_tokens(&self) -> u64 {
        self.parts
            .iter()
            .filter(|(name, _)| matches!(*name, "system" | "task"))
            .map(|(_, t)| t)
            .sum()
    }

    pub fn total_tokens(&self) -> u64 {
        self.parts.iter().map(|(_, t)| t).sum()
    }
}

pub fn build(input: &ContextInput<'_>) -> Prompt {
    let share = |percent: u32| (input.budget as u64 * percent as u64 / 100).max(40);
    let mut degraded = Vec::new();
    let mut parts = Vec::new();

    let system = format!("{}\n\n{}", input.system_prompt.trim(), RUNTIME_RULES);
    parts.push(("system", count_tokens(&system)));

    let task = format!("# Task\n{}\n", input.task.trim());
    parts.push(("task", count_tokens(&task)));

    let mut sections = Vec::new();
    for (name, percent, title, lines, overflow) in [
        (
            "progress",
            SHARE_PROGRESS,
            "## Progress".to_owned(),
            input.progress.to_vec(),
            "counters".to_owned(),
        ),
        (
            "todos",
            SHARE_TODOS,
            format!("## Todo list ({})", input.todo_path),
            todo_lines(input.todos),
            format!("items; read_todos shows all of {}", input.todo_path),
        ),
        (
            "files",
            SHARE_FILES,
            "## Files".to_owned(),
            input.files.to_vec(),
            "entries; use ls or glob to see them".to_owned(),
        ),
        (
            "notes",
            SHARE_NOTES,
            format!("## Your notes ({})", input.notes_path),
            notes_lines(input.notes),
            format!("lines; read_file {} for the rest", input.notes_path),
        ),
    ] {
        let (body, cut) = fit(&lines, share(percent), &overflow);
        if cut {
            degraded.push(name);
        }
        let text = format!("{title}\n{body}");
        parts.push((name, count_tokens(&text)));
        sections.push(text);
    }

    let (actions, cut) = render_actions(input, share(SHARE_ACTIONS));
    if cut {
        degraded.push("actions");
    }
    parts.push(("actions", count_tokens(&actions)));

    let now = instruction(input);
    parts.push(("instruction", count_tokens(&now)));

    let user = format!(
        "{task}\n# Workspace snapshot\n{}\n\n{actions}\n\n# Now\n{now}\n",
        sections.join("\n\n")
    );
    Prompt {
        system,
        user,
        parts,
        degraded,
    }
}

/// Counts first, then a window around the open items: every item in
/// progress, then pending ones in order, then the most recent completed ones.
fn todo_lines(todos: &[Todo]) -> Vec<String> {
    if todos.is_empty() {
        return vec!["(empty: write one with write_todos)".into()];
    }
    let count = |s| todos.iter().filter(|t| t.status == s).count();
    let mut lines = vec![format!(
        "{} items: {} completed, {} in progress, {} pending",
        todos.len(),
        count(TodoStatus::Completed),
        count(TodoStatus::InProgress),
        count(TodoStatus::Pending)
    )];
    let mark = |t: &Todo| match t.status {
        TodoStatus::Pending => "[ ]",
        TodoStatus::InProgress => "[~]",
        TodoStatus::Completed => "[x]",
    };
    // A short list is shown whole, in order. A long one shows the open items
    // in list order, then the last three completed ones: what is next matters
    // more than what is done.
    if todos.len() <= SHORT_TODO_LIST {
        lines.extend(todos.iter().map(|t| format!("- {} {}", mark(t), t.content)));
        return lines;
    }
    for t in todos.iter().filter(|t| t.status != TodoStatus::Completed) {
        lines.push(format!("- {} {}", mark(t), t.content));
    }
    let done: Vec<&Todo> = todos
        .iter()
        .filter(|t| t.status == TodoStatus::Completed)
        .collect();
    for t in done.iter().skip(done.len().saturating_sub(3)) {
        lines.push(format!("- {} {}", mark(t), t.content));
    }
    lines
}

fn notes_lines(notes: &str) -> Vec<String> {
    if notes.trim().is_empty() {
        return vec!["(none yet: keep them with write_notes)".into()];
    }
    notes.lines().map(str::to_owned).collect()
}

/// As many whole lines as fit in `budget` tokens, and a line saying how many
/// were left out when some were. Returns whether anything was cut.
fn fit(lines: &[String], budget: u64, overflow: &str) -> (String, bool) {
    // Room for the overflow line itself.
    let reserve = 24;
    let mut out = Vec::new();
    let mut used = 0;
    for (index, line) in lines.iter().enumerate() {
        let line = clip_line(line, 400);
        let tokens = count_tokens(&line) + 1;
        let room = if index + 1 == lines.len() {
            budget
        } else {
            budget.saturating_sub(reserve)
        };
        if used + tokens > room {
            out.push(format!(
                "… {} more {overflow} (cut to fit this part's share of the prompt)",
                lines.len() - index
            ));
            return (out.join("\n"), true);
        }
        used += tokens;
        out.push(line);
    }
    (out.join("\n"), false)
}

fn clip_line(line: &str, max_chars: usize) -> String {
    match line.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

fn render_actions(input: &ContextInput<'_>, budget: u64) -> (String, bool) {
    let shown = input.actions.len();
    let mut header = format!("# Recent actions (your last {shown}, oldest first)");
    if shown == 0 {
        header.push_str("\n(none yet)");
        return (header, false);
    }
    // The latest action is what the agent acts on now: it gets the larger
    // part of the share; the earlier ones split the rest equally, so no one
    // result can push the others out.
    let room = budget.saturating_sub(count_tokens(&header));
    let (latest_share, earlier_share) = if shown == 1 {
        (room, 0)
    } else {
        let latest = room * LATEST_ACTION_PERCENT / 100;
        let equal = (room - latest) / (shown as u64 - 1);
        // A larger budget (a baseline that keeps everything) lifts the cap.
        let cap = EARLIER_ACTION_TOKENS.max(budget / 50);
        (latest, equal.min(cap))
    };
    let mut cut = false;
    let mut lines = vec![header];
    for (index, record) in input.actions.iter().enumerate() {
        let per_action = if index + 1 == shown {
            latest_share
        } else {
            earlier_share
        }
        .max(30);
        let outcome = if record.ok {
            "ok".to_owned()
        } else {
            format!("error[{}]", record.code.as_deref().unwrap_or("error"))
        };
        let preview = record.preview.as_deref().unwrap_or(&record.summary);
        let call = format!(
            "- step {} · {}({}) → {outcome}: ",
            record.step.unwrap_or(0),
            record.tool,
            clip_line(&record.args, 300),
        );
        let whole = format!("{call}{}", preview.replace('\n', " ⏎ "));
        let latest = index + 1 == shown;
        // An earlier result that does not fit its share shows its first line,
        // which the tools write as a headline, and how much it left out.
        let line = match preview.split_once('\n') {
            Some((headline, rest)) if !latest && count_tokens(&whole) > per_action => {
                cut = true;
                format!("{call}{headline} (+{} lines)", rest.lines().count())
            }
            _ => whole,
        };
        let (fitted, was_cut) = fit_text(&line, per_action);
        cut |= was_cut;
        lines.push(fitted);
    }
    (lines.join("\n"), cut)
}

/// `text` cut to about `budget` tokens at a char boundary.
fn fit_text(text: &str, budget: u64) -> (String, bool) {
    if count_tokens(text) <= budget {
        return (text.to_owned(), false);
    }
    // Tokens are about four characters of English; shrink until it fits.
    let mut chars = (budget as usize * 4).min(text.chars().count());
    loop {
        let candidate = format!("{}… [cut]", text.chars().take(chars).collect::<String>());
        if count_tokens(&candidate) <= budget || chars < 16 {
            return (candidate, true);
        }
        chars = chars * 3 / 4;
    }
}

fn instruction(input: &ContextInput<'_>) -> String {
    let position = format!("Step {} of at most {}.", input.step, input.step_limit);
    match input.turn {
        Turn::Work => format!(
            "{position} Choose the next action and call the tools for it; call finish when the task is done."
        ),
        Turn::Nudge => format!(
            "{position} Your previous answer called no tool. Every turn must call a tool: do the next piece of work, or call finish if the task is done."
        ),
        Turn::Consolidation => format!(
            "{position} Consolidation turn (every {} steps): rewrite your notes with write_notes in your own words (what is done, what is open, what you learned, what comes next) and bring your todo list up to date with write_todos. Your next prompts are built from these files.",
            input.consolidate_every
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(step: u64, tool: &str, preview: &str) -> ActionRecord {
        ActionRecord::new(tool, &serde_json::json!({"ids": ["a"]}), Ok(preview))
            .by("reviewer", "t1", step)
    }

    fn input<'a>(
        files: &'a [String],
        actions: &'a [ActionRecord],
        notes: &'a str,
    ) -> ContextInput<'a> {
        ContextInput {
            system_prompt: "You review papers.",
            task: "Review every paper.",
            progress: &[],
            todos: &[],
            files,
            notes,
            notes_path: "tasks/t1/notes.md",
            todo_path: "tasks/t1/todo.md",
            actions,
            step: 5,
            step_limit: 100,
            consolidate_every: 10,
            turn: Turn::Work,
            budget: 3000,
        }
    }

    #[test]
    fn the_same_input_gives_byte_identical_prompts() {
        let files = vec!["papers/: 3 folders".to_owned()];
        let actions = vec![action(4, "read_papers", "3 papers read")];
        let a = build(&input(&files, &actions, "note"));
        let b = build(&input(&files, &actions, "note"));
        assert_eq!(a, b);
    }

    #[test]
    fn each_part_stays_inside_its_share_and_says_it_was_cut() {
        let files: Vec<String> = (0..5000)
            .map(|i| format!("papers/{i:016x}/result.json"))
            .collect();
        let actions: Vec<ActionRecord> = (0..10)
            .map(|i| action(i, "read_file", &"a long tool result line ".repeat(2000)))
            .collect();
        let notes = "a long note line\n".repeat(10_000);
        let budget = 1200u64;
        let prompt = build(&ContextInput {
            budget: budget as u32,
            ..input(&files, &actions, &notes)
        });
        let dynamic: u64 = prompt
            .parts
            .iter()
            .filter(|(n, _)| !matches!(*n, "system" | "task" | "instruction"))
            .map(|(_, t)| t)
            .sum();
        // Headings add a few tokens per part on top of the shares.
        assert!(
            dynamic <= budget + 60,
            "{dynamic} tokens for a {budget} budget: {:?}",
            prompt.parts
        );
        for part in ["files", "notes", "actions"] {
            assert!(prompt.degraded.contains(&part), "{part} was cut");
        }
        assert!(prompt.user.contains("more entries; use ls or glob"));
        assert!(
            prompt
                .user
                .contains("read_file tasks/t1/notes.md for the rest")
        );
        assert!(
            prompt.user.starts_with("# Task\nReview every paper.\n"),
            "the task comes first and whole"
        );
    }

    #[test]
    fn an_earlier_result_too_long_for_its_share_shows_its_headline() {
        let long = format!(
            "Read 40 of 40 papers; 12 include\n{}",
            "abcdef0123456789 · 4/10 maybe\n".repeat(40)
        );
        let actions = vec![
            action(1, "read_papers", &long),
            action(2, "write_notes", "wrote tasks/t1/notes.md\n(3 lines)"),
            action(3, "read_papers", &long),
        ];
        let prompt = build(&input(&[], &actions, ""));
        let lines: Vec<&str> = prompt
            .user
            .lines()
            .filter(|l| l.starts_with("- step "))
            .collect();
        assert_eq!(
            lines[0],
            "- step 1 · read_papers({\"ids\":[\"a\"]}) → ok: Read 40 of 40 papers; 12 include (+40 lines)"
        );
        // What fits is shown whole; the latest result gets the larger share.
        assert!(
            lines[1].ends_with("wrote tasks/t1/notes.md ⏎ (3 lines)"),
            "{}",
            lines[1]
        );
        assert_eq!(lines[2].matches("4/10 maybe").count(), 40, "{}", lines[2]);
        assert!(prompt.degraded.contains(&"actions"));
    }

    #[test]
    fn the_todo_window_shows_open_items_before_done_ones() {
        let todos: Vec<Todo> = (0..50)
            .map(|i| Todo {
                content: format!("item {i}"),
                status: if i < 45 {
                    TodoStatus::Completed
                } else {
                    TodoStatus::Pending
                },
            })
            .collect();
        let lines = todo_lines(&todos);
        assert!(lines[0].starts_with("50 items: 45 completed"));
        assert_eq!(lines[1], "- [ ] item 45");
        assert!(lines.contains(&"- [x] item 44".to_owned()));
        assert!(!lines.contains(&"- [x] item 3".to_owned()));
    }
}
