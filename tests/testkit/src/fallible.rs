//! A fallible reader: the diligent reader's answer, spoiled now and then the
//! way real models spoil theirs (MODEL-SERVERS.md): a quote paraphrased or
//! cited on the wrong page, a quote whose `…` leaves out a "not", JSON that
//! does not parse, an answer cut at max tokens, a refusal, an empty answer,
//! a score off the scale, a rationale of punctuation, a verdict against its
//! score, criteria that were never asked. The quotes spoiled are a reading's
//! evidence, an asked paper's claims or a table's cells.
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

    pub fn name(self) -> &'static str {
        match self {
            Mistake::Paraphrase => "paraphrase",
            Mistake::WrongPage => "wrong_page",
            Mistake::DroppedNegation => "dropped_negation",
            Mistake::InvalidJson => "invalid_json",
            Mistake::CutAtMaxTokens => "cut_at_max_tokens",
            Mistake::Refusal => "refusal",
            Mistake::Empty => "empty",
            Mistake::ScoreOutOfRange => "score_out_of_range",
            Mistake::NoiseRationale => "noise_rationale",
            Mistake::ContradictoryVerdict => "contradictory_verdict",
            Mistake::UnaskedCriteria => "unasked_criteria",
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
    (draw < rate).then(|| kinds[((h >> 32) % kinds.len() as u64) as usize])
}

/// The diligent answer `(text, calls)` to a reading request, spoiled by
/// `mistake`. `pages` is the document the request carried.
pub fn spoil(
    text: String,
    calls: Vec<ScriptedCall>,
    mistake: Mistake,
    pages: &[(u32, String)],
) -> Spoiled {
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
        Mistake::InvalidJson => {
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
