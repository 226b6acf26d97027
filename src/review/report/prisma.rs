//! The flow of papers as PRISMA 2020 reports it: records identified,
//! duplicates removed, reports that could not be read (with reasons),
//! records screened, records excluded (by automation, that is the engine
//! unchecked, apart from those the researcher excluded, as PRISMA's footnote
//! asks), exclusions with reasons, and studies included. The researcher's
//! label decides a paper over the engine's verdict. The report's table, the
//! counts CSV and the app's diagram all come from [`Flow`].

use std::collections::BTreeMap;

use serde::Serialize;

use super::{ReportData, label_of};
use crate::review_model::{CriterionOutcome, PaperResult, Verdict};

/// Why an excluded paper was excluded, when no criterion it fails says so.
const BELOW_CUTOFF: &str = "score below the maybe cut-off";
const RESEARCHER_CALL: &str = "the researcher's judgement";

/// One reason for exclusion and how many papers it excluded.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Reason {
    pub reason: String,
    pub papers: usize,
}

/// A reason for a document that could not be read, and how many.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Unreadable {
    pub reason: String,
    pub papers: usize,
}

/// The PRISMA 2020 counts of a review.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Flow {
    /// Records and files found, duplicates included.
    pub identified: usize,
    /// Of the identified, records imported from search exports (databases);
    /// the rest are PDFs found in folders.
    pub from_databases: usize,
    pub duplicates: usize,
    /// Files that could not be read, by reason.
    pub unreadable: Vec<Unreadable>,
    pub screened: usize,
    /// Screened but with no result and no label: no decision yet.
    pub not_scored: usize,
    /// Of the not scored, those with a stale reading (made under earlier
    /// inputs): they await a new reading.
    pub stale: usize,
    /// Excluded by the engine and not checked by the researcher.
    pub excluded_by_automation: usize,
    /// Excluded by the researcher's label.
    pub excluded_by_researcher: usize,
    /// Every exclusion by its reason: the first criterion not met, else the
    /// score below the cut-off (automation) or the researcher's judgement.
    pub reasons: Vec<Reason>,
    /// Maybe: awaiting the researcher's decision.
    pub maybe: usize,
    pub included: usize,
    /// Of the included, those the researcher labelled include.
    pub included_by_researcher: usize,
    /// Papers the researcher labelled, whatever the label.
    pub labelled: usize,
    /// Records with a PDF attached as their full text (the PDF is the
    /// record's report, counted through its record, not on its own).
    pub with_full_text: usize,
    /// Records kept (included or maybe) with no full text attached: the
    /// reports still to be sought.
    pub kept_without_full_text: usize,
    /// Of the duplicates, papers the researcher set aside as copies of
    /// another (the rest are identical files).
    pub set_aside: usize,
    /// Identification via other methods: citation searching.
    pub citations: OtherMethods,
}

/// PRISMA 2020's "identification of studies via other methods" column, for
/// citation searching: its records are not in the databases column.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "OtherMethodsFlow"))]
pub struct OtherMethods {
    /// Works found by citation searching, duplicates included.
    pub identified: usize,
    /// Of those, works the review already had (in any version).
    pub duplicates: usize,
    /// Records screened on title and abstract.
    pub screened: usize,
    /// Excluded on title and abstract, by the engine or the researcher.
    pub excluded: usize,
    /// Kept (included or maybe): their reports are sought.
    pub sought: usize,
    /// Of the sought, reports not retrieved: no full text attached yet.
    pub not_retrieved: usize,
    /// The not retrieved by why: a failed download's reason, else not
    /// sought yet (no download approved).
    pub not_retrieved_reasons: Vec<Reason>,
    /// Of the sought, reports with full text: assessed for eligibility.
    pub assessed: usize,
    pub included: usize,
}

impl Flow {
    pub fn unreadable_total(&self) -> usize {
        self.unreadable.iter().map(|u| u.papers).sum()
    }

    pub fn excluded(&self) -> usize {
        self.excluded_by_automation + self.excluded_by_researcher
    }
}

/// Why a kept record found by citation searching has no full text, when no
/// download of it failed.
const NOT_SOUGHT: &str = "not sought yet (no download approved)";

/// Reasons, the most frequent first.
fn by_count(reasons: BTreeMap<String, usize>) -> Vec<Reason> {
    let mut reasons: Vec<Reason> = reasons
        .into_iter()
        .map(|(reason, papers)| Reason { reason, papers })
        .collect();
    reasons.sort_by(|a, b| b.papers.cmp(&a.papers).then(a.reason.cmp(&b.reason)));
    reasons
}

/// The first criterion the engine found not met.
/// The criterion an exclusion is by: the one the reader excluded the paper
/// by, else the first not met.
fn first_unmet(result: Option<&PaperResult>) -> Option<String> {
    let result = result?;
    result.excluded_by.clone().or_else(|| {
        result
            .criteria
            .iter()
            .find(|c| c.outcome == CriterionOutcome::NotMet)
            .map(|c| c.criterion.clone())
    })
}

impl ReportData<'_> {
    /// The flow of this review's papers.
    pub fn flow(&self) -> Flow {
        let mut flow = Flow::default();
        let mut unreadable: BTreeMap<&str, usize> = BTreeMap::new();
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        let mut not_retrieved: BTreeMap<String, usize> = BTreeMap::new();
        let with_full_text: std::collections::HashSet<&crate::workspace::PaperId> = self
            .papers
            .iter()
            .filter_map(|p| p.full_text_of.as_ref())
            .collect();
        flow.citations.duplicates = self.citation_duplicates;
        flow.citations.identified = self.citation_duplicates;
        for p in self.papers {
            if p.full_text_of.is_some() {
                continue;
            }
            let by_citation = p.imported.as_ref().is_some_and(|i| i.citation.is_some());
            flow.citations.identified += usize::from(by_citation);
            if p.duplicate_of.is_some() {
                // Set aside by the researcher: removed before screening.
                flow.identified += 1 + p.duplicates.len();
                flow.from_databases +=
                    usize::from(p.is_record() && !by_citation) * (1 + p.duplicates.len());
                flow.duplicates += 1 + p.duplicates.len();
                flow.set_aside += 1;
                continue;
            }
            let has_full_text = with_full_text.contains(&p.id);
            flow.with_full_text += usize::from(has_full_text);
            flow.identified += 1 + p.duplicates.len();
            if p.is_record() && !by_citation {
                flow.from_databases += 1 + p.duplicates.len();
            }
            flow.duplicates += p.duplicates.len();
            if !p.status.is_readable() {
                *unreadable.entry(label_of(p.status.as_str())).or_default() += 1;
                continue;
            }
            flow.screened += 1;
            flow.citations.screened += usize::from(by_citation);
            let result = self.results.get(&p.id);
            let label = self.labels.get(&p.id).and_then(|l| l.verdict);
            if self.labels.contains_key(&p.id) {
                flow.labelled += 1;
            }
            let (decision, by_researcher) = match (label, result) {
                (Some(verdict), _) => (verdict, true),
                (None, Some(r)) => (r.verdict, false),
                (None, None) => {
                    flow.not_scored += 1;
                    flow.stale += usize::from(self.stale.contains_key(&p.id));
                    continue;
                }
            };
            if p.is_record() && !has_full_text && decision != Verdict::Exclude {
                flow.kept_without_full_text += 1;
            }
            if by_citation {
                let c = &mut flow.citations;
                match decision {
                    Verdict::Exclude => c.excluded += 1,
                    Verdict::Include | Verdict::Maybe => {
                        c.sought += 1;
                        if has_full_text {
                            c.assessed += 1;
                        } else {
                            c.not_retrieved += 1;
                            let why = self
                                .not_retrieved
                                .get(&p.id.0)
                                .map_or(NOT_SOUGHT, String::as_str);
                            *not_retrieved.entry(why.to_owned()).or_default() += 1;
                        }
                        c.included += usize::from(decision == Verdict::Include);
                    }
                }
            }
            match decision {
                Verdict::Include => {
                    flow.included += 1;
                    flow.included_by_researcher += usize::from(by_researcher);
                }
                Verdict::Maybe => flow.maybe += 1,
                Verdict::Exclude => {
                    if by_researcher {
                        flow.excluded_by_researcher += 1;
                    } else {
                        flow.excluded_by_automation += 1;
                    }
                    let reason = first_unmet(result).unwrap_or_else(|| {
                        if by_researcher {
                            RESEARCHER_CALL
                        } else {
                            BELOW_CUTOFF
                        }
                        .to_owned()
                    });
                    *reasons.entry(reason).or_default() += 1;
                }
            }
        }
        flow.unreadable = unreadable
            .into_iter()
            .map(|(reason, papers)| Unreadable {
                reason: reason.to_owned(),
                papers,
            })
            .collect();
        flow.reasons = by_count(reasons);
        flow.citations.not_retrieved_reasons = by_count(not_retrieved);
        flow
    }
}

/// The counts as CSV (`stage,detail,papers`), for a PRISMA diagram tool or a
/// spreadsheet.
pub fn flow_csv(data: &ReportData<'_>) -> String {
    let flow = data.flow();
    let mut rows: Vec<(&str, String, usize)> = vec![
        ("identified", String::new(), flow.identified),
        (
            "identified_from_databases",
            String::new(),
            flow.from_databases,
        ),
        (
            "identified_from_files",
            String::new(),
            flow.identified - flow.from_databases,
        ),
        ("duplicates_removed", String::new(), flow.duplicates),
        ("records_with_full_text", String::new(), flow.with_full_text),
        (
            "kept_records_without_full_text",
            String::new(),
            flow.kept_without_full_text,
        ),
    ];
    for u in &flow.unreadable {
        rows.push(("not_retrieved", u.reason.clone(), u.papers));
    }
    let c = &flow.citations;
    let other_methods = [
        (
            "other_methods_identified_citation_searching",
            String::new(),
            c.identified,
        ),
        ("other_methods_duplicates", String::new(), c.duplicates),
        ("other_methods_screened", String::new(), c.screened),
        ("other_methods_excluded", String::new(), c.excluded),
        ("other_methods_reports_sought", String::new(), c.sought),
        (
            "other_methods_reports_not_retrieved",
            String::new(),
            c.not_retrieved,
        ),
        ("other_methods_reports_assessed", String::new(), c.assessed),
        ("other_methods_included", String::new(), c.included),
    ];
    if c.identified > 0 {
        rows.extend(other_methods);
        for r in &c.not_retrieved_reasons {
            rows.push((
                "other_methods_not_retrieved_reason",
                r.reason.clone(),
                r.papers,
            ));
        }
    }
    rows.extend([
        ("screened", String::new(), flow.screened),
        ("not_scored", String::new(), flow.not_scored),
        ("not_scored_stale", String::new(), flow.stale),
        (
            "excluded_by_automation",
            String::new(),
            flow.excluded_by_automation,
        ),
        (
            "excluded_by_researcher",
            String::new(),
            flow.excluded_by_researcher,
        ),
    ]);
    for r in &flow.reasons {
        rows.push(("excluded_reason", r.reason.clone(), r.papers));
    }
    rows.extend([
        ("maybe", String::new(), flow.maybe),
        ("included", String::new(), flow.included),
        (
            "included_by_researcher",
            String::new(),
            flow.included_by_researcher,
        ),
    ]);
    let mut out = String::from("stage,detail,papers\n");
    for (stage, detail, papers) in rows {
        out.push_str(&format!(
            "{stage},{},{papers}\n",
            crate::review::csv_field::cell(&detail)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use super::super::tests::{result, task};
    use super::super::{ReportData, render};
    use crate::review::{EngineKind, ReviewSpec};
    use crate::review_model::{PaperResult, Verdict};
    use crate::workspace::{
        CitationFound, ImportedFrom, PaperId, PaperMeta, PaperRecord, PaperStatus,
    };

    fn record(id: &str, by_citation: bool) -> PaperRecord {
        PaperRecord {
            id: PaperId(id.into()),
            file: PathBuf::from("/r/round-1.citations.json"),
            sha256: format!("{id}{}", "0".repeat(64 - id.len())),
            size: 100,
            status: PaperStatus::Ok,
            title: Some(format!("Work {id}")),
            duplicates: Vec::new(),
            reason: None,
            pages: 1,
            extractor: None,
            ocr: false,
            meta: PaperMeta::default(),
            imported: Some(ImportedFrom {
                format: "RIS".into(),
                position: 1,
                citation: by_citation.then(|| CitationFound {
                    openalex: format!("W{id}"),
                    round: 1,
                    ..CitationFound::default()
                }),
                ..ImportedFrom::default()
            }),
            full_text_of: None,
            full_text: None,
            duplicate_of: None,
        }
    }

    #[test]
    fn citation_records_fill_the_other_methods_column_not_the_databases_one() {
        // One database record; four found by citation searching: one
        // excluded, one maybe, two included of which one has full text.
        let mut papers: Vec<PaperRecord> = vec![record("d1", false)];
        papers.extend(["c1", "c2", "c3", "c4"].map(|id| record(id, true)));
        papers[4].full_text = Some(PaperId("pdf".into()));
        let mut pdf = record("pdf", false);
        pdf.imported = None;
        pdf.full_text_of = Some(PaperId("c4".into()));
        papers.push(pdf);
        let scores = [
            ("d1", 8.0),
            ("c1", 1.0),
            ("c2", 5.0),
            ("c3", 8.0),
            ("c4", 8.0),
        ];
        let results: BTreeMap<PaperId, PaperResult> = scores
            .iter()
            .map(|(id, score)| (PaperId((*id).into()), result(*score, "A sentence.")))
            .collect();
        assert_eq!(results[&PaperId("c2".into())].verdict, Verdict::Maybe);
        let failed: BTreeMap<String, String> = [(
            "c3".to_owned(),
            "arxiv.org refused the download (403)".to_owned(),
        )]
        .into();
        let task = task("snowballed");
        let spec = ReviewSpec {
            question: "q".into(),
            criteria: Vec::new(),
            engine: EngineKind::Offline,
            protocol: None,
        };
        let data = ReportData {
            task: &task,
            spec: &spec,
            papers: &papers,
            results: &results,
            date: "2026-12-04T10:00:00Z",
            stale: &BTreeMap::new(),
            screening: None,
            citation_duplicates: 3,
            not_retrieved: &failed,
            model: None,
            synthesis: None,
            labels: &BTreeMap::new(),
            earlier_labels: &BTreeMap::new(),
            failures: &BTreeMap::new(),
            undriven: &[],
            validation: &crate::review::validation::ValidationFile::default(),
            protocol: None,
            dual: None,
            table: None,
            asks: &[],
        };
        let flow = data.flow();
        assert_eq!(flow.from_databases, 1);
        let c = &flow.citations;
        assert_eq!((c.identified, c.duplicates, c.screened), (7, 3, 4));
        assert_eq!((c.excluded, c.sought, c.not_retrieved), (1, 3, 2));
        assert_eq!((c.assessed, c.included), (1, 2));
        let csv = super::flow_csv(&data);
        assert!(
            csv.contains("other_methods_identified_citation_searching,,7\n"),
            "{csv}"
        );
        assert!(csv.contains("other_methods_reports_not_retrieved,,2\n"));
        assert!(csv.contains(
            "other_methods_not_retrieved_reason,arxiv.org refused the download (403),1\n"
        ));
        assert!(csv.contains(
            "other_methods_not_retrieved_reason,not sought yet (no download approved),1\n"
        ));
        let report = render(&data);
        assert!(
            report.contains(
                "| Records identified by citation searching, new to the review (see below) | 4 |"
            ),
            "{report}"
        );
        assert!(report.contains("| Reports assessed for eligibility (full text) | 1 |"));
        assert!(report.contains("records from citation searching in OpenAlex"));
    }
}
