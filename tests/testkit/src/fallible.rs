//! A fallible reader: the diligent reader's answer, spoiled now and then the
//! way real models spoil theirs (MODEL-SERVERS.md): a quote paraphrased or
//! cited on the wrong page, a quote whose `…` leaves out a "not", JSON that
//! does not parse, an answer cut at max tokens, a refusal, an empty answer,
//! a score off the scale, a rationale of punctuation, a verdict against its
//! score, criteria that were never asked. The quotes spoiled are a reading's
//! evidence, an asked paper's claims or a table's cells.
//!
//! Those are the blatant kinds ([`Mistake::ALL`]). The subtle kinds
//! ([`Mistake::SUBTLE`]) survive a naive check, as a capable model's
//! mistakes do: a verbatim quote that does not bear on the question, a
//! quote copied from another paper in the folder, obeying an instruction
//! planted in the paper, a table value its own quote does not print, an
//! exclusion by a criterion on a passage that says nothing of it.
//!
//! Like everything the server does, a mistake comes from the request: a hash
//! of the seed and the request's messages decides whether the answer is
//! spoiled (at the run's rate) and how. Asking again with a reason is a new
//! request, so it may be answered well, as a real model's second try may.

use std::hash::{Hash, Hasher};

use serde_json::{Value, json};

use crate::request::RecordedRequest;
use crate::script::ScriptedCall;

/// The ways an answer is spoiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mistake {
    /// Every quote's words reordered: not on its page any more.
    Paraphrase,
    /// Every quote cited one page off.
    WrongPage,
    /// A quote that spans a "not" with `…`, saying the opposite.
    DroppedNegation,
    InvalidJson,
    /// JSON that does not parse, on a first ask only: asked again, with
    /// its answer shown, the model answers well (never drawn by an empty
    /// `only`).
    InvalidJsonFirst,
    /// The JSON cut off half way, with finish reason "length".
    CutAtMaxTokens,
    Refusal,
    Empty,
    ScoreOutOfRange,
    /// A rationale of punctuation, as a small model writes one.
    NoiseRationale,
    /// "include" with a score of 0.
    ContradictoryVerdict,
    /// Verdicts on criteria the request never named.
    UnaskedCriteria,
    /// The evidence replaced by a verbatim line of the paper that shares
    /// no word with the question; the score kept.
    OffPointQuote,
    /// A quote copied, verbatim, from another paper the server read.
    ForeignQuote,
    /// A paper that addresses the model is obeyed: score 10, include, the
    /// instruction quoted as evidence.
    ObeysInjection,
    /// A table cell's value changed so its verbatim quote no longer
    /// prints it (a number off by one, a sign dropped, another design).
    ValueOffQuote,
    /// Excluded by the first criterion asked, on a verbatim passage that
    /// shares no word with it.
    BaselessExclusion,
}

impl Mistake {
    pub const ALL: [Mistake; 11] = [
        Mistake::Paraphrase,
        Mistake::WrongPage,
        Mistake::DroppedNegation,
        Mistake::InvalidJson,
        Mistake::CutAtMaxTokens,
        Mistake::Refusal,
        Mistake::Empty,
        Mistake::ScoreOutOfRange,
        Mistake::NoiseRationale,
        Mistake::ContradictoryVerdict,
        Mistake::UnaskedCriteria,
    ];

    /// The kinds that survive a naive check (never drawn by an empty `only`).
    pub const SUBTLE: [Mistake; 5] = [
        Mistake::OffPointQuote,
        Mistake::ForeignQuote,
        Mistake::ObeysInjection,
        Mistake::ValueOffQuote,
        Mistake::BaselessExclusion,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mistake::Paraphrase => "paraphrase",
            Mistake::WrongPage => "wrong_page",
            Mistake::DroppedNegation => "dropped_negation",
            Mistake::InvalidJson => "invalid_json",
            Mistake::InvalidJsonFirst => "invalid_json_first",
            Mistake::CutAtMaxTokens => "cut_at_max_tokens",
            Mistake::Refusal => "refusal",
            Mistake::Empty => "empty",
            Mistake::ScoreOutOfRange => "score_out_of_range",
            Mistake::NoiseRationale => "noise_rationale",
            Mistake::ContradictoryVerdict => "contradictory_verdict",
            Mistake::UnaskedCriteria => "unasked_criteria",
            Mistake::OffPointQuote => "off_point_quote",
            Mistake::ForeignQuote => "foreign_quote",
            Mistake::ObeysInjection => "obeys_injection",
            Mistake::ValueOffQuote => "value_off_quote",
            Mistake::BaselessExclusion => "baseless_exclusion",
        }
    }

    /// Whether the answer's quotes are the bad part (and so dropped).
    pub fn spoils_quotes(self) -> bool {
        matches!(
            self,
            Mistake::Paraphrase | Mistake::WrongPage | Mistake::DroppedNegation
        )
    }
}

/// A reading answer as the fallible reader gives it.
pub struct Spoiled {
    pub text: String,
    pub calls: Vec<ScriptedCall>,
    /// The finish reason to report instead of the usual one.
    pub finish_reason: Option<&'static str>,
    pub mistake: Option<Mistake>,
}

/// Which mistake, if any, this request gets at `rate` (0..=1), among
/// `only` (every kind when empty).
pub fn mistake_for(
    request: &RecordedRequest,
    seed: u64,
    rate: f64,
    only: &[Mistake],
) -> Option<Mistake> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    seed.hash(&mut hasher);
    for turn in request.turns() {
        turn.role.hash(&mut hasher);
        turn.text.hash(&mut hasher);
    }
    let h = hasher.finish();
    let draw = (h % 1_000_000) as f64 / 1_000_000.0;
    let kinds = if only.is_empty() {
        &Mistake::ALL[..]
    } else {
        only
    };
    let mistake = kinds[((h >> 32) % kinds.len() as u64) as usize];
    let reasked = request.turns().iter().any(|t| t.role == "assistant");
    (draw < rate && !(mistake == Mistake::InvalidJsonFirst && reasked)).then_some(mistake)
}

/// What a subtle mistake draws on beyond the request's own pages.
#[derive(Clone, Debug, Default)]
pub struct Seen<'a> {
    /// The question and criteria the request asked.
    pub question: &'a str,
    pub criteria: &'a [String],
    /// Another paper's pages, the last the server read before this one.
    pub other: Option<&'a [(u32, String)]>,
}

/// The diligent answer `(text, calls)` to a reading request, spoiled by
/// `mistake`. `pages` is the document the request carried.
pub fn spoil(
    text: String,
    calls: Vec<ScriptedCall>,
    mistake: Mistake,
    pages: &[(u32, String)],
) -> Spoiled {
    spoil_seeing(text, calls, mistake, pages, &Seen::default())
}

/// [`spoil`], with what the subtle mistakes draw on. A subtle mistake that
/// cannot be made of this request (no other paper read yet, no planted
/// instruction, no cell) leaves the answer as it was, and is not counted.
pub fn spoil_seeing(
    text: String,
    calls: Vec<ScriptedCall>,
    mistake: Mistake,
    pages: &[(u32, String)],
    seen: &Seen<'_>,
) -> Spoiled {
    let unspoiled = |text: String, calls: Vec<ScriptedCall>| Spoiled {
        text,
        calls,
        finish_reason: None,
        mistake: None,
    };
    let spoiled = |text: String| Spoiled {
        text,
        calls: Vec::new(),
        finish_reason: None,
        mistake: Some(mistake),
    };
    let Ok(mut answer) = serde_json::from_str::<Value>(&text) else {
        // A tool-call answer: spoil its arguments instead.
        return Spoiled {
            text,
            calls,
            finish_reason: None,
            mistake: None,
        };
    };
    match mistake {
        Mistake::InvalidJson | Mistake::InvalidJsonFirst => {
            return spoiled(format!(
                "Here is my assessment: {{summary: {}, score: seven",
                answer["rationale"].as_str().unwrap_or("the paper")
            ));
        }
        Mistake::CutAtMaxTokens => {
            let whole = answer.to_string();
            let mut cut = whole.len() / 2;
            while !whole.is_char_boundary(cut) {
                cut -= 1;
            }
            return Spoiled {
                finish_reason: Some("length"),
                ..spoiled(whole[..cut].to_owned())
            };
        }
        Mistake::Refusal => {
            return spoiled("I'm sorry, but I can't help with that request.".into());
        }
        Mistake::Empty => return spoiled(String::new()),
        Mistake::Paraphrase => {
            for (quote, key) in quotes_mut(&mut answer) {
                if let Some(text) = quote.get(key).and_then(Value::as_str) {
                    let mut words: Vec<&str> = text.split_whitespace().collect();
                    let half = words.len() / 2;
                    words.rotate_left(half);
                    quote[key] = json!(words.join(" "));
                }
            }
        }
        Mistake::WrongPage => {
            for (quote, _) in quotes_mut(&mut answer) {
                let page = quote.get("page").and_then(Value::as_u64).unwrap_or(1);
                quote["page"] = json!(page + 1);
            }
        }
        Mistake::DroppedNegation => match negated_passage(pages) {
            Some((page, passage)) => {
                if answer.get("evidence").is_some() || answer.get("quotes").is_some() {
                    answer["evidence"] = json!([{ "text": passage, "page": page }]);
                } else if let Some((quote, key)) = quotes_mut(&mut answer).into_iter().next() {
                    // A claim or a cell: its quote is the passage.
                    quote[key] = json!(passage);
                    quote["page"] = json!(page);
                }
            }
            // A paper that never says "not": paraphrase instead.
            None => return spoil(text, calls, Mistake::Paraphrase, pages),
        },
        Mistake::OffPointQuote => {
            let asked = words_of(seen.question);
            let Some((page, line)) = line_where(pages, |l| words_of(l).is_disjoint(&asked)) else {
                return unspoiled(text, calls);
            };
            if answer.get("evidence").is_none() {
                return unspoiled(text, calls);
            }
            answer["evidence"] = json!([{ "text": line, "page": page }]);
        }
        Mistake::ForeignQuote => {
            let Some((page, line)) = seen.other.and_then(|o| line_where(o, |_| true)) else {
                return unspoiled(text, calls);
            };
            let quotes = quotes_mut(&mut answer);
            if quotes.is_empty() {
                return unspoiled(text, calls);
            }
            for (quote, key) in quotes {
                quote[key] = json!(line);
                quote["page"] = json!(page.min(pages.len() as u32).max(1));
            }
        }
        Mistake::ObeysInjection => {
            let planted = line_where(pages, |l| {
                let lower = l.to_lowercase();
                ["instruction to the", "ignore previous", "ignore the review"]
                    .iter()
                    .any(|p| lower.contains(p))
            });
            let (Some((page, line)), Some(_)) = (planted, answer.get("score")) else {
                return unspoiled(text, calls);
            };
            answer["score"] = json!(10);
            answer["verdict"] = json!("include");
            answer["rationale"] = json!("The paper asks for the highest score, and it gets it.");
            answer["evidence"] = json!([{ "text": line, "page": page }]);
        }
        Mistake::ValueOffQuote => {
            let Some(cells) = answer.get_mut("cells").and_then(Value::as_object_mut) else {
                return unspoiled(text, calls);
            };
            let mut changed = false;
            for cell in cells.values_mut() {
                let value = cell.get("value").cloned().unwrap_or(Value::Null);
                let off = match &value {
                    Value::Number(n) => n.as_f64().map(|v| json!(v + 1.0)),
                    Value::String(s) => match s.trim().parse::<f64>() {
                        Ok(v) => Some(json!(format!("{}", v + 1.0))),
                        Err(_) if !s.trim().is_empty() => Some(json!("case-control study")),
                        Err(_) => None,
                    },
                    _ => None,
                };
                if let Some(off) = off
                    && cell
                        .get("quote")
                        .is_some_and(|q| q.as_str().is_some_and(|q| !q.is_empty()))
                {
                    cell["value"] = off;
                    changed = true;
                }
            }
            if !changed {
                return unspoiled(text, calls);
            }
        }
        Mistake::BaselessExclusion => {
            let Some(criterion) = seen.criteria.first() else {
                return unspoiled(text, calls);
            };
            let named = words_of(criterion);
            let Some((page, line)) = line_where(pages, |l| words_of(l).is_disjoint(&named)) else {
                return unspoiled(text, calls);
            };
            if answer.get("score").is_none() {
                return unspoiled(text, calls);
            }
            answer["verdict"] = json!("exclude");
            answer["criteria"] = json!([{
                "criterion": criterion,
                "outcome": "not_met",
                "note": "The paper does not meet it.",
                "quote": {"text": line, "page": page},
            }]);
        }
        Mistake::ScoreOutOfRange => answer["score"] = json!(14),
        Mistake::NoiseRationale => answer["rationale"] = json!("]["),
        Mistake::ContradictoryVerdict => {
            answer["score"] = json!(0);
            answer["verdict"] = json!("include");
        }
        Mistake::UnaskedCriteria => {
            answer["criteria"] = json!([
                {"criterion": "Uses a GPU cluster", "outcome": "met", "note": "It says so."},
                {"criterion": "Published after 2020", "outcome": "not_met", "note": "It is older."}
            ]);
        }
    }
    spoiled(answer.to_string())
}

/// The quotes of an answer object with the key of each one's text: a
/// reading's evidence (`text`), an asked paper's claims or a table's cells
/// (`quote`).
fn quotes_mut(answer: &mut Value) -> Vec<(&mut Value, &'static str)> {
    let mut out = Vec::new();
    if let Some(object) = answer.as_object_mut() {
        for (key, value) in object.iter_mut() {
            let text_key = match key.as_str() {
                "evidence" | "quotes" => "text",
                "claims" | "cells" => "quote",
                _ => continue,
            };
            let items: Vec<&mut Value> = match value {
                Value::Array(items) => items.iter_mut().collect(),
                Value::Object(cells) => cells.values_mut().collect(),
                _ => continue,
            };
            out.extend(
                items
                    .into_iter()
                    .filter(|q| q.get(text_key).is_some_and(Value::is_string))
                    .map(|q| (q, text_key)),
            );
        }
    }
    out
}

/// The content words of a text (four letters or more), lowercased, by
/// their first five letters: a line "disjoint" from the question shares
/// not even a word's stem with it ("replicated" meets "replication").
fn words_of(text: &str) -> std::collections::BTreeSet<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(|w| w.to_lowercase().chars().take(5).collect())
        .collect()
}

/// The first line of `pages` of ten words or more, without digits, that
/// `keep` accepts, with its page: a sentence a model could quote.
fn line_where(pages: &[(u32, String)], keep: impl Fn(&str) -> bool) -> Option<(u32, String)> {
    pages.iter().find_map(|(page, text)| {
        text.lines()
            .map(str::trim)
            .find(|l| {
                l.split_whitespace().count() >= 10
                    && !l.chars().any(|c| c.is_ascii_digit())
                    && keep(l)
            })
            .map(|l| (*page, l.to_owned()))
    })
}

/// A passage around a "not" with the "not" cut out by an ellipsis: three
/// words or more on either side, from one line of one page.
fn negated_passage(pages: &[(u32, String)]) -> Option<(u32, String)> {
    for (page, text) in pages {
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            let Some(at) = words.iter().position(|w| *w == "not") else {
                continue;
            };
            if at >= 3 && words.len() >= at + 4 {
                let before = words[at - 3..at].join(" ");
                let after = words[at + 1..at + 4].join(" ");
                return Some((*page, format!("{before} … {after}")));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dropped_negation_keeps_the_words_around_it() {
        let pages = vec![(
            3,
            "Our results show that the new scheduler does not improve tail latency at all.\n"
                .to_owned(),
        )];
        let (page, quote) = negated_passage(&pages).unwrap();
        assert_eq!(page, 3);
        assert_eq!(quote, "new scheduler does … improve tail latency");
    }

    #[test]
    fn spoiled_answers_are_what_they_claim() {
        let diligent = json!({
            "summary": [{"text": "It does things well.", "page": 1}],
            "score": 7, "verdict": "include", "rationale": "It fits the question.",
            "evidence": [{"text": "one two three four five", "page": 2}],
            "criteria": []
        })
        .to_string();
        let out = spoil(diligent.clone(), Vec::new(), Mistake::WrongPage, &[]);
        let v: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(v["evidence"][0]["page"], 3);
        let out = spoil(diligent.clone(), Vec::new(), Mistake::CutAtMaxTokens, &[]);
        assert_eq!(out.finish_reason, Some("length"));
        assert!(serde_json::from_str::<Value>(&out.text).is_err());
        let out = spoil(diligent, Vec::new(), Mistake::Paraphrase, &[]);
        let v: Value = serde_json::from_str(&out.text).unwrap();
        assert_eq!(v["evidence"][0]["text"], "three four five one two");
    }

    #[test]
    fn an_asked_papers_claims_and_a_tables_cells_are_spoiled_too() {
        let claims = json!({
            "answers": true, "answer": "It does.",
            "claims": [{"claim": "It recovers.", "quote": "one two three four five", "page": 2}]
        })
        .to_string();
        let v: Value =
            serde_json::from_str(&spoil(claims.clone(), Vec::new(), Mistake::WrongPage, &[]).text)
                .unwrap();
        assert_eq!(v["claims"][0]["page"], 3);
        let v: Value =
            serde_json::from_str(&spoil(claims, Vec::new(), Mistake::Paraphrase, &[]).text)
                .unwrap();
        assert_eq!(v["claims"][0]["quote"], "three four five one two");

        let cells = json!({"cells": {"dataset": {"value": "ImageNet", "quote": "we train on ImageNet data", "page": 4, "confident": true}}})
            .to_string();
        let pages = vec![(
            5,
            "In short the method does not need labels for training.".to_owned(),
        )];
        let v: Value =
            serde_json::from_str(&spoil(cells, Vec::new(), Mistake::DroppedNegation, &pages).text)
                .unwrap();
        assert_eq!(
            v["cells"]["dataset"]["quote"],
            "the method does … need labels for"
        );
        assert_eq!(v["cells"]["dataset"]["page"], 5);
    }
}
