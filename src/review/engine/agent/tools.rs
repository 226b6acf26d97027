//! The review's tools: `list_papers` and `read_papers` for the reviewer,
//! `read_results` for the writer, `answer_from_pdf` for any agent that needs
//! one answer from one paper. None of them hands a paper's text to the caller:
//! reading happens in isolated calls, and only digests come back.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Value, json};

use super::domain::{BatchLine, BatchOutcome, CoveredBy, ReviewDomain};
use crate::review::reading::batch::Ended;
use crate::review::{PaperResult, Verdict, labels, paper_text};
use crate::tools::{Tool, ToolContext, ToolError, parse_args};
use crate::workspace::{PaperFile, PaperId};

pub const LIST_PAPERS: &str = "list_papers";
pub const READ_PAPERS: &str = "read_papers";
pub const READ_RESULTS: &str = "read_results";
pub const ANSWER_FROM_PDF: &str = "answer_from_pdf";
pub const NAMES: [&str; 4] = [LIST_PAPERS, READ_PAPERS, READ_RESULTS, ANSWER_FROM_PDF];

/// A title for a one-line digest: titles read from PDFs can run on for a
/// paragraph.
pub(crate) fn short_title(title: Option<&str>) -> String {
    let title = title.unwrap_or("untitled");
    match title.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &title[..cut]),
        None => title.to_owned(),
    }
}

pub struct ListPapers(pub Arc<ReviewDomain>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default = "open")]
    status: String,
    #[serde(default)]
    offset: usize,
    #[serde(default = "twenty")]
    limit: usize,
}

fn open() -> String {
    "open".into()
}
fn twenty() -> usize {
    20
}

#[async_trait]
impl Tool for ListPapers {
    fn name(&self) -> &str {
        LIST_PAPERS
    }

    fn description(&self) -> &str {
        "List the review's readable papers by id with title and pages. status: open (no \
         result yet, the default), reviewed, failed, or all. Paged with offset and limit (at \
         most 100)."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "status": {"type": "string", "enum": ["open", "reviewed", "failed", "all"]},
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: ListArgs = parse_args(args)?;
        let coverage = self.0.coverage();
        let papers: Vec<_> = match args.status.as_str() {
            "open" => coverage.open(),
            "reviewed" => coverage
                .readable
                .values()
                .filter(|p| coverage.done.contains(&p.id))
                .collect(),
            "failed" => coverage
                .readable
                .values()
                .filter(|p| coverage.failed.contains_key(&p.id) && !coverage.done.contains(&p.id))
                .collect(),
            "all" => coverage.readable.values().collect(),
            other => {
                return Err(ToolError::invalid_arguments(format!(
                    "status {other:?} is not one of open, reviewed, failed, all"
                )));
            }
        };
        let limit = args.limit.clamp(1, 100);
        let total = papers.len();
        let mut lines = vec![format!("{total} {} papers", args.status)];
        for p in papers.iter().skip(args.offset).take(limit) {
            let mut line = format!(
                "{} · {} · {} pages",
                p.id.0,
                short_title(p.title.as_deref()),
                p.pages
            );
            if let Some((n, why)) = coverage.failed.get(&p.id) {
                line.push_str(&format!(" · failed {n}x: {why}"));
            }
            lines.push(line);
        }
        let shown_to = (args.offset + limit).min(total);
        if shown_to < total {
            lines.push(format!("… {} more (offset {shown_to})", total - shown_to));
        }
        Ok(lines.join("\n"))
    }
}

pub struct ReadPapers(pub Arc<ReviewDomain>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    #[serde(default)]
    ids: Vec<String>,
    /// Read the next this many open papers, without naming them.
    #[serde(default)]
    open: Option<usize>,
}

#[async_trait]
impl Tool for ReadPapers {
    fn name(&self) -> &str {
        READ_PAPERS
    }

    fn description(&self) -> &str {
        "Read a batch of papers in parallel: name them with ids, or give open: N to read the \
         next N open papers (in list_papers order). Each paper is read in isolation against \
         the review question and criteria; its result (summary, score, verdict, rationale, \
         evidence with pages) is written to papers/<id>/result.json. Returns one line per \
         paper: id, score, verdict, and whether its evidence quotes were found on their pages. A \
         reviewed paper is not read again."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "ids": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": self.0.batch_max,
                    "description": "Paper ids from list_papers."
                },
                "open": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": self.0.batch_max,
                    "description": "Instead of ids: read the next this many open papers."
                }
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: ReadArgs = parse_args(args)?;
        let ids = self.batch_of(args)?;
        if ids.is_empty() {
            return Ok(
                "No paper is open: every readable paper is reviewed, being read, or \
                       failed twice."
                    .into(),
            );
        }
        let read = self.0.read_batch(&ids, CoveredBy::Agent).await;
        let none_read = !read
            .lines
            .iter()
            .any(|line| matches!(line.outcome, BatchOutcome::Scored { .. }));
        match read.ended {
            // A cap stopped the batch before it read anything: the step
            // cannot go on, which the runtime hears as an exhausted budget.
            Ended::Stopped(reason) if none_read && self.0.budget.halted().is_none() => {
                Err(ToolError::exhausted(reason))
            }
            _ => {
                let open = self.0.coverage().open().len();
                Ok(digest(&read.lines, open))
            }
        }
    }
}

impl ReadPapers {
    /// The ids a call names, or the next open ones it asks for.
    fn batch_of(&self, args: ReadArgs) -> Result<Vec<String>, ToolError> {
        let max = self.0.batch_max;
        match (args.ids.is_empty(), args.open) {
            (false, Some(_)) => Err(ToolError::invalid_arguments(
                "give either ids or open, not both",
            )),
            (true, None) => Err(ToolError::invalid_arguments(
                "give the ids to read, or open: N to read the next N open papers",
            )),
            (true, Some(0)) => Err(ToolError::invalid_arguments("open must be at least 1")),
            (true, Some(n)) => Ok(self
                .0
                .coverage()
                .open()
                .iter()
                .take(n.min(max))
                .map(|p| p.id.0.clone())
                .collect()),
            (false, None) if args.ids.len() > max => Err(ToolError::invalid_arguments(format!(
                "{} ids is more than the {max} one call reads; split the batch",
                args.ids.len(),
            ))),
            (false, None) => Ok(args.ids),
        }
    }
}

/// What a batch read returns: a line of totals, then the papers grouped by
/// verdict with their scores, then what needs a look (no verified evidence,
/// dropped quotes, failures, skips), one line each. The results themselves
/// are in the papers' files.
fn digest(lines: &[BatchLine], open: usize) -> String {
    let mut groups: Vec<(Verdict, Vec<String>)> =
        [Verdict::Include, Verdict::Maybe, Verdict::Exclude]
            .into_iter()
            .map(|v| (v, Vec::new()))
            .collect();
    let (mut verified, mut dropped) = (0, 0);
    let (mut unsupported, mut with_dropped) = (Vec::new(), Vec::new());
    let mut problems = Vec::new();
    for line in lines {
        match &line.outcome {
            BatchOutcome::Scored {
                score,
                verdict,
                verified: v,
                dropped: d,
            } => {
                if let Some((_, ids)) = groups.iter_mut().find(|(k, _)| k == verdict) {
                    ids.push(format!("{} {score:.0}/10", line.id));
                }
                verified += v;
                dropped += d;
                if *v == 0 {
                    unsupported.push(line.id.clone());
                } else if *d > 0 {
                    with_dropped.push(format!("{} ({d})", line.id));
                }
            }
            BatchOutcome::Skipped(why) => problems.push(format!("{}: {}", line.id, why.reason())),
            BatchOutcome::Failed { attempts, reason } => problems.push(format!(
                "{}: failed (attempt {attempts}): {reason}",
                line.id
            )),
            BatchOutcome::Cancelled => {
                problems.push(format!("{}: not read, the run was cancelled", line.id))
            }
            BatchOutcome::Capped(reason) => problems.push(format!(
                "{}: not read, a cap stops the run: {reason}",
                line.id
            )),
            BatchOutcome::NotSaved(reason) => {
                problems.push(format!("{}: not saved, the run stops: {reason}", line.id))
            }
            BatchOutcome::Incomplete => {
                problems.push(format!("{}: the read did not complete", line.id))
            }
        }
    }
    let scored: usize = groups.iter().map(|(_, ids)| ids.len()).sum();
    let mut out = vec![format!(
        "Read {scored} of {} papers; quotes: {verified} verified, {dropped} dropped. {open} papers still open.",
        lines.len()
    )];
    for (verdict, ids) in groups.iter().filter(|(_, ids)| !ids.is_empty()) {
        out.push(format!(
            "{} ({}): {}",
            verdict.as_str(),
            ids.len(),
            ids.join(", ")
        ));
    }
    if !unsupported.is_empty() {
        out.push(format!("no verified evidence: {}", unsupported.join(", ")));
    }
    if !with_dropped.is_empty() {
        out.push(format!(
            "quotes not on their cited page, dropped: {}",
            with_dropped.join(", ")
        ));
    }
    out.extend(problems);
    out.join("\n")
}

pub struct ReadResults(pub Arc<ReviewDomain>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultsArgs {
    #[serde(default)]
    offset: usize,
    #[serde(default = "thirty")]
    limit: usize,
}

fn thirty() -> usize {
    30
}

#[async_trait]
impl Tool for ReadResults {
    fn name(&self) -> &str {
        READ_RESULTS
    }

    fn description(&self) -> &str {
        "A one-line digest of every reviewed paper, best score first: id, score, verdict (and \
         the researcher's label when there is one), title, key points. Paged with offset and \
         limit (at most 100). read_file papers/<id>/result.json gives one result in full."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "offset": {"type": "integer", "minimum": 0},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100}
            },
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: ResultsArgs = parse_args(args)?;
        let domain = self.0.clone();
        tokio::task::spawn_blocking(move || {
            let done: Vec<_> = {
                let coverage = domain.coverage();
                coverage
                    .readable
                    .values()
                    .filter(|p| coverage.done.contains(&p.id))
                    .cloned()
                    .collect()
            };
            let current = labels::Current::of(&domain.ws)?;
            let mut rows = Vec::new();
            for paper in done {
                let Some(result) = domain
                    .ws
                    .read_paper_file::<PaperResult>(&paper.id, PaperFile::Result)?
                else {
                    continue;
                };
                let label = current.load(&domain.ws, &paper.id)?;
                rows.push((paper, result, label));
            }
            rows.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.id.cmp(&b.0.id)));
            let total = rows.len();
            let limit = args.limit.clamp(1, 100);
            let mut lines = vec![format!("{total} reviewed papers, best first")];
            for (paper, result, label) in rows.iter().skip(args.offset).take(limit) {
                let labelled = label
                    .as_ref()
                    .and_then(|l| l.verdict)
                    .map(|v| format!(" (researcher: {})", v.as_str()))
                    .unwrap_or_default();
                let year = paper
                    .meta
                    .year
                    .map(|y| format!(" ({y})"))
                    .unwrap_or_default();
                lines.push(format!(
                    "{} · {:.0}/10 {}{labelled} · {}{year} · {}",
                    paper.id.0,
                    result.score,
                    result.verdict.as_str(),
                    short_title(paper.title.as_deref()),
                    result.key_points.join("; ")
                ));
            }
            let shown_to = (args.offset + limit).min(total);
            if shown_to < total {
                lines.push(format!("… {} more (offset {shown_to})", total - shown_to));
            }
            Ok(lines.join("\n"))
        })
        .await
        .map_err(|e| ToolError::fatal("internal_error", e.to_string()))?
    }
}

pub struct AnswerFromPdf(pub Arc<ReviewDomain>);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerArgs {
    paper: String,
    question: String,
}

#[async_trait]
impl Tool for AnswerFromPdf {
    fn name(&self) -> &str {
        ANSWER_FROM_PDF
    }

    fn description(&self) -> &str {
        "Ask one question about one paper. The paper is read in a separate, isolated call \
         (in parts when it is long) and only the answer comes back, with page references; the \
         paper's text never enters your context."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "paper": {"type": "string", "description": "A paper id from list_papers."},
                "question": {"type": "string"}
            },
            "required": ["paper", "question"],
            "additionalProperties": false
        })
    }

    async fn call(&self, _ctx: &ToolContext, args: Value) -> Result<String, ToolError> {
        let args: AnswerArgs = parse_args(args)?;
        let id = PaperId(args.paper.trim().to_owned());
        let title = {
            let coverage = self.0.coverage();
            match coverage.readable.get(&id) {
                Some(p) => p.title.clone(),
                None => {
                    return Err(ToolError::new(
                        "paper_not_found",
                        format!("{} is not a readable paper of this review", id.0),
                    ));
                }
            }
        };
        let ws = self.0.ws.clone();
        let lookup = id.clone();
        let pages = tokio::task::spawn_blocking(move || paper_text::load_text(&ws, &lookup))
            .await
            .map_err(|e| ToolError::fatal("internal_error", e.to_string()))??
            .unwrap_or_default()
            .for_reader;
        self.0
            .reader
            .answer_question(title.as_deref(), &pages, &args.question)
            .await
            .map_err(|e| ToolError::new(e.code(), e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::engine::agent::domain::Skip;

    fn scored(id: &str, score: f64, verified: usize, dropped: usize) -> BatchLine {
        BatchLine {
            id: id.into(),
            outcome: BatchOutcome::Scored {
                score,
                verdict: Verdict::from_score(score),
                verified,
                dropped,
            },
        }
    }

    #[test]
    fn a_batch_digest_groups_papers_by_verdict_and_flags_what_needs_a_look() {
        let lines = vec![
            scored("a1", 8.0, 3, 0),
            scored("b2", 4.0, 2, 1),
            scored("c3", 1.0, 0, 0),
            scored("f6", 9.0, 1, 0),
            BatchLine {
                id: "d4".into(),
                outcome: BatchOutcome::Failed {
                    attempts: 1,
                    reason: "the server closed the connection".into(),
                },
            },
            BatchLine {
                id: "e5".into(),
                outcome: BatchOutcome::Skipped(Skip::AlreadyReviewed),
            },
        ];
        let text = digest(&lines, 7);
        let name = |score: f64| Verdict::from_score(score).as_str();
        let expected = [
            "Read 4 of 6 papers; quotes: 6 verified, 1 dropped. 7 papers still open.".to_owned(),
            format!("{} (2): a1 8/10, f6 9/10", name(8.0)),
            format!("{} (1): b2 4/10", name(4.0)),
            format!("{} (1): c3 1/10", name(1.0)),
            "no verified evidence: c3".to_owned(),
            "quotes not on their cited page, dropped: b2 (1)".to_owned(),
            "d4: failed (attempt 1): the server closed the connection".to_owned(),
            "e5: already reviewed; not read again".to_owned(),
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
    }
}
