//! Correcting a paper's metadata by hand (`quire meta set`, the app's detail
//! pane): the values go to `papers/<id>/corrections.json`, which no
//! extraction overwrites, and the report and exports use them.

use super::ErrorKind;
use std::path::PathBuf;

use serde::Deserialize;

use super::CommandError;
use super::reviews::paper_by_prefix;
use crate::blocking::blocking;
use crate::review::corrections::{self, Corrections};
use crate::workspace::{Author, Workspace};

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct MetaSetParams {
    pub workspace: PathBuf,
    /// A paper id, or a unique prefix of one.
    pub paper: String,
    #[serde(default)]
    pub title: Option<String>,
    /// Each as printed: "Robbert van Renesse" or "van Renesse, Robbert".
    #[serde(default)]
    pub authors: Option<Vec<String>>,
    #[serde(default)]
    pub year: Option<u16>,
    #[serde(default)]
    pub doi: Option<String>,
    #[serde(default)]
    pub arxiv: Option<String>,
}

/// Correct some of a paper's metadata; fields left out keep earlier
/// corrections (or what extraction found). Returns all corrections now held.
pub async fn meta_set(params: MetaSetParams) -> Result<Corrections, CommandError> {
    let newer = validated(&params)?;
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let paper = paper_by_prefix(&ws, &params.paper)?;
        let held = corrections::load(&ws, &paper)?.unwrap_or_default();
        let merged = held.merged_with(newer);
        corrections::save(&ws, &paper, &merged)?;
        Ok(merged)
    })
    .await
}

/// Take a paper's corrections away; extraction's values stand again.
pub async fn meta_clear(workspace: PathBuf, paper: String) -> Result<(), CommandError> {
    blocking(move || {
        let ws = Workspace::open(&workspace)?;
        let paper = paper_by_prefix(&ws, &paper)?;
        corrections::clear(&ws, &paper)?;
        Ok(())
    })
    .await
}

fn validated(params: &MetaSetParams) -> Result<Corrections, CommandError> {
    let trimmed = |v: &Option<String>| v.as_deref().map(str::trim).map(str::to_owned);
    let invalid = |field: &str, why: &str| {
        CommandError::new(
            ErrorKind::InvalidInput,
            "invalid_metadata",
            format!("{field}: {why}"),
        )
    };
    let title = trimmed(&params.title);
    if title.as_deref().is_some_and(str::is_empty) {
        return Err(invalid("title", "it is empty"));
    }
    let authors: Option<Vec<Author>> = params.authors.as_ref().map(|names| {
        names
            .iter()
            .map(|n| n.trim())
            .filter(|n| !n.is_empty())
            .map(Author::parse)
            .collect()
    });
    if let Some(year) = params.year
        && !(1000..=2100).contains(&year)
    {
        return Err(invalid("year", &format!("{year} is not a year")));
    }
    let doi = trimmed(&params.doi);
    if let Some(doi) = &doi
        && !(doi.starts_with("10.") && doi.contains('/'))
    {
        return Err(invalid(
            "doi",
            &format!("{doi:?} is not a DOI (10.prefix/suffix)"),
        ));
    }
    let corrections = Corrections {
        title,
        authors,
        year: params.year,
        doi,
        arxiv: trimmed(&params.arxiv).filter(|a| !a.is_empty()),
        at: crate::workspace::records::now_rfc3339(),
    };
    if corrections.is_empty() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "empty_correction",
            "give a title, authors, a year, a DOI or an arXiv id",
        ));
    }
    Ok(corrections)
}
