//! The researcher's corrections to a paper's metadata,
//! `papers/<id>/corrections.json`: a title, authors, year, DOI or arXiv id
//! typed by hand. Extraction rewrites `paper.json` whenever it runs and never
//! touches this file, so a correction outlives every re-extraction; the
//! report, the exports and the app read the papers through [`corrected`].

use serde::{Deserialize, Serialize};

use crate::workspace::{
    Author, MetaField, Origin, PaperFile, PaperId, PaperRecord, Workspace, WorkspaceError,
};

/// The fields the researcher set; `None` leaves what extraction found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Corrections {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authors: Option<Vec<Author>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    /// When the researcher last changed them (RFC 3339).
    #[serde(default)]
    pub at: String,
}

impl Corrections {
    /// Later corrections win field by field; unset fields keep earlier ones.
    pub fn merged_with(mut self, newer: Corrections) -> Self {
        self.title = newer.title.or(self.title);
        self.authors = newer.authors.or(self.authors);
        self.year = newer.year.or(self.year);
        self.doi = newer.doi.or(self.doi);
        self.arxiv = newer.arxiv.or(self.arxiv);
        self.at = newer.at;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.title.is_none()
            && self.authors.is_none()
            && self.year.is_none()
            && self.doi.is_none()
            && self.arxiv.is_none()
    }

    /// The record as the researcher sees it: their values over the extracted
    /// (or looked-up) ones, each marked as corrected.
    pub fn apply(&self, record: &mut PaperRecord) {
        let meta = &mut record.meta;
        let mut took = Vec::new();
        if let Some(title) = &self.title {
            record.title = Some(title.clone());
            took.push(MetaField::Title);
        }
        if let Some(authors) = &self.authors {
            meta.authors = authors.clone();
            took.push(MetaField::Authors);
        }
        if let Some(year) = self.year {
            meta.year = Some(year);
            took.push(MetaField::Year);
        }
        if let Some(doi) = &self.doi {
            meta.doi = Some(doi.clone());
            took.push(MetaField::Doi);
        }
        if let Some(arxiv) = &self.arxiv {
            meta.arxiv = Some(arxiv.clone());
            took.push(MetaField::Arxiv);
        }
        for field in took {
            meta.sources.insert(field, Origin::Corrected);
        }
    }
}

/// The reader's title and authors from page one over what extraction read.
fn apply_front_matter(ws: &Workspace, record: &mut PaperRecord) -> Result<(), WorkspaceError> {
    let result = ws.read_paper_file::<crate::review::PaperResult>(&record.id, PaperFile::Result)?;
    let Some(front) = result.and_then(|r| r.front_matter) else {
        return Ok(());
    };
    if let Some(title) = front.title {
        record.title = Some(title);
        record.meta.sources.insert(MetaField::Title, Origin::Reader);
    }
    if !front.authors.is_empty() {
        record.meta.authors = front.authors.iter().map(|a| Author::parse(a)).collect();
        record
            .meta
            .sources
            .insert(MetaField::Authors, Origin::Reader);
    }
    Ok(())
}

/// The paper's corrections, if the researcher made any.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<Corrections>, WorkspaceError> {
    ws.read_paper_file(id, PaperFile::Corrections)
}

pub fn save(ws: &Workspace, id: &PaperId, corrections: &Corrections) -> Result<(), WorkspaceError> {
    ws.write_paper_file(id, PaperFile::Corrections, corrections)
}

/// Take every correction of the paper away: what extraction found stands again.
pub fn clear(ws: &Workspace, id: &PaperId) -> Result<(), WorkspaceError> {
    ws.remove_paper_file(id, PaperFile::Corrections)
}

/// One paper's record as the researcher sees it: what the PDF said, under
/// what the reader read on page one (its result's front matter), under what
/// an index said (`lookup.json`), under their own corrections.
pub fn corrected_paper(
    ws: &Workspace,
    mut record: PaperRecord,
) -> Result<PaperRecord, WorkspaceError> {
    apply_front_matter(ws, &mut record)?;
    super::enrich::apply_saved(ws, &mut record)?;
    if let Some(corrections) = load(ws, &record.id)? {
        corrections.apply(&mut record);
    }
    Ok(record)
}

/// Every paper of the workspace with its looked-up records and corrections applied.
pub fn corrected(ws: &Workspace) -> Result<Vec<PaperRecord>, WorkspaceError> {
    ws.papers()?
        .into_iter()
        .map(|record| corrected_paper(ws, record))
        .collect()
}
