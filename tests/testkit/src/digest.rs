//! How the scripted server writes one part of a synthesis: from the request's
//! lines, one per paper, a sentence each naming the paper by its title.

use crate::request::Turn;

/// A request to write one part of a synthesis from one line per paper
/// (`- *Title* (year) · score · summary · key points: a; b`): a sentence per
/// paper, naming it by its title in italics and saying its first key point.
pub fn answer(turns: &[Turn]) -> Option<String> {
    let user = turns.iter().find(|t| t.role == "user")?;
    let papers: Vec<(&str, &str)> = user
        .text
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("- *")?;
            let (title, after) = rest.split_once('*')?;
            let point = after
                .split_once("key points: ")
                .map(|(_, p)| p.split(';').next().unwrap_or("").trim())
                .unwrap_or("");
            Some((title, point))
        })
        .collect();
    if papers.is_empty() {
        return None;
    }
    let sentences: Vec<String> = papers
        .iter()
        .map(|(title, point)| match point.trim_end_matches('.') {
            "" => format!("*{title}* is among the included papers."),
            point => format!("*{title}* reports that {}.", lowercase_first(point)),
        })
        .collect();
    Some(
        sentences
            .chunks(6)
            .map(|c| c.join(" "))
            .collect::<Vec<_>>()
            .join("\n\n"),
    )
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
