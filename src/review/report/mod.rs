//! The review as Markdown: question, method, PRISMA-style counts, a ranked table,
//! a section per paper, and the files that could not be read.

mod methods;
mod oversight;
pub mod prisma;
mod sections;

pub use sections::NOT_READ;
pub mod validation;

use std::collections::BTreeMap;

use serde::Serialize;

use super::dual::{Agreement, DualFile};
use super::failures::PaperFailure;
use super::labels::Label;
use super::md_text::{block, inline};
use super::protocol::InForce;
use super::validation::ValidationFile;
use super::{PaperResult, ReviewSpec, Verdict};
use crate::workspace::{PaperId, PaperRecord, PaperStatus, TaskMeta};

/// Everything a report or export is made from.
pub struct ReportData<'a> {
    pub task: &'a TaskMeta,
    pub spec: &'a ReviewSpec,
    pub papers: &'a [PaperRecord],
    pub results: &'a BTreeMap<PaperId, PaperResult>,
    pub date: &'a str,
    /// The model that read the papers (agent engine).
    pub model: Option<&'a str>,
    /// The writer agent's synthesis section, Markdown.
    pub synthesis: Option<&'a str>,
    /// The researcher's own labels that count now ([`labels::Current`]),
    /// which the report marks.
    ///
    /// [`labels::Current`]: crate::review::labels::Current
    pub labels: &'a BTreeMap<PaperId, Label>,
    /// Labels given under an earlier question: kept, counted nowhere (the
    /// validation says how many).
    pub earlier_labels: &'a BTreeMap<PaperId, Label>,
    /// Why readable papers with no result could not be scored.
    pub failures: &'a BTreeMap<PaperId, PaperFailure>,
    /// The steps the model could not drive as an agent (agent engine).
    pub undriven: &'a [String],
    /// The validation sample and the cut-offs in force.
    pub validation: &'a ValidationFile,
    /// The approved protocol the papers were read by (agent engine).
    pub protocol: Option<&'a InForce>,
    /// The dual reading the results were reconciled under, and how the
    /// readings agreed (agent engine).
    pub dual: Option<(&'a DualFile, &'a Agreement)>,
    /// The extraction table of the papers the review keeps.
    pub table: Option<&'a crate::review::table::TableView>,
    /// The questions asked of the papers that the researcher put in the report.
    pub asks: &'a [crate::review::ask::AskRecord],
    /// Papers whose reading was made under earlier inputs, with why: not in
    /// `results`, counted as not scored until they are read again.
    pub stale: &'a BTreeMap<PaperId, String>,
    /// The screening queue's ranking, when the researcher screened in it.
    pub screening: Option<&'a crate::review::queue::RankingFile>,
    /// Works citation searching found that the review already had: not
    /// papers of the review, counted in PRISMA's "other methods" column.
    pub citation_duplicates: usize,
    /// Why a kept record's open copy could not be fetched, by paper id: its
    /// last failed attempt.
    pub not_retrieved: &'a BTreeMap<String, String>,
}

impl ReportData<'_> {
    /// Every label the researcher gave, under this question or an earlier
    /// one: what the validation is given, as it counts the earlier ones
    /// itself (to say they were not counted).
    pub fn every_label(&self) -> BTreeMap<PaperId, Label> {
        self.labels
            .iter()
            .chain(self.earlier_labels)
            .map(|(id, label)| (id.clone(), label.clone()))
            .collect()
    }
}

/// PRISMA-style flow counts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    /// Files found, duplicates included.
    pub found: usize,
    pub duplicates: usize,
    /// Files that could not be read, by status.
    pub unreadable: BTreeMap<String, usize>,
    pub screened: usize,
    pub included: usize,
    pub maybe: usize,
    pub excluded: usize,
    /// Screened papers with no result: the model could not read them, or
    /// the run stopped first. Screened = included + maybe + excluded + this.
    pub not_scored: usize,
    /// Of the not scored, those whose reading is stale (made under earlier
    /// inputs).
    pub stale: usize,
}

impl ReportData<'_> {
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for p in self.papers {
            counts.found += 1 + p.duplicates.len();
            counts.duplicates += p.duplicates.len();
            if p.status.is_readable() {
                counts.screened += 1;
            } else {
                *counts
                    .unreadable
                    .entry(p.status.as_str().to_owned())
                    .or_default() += 1;
            }
        }
        for p in self.papers.iter().filter(|p| p.status.is_readable()) {
            match self.results.get(&p.id).map(|r| r.verdict) {
                Some(Verdict::Include) => counts.included += 1,
                Some(Verdict::Maybe) => counts.maybe += 1,
                Some(Verdict::Exclude) => counts.excluded += 1,
                None => {
                    counts.not_scored += 1;
                    counts.stale += usize::from(self.stale.contains_key(&p.id));
                }
            }
        }
        counts
    }

    /// Reviewed papers, best first (ties by title for a stable order).
    pub fn ranked(&self) -> Vec<(&PaperRecord, &PaperResult)> {
        let mut ranked: Vec<(&PaperRecord, &PaperResult)> = self
            .papers
            .iter()
            .filter_map(|p| self.results.get(&p.id).map(|r| (p, r)))
            .collect();
        ranked.sort_by(|a, b| {
            b.1.score
                .total_cmp(&a.1.score)
                .then_with(|| title_of(a.0).cmp(&title_of(b.0)))
        });
        ranked
    }
}

pub(crate) fn title_of(p: &PaperRecord) -> String {
    p.title.clone().unwrap_or_else(|| file_name(p))
}

pub(crate) fn file_name(p: &PaperRecord) -> String {
    p.file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub(crate) fn authors_short(p: &PaperRecord) -> String {
    match p.meta.authors.as_slice() {
        [] => "—".to_owned(),
        [one] => one.display(),
        [a, b] => format!("{}, {}", a.display(), b.display()),
        [a, ..] => format!("{} et al.", a.display()),
    }
}

fn label_of(status: &str) -> &'static str {
    PaperStatus::ALL
        .into_iter()
        .find(|s| s.as_str() == status)
        .map(status_label)
        .unwrap_or("other")
}

fn status_label(status: PaperStatus) -> &'static str {
    match status {
        PaperStatus::Pending => "not read yet",
        PaperStatus::Ok => "ok",
        PaperStatus::Encrypted => "encrypted",
        PaperStatus::NeedsOcr => "needs OCR",
        PaperStatus::Damaged => "damaged",
        PaperStatus::NotPdf => "not a PDF",
        PaperStatus::TooLarge => "too large",
        PaperStatus::Timeout => "timed out",
    }
}

/// The report as Markdown, section by section.
pub fn render(data: &ReportData<'_>) -> String {
    use oversight::{dual_section, protocol_section};
    use sections::*;
    use validation::validation_section;
    let sections: [fn(&mut String, &ReportData<'_>); 14] = [
        title_section,
        method_section,
        protocol_section,
        dual_section,
        synthesis_section,
        flow_section,
        validation_section,
        methods::methods_section,
        oversight::table_section,
        oversight::asks_section,
        ranking_section,
        not_scored_section,
        unreadable_section,
        duplicates_section,
    ];
    let mut md = String::new();
    for section in sections {
        section(&mut md, data);
    }
    md
}

#[cfg(test)]
pub(crate) mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::review::{CriterionOutcome, CriterionVerdict, EngineKind, Provenance, Quote};
    use crate::workspace::{PaperMeta, TaskStatus, WorkspaceId};

    fn paper(id: &str, file: &str, status: PaperStatus, title: Option<&str>) -> PaperRecord {
        PaperRecord {
            id: PaperId(id.into()),
            file: PathBuf::from(format!("/papers/{file}")),
            sha256: format!("{id}{}", "0".repeat(64 - id.len())),
            size: 1000,
            status,
            title: title.map(str::to_owned),
            duplicates: Vec::new(),
            reason: (status != PaperStatus::Ok)
                .then(|| "not a PDF: the file has no %PDF- header".to_owned()),
            pages: 12,
            extractor: None,
            ocr: false,
            meta: PaperMeta::default(),
            imported: None,
            full_text_of: None,
            full_text: None,
            duplicate_of: None,
        }
    }

    /// A result with a summary, a quote and one met criterion (for tests of
    /// anything rendered from results).
    pub(crate) fn result(score: f64, quote: &str) -> PaperResult {
        PaperResult {
            summary: vec![Quote {
                text: "We present a protocol for replicated state machines.".into(),
                page: 1,
            }],
            key_points: vec!["We show it tolerates f failures of 2f+1 replicas (p. 3)".into()],
            score,
            verdict: Verdict::from_score(score),
            rationale: "Terms that carry the score: \"consensus\" (60%), \"replica\" (40%).".into(),
            evidence: vec![Quote {
                text: quote.into(),
                page: 4,
            }],
            criteria: vec![CriterionVerdict {
                criterion: "describes a replication protocol".into(),
                outcome: CriterionOutcome::Met,
                note: "criterion match 7.0/10; closest passage on page 4".into(),
                evidence: None,
            }],
            excluded_by: None,
            doubts: Vec::new(),
            provenance: Provenance::new(
                EngineKind::Offline,
                None,
                "abc".into(),
                None,
                "2026-11-30T10:00:00Z".into(),
                "2026-11-30T10:00:01Z".into(),
            ),
            front_matter: None,
        }
    }

    /// A finished review's task, for tests of anything rendered from one.
    pub(crate) fn task(title: &str) -> TaskMeta {
        TaskMeta {
            format: 1,
            id: WorkspaceId("w".into()),
            title: title.into(),
            source: None,
            question: None,
            criteria: Vec::new(),
            folders: Vec::new(),
            status: TaskStatus::Done,
            created_at: "2026-11-30T10:00:00Z".into(),
            updated_at: "2026-11-30T10:00:00Z".into(),
        }
    }

    #[test]
    fn the_report_renders_as_markdown_and_matches_its_snapshot() {
        let task = task("consensus_papers");
        let spec = ReviewSpec {
            question: "How do systems reach consensus?".into(),
            criteria: vec!["describes a replication protocol".into()],
            engine: EngineKind::Offline,
            protocol: None,
        };
        let mut raft = paper(
            "aa",
            "raft.pdf",
            PaperStatus::Ok,
            Some("In Search of an Understandable Consensus Algorithm"),
        );
        raft.meta = PaperMeta {
            authors: vec!["Diego Ongaro".into(), "John Ousterhout".into()],
            year: Some(2014),
            ..PaperMeta::default()
        };
        raft.duplicates = vec![PathBuf::from("/papers/raft copy.pdf")];
        let gc = paper(
            "bb",
            "gc.pdf",
            PaperStatus::Ok,
            Some("A *fast* garbage collector | for [ML]"),
        );
        let junk = paper("cc", "notes.pdf", PaperStatus::NotPdf, None);
        let unread = paper(
            "dd",
            "paxos.pdf",
            PaperStatus::Ok,
            Some("Paxos Made Simple"),
        );
        let papers = vec![raft, gc, junk, unread];
        let mut failures = BTreeMap::new();
        failures.insert(
            PaperId("dd".into()),
            PaperFailure {
                code: "incoherent_answer".into(),
                reason: "the model's answer could not stand as a result after 2 asks: the rationale was not in words".into(),
                model: Some("tiny-270m".into()),
                attempts: 2,
                at: "2026-11-30T10:00:00Z".into(),
            },
        );
        let mut results = BTreeMap::new();
        results.insert(
            PaperId("aa".into()),
            result(8.4, "Raft separates leader election from log replication."),
        );
        let mut gc_result = result(1.2, "The collector <script> pauses for 1 ms.");
        // A summary sentence no page retells, and a reading to check.
        gc_result.summary.push(Quote {
            text: "It is the *fastest* collector ever built.".into(),
            page: 0,
        });
        gc_result.doubts = vec!["page 2 of the paper addresses the model reading it".into()];
        results.insert(PaperId("bb".into()), gc_result);
        let data = ReportData {
            task: &task,
            spec: &spec,
            papers: &papers,
            results: &results,
            date: "2026-11-30T10:00:00Z",
            stale: &BTreeMap::new(),
            screening: None,
            citation_duplicates: 0,
            not_retrieved: &BTreeMap::new(),
            model: None,
            synthesis: None,
            labels: &BTreeMap::new(),
            earlier_labels: &BTreeMap::new(),
            failures: &failures,
            undriven: &[],
            validation: &ValidationFile::default(),
            protocol: None,
            dual: None,
            table: None,
            asks: &[],
        };
        let markdown = render(&data);

        let mut tables = 0;
        for event in
            pulldown_cmark::Parser::new_ext(&markdown, pulldown_cmark::Options::ENABLE_TABLES)
        {
            match event {
                pulldown_cmark::Event::Html(h) | pulldown_cmark::Event::InlineHtml(h) => {
                    panic!("raw HTML: {h}")
                }
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Table(_)) => tables += 1,
                _ => {}
            }
        }
        assert_eq!(
            tables, 6,
            "flow, exclusion reasons, ranking, not scored, unreadable, duplicates"
        );
        let flow = data.flow();
        assert_eq!(
            (
                flow.identified,
                flow.duplicates,
                flow.unreadable_total(),
                flow.screened,
                flow.not_scored,
                flow.excluded_by_automation,
                flow.excluded_by_researcher,
                flow.included
            ),
            (5, 1, 1, 3, 1, 1, 0, 1)
        );
        // Every screened paper is in exactly one box.
        assert_eq!(
            flow.screened,
            flow.not_scored + flow.excluded() + flow.maybe + flow.included
        );
        assert_eq!(
            flow.reasons,
            vec![prisma::Reason {
                reason: "score below the maybe cut-off".into(),
                papers: 1
            }]
        );
        let counts = data.counts();
        assert_eq!(
            (
                counts.found,
                counts.duplicates,
                counts.screened,
                counts.included,
                counts.excluded,
                counts.not_scored
            ),
            (5, 1, 3, 1, 1, 1)
        );
        // The flow adds up: every screened paper is counted once.
        assert_eq!(
            counts.screened,
            counts.included + counts.maybe + counts.excluded + counts.not_scored
        );
        assert!(
            markdown
                .contains("| Paxos Made Simple | tiny-270m | the model's answer could not stand")
        );
        insta::assert_snapshot!(markdown);
    }

    #[test]
    fn methods_says_read_twice_only_of_the_papers_that_were() {
        let task = task("dual");
        let spec = ReviewSpec {
            question: "How do systems reach consensus?".into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        };
        let papers: Vec<_> = ["aa", "bb", "cc"]
            .into_iter()
            .map(|id| paper(id, &format!("{id}.pdf"), PaperStatus::Ok, Some(id)))
            .collect();
        let results: BTreeMap<PaperId, PaperResult> = ["aa", "bb", "cc"]
            .into_iter()
            .map(|id| (PaperId(id.into()), result(7.0, "A sentence.")))
            .collect();
        let file =
            crate::review::dual::DualFile::new(crate::review::dual::Policy::ALL[0], None, None);
        let paragraph = |pairs: usize| {
            let agreement = Agreement {
                pairs,
                agreed: pairs,
                ..Agreement::default()
            };
            let data = ReportData {
                task: &task,
                spec: &spec,
                papers: &papers,
                results: &results,
                date: "2026-11-30T10:00:00Z",
                stale: &BTreeMap::new(),
                screening: None,
                citation_duplicates: 0,
                not_retrieved: &BTreeMap::new(),
                model: None,
                synthesis: None,
                labels: &BTreeMap::new(),
                earlier_labels: &BTreeMap::new(),
                failures: &BTreeMap::new(),
                undriven: &[],
                validation: &ValidationFile::default(),
                protocol: None,
                dual: Some((&file, &agreement)),
                table: None,
                asks: &[],
            };
            methods::methods_paragraph(&data)
        };
        assert!(paragraph(3).contains("Each of the 3 papers was read twice, independently"));
        let some = paragraph(1);
        assert!(
            some.contains(
                "1 paper of the 3 screened was read twice, independently (the rest once)"
            ),
            "{some}"
        );
        assert!(!some.contains("Each of"), "{some}");
        assert!(paragraph(0).contains("no paper has been read twice yet"));
    }
}
