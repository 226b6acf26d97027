//! How the scripted server answers a question asked of the papers: one
//! paper's answer (the sentences richest in the question's terms as claims,
//! each quoting itself with its page), and the composed answer (a sentence
//! per paper naming it and citing its sources' numbers), or the merge of
//! partial answers (their texts, one after another), each within the words
//! its instructions allow.

use serde_json::json;

use crate::reader::{Reading, question_of};
use crate::request::Turn;

fn system_says(turns: &[Turn], words: &str) -> bool {
    turns
        .iter()
        .any(|t| t.role == "system" && t.text.contains(words))
}

/// A request for one paper's answer to a question, answered.
pub fn paper_answer(turns: &[Turn], document: &[(u32, String)]) -> Option<String> {
    if !system_says(turns, "You answer a question from one paper's text alone") {
        return None;
    }
    let question = question_of(turns);
    let reading = Reading::of(document, &question, &[]);
    let answers = reading.overlap >= 0.5 && !reading.quotes.is_empty();
    let claims: Vec<_> = if answers {
        reading
            .quotes
            .iter()
            .take(2)
            .map(|(page, text)| {
                let claim: Vec<&str> = text.split_whitespace().take(18).collect();
                json!({"claim": claim.join(" "), "quote": text, "page": page})
            })
            .collect()
    } else {
        Vec::new()
    };
    let answer = if answers {
        format!(
            "The paper addresses the question on page {}.",
            reading.quotes[0].0
        )
    } else {
        "The text does not answer the question.".to_owned()
    };
    Some(json!({"answers": answers, "answer": answer, "claims": claims}).to_string())
}

/// A request to compose an answer from numbered sources, or to merge
/// partial answers, answered.
pub fn composed(turns: &[Turn]) -> Option<String> {
    let user = turns.iter().rev().find(|t| t.role == "user")?;
    if system_says(turns, "You merge partial answers") {
        let parts: Vec<&str> = user
            .text
            .lines()
            .filter(|l| {
                !l.starts_with("Part ")
                    && !l.starts_with("Question:")
                    && !l.starts_with("Merge these")
            })
            .filter(|l| !l.trim().is_empty())
            .collect();
        return Some(within_words_asked(turns, &parts.join(" ")));
    }
    if !system_says(
        turns,
        "You write the answer to a researcher's question from numbered sources",
    ) {
        return None;
    }
    // `[n] *Title* (p. N): claim — "quote"`, grouped by title in order.
    let mut papers: Vec<(String, String, Vec<String>)> = Vec::new();
    for line in user.text.lines() {
        let Some(rest) = line.strip_prefix('[') else {
            continue;
        };
        let Some((n, rest)) = rest.split_once("] *") else {
            continue;
        };
        let Some((title, rest)) = rest.split_once('*') else {
            continue;
        };
        let claim = rest
            .split_once("): ")
            .map(|(_, c)| c.split(" — ").next().unwrap_or(c))
            .unwrap_or("")
            .trim()
            .trim_end_matches('.')
            .to_owned();
        match papers.iter_mut().find(|p| p.0 == title) {
            Some(paper) => paper.2.push(n.to_owned()),
            None => papers.push((title.to_owned(), claim, vec![n.to_owned()])),
        }
    }
    if papers.is_empty() {
        return None;
    }
    let sentences: Vec<String> = papers
        .iter()
        .map(|(title, claim, ns)| {
            let cites: String = ns.iter().map(|n| format!("[{n}]")).collect();
            format!("*{title}* reports: {claim} {cites}.")
        })
        .collect();
    Some(within_words_asked(turns, &sentences.join(" ")))
}

/// A model keeps to the length the instructions ask ("at most N words"):
/// whole sentences, their citations with them, up to that (at least one).
fn within_words_asked(turns: &[Turn], text: &str) -> String {
    let limit = turns
        .iter()
        .filter(|t| t.role == "system")
        .find_map(|t| {
            let (_, rest) = t.text.split_once("at most ")?;
            let (n, rest) = rest.split_once(' ')?;
            rest.starts_with("words").then(|| n.parse::<usize>().ok())?
        })
        .unwrap_or(usize::MAX);
    let mut kept = Vec::new();
    let mut words = 0;
    for sentence in text.split_inclusive(". ") {
        words += sentence.split_whitespace().count();
        if words > limit && !kept.is_empty() {
            break;
        }
        kept.push(sentence);
    }
    kept.concat().trim().to_owned()
}

/// A request to fill a paper's table cells, answered: per column, the
/// sentence richest in the column's words as the quote, the value taken from
/// it in the form asked for (a number in it, yes when it matches well, the
/// option it names, or its opening words).
pub fn table_cells(turns: &[Turn], document: &[(u32, String)]) -> Option<String> {
    if !system_says(turns, "You extract facts from one paper's text for a table") {
        return None;
    }
    // The ask that names the columns (a re-ask after it only says "again").
    let user = turns
        .iter()
        .rev()
        .find(|t| t.role == "user" && t.text.lines().any(|l| l.trim() == "Columns:"))?;
    let mut cells = serde_json::Map::new();
    let lines = user
        .text
        .lines()
        .skip_while(|l| l.trim() != "Columns:")
        .skip(1)
        .map_while(|l| l.strip_prefix("- "));
    for line in lines {
        let Some((id, rest)) = line.split_once(": ") else {
            continue;
        };
        let (what, form) = rest
            .rsplit_once(" Give ")
            .unwrap_or((rest, "a short phrase"));
        let reading = Reading::of(document, what, &[]);
        let Some((page, sentence)) = reading.quotes.first() else {
            cells.insert(
                id.to_owned(),
                json!({"value": null, "quote": "", "page": null, "confident": false}),
            );
            continue;
        };
        let confident = reading.overlap >= 0.5;
        let value = if form.starts_with("a number") {
            sentence
                .split_whitespace()
                .map(|w| w.trim_matches(|c: char| !c.is_ascii_digit() && c != '.'))
                .find(|w| !w.is_empty() && w.parse::<f64>().is_ok())
                .map(|n| json!(n))
                .unwrap_or(json!(null))
        } else if form.starts_with("\"yes\"") {
            json!(if confident { "yes" } else { "no" })
        } else if let Some(options) = form.strip_prefix("exactly one of: ") {
            let options: Vec<&str> = options.trim_end_matches('.').split(", ").collect();
            let lower = sentence.to_lowercase();
            json!(
                options
                    .iter()
                    .find(|o| lower.contains(&o.to_lowercase()))
                    .or(options.last())
                    .copied()
            )
        } else {
            let words: Vec<&str> = sentence.split_whitespace().take(12).collect();
            json!(words.join(" "))
        };
        cells.insert(
            id.to_owned(),
            json!({"value": value, "quote": sentence, "page": page, "confident": confident}),
        );
    }
    Some(json!({"cells": cells}).to_string())
}
