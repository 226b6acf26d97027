//! The agent policy: how the scripted server acts when a request is an agent
//! step (a prompt rebuilt from a workspace snapshot, with tools offered). It
//! behaves like a diligent agent using only what the request contains:
//!
//! - a consolidation turn: it rewrites its notes from the progress counters,
//!   the todo list and its recent actions;
//! - with a batch reading tool (one that takes `ids`): while the progress line
//!   says papers are open, it asks for the next open ones when the tool can
//!   take a count (`open`), else reads the ids that its recent `list_*`
//!   results showed and it has not read yet, listing open work when it has
//!   none in view; it finishes when nothing is open;
//! - otherwise it follows its todo list: with none, it writes one from the
//!   task's numbered steps; it calls the tool the first open item names, and
//!   marks the item completed once a recent action shows that call succeeded;
//!   with every item completed it finishes.
//!
//! When the snapshot lacks what it needs (no progress line, no steps), it
//! guesses no further: it tries to finish, and the run shows it stalled.

use serde_json::{Map, Value, json};

use crate::reader::arguments_from_item;
use crate::request::{OfferedTool, Turn};
use crate::script::ScriptedCall;

/// An agent prompt: a task, a workspace snapshot and an instruction.
pub fn is_agent_prompt(turns: &[Turn]) -> bool {
    turns.iter().any(|t| {
        t.role == "user" && t.text.contains("# Workspace snapshot") && t.text.contains("\n# Now")
    })
}

struct Prompt<'a> {
    task: &'a str,
    /// The system prompt, whose numbered steps stand in when the task has none.
    system: String,
    progress: Vec<&'a str>,
    todos: Vec<(char, String)>,
    todo_header: Option<&'a str>,
    /// (tool, arguments, ok, preview) of each recent action, oldest first.
    actions: Vec<(String, String, bool, String)>,
    now: &'a str,
}

fn section<'a>(text: &'a str, start: &str, ends: &[&str]) -> &'a str {
    let Some(at) = text.find(start) else {
        return "";
    };
    let body = &text[at + start.len()..];
    let end = ends
        .iter()
        .filter_map(|e| body.find(e))
        .min()
        .unwrap_or(body.len());
    &body[..end]
}

fn parse(text: &str) -> Prompt<'_> {
    let task = section(text, "# Task\n", &["\n# Workspace snapshot"]);
    let progress = section(text, "## Progress\n", &["\n\n## "])
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    let todo_block = section(text, "## Todo list", &["\n\n## "]);
    let mut todo_lines = todo_block.lines().skip(1);
    let todo_header = todo_lines.next();
    let todos = todo_block
        .lines()
        .filter_map(|l| {
            let rest = l.trim_start().strip_prefix("- [")?;
            let mut chars = rest.chars();
            let mark = chars.next()?;
            let item = chars.as_str().strip_prefix(']')?.trim();
            Some((mark, item.to_owned()))
        })
        .collect();
    let actions = section(text, "# Recent actions", &["\n\n# Now"])
        .lines()
        .filter_map(parse_action)
        .collect();
    let now = section(text, "\n# Now\n", &[]);
    Prompt {
        task,
        system: String::new(),
        progress,
        todos,
        todo_header,
        actions,
        now,
    }
}

/// `- step N · tool(args) → ok: preview` or `→ error[code]: message`.
fn parse_action(line: &str) -> Option<(String, String, bool, String)> {
    let rest = line.strip_prefix("- step ")?;
    let rest = &rest[rest.find(" · ")? + " · ".len()..];
    let open = rest.find('(')?;
    let tool = rest[..open].to_owned();
    let arrow = rest.find(") → ")?;
    let args = rest[open + 1..arrow].to_owned();
    let outcome = &rest[arrow + ") → ".len()..];
    let ok = outcome.starts_with("ok");
    let preview = outcome
        .split_once(": ")
        .map(|x| x.1)
        .unwrap_or("")
        .to_owned();
    Some((tool, args, ok, preview))
}

fn offered<'a>(tools: &'a [OfferedTool], name: &str) -> Option<&'a OfferedTool> {
    tools.iter().find(|t| t.name == name)
}

fn call(name: &str, arguments: Value) -> (String, Vec<ScriptedCall>) {
    (String::new(), vec![ScriptedCall::new(name, arguments)])
}

/// The answer to an agent step.
pub fn step(turns: &[Turn], tools: &[OfferedTool]) -> (String, Vec<ScriptedCall>) {
    let Some(user) = turns.iter().rev().find(|t| t.role == "user") else {
        return ("There is no prompt.".into(), Vec::new());
    };
    let mut prompt = parse(&user.text);
    prompt.system = turns
        .iter()
        .find(|t| t.role == "system")
        .map(|t| t.text.clone())
        .unwrap_or_default();
    if prompt.now.contains("Consolidation turn") {
        return consolidate(&prompt, tools);
    }
    if let Some(batch) = tools.iter().find(|t| takes_ids(t)) {
        return batch_worker(&prompt, batch, tools);
    }
    follow_todos(&prompt, tools)
}

/// An agent step taken by an impatient agent: it finishes while the progress
/// line still says papers are open, once it has read a batch and unless its
/// recent actions show the finish refused. `None` leaves the step to the
/// diligent policy.
pub fn impatient(turns: &[Turn], tools: &[OfferedTool]) -> Option<(String, Vec<ScriptedCall>)> {
    if !is_agent_prompt(turns) || !tools.iter().any(takes_ids) {
        return None;
    }
    let user = turns.iter().rev().find(|t| t.role == "user")?;
    let prompt = parse(&user.text);
    let has_read = prompt
        .actions
        .iter()
        .any(|(tool, _, ok, _)| *ok && tools.iter().any(|t| t.name == *tool && takes_ids(t)));
    let refused = prompt
        .actions
        .iter()
        .any(|(tool, _, ok, _)| tool == "finish" && !ok);
    (open_count(&prompt.progress).unwrap_or(0) > 0 && has_read && !refused)
        .then(|| finish(tools, "I have read enough of the papers to stop here."))
}

fn consolidate(prompt: &Prompt<'_>, tools: &[OfferedTool]) -> (String, Vec<ScriptedCall>) {
    let Some(notes) = tools.iter().find(|t| t.name.contains("notes")) else {
        return ("I have no way to write notes.".into(), Vec::new());
    };
    let mut content = String::from("## Where things stand\n");
    for line in &prompt.progress {
        content.push_str(&format!("- {line}\n"));
    }
    content.push_str("\n## Open items\n");
    for (mark, item) in prompt.todos.iter().filter(|(m, _)| *m != 'x') {
        content.push_str(&format!("- [{mark}] {item}\n"));
    }
    // Notes summarise; the action log has the rest. The last three actions.
    content.push_str("\n## Recently\n");
    let recent = prompt.actions.len().saturating_sub(3);
    for (tool, _, ok, preview) in &prompt.actions[recent..] {
        let first: String = preview
            .split(" ⏎ ")
            .next()
            .unwrap_or("")
            .chars()
            .take(120)
            .collect();
        content.push_str(&format!(
            "- {tool}: {} {first}\n",
            if *ok { "ok" } else { "failed" }
        ));
    }
    call(&notes.name, json!({"content": content}))
}

fn takes_ids(tool: &OfferedTool) -> bool {
    tool.parameters
        .get("properties")
        .and_then(|p| p.get("ids"))
        .is_some()
}

fn open_count(progress: &[&str]) -> Option<usize> {
    progress.iter().find_map(|line| {
        let words: Vec<&str> = line
            .split(|c: char| c == ',' || c.is_whitespace())
            .collect();
        words
            .windows(2)
            .find(|w| w[1] == "open")
            .and_then(|w| w[0].parse().ok())
    })
}

fn looks_like_id(word: &str) -> bool {
    word.len() >= 12 && word.chars().all(|c| c.is_ascii_hexdigit())
}

/// Read what was listed and not read yet; list when nothing is in view;
/// finish when nothing is open.
fn batch_worker(
    prompt: &Prompt<'_>,
    batch: &OfferedTool,
    tools: &[OfferedTool],
) -> (String, Vec<ScriptedCall>) {
    let max = batch
        .parameters
        .pointer("/properties/ids/maxItems")
        .and_then(Value::as_u64)
        .unwrap_or(8) as usize;
    let open = open_count(&prompt.progress);
    // A tool that picks open work itself needs no list: ask for a full batch.
    if open.unwrap_or(0) > 0
        && let Some(most) = batch
            .parameters
            .pointer("/properties/open/maximum")
            .and_then(Value::as_u64)
    {
        return call(&batch.name, json!({ "open": most }));
    }
    let mut listed: Vec<String> = Vec::new();
    let mut read: Vec<String> = Vec::new();
    for (tool, args, ok, preview) in &prompt.actions {
        if tool == &batch.name {
            // Asked for is as good as read: a failed read is retried only
            // after the list shows it open again. The arguments may be cut
            // short in the prompt, so take every id-like word in them and in
            // the result.
            for text in [args.as_str(), preview.as_str()] {
                read.extend(
                    text.split(|c: char| !c.is_ascii_hexdigit())
                        .filter(|w| looks_like_id(w))
                        .map(str::to_owned),
                );
            }
        } else if *ok && tool.starts_with("list") {
            // A later list supersedes what an earlier one showed. A list
            // that is no longer the latest action shows only its head in the
            // prompt, so only the latest is trusted whole.
            listed = preview
                .split(" ⏎ ")
                .filter_map(|line| line.split(" · ").next())
                .map(str::trim)
                .filter(|w| looks_like_id(w))
                .map(str::to_owned)
                .collect();
            read.clear();
        }
    }
    let latest_is_list = prompt
        .actions
        .last()
        .is_some_and(|(tool, _, ok, _)| *ok && tool.starts_with("list"));
    if !latest_is_list {
        listed.clear();
    }
    let unread: Vec<String> = listed.into_iter().filter(|id| !read.contains(id)).collect();
    if open.unwrap_or(0) > 0 && !unread.is_empty() {
        let ids: Vec<String> = unread.into_iter().take(max).collect();
        return call(&batch.name, json!({ "ids": ids }));
    }
    if open.unwrap_or(0) > 0
        && let Some(list) = tools.iter().find(|t| t.name.starts_with("list"))
    {
        return call(&list.name, json!({"status": "open", "limit": max.min(100)}));
    }
    let summary = match open {
        Some(_) => format!("Every paper is read. {}", prompt.progress.join("; ")),
        None => "I cannot tell from the snapshot what is left, so I stop here.".to_owned(),
    };
    finish(tools, &summary)
}

fn finish(tools: &[OfferedTool], output: &str) -> (String, Vec<ScriptedCall>) {
    match offered(tools, "finish") {
        Some(t) => call(&t.name, json!({ "output": output })),
        None => (output.to_owned(), Vec::new()),
    }
}

/// The numbered steps of the task: `1. text`.
fn numbered_steps(task: &str) -> Vec<String> {
    task.lines()
        .filter_map(|l| {
            let (n, rest) = l.trim().split_once(". ")?;
            n.parse::<u32>().ok()?;
            Some(rest.trim().to_owned())
        })
        .collect()
}

/// The offered tool an item names (the first word that is a tool's name).
fn tool_of<'a>(item: &str, tools: &'a [OfferedTool]) -> Option<&'a OfferedTool> {
    item.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .find_map(|w| tools.iter().find(|t| t.name == w))
}

fn follow_todos(prompt: &Prompt<'_>, tools: &[OfferedTool]) -> (String, Vec<ScriptedCall>) {
    let write_todos = offered(tools, "write_todos");
    if prompt.todos.is_empty() {
        let mut steps = numbered_steps(prompt.task);
        if steps.is_empty() {
            steps = numbered_steps(&prompt.system);
        }
        return match (write_todos, steps.is_empty()) {
            (Some(t), false) => call(
                &t.name,
                json!({"todos": steps.iter().map(|s| json!({"content": s, "status": "pending"})).collect::<Vec<_>>()}),
            ),
            _ => finish(tools, "The task names no steps I can follow."),
        };
    }
    let hidden = prompt
        .todo_header
        .and_then(|h| h.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| n > prompt.todos.len());
    let Some(index) = prompt.todos.iter().position(|(m, _)| *m != 'x') else {
        return finish(tools, &done_report(prompt));
    };
    let item = &prompt.todos[index].1;
    let Some(tool) = tool_of(item, tools) else {
        return finish(tools, &format!("I cannot tell which tool does: {item}"));
    };
    if tool.name == "finish" {
        return finish(tools, &done_report(prompt));
    }
    // Done once a call of that tool succeeded after the last todo update.
    let since_update = prompt
        .actions
        .iter()
        .rposition(|a| a.0 == "write_todos")
        .map_or(0, |i| i + 1);
    // An item about the todo list itself is done: the list is there.
    let done = tool.name == "write_todos"
        || prompt.actions[since_update..]
            .iter()
            .any(|(t, _, ok, preview)| {
                // A child agent that stopped early says so; that is not done.
                *ok && t == &tool.name && !preview.contains("without finishing")
            });
    // A paged result with more to come: read the next page first.
    let next_page = prompt.actions[since_update..]
        .iter()
        .rev()
        .find(|(t, _, ok, _)| *ok && t == &tool.name)
        .and_then(|(_, _, _, preview)| {
            let at = preview.rfind("more (offset ")?;
            let rest = &preview[at + "more (offset ".len()..];
            rest[..rest.find(')')?].parse::<u64>().ok()
        });
    if let Some(offset) = next_page
        && tool.parameters.pointer("/properties/offset").is_some()
    {
        return call(&tool.name, json!({ "offset": offset }));
    }
    if done && let Some(t) = write_todos.filter(|_| !hidden) {
        let todos: Vec<Value> = prompt
            .todos
            .iter()
            .enumerate()
            .map(|(i, (mark, content))| {
                let status = if i == index || *mark == 'x' {
                    "completed"
                } else if *mark == '~' {
                    "in_progress"
                } else {
                    "pending"
                };
                json!({"content": content, "status": status})
            })
            .collect();
        return call(&t.name, json!({ "todos": todos }));
    }
    let mut arguments = arguments_from_item(&tool.parameters, item);
    if let Some(content) = arguments.get_mut("content") {
        *content = json!(compose(prompt, item));
    }
    let takes_path = tool.parameters.pointer("/properties/path").is_some();
    if let (Some(object), Some(path)) = (arguments.as_object_mut(), path_in(item))
        && takes_path
    {
        object.insert("path".into(), json!(path));
    }
    (
        String::new(),
        vec![ScriptedCall::new(&tool.name, arguments)],
    )
}

fn path_in(item: &str) -> Option<String> {
    item.split_whitespace()
        .map(|w| w.trim_matches(|c: char| "`\"'(),;:".contains(c)))
        .find(|w| w.ends_with(".md") || w.ends_with(".txt") || w.ends_with(".json"))
        .map(str::to_owned)
}

fn done_report(prompt: &Prompt<'_>) -> String {
    let mut out = String::from("Done:");
    for (_, item) in &prompt.todos {
        out.push_str(&format!(" {item};"));
    }
    if !prompt.progress.is_empty() {
        out.push_str(&format!(" {}", prompt.progress.join("; ")));
    }
    out
}

/// The text of a file the item asks for: a synthesis from digest lines in the
/// recent actions when there are some, else a plan from the task.
fn compose(prompt: &Prompt<'_>, item: &str) -> String {
    let digests: Vec<Vec<&str>> = prompt
        .actions
        .iter()
        .filter(|a| a.2)
        .flat_map(|a| a.3.split(" ⏎ "))
        .map(|l| l.split(" · ").collect::<Vec<_>>())
        .filter(|parts| parts.len() >= 4 && looks_like_id(parts[0]))
        .collect();
    if !digests.is_empty() {
        let mut text = String::from("## Themes\n\n");
        let mut included = Vec::new();
        let mut rest = Vec::new();
        for parts in &digests {
            let verdict = parts[1];
            let title = parts[2];
            let points = parts.get(3).copied().unwrap_or("");
            if verdict.contains("include") {
                included.push((title, points));
            } else {
                rest.push(title);
            }
        }
        for (title, points) in &included {
            text.push_str(&format!("- *{title}* addresses the question ({points}).\n"));
        }
        text.push_str(&format!(
            "\n## Agreements\n\n{} of {} reviewed papers address the question directly.\n\n## Gaps\n\n",
            included.len(),
            digests.len()
        ));
        for title in rest.iter().take(10) {
            text.push_str(&format!(
                "- *{title}* bears on it only in part or not at all.\n"
            ));
        }
        return text;
    }
    let question = prompt
        .task
        .lines()
        .find(|l| l.to_ascii_lowercase().contains("question"))
        .unwrap_or(item);
    let criteria: Vec<&str> = prompt
        .task
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    let mut text = format!("# Plan\n\n{question}\n\n## Judging\n\n");
    text.push_str(
        "Each paper is read on its own and scored 0-10 by how squarely it answers the question.\n",
    );
    for c in criteria {
        text.push_str(&format!(
            "{c}: judged met, not met or unclear from the text.\n"
        ));
    }
    text
}

/// A call for the chaos policy: a random offered tool with random but
/// schema-valid arguments. It never calls `finish`, so a run under chaos ends
/// at its step limit (or when its loop gives up on it).
pub fn chaos(tools: &[OfferedTool], seed: u64, must_call: bool) -> (String, Vec<ScriptedCall>) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let tools: Vec<&OfferedTool> = tools.iter().filter(|t| t.name != "finish").collect();
    if tools.is_empty() || (!must_call && rng.below(40) == 0) {
        return ("I will think about it.".into(), Vec::new());
    }
    let tool = tools[rng.below(tools.len() as u64) as usize];
    let arguments = random_value(&tool.parameters, &mut rng, 0);
    (
        String::new(),
        vec![ScriptedCall::new(&tool.name, arguments)],
    )
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
}

const NASTY: &[&str] = &[
    "../../etc/passwd",
    "/etc/shadow",
    "papers/0000000000000000/result.json",
    "task.json",
    "actions.jsonl",
    ".quire/lock",
    "notes/../../../outside.txt",
    "tasks/t0001-planner/actions.jsonl",
    "agents/evil.toml",
    "a/b/c.md",
    "notes.md",
    "*",
    "**/*.json",
    "(unclosed",
    "",
    "ok",
];

fn random_value(schema: &Value, rng: &mut Rng, depth: usize) -> Value {
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.is_empty()
    {
        return options[rng.below(options.len() as u64) as usize].clone();
    }
    match schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("object")
    {
        "object" => {
            let mut out = Map::new();
            let required = crate::reader::required_keys(schema);
            for (key, sub) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if required.contains(&key.as_str()) || rng.below(2) == 0 {
                    out.insert(key.clone(), random_value(sub, rng, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" if depth < 3 => {
            let item = schema
                .get("items")
                .cloned()
                .unwrap_or(json!({"type": "string"}));
            let max = schema
                .get("maxItems")
                .and_then(Value::as_u64)
                .unwrap_or(4)
                .min(6);
            let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
            let n = min + rng.below(max.saturating_sub(min) + 1);
            (0..n)
                .map(|_| random_value(&item, rng, depth + 1))
                .collect()
        }
        "array" => json!([]),
        "integer" | "number" => {
            let max = schema
                .get("maximum")
                .and_then(Value::as_u64)
                .unwrap_or(5000);
            let min = schema.get("minimum").and_then(Value::as_u64).unwrap_or(0);
            json!(min + rng.below(max.saturating_sub(min) + 1))
        }
        "boolean" => json!(rng.below(2) == 0),
        _ => {
            let pick = NASTY[rng.below(NASTY.len() as u64) as usize];
            if rng.below(4) == 0 {
                json!(pick.repeat(1 + rng.below(50) as usize))
            } else {
                json!(pick)
            }
        }
    }
}
