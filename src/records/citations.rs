//! A round of citation searching as records: the file Quire writes when it
//! follows a review's seeds along their citations (`review::snowball`),
//! read back like any search export. Besides the works found (each with the
//! seeds that led to it and which way), the file keeps what PRISMA's "other
//! methods" boxes count and a reader of the review would ask: the seeds, the
//! works dropped as already in the review (with why), the calls made and
//! what they cost, and whether the round finished.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{Format, Record, RecordsError};
use crate::workspace::{CitationFound, Direction, FoundVia, OpenCopy, PaperId};

/// The round format's version, and the key that marks a round file.
pub const ROUND_VERSION: u32 = 1;

/// How a round file's name ends: `round-1.citations.json`.
pub const ROUND_ENDING: &str = ".citations.json";

/// One round, written to `citations/round-<n>.citations.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    pub quire_citations: u32,
    /// From 1.
    pub round: u32,
    /// When it was made (RFC 3339).
    pub made_at: String,
    pub directions: Vec<Direction>,
    pub seeds: Vec<Seed>,
    /// Works new to the review, in the order found.
    pub records: Vec<FoundWork>,
    /// Works found that the review already has.
    pub duplicates: Vec<DuplicateWork>,
    pub calls: Calls,
    /// What the researcher should know: an allowance spent, a seed with more
    /// citing works than can be listed.
    #[serde(default)]
    pub notices: Vec<String>,
    /// Every call the plan named was made; a round stopped early (the day's
    /// allowance spent, OpenAlex unreachable) says false.
    pub complete: bool,
}

/// A paper of the review the round started from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SnowballSeed"))]
pub struct Seed {
    #[cfg_attr(test, ts(type = "string"))]
    pub paper: PaperId,
    pub title: Option<String>,
    /// Its OpenAlex id, when OpenAlex knows it.
    pub openalex: Option<String>,
    /// Works in its references.
    pub references: usize,
    /// Works citing it, as OpenAlex counts them.
    pub cited_by: u64,
    /// Why it could not be followed, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_followed: Option<String>,
}

/// A work found, as OpenAlex describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FoundWork {
    pub openalex: String,
    /// Ids OpenAlex merged into this work that led to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<String>,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    /// "Family, Given", in order.
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    pub via: Vec<FoundVia>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_copy: Option<OpenCopy>,
}

/// A work found that the review already has.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateWork {
    pub openalex: String,
    pub title: String,
    /// The review's paper it is.
    pub paper: PaperId,
    /// Why it is that paper, in words.
    pub why: String,
    pub via: Vec<FoundVia>,
}

/// The calls a round made to OpenAlex, by its price tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SnowballCalls"))]
pub struct Calls {
    /// Lookups of one work by id or DOI: free.
    pub singleton: u64,
    /// Lists (by ids, by `cites:`), one page each.
    pub list: u64,
    /// Title searches, for seeds with no identifier.
    pub search: u64,
    /// What they cost at OpenAlex's published prices, in US dollars.
    pub cost_usd: f64,
}

/// Whether `text` is a round file (not a CSV that happens to be JSON).
pub fn is_round(text: &str) -> bool {
    text.contains("\"quireCitations\"")
}

/// The round a file holds.
pub fn read_round(path: &Path) -> Result<Round, RecordsError> {
    let text = std::fs::read_to_string(path).map_err(|source| RecordsError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    round_of(&text, path)
}

fn round_of(text: &str, path: &Path) -> Result<Round, RecordsError> {
    serde_json::from_str(text).map_err(|e| RecordsError::Malformed {
        path: path.to_owned(),
        format: Format::Citations.as_str(),
        reason: e.to_string(),
    })
}

/// The records of a round file: its new works, each with how it was found.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Record>, RecordsError> {
    let round = round_of(text, path)?;
    Ok(round
        .records
        .into_iter()
        .enumerate()
        .map(|(index, work)| Record {
            title: work.title,
            abstract_text: work.abstract_text,
            authors: work.authors,
            year: work.year,
            journal: work.venue,
            doi: work.doi,
            pmid: work.pmid,
            accession: None,
            keywords: Vec::new(),
            file: path.to_owned(),
            index,
            format: Format::Citations,
            zotero: None,
            citation: Some(CitationFound {
                openalex: work.openalex,
                round: round.round,
                via: work.via,
                open_copy: work.open_copy,
            }),
            arxiv: work.arxiv,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_reads_back_as_records_with_where_each_came_from() {
        let via = vec![FoundVia {
            seed: PaperId("abc".into()),
            direction: Direction::Forward,
        }];
        let round = Round {
            quire_citations: ROUND_VERSION,
            round: 2,
            made_at: "2026-12-04T12:00:00Z".into(),
            directions: vec![Direction::Backward, Direction::Forward],
            seeds: Vec::new(),
            records: vec![FoundWork {
                openalex: "W2".into(),
                title: "Citing work".into(),
                authors: vec!["Lamport, Leslie".into()],
                year: Some(2001),
                arxiv: Some("2101.00001".into()),
                via: via.clone(),
                ..FoundWork::default()
            }],
            duplicates: Vec::new(),
            calls: Calls::default(),
            notices: Vec::new(),
            complete: true,
        };
        let text = serde_json::to_string(&round).unwrap();
        assert!(is_round(&text));
        let path = Path::new("/r/round-2.citations.json");
        let records = parse(&text, path).unwrap();
        assert_eq!(records.len(), 1);
        let r = &records[0];
        assert_eq!(r.format, Format::Citations);
        assert_eq!(r.arxiv.as_deref(), Some("2101.00001"));
        let found = r.citation.as_ref().unwrap();
        assert_eq!((found.openalex.as_str(), found.round), ("W2", 2));
        assert_eq!(found.via, via);
        assert!(parse("{\"quireCitations\": 1}", path).is_err());
    }
}
