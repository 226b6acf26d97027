//! The deterministic "reader" policy: how the scripted server answers when no
//! step is scripted, so a whole review can run without a hosted model.
//!
//! It knows only what the request contains:
//! - **Reading a document.** When a turn holds page-marked text (`=== page N ===`,
//!   `--- page N ---` or `[page N]` on a line of its own), it answers from that
//!   text: the leading sentences as the summary, the share of the question's
//!   terms found in the text as the score, the sentences richest in those terms
//!   as quotes with their pages. The question is the line labelled `Question:`
//!   (or `Review question:`). The answer takes the shape the request asks for:
//!   a `response_format` JSON schema, the parameters of a tool whose name names
//!   the result (submit/record/report/answer/result), or else a JSON object
//!   `{summary, score, rationale, quotes: [{text, page}]}`. A negative
//!   criterion ("Does not …") that a sentence of the text breaks is judged
//!   not met with that sentence quoted, and the verdict is exclude whatever
//!   the score: the reader excludes by a criterion as the protocol says.
//! - **An agent step.** With tools offered and no document to answer, it takes
//!   the latest todo list in the conversation (`- [ ]`, `- [~]`, `- [x]`), skips
//!   completed items and items it already acted on, and calls the tool the next
//!   item names, filling the tool's parameters from the item's words. When no
//!   item is left it says so and calls nothing.
//! - **A protocol draft.** Asked to draft the review's protocol, it writes
//!   the sections asked for from the question and criteria ([`crate::protocol`]).
//! - **A question asked of the papers.** Asked one paper's answer, it gives
//!   the sentences richest in the question's terms as claims with their
//!   quotes and pages; asked to compose, a sentence per paper citing its
//!   sources ([`crate::ask`]).
//! - **A part of a synthesis.** With no tools and no document, a turn that lists
//!   papers one per line (`- *Title* ... key points: a; b`) gets a sentence per
//!   paper, naming it by its title in italics and saying its first key point.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::request::{OfferedTool, RecordedRequest, Turn};
use crate::script::ScriptedCall;

/// The answer for a request: text and tool calls.
pub fn answer(request: &RecordedRequest) -> (String, Vec<ScriptedCall>) {
    let turns = request.turns();
    let tools = request.tools();
    if crate::agent_policy::is_agent_prompt(&turns) {
        return crate::agent_policy::step(&turns, &tools);
    }
    if let Some(document) = latest_document(&turns) {
        if let Some(text) = crate::ask::paper_answer(&turns, &document)
            .or_else(|| crate::ask::table_cells(&turns, &document))
        {
            return (text, Vec::new());
        }
        let question = question_of(&turns);
        let reading = Reading::of(&document, &question, &criteria_of(&turns));
        if let Some(schema) = request.response_schema() {
            return (fill(&schema, "", &reading).to_string(), Vec::new());
        }
        if let Some(tool) = tools.iter().find(|t| is_result_tool(&t.name)) {
            let arguments = fill(&tool.parameters, "", &reading);
            return (
                String::new(),
                vec![ScriptedCall::new(&tool.name, arguments)],
            );
        }
        if !agent_has_work(&turns, &tools) {
            return (reading.default_json().to_string(), Vec::new());
        }
    }
    if tools.is_empty()
        && let Some(text) = crate::protocol::answer(&turns)
            .or_else(|| crate::ask::composed(&turns))
            .or_else(|| crate::digest::answer(&turns))
    {
        return (text, Vec::new());
    }
    agent_step(&turns, &tools)
}

/// The pages of a request that asks to read a document (not an agent
/// step): what the fallible reader may spoil an answer about.
pub fn reading_document(request: &RecordedRequest) -> Option<Vec<(u32, String)>> {
    let turns = request.turns();
    if crate::agent_policy::is_agent_prompt(&turns) {
        return None;
    }
    latest_document(&turns)
}

fn is_result_tool(name: &str) -> bool {
    ["submit", "record", "report", "answer", "result"]
        .iter()
        .any(|w| name.contains(w))
}

/// Pages of the latest turn that carries page-marked text.
fn latest_document(turns: &[Turn]) -> Option<Vec<(u32, String)>> {
    turns
        .iter()
        .rev()
        .filter(|t| t.role != "assistant")
        .find_map(|t| {
            let pages = split_pages(&t.text);
            (!pages.is_empty()).then_some(pages)
        })
}

/// `page N` markers on their own line, decorated with `=`, `-`, `[`, `]`, `#`.
fn page_marker(line: &str) -> Option<u32> {
    let core = line
        .trim()
        .trim_matches(|c: char| "=-[]#* ".contains(c))
        .to_ascii_lowercase();
    let number = core.strip_prefix("page")?.trim();
    if line.trim().len() == core.len() {
        return None; // a bare "page 3" in prose is not a marker
    }
    number.parse().ok()
}

fn split_pages(text: &str) -> Vec<(u32, String)> {
    let mut pages: Vec<(u32, String)> = Vec::new();
    for line in text.lines() {
        if let Some(n) = page_marker(line) {
            pages.push((n, String::new()));
        } else if let Some((_, page)) = pages.last_mut() {
            page.push_str(line);
            page.push('\n');
        }
    }
    pages
}

pub(crate) fn question_of(turns: &[Turn]) -> String {
    for turn in turns {
        for line in turn.text.lines() {
            let lower = line.trim().to_ascii_lowercase();
            for label in ["review question:", "question:"] {
                if let Some(rest) = lower.strip_prefix(label) {
                    let start = line.len() - rest.len();
                    return line[start..].trim().to_owned();
                }
            }
        }
    }
    String::new()
}

/// The `- ` lines after a `Criteria:` line.
pub(crate) fn criteria_of(turns: &[Turn]) -> Vec<String> {
    for turn in turns {
        let mut lines = turn.text.lines();
        while let Some(line) = lines.next() {
            if line.trim().eq_ignore_ascii_case("criteria:") {
                return lines
                    .map_while(|l| l.trim().strip_prefix("- ").map(|c| c.trim().to_owned()))
                    .collect();
            }
        }
    }
    Vec::new()
}

const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "also", "among", "another", "based", "because", "been",
    "before", "being", "between", "both", "could", "does", "doing", "each", "from", "have",
    "having", "here", "into", "itself", "more", "most", "other", "over", "paper", "papers",
    "should", "some", "such", "than", "that", "their", "them", "then", "there", "these", "they",
    "this", "those", "through", "under", "very", "what", "when", "where", "which", "while", "with",
    "would", "your", "work", "works", "using", "used", "study", "studies",
];

fn terms(text: &str) -> BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 4 && !STOPWORDS.contains(&w.as_str()))
        .collect()
}

/// Sentences of a page, whitespace collapsed, with the page they are on. Short
/// lines without closing punctuation (titles, headings) stand on their own, so
/// they do not run into the next sentence.
fn sentences(pages: &[(u32, String)]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for (page, text) in pages {
        let mut block = String::new();
        for line in text.lines().map(str::trim) {
            let heading = line.split_whitespace().count() <= 8
                && !line.ends_with(['.', '?', '!', ',', ';', ':', '-']);
            if heading {
                split_sentences(&block, *page, &mut out);
                block.clear();
                if !line.is_empty() {
                    out.push((*page, line.to_owned()));
                }
            } else {
                block.push_str(line);
                block.push(' ');
            }
        }
        split_sentences(&block, *page, &mut out);
    }
    out
}

fn split_sentences(block: &str, page: u32, out: &mut Vec<(u32, String)>) {
    let flat = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let chars: Vec<(usize, char)> = flat.char_indices().collect();
    let mut start = 0;
    for (k, &(i, c)) in chars.iter().enumerate() {
        let at_end = k + 1 == chars.len();
        let boundary = matches!(c, '.' | '?' | '!')
            && (at_end || chars.get(k + 1).is_some_and(|&(_, n)| n == ' '));
        if boundary || at_end {
            let sentence = flat[start..i + c.len_utf8()].trim();
            if !sentence.is_empty() {
                out.push((page, sentence.to_owned()));
            }
            start = i + c.len_utf8();
        }
    }
}

/// "--- abstract ---": a line Quire sets before each zone of a paper.
fn is_zone_label(line: &str) -> bool {
    line.starts_with("--- ") && line.ends_with(" ---")
}

/// What the reader makes of one document and question.
pub(crate) struct Reading {
    summary: String,
    /// The summary's sentences with their pages.
    summary_sentences: Vec<(u32, String)>,
    /// The review's criteria (`Criteria:` then `- ...` lines), each with
    /// whether most of its terms occur in the text.
    criteria: Vec<(String, bool)>,
    /// A negative criterion ("Does not …", "Not …") the paper fails: the
    /// criterion and the sentence (page, text) that shows it, where most of
    /// the terms after the negation occur. The reader then excludes the
    /// paper by it, whatever its score, as a faithful model would.
    failed: Option<(String, u32, String)>,
    /// Share of the question's terms found in the document, 0..=1.
    pub(crate) overlap: f64,
    matched: Vec<String>,
    missing: Vec<String>,
    pub(crate) quotes: Vec<(u32, String)>,
    title: String,
    /// Names on the line after the title.
    authors: Vec<String>,
}

impl Reading {
    pub(crate) fn of(pages: &[(u32, String)], question: &str, criteria: &[String]) -> Self {
        let sentences = sentences(pages);
        let readable: Vec<&(u32, String)> = sentences
            .iter()
            .filter(|(_, s)| (6..=80).contains(&s.split_whitespace().count()))
            .collect();
        let summary_sentences: Vec<(u32, String)> =
            readable.iter().take(3).map(|s| (*s).clone()).collect();
        let summary = summary_sentences
            .iter()
            .map(|(_, s)| s.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let wanted = terms(question);
        let present = terms(
            &pages
                .iter()
                .map(|(_, t)| t.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        );
        let (matched, missing): (Vec<String>, Vec<String>) =
            wanted.iter().cloned().partition(|t| present.contains(t));
        let overlap = if wanted.is_empty() {
            0.0
        } else {
            matched.len() as f64 / wanted.len() as f64
        };
        let mut ranked: Vec<(usize, usize, &(u32, String))> = readable
            .iter()
            .enumerate()
            .map(|(order, s)| (terms(&s.1).intersection(&wanted).count(), order, *s))
            .filter(|(hits, _, _)| *hits > 0)
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let quotes = ranked
            .into_iter()
            .take(3)
            .map(|(_, _, s)| s.clone())
            .collect();
        // A title is a line of a few words, not a running header in capitals;
        // the authors are the line after it, when it reads as names. Lines
        // that name the paper's zones ("--- title block ---") are Quire's.
        let first_lines: Vec<&str> = pages
            .first()
            .map(|(_, t)| {
                t.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !is_zone_label(l))
                    .collect()
            })
            .unwrap_or_default();
        let title_at = first_lines.iter().position(|l| {
            let words = l.split_whitespace().count();
            (3..=20).contains(&words) && l.chars().any(char::is_lowercase)
        });
        let title = title_at
            .map(|i| first_lines[i].to_owned())
            .unwrap_or_default();
        let authors = title_at
            .and_then(|i| first_lines.get(i + 1))
            .map(|line| {
                line.split(", ")
                    .flat_map(|p| p.split(" and "))
                    .map(str::trim)
                    .filter(|n| {
                        let words: Vec<&str> = n.split_whitespace().collect();
                        (2..=4).contains(&words.len())
                            && words.iter().all(|w| w.starts_with(char::is_uppercase))
                    })
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let failed = criteria.iter().find_map(|c| {
            let lower = c.to_lowercase();
            let rest = lower
                .strip_prefix("does not ")
                .or_else(|| lower.strip_prefix("not "))?;
            let wanted = terms(rest);
            let (page, sentence) = readable.iter().find(|(_, s)| {
                let here = terms(s);
                !wanted.is_empty()
                    && wanted.iter().filter(|t| here.contains(*t)).count() * 3 >= wanted.len() * 2
            })?;
            Some((c.clone(), *page, sentence.clone()))
        });
        let criteria = criteria
            .iter()
            .map(|c| {
                let wanted = terms(c);
                let found = wanted.iter().filter(|t| present.contains(*t)).count();
                let met = match &failed {
                    Some((f, _, _)) if f == c => false,
                    _ => !wanted.is_empty() && found * 2 >= wanted.len(),
                };
                (c.clone(), met)
            })
            .collect();
        Self {
            summary,
            summary_sentences,
            criteria,
            failed,
            overlap,
            matched,
            missing,
            quotes,
            title,
            authors,
        }
    }

    fn score(&self, min: f64, max: f64) -> f64 {
        (min + self.overlap * (max - min)).round()
    }

    fn rationale(&self) -> String {
        if self.matched.is_empty() {
            return "None of the question's terms occur in the text.".to_owned();
        }
        let mut text = format!("The text mentions {}.", self.matched.join(", "));
        if !self.missing.is_empty() {
            text.push_str(&format!(
                " It does not mention {}.",
                self.missing.join(", ")
            ));
        }
        text
    }

    fn default_json(&self) -> Value {
        json!({
            "summary": self.summary,
            "score": self.score(0.0, 10.0),
            "rationale": self.rationale(),
            "quotes": self.quotes.iter().map(|(p, t)| json!({"text": t, "page": p})).collect::<Vec<_>>(),
        })
    }
}

/// Fill a JSON schema from a reading, choosing each property's content by its
/// name (summary, score, rationale, quotes, page, title, relevant…) and type.
fn fill(schema: &Value, name: &str, reading: &Reading) -> Value {
    let kind = schema.get("type").and_then(Value::as_str).unwrap_or(
        if schema.get("properties").is_some() {
            "object"
        } else {
            "string"
        },
    );
    let name = name.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| name.contains(w));
    match kind {
        "object" => {
            let mut object = Map::new();
            for (key, sub) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                object.insert(key.clone(), fill(sub, key, reading));
            }
            Value::Object(object)
        }
        "array" if has(&["summary", "sentence"]) => {
            let item = schema.get("items").cloned().unwrap_or(Value::Null);
            reading
                .summary_sentences
                .iter()
                .map(|(page, text)| quote_value(&item, *page, text))
                .collect()
        }
        "array" if has(&["criteri"]) && !reading.criteria.is_empty() => reading
            .criteria
            .iter()
            .map(|(criterion, met)| match &reading.failed {
                Some((failed, page, sentence)) if failed == criterion => json!({
                    "criterion": criterion,
                    "outcome": "not_met",
                    "note": "The paper does what the criterion rules out.",
                    "quote": {"text": sentence, "page": page},
                }),
                _ => json!({
                    "criterion": criterion,
                    "outcome": if *met { "met" } else { "not_met" },
                    "note": if *met { "Most of its terms occur in the text." } else { "Most of its terms do not occur in the text." },
                }),
            })
            .collect(),
        "array" if has(&["quote", "evidence", "excerpt", "citation"]) => {
            let item = schema.get("items").cloned().unwrap_or(Value::Null);
            reading
                .quotes
                .iter()
                .map(|(page, text)| quote_value(&item, *page, text))
                .collect()
        }
        "array" if has(&["author"]) => json!(reading.authors),
        "array" => json!(reading.matched),
        "integer" | "number" => {
            let min = schema.get("minimum").and_then(Value::as_f64).unwrap_or(0.0);
            let max = schema
                .get("maximum")
                .and_then(Value::as_f64)
                .unwrap_or(10.0);
            if has(&["page"]) {
                json!(reading.quotes.first().map(|q| q.0).unwrap_or(1))
            } else {
                json!(reading.score(min, max) as i64)
            }
        }
        "boolean" => json!(reading.overlap >= 0.5),
        _ => {
            if has(&["verdict"]) && reading.failed.is_some() {
                return json!("exclude");
            }
            if let Some(options) = schema.get("enum").and_then(Value::as_array) {
                let index = ((1.0 - reading.overlap) * (options.len() - 1) as f64).round() as usize;
                return options.get(index).cloned().unwrap_or(Value::Null);
            }
            if has(&["rationale", "reason", "justification", "explanation", "why"]) {
                json!(reading.rationale())
            } else if has(&["title"]) {
                json!(reading.title)
            } else if has(&["quote", "evidence"]) {
                json!(
                    reading
                        .quotes
                        .first()
                        .map(|q| q.1.clone())
                        .unwrap_or_default()
                )
            } else {
                json!(reading.summary)
            }
        }
    }
}

fn quote_value(item: &Value, page: u32, text: &str) -> Value {
    match item.get("properties").and_then(Value::as_object) {
        Some(properties) => {
            let mut object = Map::new();
            for (key, sub) in properties {
                let is_number = matches!(
                    sub.get("type").and_then(Value::as_str),
                    Some("integer" | "number")
                );
                let value = if key.to_ascii_lowercase().contains("page") || is_number {
                    json!(page)
                } else {
                    json!(text)
                };
                object.insert(key.clone(), value);
            }
            Value::Object(object)
        }
        None => json!(text),
    }
}

/// A todo item: its status mark and text.
fn todo_items(turns: &[Turn]) -> Vec<(char, String)> {
    for turn in turns.iter().rev() {
        let items: Vec<(char, String)> = turn
            .text
            .lines()
            .filter_map(|l| {
                let rest = l.trim_start().strip_prefix("- [")?;
                let mut chars = rest.chars();
                let mark = chars.next()?;
                let text = chars.as_str().strip_prefix(']')?.trim();
                Some((mark.to_ascii_lowercase(), text.to_owned()))
            })
            .collect();
        if !items.is_empty() {
            return items;
        }
    }
    Vec::new()
}

/// The first open item that names an offered tool and was not acted on yet.
fn next_action<'a>(turns: &[Turn], tools: &'a [OfferedTool]) -> Option<(&'a OfferedTool, String)> {
    let done: Vec<&str> = turns
        .iter()
        .filter(|t| t.role == "assistant")
        .map(|t| t.text.as_str())
        .collect();
    todo_items(turns)
        .into_iter()
        .filter(|(mark, _)| *mark != 'x')
        .find_map(|(_, item)| {
            let tool = tools.iter().find(|t| {
                item.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == t.name)
            })?;
            let arguments = arguments_from_item(&tool.parameters, &item).to_string();
            let call = format!("{}({})", tool.name, arguments);
            (!done.iter().any(|d| d.contains(&call))).then_some((tool, arguments))
        })
}

fn agent_has_work(turns: &[Turn], tools: &[OfferedTool]) -> bool {
    next_action(turns, tools).is_some()
}

fn agent_step(turns: &[Turn], tools: &[OfferedTool]) -> (String, Vec<ScriptedCall>) {
    match next_action(turns, tools) {
        Some((tool, arguments)) => (
            String::new(),
            vec![ScriptedCall::raw(&tool.name, &arguments)],
        ),
        None if todo_items(turns).is_empty() => {
            ("There is no todo list to follow.".into(), Vec::new())
        }
        None => ("Every item on the todo list is done.".into(), Vec::new()),
    }
}

/// Fill a tool's string parameters from a todo item: path-like parameters get
/// the first token with a `/` or a `.`, text-like ones the item's quoted text or
/// its remaining words.
/// The `required` property names of an object schema.
pub(crate) fn required_keys(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

pub(crate) fn arguments_from_item(parameters: &Value, item: &str) -> Value {
    let quoted = item.split('"').nth(1).or_else(|| item.split('`').nth(1));
    let path = item
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| "`\"'(),;:".contains(c)))
        .find(|w| w.contains('/') || (w.contains('.') && !w.ends_with('.')));
    let mut object = Map::new();
    let required = required_keys(parameters);
    for (key, schema) in parameters
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if schema.get("type").and_then(Value::as_str) != Some("string") {
            continue;
        }
        let value = if ["path", "file", "dir", "folder"]
            .iter()
            .any(|w| key.contains(w))
        {
            path.map(str::to_owned)
        } else if ["pattern", "query", "text", "content", "glob"]
            .iter()
            .any(|w| key.contains(w))
        {
            quoted.map(str::to_owned)
        } else {
            None
        };
        match value {
            Some(v) => {
                object.insert(key.clone(), json!(v));
            }
            None if required.contains(&key.as_str()) => {
                object.insert(key.clone(), json!(item));
            }
            None => {}
        }
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests;
