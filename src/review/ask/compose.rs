//! The answer, composed from the per-paper claims alone: each claim is a
//! numbered source (paper, page, verified quote), the model writes the
//! answer citing `[n]`, and the citations are checked after: a number that
//! is no source is taken out, a sentence that cites nothing is marked. Above
//! [`CALL_BUDGET_TOKENS`] of sources the claims are composed in groups and
//! the groups' answers merged as many as fit at a time, so no call's prompt
//! grows with the number of papers: every one is its instructions plus at
//! most the budget.

use std::collections::BTreeSet;

use futures_util::future::join_all;
use tokio_util::sync::CancellationToken;

use super::Source;
use crate::llm::accounting::count_tokens;
use crate::llm::{ChatRequest, LlmError, Message, ModelClient};

/// Tokens of sources (or of partial answers) one composing call sees. A
/// budget in tokens, not a count of sources, because quotes differ tenfold
/// in length. About ten claims, or two to three partial answers: few enough
/// that a model cites each one with care and a small local model holds them
/// with room to answer, and few enough that a question most of ten papers
/// answer already fills a call, so the composing prompt is the same size at
/// ten papers as at a thousand (a question fewer papers answer needs less).
pub const CALL_BUDGET_TOKENS: u64 = 1_000;

/// How an unsupported sentence is marked in the answer.
pub const NO_SOURCE: &str = "*(no source)*";

/// Words the answer may have.
pub const ANSWER_WORDS: usize = 300;

/// Words a partial answer (one that will be merged) may have: short enough
/// that two to three of them fit a merging call's budget.
pub const PART_WORDS: usize = 150;

/// Instructions for composing from sources, the answer at most `words` long.
pub fn compose_prompt(words: usize) -> String {
    format!(
        "You write the answer to a researcher's question from numbered sources only. Each source is a claim from a paper with a quote verified on its page. Cite every claim with the numbers of its sources in brackets right after it, like [2] or [1][4]. Use only the numbers given, and never cite a source for what it does not say. Where sources disagree, say so. If they do not answer the question, say so. Write Markdown paragraphs, at most {words} words, and nothing else."
    )
}

/// Instructions for merging partial answers, the result at most `words` long.
pub fn merge_prompt(words: usize) -> String {
    format!(
        "You merge partial answers to one question, each written from a different group of sources, into one answer. Keep every citation [n] exactly as given, with the claim it supports; add no numbers. Where the parts disagree, say so. Write Markdown paragraphs, at most {words} words, and nothing else."
    )
}

/// The word limit of a call: the answer's when it is the last, a part's
/// when its text will be merged again.
fn words_for(last: bool) -> usize {
    if last { ANSWER_WORDS } else { PART_WORDS }
}

/// The composed answer, and the calls it took.
pub struct Composed {
    pub text: String,
    pub calls: u32,
    /// Calls one after another: the groups, then each level of merges.
    pub rounds: u32,
    /// Sentences that cite no source, marked in the text.
    pub unsupported: usize,
}

/// Compose the answer to `question` from `sources` (numbered from 1): the
/// groups' answers at once (the client's gate bounds the calls in flight),
/// then merged as many as fit the budget at a time until one answer is left.
pub async fn compose(
    client: &ModelClient,
    question: &str,
    sources: &[Source],
    cancel: &CancellationToken,
) -> Result<Composed, LlmError> {
    let lines: Vec<String> = sources.iter().map(source_line).collect();
    let groups = pack(&lines, 1);
    let system = compose_prompt(words_for(groups.len() == 1));
    let asks = groups.into_iter().map(|group| {
        let user = format!(
            "Question: {}\n\nSources:\n{}\n\nWrite the answer.",
            question.trim(),
            group.join("\n")
        );
        call(client, &system, user, "ask_compose", cancel)
    });
    let mut parts: Vec<String> = join_all(asks).await.into_iter().collect::<Result<_, _>>()?;
    let mut calls = parts.len() as u32;
    let mut rounds = 1;
    while parts.len() > 1 {
        // At least two parts a merge, so the answers always get fewer.
        let chunks = pack(&parts, 2);
        let system = merge_prompt(words_for(chunks.len() == 1));
        let merges = chunks.into_iter().map(|chunk| {
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
            let system = &system;
            async move {
                if chunk.len() == 1 {
                    return Ok((chunk[0].to_owned(), 0));
                }
                call(client, system, user, "ask_merge", cancel)
                    .await
                    .map(|t| (t, 1))
            }
        });
        let merged: Vec<(String, u32)> = join_all(merges)
            .await
            .into_iter()
            .collect::<Result<_, _>>()?;
        calls += merged.iter().map(|(_, n)| n).sum::<u32>();
        rounds += 1;
        parts = merged.into_iter().map(|(t, _)| t).collect();
    }
    let text = parts.pop().unwrap_or_default();
    let known: BTreeSet<usize> = sources.iter().map(|s| s.n).collect();
    let (text, unsupported) = check_citations(&text, &known);
    Ok(Composed {
        text,
        calls,
        rounds,
        unsupported,
    })
}

/// The composing calls for sources of about `source_tokens` in all, at
/// about [`PART_TOKENS`] a partial answer: the groups, then the merges.
pub fn expected_calls(source_tokens: u64) -> u64 {
    let groups = source_tokens.div_ceil(CALL_BUDGET_TOKENS).max(1);
    let per_merge = (CALL_BUDGET_TOKENS / PART_TOKENS).max(2);
    groups + (groups - 1).div_ceil(per_merge - 1)
}

/// Tokens of a partial answer, about ([`PART_WORDS`] words and citations).
pub const PART_TOKENS: u64 = 300;

/// A text's size against the budget: its tokens by our vocabulary or a token
/// per four bytes, whichever is more, so the budget holds under a model's own
/// tokenizer too (they count anywhere from 3 to 5 bytes a token).
fn tokens_of(text: &str) -> u64 {
    count_tokens(text).max(text.len().div_ceil(4) as u64) + 1
}

/// Texts in order, packed into runs of at most [`CALL_BUDGET_TOKENS`]
/// tokens; a run takes at least `min` texts (when there are) whatever their
/// size, so a very long one still goes somewhere and merges always make
/// progress.
fn pack<T: AsRef<str>>(texts: &[T], min: usize) -> Vec<Vec<&str>> {
    let mut runs: Vec<Vec<&str>> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    let mut tokens = 0;
    for text in texts {
        let text = text.as_ref();
        let size = tokens_of(text);
        if current.len() >= min && tokens + size > CALL_BUDGET_TOKENS {
            runs.push(std::mem::take(&mut current));
            tokens = 0;
        }
        current.push(text);
        tokens += size;
    }
    // A last run shorter than `min` stays as it is: a lone partial answer
    // goes on to the next round of merges unchanged.
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// One source as the model sees it.
fn source_line(s: &Source) -> String {
    format!(
        "[{}] *{}* ({}): {} — \"{}\"",
        s.n,
        s.title,
        s.place(),
        s.claim,
        s.quote
    )
}

async fn call(
    client: &ModelClient,
    system: &str,
    user: String,
    purpose: &str,
    cancel: &CancellationToken,
) -> Result<String, LlmError> {
    let settings = client.settings();
    let request = ChatRequest {
        messages: vec![Message::system(system), Message::user(user)],
        max_tokens: Some(settings.max_output_tokens.min(1_200)),
        stream: settings.stream,
        ..ChatRequest::default()
    };
    let answer = client.complete(&request, purpose, cancel).await?;
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
/// answer, or that they disagree. It must say only that: a phrase such as
/// "the sources" does not excuse "the sources show that Raft is faster",
/// and a framing clause does not carry a claim joined to it by "but".
fn is_framing(sentence: &str) -> bool {
    const SAYS_NOTHING: [&str; 14] = [
        "do not answer",
        "does not answer",
        "do not address",
        "does not address",
        "do not say",
        "does not say",
        "do not report",
        "does not report",
        "not addressed",
        "no source",
        "none of the sources",
        "none of the papers",
        "the sources disagree",
        "the sources differ",
    ];
    const JOINS_A_CLAIM: [&str; 6] = [
        " but ",
        " however",
        " although",
        " while ",
        " whereas ",
        ";",
    ];
    let lower = sentence.to_lowercase();
    SAYS_NOTHING.iter().any(|p| lower.contains(p))
        && !JOINS_A_CLAIM.iter().any(|j| lower.contains(j))
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
    fn a_framing_phrase_does_not_excuse_a_claim() {
        let known = BTreeSet::from([1]);
        for claim in [
            "The sources show that Raft is faster than Paxos.",
            "None of the nodes fail during the election.",
            "The sources do not say how fast it is, but Raft is clearly faster.",
        ] {
            let (text, unsupported) = check_citations(claim, &known);
            assert_eq!(unsupported, 1, "{text}");
            assert!(text.ends_with(NO_SOURCE), "{text}");
        }
        for framing in [
            "None of the sources addresses energy use.",
            "The sources disagree on how leaders are chosen.",
            "The papers do not report latency.",
        ] {
            assert_eq!(check_citations(framing, &known).1, 0, "{framing}");
        }
    }

    #[test]
    fn runs_fill_the_budget_and_never_pass_it() {
        let claim = "Raft elects a leader by randomized timeouts and replicates a log.";
        let texts: Vec<String> = (0..200).map(|i| format!("[{i}] {claim}")).collect();
        let runs = pack(&texts, 1);
        assert_eq!(runs.iter().map(Vec::len).sum::<usize>(), 200);
        let sizes: Vec<u64> = runs
            .iter()
            .map(|r| r.iter().map(|t| tokens_of(t)).sum())
            .collect();
        assert!(sizes.iter().all(|&s| s <= CALL_BUDGET_TOKENS), "{sizes:?}");
        // Every run but the last is full to within one text.
        let one = tokens_of(&texts[0]);
        for s in &sizes[..sizes.len() - 1] {
            assert!(s + one > CALL_BUDGET_TOKENS, "{sizes:?}");
        }
        // Order kept: a paper's claims stay next to each other.
        let flat: Vec<&str> = runs.into_iter().flatten().collect();
        assert_eq!(flat, texts.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn merges_take_at_least_two_parts_however_long() {
        let long = "word ".repeat(3_000);
        let parts = vec![long.clone(), long.clone(), long];
        let runs = pack(&parts, 2);
        assert_eq!(
            runs.iter().map(Vec::len).collect::<Vec<_>>(),
            [2, 1],
            "two over the budget, the lone last one left for the next round"
        );
        assert_eq!(pack(&["a", "b"], 2).len(), 1);
        // Short parts: as many as fit, never past the budget.
        let part = "word ".repeat(190);
        let five = vec![part.clone(); 5];
        let runs = pack(&five, 2);
        assert_eq!(runs.iter().map(Vec::len).collect::<Vec<_>>(), [4, 1]);
        assert_eq!(expected_calls(100), 1);
        assert_eq!(expected_calls(CALL_BUDGET_TOKENS * 4), 6);
    }
}
