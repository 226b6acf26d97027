//! The synthesis at any number of papers, map then reduce: the included
//! papers in groups small enough for one call, each group digested by an
//! isolated model call that must cite every paper of its group by title, and
//! the digests set after the writer's overview in `synthesis.md`.
//!
//! The writer's prompt is bounded (it pages through the results), so at a few
//! hundred papers its overview can name only some of them; the digests are
//! what make the synthesis cover the review. A digest that leaves papers out
//! is asked again once, naming them; any still missing are listed after it,
//! so no included paper goes unmentioned. Digests are cached by what decides
//! them (prompt, model, the group's lines), so a resumed run reuses them.

use futures_util::future::join_all;
use tokio_util::sync::CancellationToken;

use super::domain::short_hash;
use crate::agent::Budget;
use crate::agent::budget::OverBudget;
use crate::llm::accounting::count_tokens;
use crate::llm::{ChatRequest, LlmError, Message, ModelClient};
use crate::review::verdicts::Verdicts;
use crate::review::{PaperResult, ReviewSpec, Verdict};
use crate::workspace::{PaperFile, PaperRecord, Workspace, WorkspaceError, WsPath, layout};

/// Part of every digest's cache key: a new prompt digests again.
const PROMPT_VERSION: &str = "digest-1";

/// Papers in one group: their lines fit a small model's window with room
/// for the answer, and a paragraph or three can still name them all.
pub const GROUP_PAPERS: usize = 16;

/// Longest line a paper gets in a group's prompt, in characters.
const MAX_LINE_CHARS: usize = 500;

/// Tokens of a paper's line at most, about ([`MAX_LINE_CHARS`] over four).
pub const LINE_TOKENS: u64 = 125;

/// The answer's cap: a few paragraphs.
pub const MAX_DIGEST_TOKENS: u32 = 1_500;

/// The heading under which the digests follow the writer's overview.
const DIGESTS_HEADING: &str = "## The included papers, group by group";

pub const SYSTEM_PROMPT: &str = "You write one part of the synthesis of a systematic literature review: what one group of included papers says about the review question. You are given one line per paper (title, year, score, summary, key points).\n\nWrite one to three short paragraphs of Markdown, no headings: the themes these papers share, where they agree or differ, and what they leave open. Cite every paper of the group by its title in italics, exactly as given (*Title*). Use only what the lines say; do not invent papers, numbers or quotes.";

/// One group's digest as it goes into the synthesis.
#[derive(Debug, PartialEq)]
pub struct Digest {
    pub text: String,
    /// Papers of the group the model never cited; listed after its text.
    pub listed: usize,
    /// Why there is no model digest (the call failed), if so.
    pub failed: Option<String>,
}

/// What digesting the included papers came to.
#[derive(Debug, Default)]
pub struct DigestStats {
    pub groups: usize,
    pub papers: usize,
    /// Groups answered from the cache.
    pub cached: usize,
    /// Why digesting stopped before the end (a budget cap), if it did.
    pub stopped: Option<String>,
}

/// The papers the review shows as included (the researcher's label, else
/// the engine's reading by the applied cut-offs and dual reading), with
/// their results, best first.
pub fn included(ws: &Workspace, papers: &[PaperRecord]) -> Vec<(PaperRecord, PaperResult)> {
    let verdicts = match Verdicts::load(ws) {
        Ok(verdicts) => Some(verdicts),
        Err(e) => {
            tracing::warn!(error = %e, "the verdicts' files could not be read; the engine's verdicts stand");
            None
        }
    };
    let mut rows: Vec<(PaperRecord, PaperResult)> = papers
        .iter()
        .filter_map(|p| {
            let result: PaperResult = ws.read_paper_file(&p.id, PaperFile::Result).ok()??;
            let shown = match &verdicts {
                Some(verdicts) => verdicts.of_paper(ws, &p.id).ok().flatten()?,
                None => result.verdict,
            };
            (shown == Verdict::Include).then(|| (p.clone(), result))
        })
        .collect();
    rows.sort_by(|a, b| b.1.score.total_cmp(&a.1.score).then(a.0.id.cmp(&b.0.id)));
    rows
}

/// How a paper is named in the synthesis: its title, or its file's name.
pub fn citation_title(paper: &PaperRecord) -> String {
    paper
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| {
            paper
                .file
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| paper.id.0.clone())
        })
}

/// A paper's line in its group's prompt.
fn paper_line(paper: &PaperRecord, result: &PaperResult) -> String {
    let year = paper
        .meta
        .year
        .map(|y| format!(" ({y})"))
        .unwrap_or_default();
    let summary = result.summary.first().map_or("", |q| q.text.as_str());
    let mut line = format!(
        "- *{}*{year} · {:.0}/10 · {summary} · key points: {}",
        citation_title(paper),
        result.score,
        result.key_points.join("; ")
    );
    if let Some((cut, _)) = line.char_indices().nth(MAX_LINE_CHARS) {
        line.truncate(cut);
        line.push('…');
    }
    line
}

fn group_prompt(spec: &ReviewSpec, lines: &[String], index: usize, total: usize) -> String {
    let mut text = spec.question_block();
    text.push_str(&format!(
        "\nGroup {index} of {total}: {} included papers, best score first.\n",
        lines.len()
    ));
    text.push_str(&lines.join("\n"));
    text.push('\n');
    text
}

fn squeeze(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The titles of `titles` that `text` does not name.
fn uncited<'a>(text: &str, titles: &'a [String]) -> Vec<&'a String> {
    let text = squeeze(&text.replace('*', ""));
    titles
        .iter()
        .filter(|t| !text.contains(&squeeze(t)))
        .collect()
}

fn italic_list(titles: &[&String]) -> String {
    titles
        .iter()
        .map(|t| format!("*{t}*"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Digest one group: ask, ask once more for what was left out, list the rest.
async fn digest_group(
    client: &ModelClient,
    prompt: &str,
    titles: &[String],
    cancel: &CancellationToken,
) -> Result<Digest, LlmError> {
    let settings = client.settings();
    let mut request = ChatRequest {
        messages: vec![Message::system(SYSTEM_PROMPT), Message::user(prompt)],
        max_tokens: Some(settings.max_output_tokens.min(MAX_DIGEST_TOKENS)),
        stream: settings.stream,
        cache_prefix: true,
        ..ChatRequest::default()
    };
    let first = client.complete(&request, "digest", cancel).await?;
    let mut text = first.text.trim().to_owned();
    let missing = uncited(&text, titles);
    if !missing.is_empty() {
        request.messages.push(Message::assistant(&first));
        request.messages.push(Message::user(format!(
            "Your part leaves out {} of the group's papers: {}. Write the whole part again, citing every paper of the group by its title in italics.",
            missing.len(),
            italic_list(&missing)
        )));
        let again = client.complete(&request, "digest", cancel).await?;
        // The second answer stands if it leaves out fewer.
        if uncited(&again.text, titles).len() < missing.len() {
            text = again.text.trim().to_owned();
        }
    }
    let missing = uncited(&text, titles);
    // An answer that names none of its papers is not about them: the group
    // is listed instead of shown with it.
    if missing.len() == titles.len() {
        let refs: Vec<&String> = titles.iter().collect();
        return Ok(Digest {
            text: format!(
                "{NO_DIGEST} the model's answer named none of its papers. Its papers: {}.",
                italic_list(&refs)
            ),
            listed: titles.len(),
            failed: Some("the answer named none of the group's papers".into()),
        });
    }
    if !missing.is_empty() {
        text.push_str(&format!("\n\n{ALSO_INCLUDED} {}.", italic_list(&missing)));
    }
    Ok(Digest {
        text,
        listed: missing.len(),
        failed: None,
    })
}

/// Digest the included papers in groups, each cached under
/// [`layout::DIGESTS_DIR`], and return the digests in group order.
pub async fn digest_included(
    ws: &Workspace,
    spec: &ReviewSpec,
    papers: &[PaperRecord],
    client: &ModelClient,
    budget: &Budget,
    cancel: &CancellationToken,
) -> Result<(Vec<Digest>, DigestStats), WorkspaceError> {
    let rows = included(ws, papers);
    let groups: Vec<&[(PaperRecord, PaperResult)]> = rows.chunks(GROUP_PAPERS).collect();
    let total = groups.len();
    let mut outcome = DigestStats {
        groups: total,
        papers: rows.len(),
        ..DigestStats::default()
    };
    let model = client.settings().model.clone();
    let mut jobs = Vec::new();
    for (i, group) in groups.iter().enumerate() {
        let lines: Vec<String> = group.iter().map(|(p, r)| paper_line(p, r)).collect();
        let titles: Vec<String> = group.iter().map(|(p, _)| citation_title(p)).collect();
        let prompt = group_prompt(spec, &lines, i + 1, total);
        let key = short_hash(&format!(
            "{PROMPT_VERSION}\0{model}\0{SYSTEM_PROMPT}\0{prompt}"
        ));
        let path = WsPath::from_parts([layout::DIGESTS_DIR, &format!("{key}.md")])?;
        jobs.push((path, prompt, titles));
    }
    let mut digests: Vec<Option<Digest>> = Vec::with_capacity(total);
    let mut to_ask = Vec::new();
    // The groups are asked all at once: each must fit beside the others.
    let (mut asked_in, mut asked_out) = (0u64, 0u64);
    for (i, (path, prompt, titles)) in jobs.iter().enumerate() {
        match ws.read_string(path) {
            Ok(text) if uncited(&text, titles).is_empty() => {
                outcome.cached += 1;
                digests.push(Some(Digest {
                    text,
                    listed: 0,
                    failed: None,
                }));
            }
            _ => {
                digests.push(None);
                let input = count_tokens(SYSTEM_PROMPT) + count_tokens(prompt);
                let output = MAX_DIGEST_TOKENS as u64;
                if let Err(OverBudget(reason)) = budget.check(asked_in + input, asked_out + output)
                {
                    outcome.stopped.get_or_insert(reason);
                    continue;
                }
                asked_in += input;
                asked_out += output;
                to_ask.push(i);
            }
        }
    }
    if outcome.stopped.is_some() || cancel.is_cancelled() {
        return Ok((Vec::new(), outcome));
    }
    // The client's gate bounds how many calls are in flight.
    let answers = join_all(to_ask.iter().map(|&i| {
        let (_, prompt, titles) = &jobs[i];
        digest_group(client, prompt, titles, cancel)
    }))
    .await;
    for (&i, answer) in to_ask.iter().zip(answers) {
        let (path, _, titles) = &jobs[i];
        let digest = match answer {
            // A digest that stands is kept for the next run; one that did
            // not is asked for again then.
            Ok(digest) => {
                if digest.failed.is_none() {
                    ws.write(path, digest.text.as_bytes())?;
                }
                digest
            }
            Err(LlmError::Cancelled) => return Ok((Vec::new(), outcome)),
            // The client held the call back for a cap: stopped, not failed;
            // the other groups' digests are still kept for the next run.
            Err(LlmError::OverBudget(reason)) => {
                outcome.stopped.get_or_insert(reason);
                continue;
            }
            // The group is still named, paper by paper, with the reason.
            Err(e) => {
                let refs: Vec<&String> = titles.iter().collect();
                Digest {
                    text: format!(
                        "No digest of this group: the model's call failed ({e}). Its papers: {}.",
                        italic_list(&refs)
                    ),
                    listed: titles.len(),
                    failed: Some(e.to_string()),
                }
            }
        };
        digests[i] = Some(digest);
    }
    Ok((digests.into_iter().flatten().collect(), outcome))
}

/// How the paragraph Quire appends for a group's papers the model left out
/// begins.
pub const ALSO_INCLUDED: &str = "Also included in this group:";
/// How the paragraph that stands for a group the model named none of begins.
pub const NO_DIGEST: &str = "No digest of this group:";

/// The synthesis as the model wrote it: without the paragraphs Quire
/// appends to list the papers the model did not name. What a measure of
/// the model's coverage reads.
pub fn model_text(synthesis: &str) -> String {
    synthesis
        .split("\n\n")
        .filter(|p| {
            let p = p.trim_start();
            !p.starts_with(ALSO_INCLUDED) && !p.starts_with(NO_DIGEST)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `overview` (the writer's text, any earlier digests cut off) with the
/// digests after it under their heading.
pub fn assemble(overview: &str, digests: &[Digest]) -> String {
    let overview = overview
        .find(DIGESTS_HEADING)
        .map_or(overview, |at| &overview[..at])
        .trim_end();
    let mut text = String::from(overview);
    if digests.is_empty() {
        return text;
    }
    if !text.is_empty() {
        text.push_str("\n\n");
    }
    text.push_str(DIGESTS_HEADING);
    text.push_str("\n\n");
    let parts: Vec<&str> = digests.iter().map(|d| d.text.trim()).collect();
    text.push_str(&parts.join("\n\n"));
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_counts_as_cited_whatever_its_spacing_case_or_italics() {
        let titles = vec![
            "Paxos Made Simple".to_owned(),
            "The Part-Time Parliament".to_owned(),
        ];
        let text = "Both *paxos made\nsimple* and others agree.";
        assert_eq!(uncited(text, &titles), vec![&titles[1]]);
    }

    #[test]
    fn the_models_text_is_the_synthesis_without_the_lists_quire_appends() {
        let synthesis = format!(
            "Overview citing *Paxos Made Simple*.\n\n{ALSO_INCLUDED} *Raft*.\n\n{NO_DIGEST} the model's answer named none of its papers. Its papers: *Zab*."
        );
        let text = model_text(&synthesis);
        assert!(text.contains("Paxos Made Simple"));
        assert!(!text.contains("Raft") && !text.contains("Zab"), "{text}");
    }

    #[test]
    fn assembling_again_replaces_the_earlier_digests_and_keeps_the_overview() {
        let digest = |t: &str| Digest {
            text: t.into(),
            listed: 0,
            failed: None,
        };
        let once = assemble("Overview.", &[digest("First group.")]);
        let twice = assemble(&once, &[digest("New group.")]);
        assert_eq!(
            twice,
            format!("Overview.\n\n{DIGESTS_HEADING}\n\nNew group.\n")
        );
        assert_eq!(assemble("Overview.\n", &[]), "Overview.");
    }
}
