//! The answer, composed from the per-paper claims alone: each claim is a
//! numbered source (paper, page, verified quote), the model writes the
//! answer citing `[n]`, and the citations are checked after: a number that
//! is no source is taken out, a sentence that cites nothing is marked. Above
//! [`GROUP_SOURCES`] sources the claims are composed in groups and the
//! groups' answers merged a few at a time, so no call grows with the number
//! of papers.

use std::collections::BTreeSet;

use futures_util::future::join_all;
use tokio_util::sync::CancellationToken;

use super::Source;
use crate::llm::{ChatRequest, LlmError, Message, ModelClient};

/// Most sources one composing call sees: about as many tokens as
/// [`MERGE_PARTS`] partial answers, so no call of either kind is larger.
pub const GROUP_SOURCES: usize = 20;

/// Partial answers one merging call sees.
pub const MERGE_PARTS: usize = 4;

/// How an unsupported sentence is marked in the answer.
pub const NO_SOURCE: &str = "*(no source)*";

pub const SYSTEM_PROMPT: &str = "You write the answer to a researcher's question from numbered sources only. Each source is a claim from a paper with a quote verified on its page. Cite every claim with the numbers of its sources in brackets right after it, like [2] or [1][4]. Use only the numbers given, and never cite a source for what it does not say. Where sources disagree, say so. If they do not answer the question, say so. Write Markdown paragraphs, at most 250 words, and nothing else.";

pub const MERGE_PROMPT: &str = "You merge partial answers to one question, each written from a different group of sources, into one answer. Keep every citation [n] exactly as given, with the claim it supports; add no numbers. Where the parts disagree, say so. Write Markdown paragraphs, at most 300 words, and nothing else.";

/// The composed answer, and the calls it took.
pub struct Composed {
    pub text: String,
    pub calls: u32,
    /// Sentences that cite no source, marked in the text.
    pub unsupported: usize,
}

/// Compose the answer to `question` from `sources` (numbered from 1): the
/// groups' answers at once (the client's gate bounds the calls in flight),
/// then merged [`MERGE_PARTS`] at a time until one answer is left.
pub async fn compose(
    client: &ModelClient,
    question: &str,
    sources: &[Source],
    cancel: &CancellationToken,
) -> Result<Composed, LlmError> {
    let asks = groups(sources).into_iter().map(|group| {
        let lines: Vec<String> = group.iter().map(|s| source_line(s)).collect();
        let user = format!(
            "Question: {}\n\nSources:\n{}\n\nWrite the answer.",
            question.trim(),
            lines.join("\n")
        );
        call(client, SYSTEM_PROMPT, user, cancel)
    });
    let mut parts: Vec<String> = join_all(asks).await.into_iter().collect::<Result<_, _>>()?;
    let mut calls = parts.len() as u32;
    while parts.len() > 1 {
        let merges = parts.chunks(MERGE_PARTS).map(|chunk| {
            let listed: Vec<String> = chunk
                .iter()
                .enumerate()
                .map(|(i, p)| format!("Part {}:\n{}", i + 1, p.trim()))
                .collect();
            let user = format!(
                "Question: {}\n\n{}\n\nMerge these into one answer.",
                question.trim(),
                listed.join("\n\n")
            );
            async move {
                if chunk.len() == 1 {
                    return Ok((chunk[0].clone(), 0));
                }
                call(client, MERGE_PROMPT, user, cancel)
                    .await
                    .map(|t| (t, 1))
            }
        });
        let merged: Vec<(String, u32)> = join_all(merges)
            .await
            .into_iter()
            .collect::<Result<_, _>>()?;
        calls += merged.iter().map(|(_, n)| n).sum::<u32>();
        parts = merged.into_iter().map(|(t, _)| t).collect();
    }
    let text = parts.pop().unwrap_or_default();
    let known: BTreeSet<usize> = sources.iter().map(|s| s.n).collect();
    let (text, unsupported) = check_citations(&text, &known);
    Ok(Composed {
        text,
        calls,
        unsupported,
    })
}

/// One source as the model sees it.
fn source_line(s: &Source) -> String {
    format!(
        "[{}] *{}* (p. {}): {} — \"{}\"",
        s.n, s.title, s.page, s.claim, s.quote
    )
}

/// Sources in groups of at most [`GROUP_SOURCES`], a paper's claims kept together.
fn groups(sources: &[Source]) -> Vec<Vec<&Source>> {
    let mut groups: Vec<Vec<&Source>> = Vec::new();
    let mut current: Vec<&Source> = Vec::new();
    let mut i = 0;
    while i < sources.len() {
        let paper = &sources[i].paper;
        let end = sources[i..]
            .iter()
            .position(|s| &s.paper != paper)
            .map_or(sources.len(), |p| i + p);
        let run: Vec<&Source> = sources[i..end].iter().collect();
        if !current.is_empty() && current.len() + run.len() > GROUP_SOURCES {
            groups.push(std::mem::take(&mut current));
        }
        current.extend(run);
        i = end;
    }
    if !current.is_empty() {
        groups.push(current);
    }
    groups
}

async fn call(
    client: &ModelClient,
    system: &str,
    user: String,
    cancel: &CancellationToken,
) -> Result<String, LlmError> {
    let settings = client.settings();
    let request = ChatRequest {
        messages: vec![Message::system(system), Message::user(user)],
        max_tokens: Some(settings.max_output_tokens.min(1_200)),
        stream: settings.stream,
        ..ChatRequest::default()
    };
    let answer = client.complete(&request, "ask_compose", cancel).await?;
    let text = match answer.text.rfind("</think>") {
        Some(end) => &answer.text[end + "</think>".len()..],
        None => &answer.text,
    };
    Ok(text.trim().to_owned())
}

/// Take out citations of numbers that are no source and mark each sentence
/// that cites nothing; returns the text and how many sentences were marked.
pub fn check_citations(text: &str, known: &BTreeSet<usize>) -> (String, usize) {
    let mut unsupported = 0;
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|paragraph| {
            let cleaned = drop_unknown(paragraph.trim(), known);
            // Headings and list markers are framing, not claims.
            if cleaned.starts_with('#') || cleaned.is_empty() {
                return cleaned;
            }
            let sentences = split_sentences(&cleaned);
            sentences
                .into_iter()
                .map(|s| {
                    if cites(&s) || is_framing(&s) {
                        s
                    } else {
                        unsupported += 1;
                        format!("{s} {NO_SOURCE}")
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    (paragraphs.join("\n\n"), unsupported)
}

/// Whether a sentence cites a source.
fn cites(sentence: &str) -> bool {
    citations(sentence).next().is_some()
}

/// A sentence that makes no claim of its own: that the sources do not
/// answer, or that they disagree.
fn is_framing(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    [
        "do not answer",
        "does not answer",
        "no source",
        "the sources",
        "none of the",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// The numbers cited in a text, as `[n]`.
pub fn citations(text: &str) -> impl Iterator<Item = usize> + '_ {
    text.match_indices('[').filter_map(move |(i, _)| {
        let rest = &text[i + 1..];
        let end = rest.find(']')?;
        rest[..end].trim().parse().ok()
    })
}

fn drop_unknown(text: &str, known: &BTreeSet<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find(']') {
            Some(end) if after[..end].trim().parse::<usize>().is_ok() => {
                let n: usize = after[..end].trim().parse().unwrap_or(0);
                if known.contains(&n) {
                    out.push_str(&rest[i..i + end + 2]);
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out.replace(" .", ".").replace("  ", " ")
}

/// Sentences of a paragraph: split after ". ", "! " or "? " (and the
/// citations that follow the stop stay with their sentence).
fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        current.push(chars[i]);
        let stop = matches!(chars[i], '.' | '!' | '?');
        if stop && chars.get(i + 1).is_none_or(|c| c.is_whitespace()) {
            // Citations right after the stop belong to this sentence.
            let mut j = i + 1;
            while j < chars.len() && chars[j] == ' ' && chars.get(j + 1) == Some(&'[') {
                let close = chars[j..].iter().position(|c| *c == ']').map(|p| j + p);
                let Some(close) = close else { break };
                current.extend(&chars[j..=close]);
                j = close + 1;
            }
            out.push(current.trim().to_owned());
            current.clear();
            i = j;
            continue;
        }
        i += 1;
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize, paper: &str) -> Source {
        Source {
            n,
            paper: paper.into(),
            title: paper.into(),
            page: 1,
            quote: "q".into(),
            claim: "c".into(),
        }
    }

    #[test]
    fn unknown_citations_go_and_unsupported_sentences_are_marked() {
        let known = BTreeSet::from([1, 2]);
        let (text, unsupported) = check_citations(
            "Raft elects a leader [1]. Paxos is older [7]. Both replicate logs [1][2].\n\nThe sources do not say how fast.",
            &known,
        );
        assert_eq!(
            text,
            format!(
                "Raft elects a leader [1]. Paxos is older. {NO_SOURCE} Both replicate logs [1][2].\n\nThe sources do not say how fast."
            )
        );
        assert_eq!(unsupported, 1);
        assert_eq!(citations("a [3] b [x] c [12]").collect::<Vec<_>>(), [3, 12]);
    }

    #[test]
    fn sources_are_grouped_without_splitting_a_paper() {
        let mut sources = Vec::new();
        for paper in 0..30 {
            for _ in 0..3 {
                sources.push(source(sources.len() + 1, &format!("p{paper}")));
            }
        }
        let groups = groups(&sources);
        assert_eq!(groups.iter().map(Vec::len).sum::<usize>(), 90);
        assert!(groups.iter().all(|g| g.len() <= GROUP_SOURCES));
        for g in &groups {
            let first = &g[0].paper;
            let last = &g[g.len() - 1].paper;
            assert_eq!(g.iter().filter(|s| &s.paper == last).count(), 3);
            assert_eq!(g.iter().filter(|s| &s.paper == first).count(), 3);
        }
    }
}
