//! Full text for search records: a folder of PDFs attached to a review
//! that holds records. Its PDFs are registered and read like a dropped
//! folder's, then each is matched to the record it is the full text of: by
//! the DOI found on its first page, else by its title (letters and digits;
//! years, when both have one, at most a year apart, as a preprint and its
//! journal version). A matched PDF names its record (`full_text_of`); the
//! record stays what is screened and counted, the PDF is its report. A PDF
//! that matches no record stays in the review as a paper of its own, and
//! the summary says which records have full text and which PDFs matched
//! none, with why.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::run::extract_papers;
use super::source::{canonical_source, link_full_text, register_papers};
use super::{ReviewError, corrections};
use crate::agent::EventSink;
use crate::blocking::blocking;
use crate::pdf::find_pdfs;
use crate::pdf::ingest::IngestOptions;
use crate::records::duplicates::title_key;
use crate::records::normalize_doi;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, PaperRecord, Workspace};

/// A PDF found to be a record's full text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Attachment {
    pub record: String,
    pub record_title: Option<String>,
    pub pdf: String,
    /// The PDF's file name.
    pub file: String,
    /// "DOI" or "title".
    pub by: String,
}

/// A PDF of the folder that is no record's full text, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Unmatched {
    pub pdf: String,
    pub file: String,
    pub why: String,
}

/// What attaching a folder did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FullTextSummary {
    pub folder: String,
    /// PDFs found in the folder.
    pub pdfs: usize,
    /// Those matched to a record now or before.
    pub attached: Vec<Attachment>,
    pub unmatched: Vec<Unmatched>,
    /// Records in the review, and of them those with full text now.
    pub records: usize,
    pub with_full_text: usize,
}

/// Attach the PDFs of `folder` to `ws`: register and read them, remember
/// the folder as one of the review's, and match them to its records.
pub async fn attach_folder(
    ws: &Workspace,
    folder: &Path,
    options: &IngestOptions,
    events: Arc<dyn EventSink>,
) -> Result<FullTextSummary, ReviewError> {
    let folder = canonical_source(folder)?;
    let (papers, files) = {
        let (ws, folder) = (ws.clone(), folder.clone());
        blocking(move || {
            let pdfs = find_pdfs(&folder)?;
            register_papers(&ws, &pdfs)?;
            remember_folder(&ws, &folder)?;
            let files: HashSet<PathBuf> = pdfs.into_iter().map(|p| p.path).collect();
            let papers: Vec<PaperRecord> = ws
                .papers()?
                .into_iter()
                .filter(|p| !p.is_record() && in_files(p, &files))
                .collect();
            Ok::<_, ReviewError>((papers, files))
        })
        .await?
    };
    let papers = extract_papers(ws, papers, options, events).await?;
    let ws = ws.clone();
    blocking(move || {
        match_full_text(&ws)?;
        summary(&ws, &folder, &files, papers.len())
    })
    .await
}

/// Match every PDF of the review not yet matched to the record it is the
/// full text of, and save the matches. A record has one full text: a
/// second PDF of it stays unmatched.
pub fn match_full_text(ws: &Workspace) -> Result<Vec<Attachment>, ReviewError> {
    let papers = corrections::corrected(ws)?;
    let records: Vec<&PaperRecord> = papers.iter().filter(|p| p.is_record()).collect();
    let mut taken: HashSet<PaperId> = papers
        .iter()
        .filter_map(|p| p.full_text_of.clone())
        .collect();
    let mut by_doi: HashMap<String, &PaperRecord> = HashMap::new();
    let mut by_title: HashMap<String, &PaperRecord> = HashMap::new();
    for r in &records {
        if let Some(doi) = doi_of(r) {
            by_doi.entry(doi).or_insert(r);
        }
        if let Some(key) = r.title.as_deref().and_then(title_key) {
            by_title.entry(key).or_insert(r);
        }
    }
    let mut attached = Vec::new();
    for pdf in papers
        .iter()
        .filter(|p| !p.is_record() && p.full_text_of.is_none() && p.status.is_readable())
    {
        let Some((record, by)) = record_of(pdf, &by_doi, &by_title) else {
            continue;
        };
        if !taken.insert(record.id.clone()) {
            continue;
        }
        link_full_text(ws, &record.id, &pdf.id)?;
        attached.push(attachment(record, pdf, by));
    }
    Ok(attached)
}

/// Each record's full text (a PDF paper), by the record's id.
pub fn full_texts(papers: &[PaperRecord]) -> HashMap<&PaperId, &PaperRecord> {
    papers
        .iter()
        .filter_map(|p| p.full_text_of.as_ref().map(|r| (r, p)))
        .collect()
}

/// The record `pdf` is the full text of, and by what.
fn record_of<'a>(
    pdf: &PaperRecord,
    by_doi: &HashMap<String, &'a PaperRecord>,
    by_title: &HashMap<String, &'a PaperRecord>,
) -> Option<(&'a PaperRecord, &'static str)> {
    if let Some(record) = doi_of(pdf).and_then(|d| by_doi.get(&d)) {
        return Some((record, "DOI"));
    }
    let record = by_title.get(&pdf.title.as_deref().and_then(title_key)?)?;
    let years_agree = match (pdf.meta.year, record.meta.year) {
        (Some(a), Some(b)) => a.abs_diff(b) <= 1,
        _ => true,
    };
    years_agree.then_some((record, "title"))
}

fn attachment(record: &PaperRecord, pdf: &PaperRecord, by: &str) -> Attachment {
    Attachment {
        record: record.id.0.clone(),
        record_title: record.title.clone(),
        pdf: pdf.id.0.clone(),
        file: file_name(&pdf.file),
        by: by.to_owned(),
    }
}

fn doi_of(p: &PaperRecord) -> Option<String> {
    p.meta.doi.as_deref().and_then(normalize_doi)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or_else(|| path.to_string_lossy(), |n| n.to_string_lossy())
        .into_owned()
}

fn in_files(p: &PaperRecord, files: &HashSet<PathBuf>) -> bool {
    files.contains(&p.file) || p.duplicates.iter().any(|d| files.contains(d))
}

/// Keep `folder` among the review's folders (its source is one already).
fn remember_folder(ws: &Workspace, folder: &Path) -> Result<(), ReviewError> {
    let mut task = ws.task()?;
    if task.source.as_deref() == Some(folder) || task.folders.iter().any(|f| f == folder) {
        return Ok(());
    }
    task.folders.push(folder.to_owned());
    task.updated_at = now_rfc3339();
    Ok(ws.save_task(&task)?)
}

/// What the folder's PDFs are now: attached to a record, or not and why.
fn summary(
    ws: &Workspace,
    folder: &Path,
    files: &HashSet<PathBuf>,
    pdfs: usize,
) -> Result<FullTextSummary, ReviewError> {
    let papers = corrections::corrected(ws)?;
    let by_id: HashMap<&PaperId, &PaperRecord> = papers.iter().map(|p| (&p.id, p)).collect();
    let texts = full_texts(&papers);
    let mut attached = Vec::new();
    let mut unmatched = Vec::new();
    for pdf in papers
        .iter()
        .filter(|p| !p.is_record() && in_files(p, files))
    {
        match pdf.full_text_of.as_ref().and_then(|r| by_id.get(r)) {
            Some(record) => {
                let by = if doi_of(pdf).is_some() && doi_of(pdf) == doi_of(record) {
                    "DOI"
                } else {
                    "title"
                };
                attached.push(attachment(record, pdf, by));
            }
            None => unmatched.push(Unmatched {
                pdf: pdf.id.0.clone(),
                file: file_name(&pdf.file),
                why: why_unmatched(pdf, &papers, &texts),
            }),
        }
    }
    let records = papers.iter().filter(|p| p.is_record()).count();
    Ok(FullTextSummary {
        folder: folder.to_string_lossy().into_owned(),
        pdfs,
        with_full_text: papers
            .iter()
            .filter(|p| p.is_record() && texts.contains_key(&p.id))
            .count(),
        attached,
        unmatched,
        records,
    })
}

fn why_unmatched(
    pdf: &PaperRecord,
    papers: &[PaperRecord],
    texts: &HashMap<&PaperId, &PaperRecord>,
) -> String {
    if !pdf.status.is_readable() {
        return format!(
            "it could not be read ({})",
            pdf.reason.as_deref().unwrap_or(pdf.status.as_str())
        );
    }
    let key = pdf.title.as_deref().and_then(title_key);
    let doi = doi_of(pdf);
    let twin = papers.iter().filter(|p| p.is_record()).find(|r| {
        (doi.is_some() && doi_of(r) == doi)
            || (key.is_some() && r.title.as_deref().and_then(title_key) == key)
    });
    match twin {
        Some(record) if texts.contains_key(&record.id) => format!(
            "its record already has full text ({})",
            texts[&record.id]
                .file
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
        ),
        Some(_) => "its title matches a record whose year is more than a year apart".to_owned(),
        None if doi.is_none() => "no DOI on its first page, and no record has its title".to_owned(),
        None => "no record has its DOI or its title".to_owned(),
    }
}
