//! The reviewed papers as BibTeX, CSV and RIS, for reference managers and
//! spreadsheets. Each record carries the engine's score and verdict and, kept
//! apart, the researcher's own label, so a reference manager can select on
//! either: CSV columns, and the tags `quire-engine:<verdict>` and
//! `quire-label:<verdict>` (RIS `KW`, BibTeX `keywords`, both imported as tags
//! by Zotero and EndNote).

use super::csv_field::cell as csv_cell;
use super::labels::Label;
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

fn note(p: &PaperRecord, scored: Option<(f64, &str)>, label: Option<&Label>) -> String {
    let engine = match scored {
        Some((score, verdict)) => format!("Quire: score {score:.1}/10, {verdict}"),
        None => format!("Quire: not screened ({})", p.status.as_str()),
    };
    match label.and_then(label_text) {
        Some(text) => format!("{engine}; researcher: {text}"),
        None => engine,
    }
}

/// The researcher's label in words: verdict, score and note, as given.
fn label_text(label: &Label) -> Option<String> {
    let parts: Vec<String> = [
        label.verdict.map(|v| v.as_str().to_owned()),
        label.score.map(|s| format!("{s:.1}/10")),
        label.note.as_ref().map(|n| format!("\"{n}\"")),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The tags a reference manager can select on: the engine's verdict and the
/// researcher's, apart.
fn tags(scored: Option<(f64, &str)>, label: Option<&Label>) -> Vec<String> {
    let mut tags = Vec::new();
    if let Some((_, verdict)) = scored {
        tags.push(format!("quire-engine:{verdict}"));
    }
    if let Some(verdict) = label.and_then(|l| l.verdict) {
        tags.push(format!("quire-label:{}", verdict.as_str()));
    }
    tags
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

/// A verbatim field (DOI, eprint, file path) is taken as written, `_` and
/// `%` included; only braces would unbalance the entry, and none belong in it.
fn bib_verbatim(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '{' | '}')).collect()
}

fn bib_key(p: &PaperRecord, used: &mut Vec<String>) -> String {
    let surname = p
        .meta
        .authors
        .first()
        .map(|a| {
            a.family
                .chars()
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
                bib_escape(
                    &p.meta
                        .authors
                        .iter()
                        .map(|a| a.family_first())
                        .collect::<Vec<_>>()
                        .join(" and ")
                )
            ));
        }
        if let Some(year) = p.meta.year {
            out.push_str(&format!("  year = {{{year}}},\n"));
        }
        if let Some(venue) = &p.meta.venue {
            out.push_str(&format!("  howpublished = {{{}}},\n", bib_escape(venue)));
        }
        if let Some(doi) = &p.meta.doi {
            out.push_str(&format!("  doi = {{{}}},\n", bib_verbatim(doi)));
        }
        if let Some(arxiv) = &p.meta.arxiv {
            out.push_str(&format!(
                "  eprint = {{{}}},\n  archivePrefix = {{arXiv}},\n",
                bib_verbatim(arxiv)
            ));
        }
        if let Some(text) = &p.meta.abstract_text {
            out.push_str(&format!("  abstract = {{{}}},\n", bib_escape(text)));
        }
        out.push_str(&format!(
            "  file = {{{}}},\n",
            bib_verbatim(&p.file.display().to_string())
        ));
        let label = data.labels.get(&p.id);
        let tags = tags(scored, label);
        if !tags.is_empty() {
            out.push_str(&format!("  keywords = {{{}}},\n", tags.join(", ")));
        }
        out.push_str(&format!(
            "  note = {{{}}}\n}}\n\n",
            bib_escape(&note(p, scored, label))
        ));
    }
    out
}

pub fn csv(data: &ReportData<'_>) -> String {
    let mut out = String::from(
        "rank,title,authors,year,venue,score,verdict,researcher_verdict,researcher_score,researcher_note,screening_queue_position,status,doi,file\n",
    );
    // The learned screening order, apart from the engine's rank and score:
    // where each paper not yet labelled stands in the queue.
    let queue_position: std::collections::HashMap<&str, usize> = data
        .screening
        .map(|s| {
            s.order
                .iter()
                .enumerate()
                .map(|(i, id)| (id.as_str(), i + 1))
                .collect()
        })
        .unwrap_or_default();
    let mut rank = 0;
    for (p, scored) in ordered(data) {
        let label = data.labels.get(&p.id);
        let rank_text = if scored.is_some() {
            rank += 1;
            rank.to_string()
        } else {
            String::new()
        };
        let fields = [
            rank_text,
            title_of(p),
            p.meta
                .authors
                .iter()
                .map(|a| a.display())
                .collect::<Vec<_>>()
                .join("; "),
            p.meta.year.map(|y| y.to_string()).unwrap_or_default(),
            p.meta.venue.clone().unwrap_or_default(),
            scored.map(|s| format!("{:.1}", s.0)).unwrap_or_default(),
            scored.map(|s| s.1.to_owned()).unwrap_or_default(),
            label
                .and_then(|l| l.verdict)
                .map(|v| v.as_str().to_owned())
                .unwrap_or_default(),
            label
                .and_then(|l| l.score)
                .map(|s| format!("{s:.1}"))
                .unwrap_or_default(),
            label.and_then(|l| l.note.clone()).unwrap_or_default(),
            queue_position
                .get(p.id.0.as_str())
                .map(usize::to_string)
                .unwrap_or_default(),
            p.status.as_str().to_owned(),
            p.meta.doi.clone().unwrap_or_default(),
            p.file.display().to_string(),
        ];
        out.push_str(
            &fields
                .iter()
                .map(|f| csv_cell(f))
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
            out.push_str(&line("AU", &author.family_first()));
        }
        if let Some(year) = p.meta.year {
            out.push_str(&line("PY", &year.to_string()));
        }
        if let Some(venue) = &p.meta.venue {
            out.push_str(&line("T2", venue));
        }
        if let Some(doi) = &p.meta.doi {
            out.push_str(&line("DO", doi));
        }
        if let Some(text) = &p.meta.abstract_text {
            out.push_str(&line("AB", text));
        }
        out.push_str(&line("L1", &p.file.display().to_string()));
        let label = data.labels.get(&p.id);
        for tag in tags(scored, label) {
            out.push_str(&line("KW", &tag));
        }
        out.push_str(&line("N1", &note(p, scored, label)));
        out.push_str(&line("ER", ""));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    //! The exports read back with real parsers: typst's biblatex for BibTeX,
    //! biblib for RIS, as a reference manager would import them.

    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use biblib::CitationParser;

    use super::*;
    use crate::review::{EngineKind, ReviewSpec};
    use crate::workspace::{Author, PaperId, PaperMeta, PaperStatus};

    fn paper(
        id: &str,
        title: &str,
        authors: &[&str],
        year: Option<u16>,
        doi: Option<&str>,
    ) -> PaperRecord {
        PaperRecord {
            id: PaperId(id.into()),
            file: PathBuf::from(format!("/papers/{id}.pdf")),
            sha256: format!("{id}{}", "0".repeat(64 - id.len())),
            size: 1000,
            status: PaperStatus::Ok,
            title: Some(title.into()),
            duplicates: Vec::new(),
            reason: None,
            pages: 10,
            extractor: None,
            ocr: false,
            meta: PaperMeta {
                authors: authors.iter().map(|a| Author::parse(a)).collect(),
                year,
                doi: doi.map(str::to_owned),
                ..PaperMeta::default()
            },
            imported: None,
            full_text_of: None,
            full_text: None,
            duplicate_of: None,
        }
    }

    fn papers() -> Vec<PaperRecord> {
        vec![
            paper(
                "aa",
                "Chain {Replication} for 100% Throughput & Availability",
                &["Robbert van Renesse", "Fred B. Schneider"],
                Some(2004),
                Some("10.1145/1234567.1234568"),
            ),
            paper(
                "bb",
                "Niños: a_study",
                &["Guy L. Steele, Jr.", "José Núñez"],
                Some(1978),
                Some("10.1007/978-3-642-15364-8_5"),
            ),
            paper("cc", "Anonymous notes", &[], None, None),
        ]
    }

    /// The authors as the record holds them: (family, given) each.
    fn family_and_given(paper: &PaperRecord) -> Vec<(String, String)> {
        paper
            .meta
            .authors
            .iter()
            .map(|a| (a.family.clone(), a.given.clone()))
            .collect()
    }

    fn with_data<T>(papers: &[PaperRecord], render: impl FnOnce(&ReportData<'_>) -> T) -> T {
        with_judged_data(papers, &BTreeMap::new(), &BTreeMap::new(), render)
    }

    /// Render with the engine's results and the researcher's labels.
    fn with_judged_data<T>(
        papers: &[PaperRecord],
        results: &BTreeMap<PaperId, crate::review::PaperResult>,
        labels: &BTreeMap<PaperId, Label>,
        render: impl FnOnce(&ReportData<'_>) -> T,
    ) -> T {
        let task = crate::review::report::tests::task("t");
        let spec = ReviewSpec {
            question: "q".into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        };
        render(&ReportData {
            task: &task,
            spec: &spec,
            papers,
            results,
            date: "2026-11-30T10:00:00Z",
            stale: &BTreeMap::new(),
            screening: None,
            citation_duplicates: 0,
            not_retrieved: &BTreeMap::new(),
            model: None,
            synthesis: None,
            labels,
            earlier_labels: &BTreeMap::new(),
            failures: &BTreeMap::new(),
            undriven: &[],
            validation: &crate::review::validation::ValidationFile::default(),
            protocol: None,
            dual: None,
            table: None,
            asks: &[],
        })
    }

    #[test]
    fn the_researchers_label_and_the_engines_verdict_travel_apart() {
        use crate::review::Verdict;
        use crate::review::report::tests::result;
        let papers = papers();
        let mut results = BTreeMap::new();
        results.insert(PaperId("aa".into()), result(8.0, "q"));
        results.insert(PaperId("bb".into()), result(2.0, "q"));
        let mut labels = BTreeMap::new();
        labels.insert(
            PaperId("bb".into()),
            Label {
                verdict: Some(Verdict::Include),
                score: Some(7.0),
                note: Some("the baseline, \"v2\", everyone compares with".into()),
                at: "2026-11-30T10:00:00Z".into(),
                question: None,
                queued: false,
            },
        );

        // BibTeX, read as Zotero's importer would: keywords become tags.
        let text = with_judged_data(&papers, &results, &labels, bibtex);
        let bib = biblatex::Bibliography::parse(&text).unwrap();
        let keywords = |key_part: &str| -> String {
            let entry = bib
                .iter()
                .find(|e| {
                    e.get("title")
                        .is_some_and(|t| t.iter().any(|c| c.v.get().contains(key_part)))
                })
                .unwrap();
            entry
                .get("keywords")
                .map(|chunks| chunks.iter().map(|c| c.v.get()).collect())
                .unwrap_or_default()
        };
        assert_eq!(
            keywords("Niños"),
            "quire-engine:exclude, quire-label:include"
        );
        assert_eq!(keywords("Chain"), "quire-engine:include");
        assert_eq!(keywords("Anonymous"), "");

        // RIS: one KW each, and the note says both.
        let text = with_judged_data(&papers, &results, &labels, ris);
        let citations = biblib::RisParser::new().parse(&text).unwrap();
        let nino = citations
            .iter()
            .find(|c| c.title.contains("Niños"))
            .unwrap();
        assert_eq!(
            nino.keywords,
            vec!["quire-engine:exclude", "quire-label:include"]
        );
        assert!(
            text.contains("N1  - Quire: score 2.0/10, exclude; researcher: include, 7.0/10"),
            "{text}"
        );

        // CSV: the columns apart, the note's quotes and commas intact.
        let text = with_judged_data(&papers, &results, &labels, csv);
        let mut reader = ::csv::Reader::from_reader(text.as_bytes());
        let header = reader.headers().unwrap().clone();
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        let row = reader
            .records()
            .map(Result::unwrap)
            .find(|r| r[at("title")].contains("Niños"))
            .unwrap();
        assert_eq!(&row[at("verdict")], "exclude");
        assert_eq!(&row[at("researcher_verdict")], "include");
        assert_eq!(&row[at("researcher_score")], "7.0");
        assert_eq!(
            &row[at("researcher_note")],
            "the baseline, \"v2\", everyone compares with"
        );
    }

    #[test]
    fn bibtex_reads_back_with_authors_years_and_dois_intact() {
        let papers = papers();
        let text = with_data(&papers, bibtex);
        let bib = biblatex::Bibliography::parse(&text).unwrap();
        assert_eq!(bib.len(), papers.len());
        for (entry, paper) in bib.iter().zip(&papers) {
            let people = entry.author().unwrap_or_default();
            let got: Vec<(String, String)> = people
                .iter()
                .map(|p| {
                    let family = [p.prefix.as_str(), p.name.as_str()]
                        .iter()
                        .filter(|s| !s.is_empty())
                        .copied()
                        .collect::<Vec<_>>()
                        .join(" ");
                    (family, p.given_name.clone())
                })
                .collect();
            assert_eq!(got, family_and_given(paper), "{text}");
            let year = entry
                .get("year")
                .map(|chunks| chunks.iter().map(|c| c.v.get()).collect::<String>());
            assert_eq!(year, paper.meta.year.map(|y| y.to_string()));
            let doi = entry.doi().ok();
            assert_eq!(doi, paper.meta.doi);
        }
        let title: String = bib
            .iter()
            .next()
            .unwrap()
            .title()
            .unwrap()
            .iter()
            .map(|c| c.v.get())
            .collect();
        assert_eq!(
            title,
            "Chain {Replication} for 100% Throughput & Availability"
        );
    }

    #[test]
    fn ris_reads_back_with_authors_years_and_dois_intact() {
        let papers = papers();
        let text = with_data(&papers, ris);
        let citations = biblib::RisParser::new().parse(&text).unwrap();
        assert_eq!(citations.len(), papers.len());
        for (citation, paper) in citations.iter().zip(&papers) {
            assert_eq!(citation.title, paper.title.clone().unwrap());
            let got: Vec<(String, String)> = citation
                .authors
                .iter()
                .map(|a| {
                    // biblib keeps middle names apart ("Fred" + "B.").
                    let given = [a.given_name.as_deref(), a.middle_name.as_deref()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" ");
                    (a.name.clone(), given)
                })
                .collect();
            assert_eq!(got, family_and_given(paper), "{text}");
            assert_eq!(
                citation.date.as_ref().map(|d| d.year),
                paper.meta.year.map(i32::from)
            );
            assert_eq!(citation.doi, paper.meta.doi);
        }
    }
}
