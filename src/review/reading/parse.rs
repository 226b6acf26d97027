//! Reading a model's answer about a paper, tolerantly: the JSON object may come
//! fenced, after thinking text, as a tool call's arguments, with numbers as
//! strings, a summary as one string instead of sentences, or a verdict in
//! another case. What cannot be read is an error the caller re-asks about.

use serde_json::{Map, Value};

use crate::review::{CriterionOutcome, CriterionVerdict, Quote, Verdict};

/// What the reader said about one paper (or one part of it), before checking.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReaderAnswer {
    pub summary: Vec<Quote>,
    pub key_points: Vec<String>,
    pub score: f64,
    pub verdict: Option<Verdict>,
    pub rationale: String,
    pub evidence: Vec<Quote>,
    pub criteria: Vec<CriterionVerdict>,
    /// The paper's title and authors as printed on page one, when the part
    /// read holds it and the reader gave them (unchecked here).
    pub title: Option<String>,
    pub authors: Vec<String>,
}

/// Markers of a chat template that belong to the prompt's frame, never to
/// an answer: ChatML's, Gemma's, Llama 3's and Mistral's.
const TEMPLATE_MARKERS: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<start_of_turn>",
    "<end_of_turn>",
    "<|eot_id|>",
    "<|start_header_id|>",
    "[INST]",
];

/// A malformed answer as the researcher is shown it: its opening, and when
/// it holds a chat template's markers, what that usually means. A server
/// that frames the prompt in a template the model was not trained on (a
/// model file with no template of its own gets ChatML from llama.cpp), or
/// a base model that was never taught to answer, writes such markers back
/// instead of an answer; no re-ask mends that, the setup does.
pub fn shown_answer(text: &str) -> String {
    let opening: String = text.chars().take(200).collect();
    match TEMPLATE_MARKERS.iter().find(|m| text.contains(*m)) {
        Some(marker) => format!(
            "{opening} (the answer holds the chat-template marker {marker}: the server's chat template may not match the model, or the model is a base model rather than one tuned to follow instructions)"
        ),
        None => opening,
    }
}

/// The first JSON object in `text`.
pub fn json_object(text: &str) -> Option<Map<String, Value>> {
    // Thinking text may contain braces; what follows it is the answer.
    let text = match text.rfind("</think>") {
        Some(end) => &text[end + "</think>".len()..],
        None => text,
    };
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let candidate = &text[start..start + i + 1];
                    return serde_json::from_str::<Value>(candidate)
                        .ok()?
                        .as_object()
                        .cloned();
                }
            }
            _ => {}
        }
    }
    None
}

/// Read an answer object; `None` when it has neither a score nor a summary.
pub fn answer(object: &Map<String, Value>) -> Option<ReaderAnswer> {
    let get = |names: &[&str]| names.iter().find_map(|n| object.get(*n));
    let score = get(&["score", "relevance", "relevance_score"]).and_then(number);
    let summary = get(&["summary", "summary_sentences"])
        .map(quotes)
        .unwrap_or_default();
    if score.is_none() && summary.is_empty() {
        return None;
    }
    Some(ReaderAnswer {
        summary,
        key_points: get(&["key_points", "keyPoints", "keypoints"])
            .map(strings)
            .unwrap_or_default(),
        // Kept as given, off the scale or missing (NaN): the coherence check
        // says so to the model rather than a clamp hiding it.
        score: score.unwrap_or(f64::NAN),
        verdict: get(&["verdict", "decision"])
            .and_then(Value::as_str)
            .and_then(verdict),
        rationale: get(&["rationale", "reason", "justification"])
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned(),
        evidence: get(&["evidence", "quotes", "evidence_quotes"])
            .map(quotes)
            .unwrap_or_default(),
        criteria: get(&["criteria", "criterion_verdicts"])
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(criterion).collect())
            .unwrap_or_default(),
        title: get(&["title", "paper_title"])
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned),
        authors: get(&["authors", "author_names"])
            .map(strings)
            .unwrap_or_default(),
    })
}

fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().split('/').next()?.trim().parse().ok(),
        _ => None,
    }
    .filter(|n: &f64| n.is_finite())
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|v| match v {
                Value::String(s) => Some(s.trim().to_owned()),
                Value::Object(o) => o
                    .get("text")
                    .and_then(Value::as_str)
                    .map(|s| s.trim().to_owned()),
                _ => None,
            })
            .filter(|s| !s.is_empty())
            .collect(),
        Value::String(s) if !s.trim().is_empty() => vec![s.trim().to_owned()],
        _ => Vec::new(),
    }
}

/// Passages with pages: `[{text, page}]`, `["..."]` or one string.
fn quotes(value: &Value) -> Vec<Quote> {
    let one = |v: &Value| -> Option<Quote> {
        match v {
            Value::String(s) if !s.trim().is_empty() => Some(Quote {
                text: s.trim().to_owned(),
                page: 0,
            }),
            Value::Object(o) => {
                let text = ["text", "quote", "sentence", "passage"]
                    .iter()
                    .find_map(|k| o.get(*k).and_then(Value::as_str))?
                    .trim()
                    .to_owned();
                let page = o.get("page").and_then(number).unwrap_or(0.0);
                (!text.is_empty()).then_some(Quote {
                    text,
                    page: page.max(0.0) as usize,
                })
            }
            _ => None,
        }
    };
    match value {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        Value::String(s) => split_sentences(s)
            .into_iter()
            .map(|text| Quote { text, page: 0 })
            .collect(),
        other => one(other).into_iter().collect(),
    }
}

fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for word in text.split_whitespace() {
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
        if word.ends_with(['.', '?', '!']) && current.split(' ').count() >= 4 {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

fn verdict(raw: &str) -> Option<Verdict> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "include" | "included" | "relevant" | "yes" => Some(Verdict::Include),
        "maybe" | "unclear" | "uncertain" | "partial" => Some(Verdict::Maybe),
        "exclude" | "excluded" | "irrelevant" | "not relevant" | "no" => Some(Verdict::Exclude),
        _ => None,
    }
}

fn criterion(value: &Value) -> Option<CriterionVerdict> {
    let o = value.as_object()?;
    let name = o
        .get("criterion")
        .or_else(|| o.get("name"))
        .and_then(Value::as_str)?;
    let outcome = match o
        .get("outcome")
        .or_else(|| o.get("verdict"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
        .replace([' ', '-'], "_")
        .as_str()
    {
        "met" | "yes" | "true" => CriterionOutcome::Met,
        "not_met" | "no" | "false" | "unmet" => CriterionOutcome::NotMet,
        _ => CriterionOutcome::Unclear,
    };
    Some(CriterionVerdict {
        criterion: name.trim().to_owned(),
        outcome,
        note: o
            .get("note")
            .or_else(|| o.get("reason"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim()
            .to_owned(),
        // The passage that shows it, as `{text, page}` (page 0 when none is
        // given: then it cannot be verified, and excludes nothing).
        evidence: ["quote", "evidence", "passage"]
            .iter()
            .find_map(|k| o.get(*k))
            .map(|v| match v {
                Value::Array(_) => quotes(v),
                other => quotes(&Value::Array(vec![other.clone()])),
            })
            .and_then(|found| found.into_iter().next()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_fenced_answer_after_thinking_with_loose_types() {
        let text = "<think>maybe {score: 3}</think>\n```json\n{\"summary\": \"It builds an index. It is fast on real data.\", \"score\": \"7/10\", \"verdict\": \"Include\", \"evidence\": [{\"quote\": \"learned indexes beat B-trees\", \"page\": \"2\"}], \"criteria\": [{\"criterion\": \"Empirical\", \"outcome\": \"not met\", \"note\": \"x\"}, \"junk\"]}\n```";
        let object = json_object(text).unwrap();
        let a = answer(&object).unwrap();
        assert_eq!(a.score, 7.0);
        assert_eq!(a.verdict, Some(Verdict::Include));
        assert_eq!(a.summary.len(), 2);
        assert_eq!(a.evidence[0].page, 2);
        assert_eq!(a.criteria.len(), 1);
        assert_eq!(a.criteria[0].outcome, CriterionOutcome::NotMet);
    }

    #[test]
    fn an_answer_with_neither_score_nor_summary_is_not_an_answer() {
        let object = json_object("{\"hello\": \"world\"}").unwrap();
        assert!(answer(&object).is_none());
        assert!(json_object("no json here").is_none());
        let off_scale = answer(&json_object("{\"score\": 42}").unwrap()).unwrap();
        assert_eq!(off_scale.score, 42.0);
    }

    #[test]
    fn an_answer_that_writes_back_a_chat_template_says_what_that_means() {
        let shown = shown_answer("<|im_end|>user\n<|im_end|>user");
        assert!(shown.starts_with("<|im_end|>user"), "{shown}");
        assert!(shown.contains("chat-template marker <|im_end|>"), "{shown}");
        assert!(shown.contains("base model"), "{shown}");
        let plain = "I think the paper is relevant.".repeat(20);
        assert_eq!(shown_answer(&plain).chars().count(), 200);
    }
}
