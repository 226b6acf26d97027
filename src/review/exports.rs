//! The reviewed papers as BibTeX, CSV and RIS, for reference managers and
//! spreadsheets; each record carries Quire's score and verdict.

use super::report::{ReportData, title_of};
use crate::workspace::PaperRecord;

/// Every paper of the review in rank order, then the unreadable ones.
fn ordered<'a>(data: &'a ReportData<'a>) -> Vec<(&'a PaperRecord, Option<(f64, &'static str)>)> {
    let mut out: Vec<(&PaperRecord, Option<(f64, &'static str)>)> = data
        .ranked()
        .into_iter()
        .map(|(p, r)| (p, Some((r.score, r.verdict.as_str()))))
        .collect();
    out.extend(
        data.papers
            .iter()
            .filter(|p| !data.results.contains_key(&p.id))
            .map(|p| (p, None)),
    );
    out
}

fn note(p: &PaperRecord, scored: Option<(f64, &str)>) -> String {
    match scored {
        Some((score, verdict)) => format!("Quire: score {score:.1}/10, {verdict}"),
        None => format!("Quire: not screened ({})", p.status.as_str()),
    }
}

fn bib_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '{' | '}' | '&' | '%' | '$' | '#' | '_' => vec!['\\', c],
            '\\' => "\\textbackslash{}".chars().collect(),
            _ => vec![c],
        })
        .collect()
}

fn bib_key(p: &PaperRecord, used: &mut Vec<String>) -> String {
    let surname = p
        .meta
        .authors
        .first()
        .and_then(|a| a.split_whitespace().last())
        .map(|s| {
            s.chars()
                .filter(|c| c.is_alphanumeric())
                .collect::<String>()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "anon".into());
    let word: String = title_of(p)
        .split_whitespace()
        .find(|w| w.len() > 3)
        .unwrap_or("paper")
        .chars()
        .filter(|c| c.is_alphanumeric())
        .collect();
    let base = format!(
        "{}{}{}",
        surname.to_lowercase(),
        p.meta.year.map(|y| y.to_string()).unwrap_or_default(),
        word.to_lowercase()
    );
    let mut key = base.clone();
    let mut n = 1;
    while used.contains(&key) {
        n += 1;
        key = format!("{base}{n}");
    }
    used.push(key.clone());
    key
}

pub fn bibtex(data: &ReportData<'_>) -> String {
    let mut used = Vec::new();
    let mut out = String::new();
    for (p, scored) in ordered(data) {
        out.push_str(&format!("@misc{{{},\n", bib_key(p, &mut used)));
        out.push_str(&format!("  title = {{{}}},\n", bib_escape(&title_of(p))));
        if !p.meta.authors.is_empty() {
            out.push_str(&format!(
                "  author = {{{}}},\n",
                bib_escape(&p.meta.authors.join(" and "))
            ));
        }
        if let Some(year) = p.meta.year {
            out.push_str(&format!("  year = {{{year}}},\n"));
        }
        if let Some(doi) = &p.meta.doi {
            out.push_str(&format!("  doi = {{{}}},\n", bib_escape(doi)));
        }
        if let Some(arxiv) = &p.meta.arxiv {
            out.push_str(&format!(
                "  eprint = {{{}}},\n  archivePrefix = {{arXiv}},\n",
                bib_escape(arxiv)
            ));
        }
        out.push_str(&format!(
            "  file = {{{}}},\n",
            bib_escape(&p.file.display().to_string())
        ));
        out.push_str(&format!(
            "  note = {{{}}}\n}}\n\n",
            bib_escape(&note(p, scored))
        ));
    }
    out
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_owned()
    }
}

pub fn csv(data: &ReportData<'_>) -> String {
    let mut out = String::from("rank,title,authors,year,score,verdict,status,doi,file\n");
    let mut rank = 0;
    for (p, scored) in ordered(data) {
        let rank_text = if scored.is_some() {
            rank += 1;
            rank.to_string()
        } else {
            String::new()
        };
        let fields = [
            rank_text,
            title_of(p),
            p.meta.authors.join("; "),
            p.meta.year.map(|y| y.to_string()).unwrap_or_default(),
            scored.map(|s| format!("{:.1}", s.0)).unwrap_or_default(),
            scored.map(|s| s.1.to_owned()).unwrap_or_default(),
            p.status.as_str().to_owned(),
            p.meta.doi.clone().unwrap_or_default(),
            p.file.display().to_string(),
        ];
        out.push_str(
            &fields
                .iter()
                .map(|f| csv_field(f))
                .collect::<Vec<_>>()
                .join(","),
        );
        out.push('\n');
    }
    out
}

pub fn ris(data: &ReportData<'_>) -> String {
    let mut out = String::new();
    let line = |tag: &str, value: &str| format!("{tag}  - {}\n", value.replace(['\n', '\r'], " "));
    for (p, scored) in ordered(data) {
        out.push_str(&line("TY", "GEN"));
        out.push_str(&line("TI", &title_of(p)));
        for author in &p.meta.authors {
            out.push_str(&line("AU", author));
        }
        if let Some(year) = p.meta.year {
            out.push_str(&line("PY", &year.to_string()));
        }
        if let Some(doi) = &p.meta.doi {
            out.push_str(&line("DO", doi));
        }
        out.push_str(&line("L1", &p.file.display().to_string()));
        out.push_str(&line("N1", &note(p, scored)));
        out.push_str(&line("ER", ""));
        out.push('\n');
    }
    out
}
