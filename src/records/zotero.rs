//! A Zotero collection as records: the snapshot file Quire writes when it
//! reads a collection from Zotero ([`crate::zotero`]), read back like any
//! search export. Each item carries its Zotero key and version, its own tags
//! and notes, and the paths of its PDFs, so the review can give each record
//! its full text and, later, write its verdicts back to the same item.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Format, Record, RecordsError};

/// The snapshot format's version, and the key that marks a snapshot file.
pub const SNAPSHOT_VERSION: u32 = 1;

/// A collection as read, written to `<name>.zotero.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub quire_zotero: u32,
    pub collection: Collection,
    pub via: Via,
    /// When it was read (RFC 3339).
    pub read_at: String,
    pub items: Vec<Item>,
}

/// A library: "My Library" (the local user's, id 0) or a group's.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ZoteroLibrary"))]
pub struct Library {
    /// "user" or "group".
    pub kind: String,
    /// 0 for the local user's library, the group's id for a group.
    pub id: u64,
    pub name: String,
}

impl Library {
    /// The API's path prefix: `users/0` or `groups/123`.
    pub fn prefix(&self) -> String {
        match self.kind.as_str() {
            "group" => format!("groups/{}", self.id),
            _ => "users/0".to_owned(),
        }
    }
}

/// A collection, with the path of names that leads to it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ZoteroCollection"))]
pub struct Collection {
    pub library: Library,
    pub key: String,
    pub name: String,
    /// Its parents' names and its own: "Thesis / Chapter 2".
    pub path: String,
    /// Items directly in it (notes and attachments of items not counted).
    pub items: usize,
}

/// One item of a collection as a review takes it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    pub key: String,
    /// The item's version (a sync version before Zotero 10; 0 when never synced).
    pub version: u64,
    pub item_type: String,
    pub title: String,
    /// "Family, Given" (or an organisation's one name), in order.
    pub authors: Vec<String>,
    pub year: Option<i32>,
    /// The journal, proceedings or book.
    pub venue: Option<String>,
    pub doi: Option<String>,
    #[serde(rename = "abstract")]
    pub abstract_text: Option<String>,
    pub url: Option<String>,
    /// Its PubMed id, which Zotero keeps in Extra (`PMID: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    /// Its arXiv id without version: from Extra (`arXiv: …`), a preprint's
    /// archive id, an arXiv DOI or link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
    /// The item's own tags, as the researcher sees them in Zotero.
    pub tags: Vec<String>,
    /// Its child notes, as plain text.
    pub notes: Vec<String>,
    /// Its PDF attachments found on disk, first the one Zotero lists first.
    pub pdfs: Vec<PathBuf>,
    /// Those attachments' keys, in the same order (to link to a page).
    #[serde(default)]
    pub pdf_keys: Vec<String>,
    /// PDF attachments that could not be found, with why.
    pub missing: Vec<String>,
}

/// Where a collection was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ZoteroVia"))]
pub enum Via {
    /// Zotero's local API (Zotero running).
    LocalApi,
    /// A private copy of `zotero.sqlite` (Zotero closed).
    Database,
}

/// The title a review of the snapshot at `path` takes: its collection's
/// library and path ("My Library / Thesis / Chapter 2").
pub fn review_title(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let snapshot: Snapshot = serde_json::from_str(&text).ok()?;
    Some(format!(
        "{} / {}",
        snapshot.collection.library.name, snapshot.collection.path
    ))
}

/// Whether `text` is a Zotero snapshot (and not some other JSON).
pub fn is_snapshot(text: &str) -> bool {
    text.trim_start().starts_with('{') && text.contains("\"quireZotero\"")
}

/// The records of a snapshot file: one per item, its Zotero fields kept.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Record>, RecordsError> {
    let snapshot: Snapshot = serde_json::from_str(text).map_err(|e| RecordsError::Malformed {
        path: path.to_owned(),
        format: Format::Zotero.as_str(),
        reason: e.to_string(),
    })?;
    if snapshot.quire_zotero > SNAPSHOT_VERSION {
        return Err(RecordsError::Malformed {
            path: path.to_owned(),
            format: Format::Zotero.as_str(),
            reason: format!(
                "it was written by a newer Quire (snapshot version {})",
                snapshot.quire_zotero
            ),
        });
    }
    let library = snapshot.collection.library.prefix();
    Ok(snapshot
        .items
        .into_iter()
        .enumerate()
        .map(|(index, item)| Record {
            title: item.title.clone(),
            abstract_text: item.abstract_text.clone(),
            authors: item.authors.clone(),
            year: item.year,
            journal: item.venue.clone(),
            doi: item.doi.clone(),
            pmid: item.pmid.clone(),
            accession: None,
            keywords: Vec::new(),
            file: path.to_owned(),
            index,
            format: Format::Zotero,
            citation: None,
            arxiv: item.arxiv.clone(),
            zotero: Some(ZoteroRecord {
                library: library.clone(),
                key: item.key,
                version: item.version,
                item_type: item.item_type,
                tags: item.tags,
                notes: item.notes,
                pdfs: item.pdfs,
                pdf_keys: item.pdf_keys,
                missing: item.missing,
            }),
        })
        .collect())
}

/// The identifiers Zotero keeps outside its fields, from an item's Extra
/// (one `Key: value` a line, as Zotero's translators write `PMID: 123` and
/// `arXiv: 2101.00001`) and, for the arXiv id, its preprint archive id
/// (`arXiv:2101.00001`), DOI (`10.48550/arXiv.2101.00001`) or link: the
/// PMID and the arXiv id without version.
pub fn ids_beyond_fields(
    extra: Option<&str>,
    archive_id: Option<&str>,
    doi: Option<&str>,
    url: Option<&str>,
) -> (Option<String>, Option<String>) {
    let lines = || extra.into_iter().flat_map(str::lines);
    let value_of = |key: &str| {
        lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(key)
                .then(|| v.trim().to_owned())
        })
    };
    let pmid = value_of("PMID")
        .map(|v| {
            v.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
        })
        .filter(|v| !v.is_empty());
    let arxiv_doi = doi.map(str::to_lowercase).and_then(|d| {
        d.strip_prefix("10.48550/arxiv.")
            .map(|id| format!("arXiv:{id}"))
    });
    let arxiv = value_of("arXiv")
        .map(|v| format!("arXiv:{v}"))
        .into_iter()
        .chain(archive_id.map(str::to_owned))
        .chain(arxiv_doi)
        .chain(url.map(str::to_owned))
        .find_map(|text| crate::pdf::metadata::find_arxiv(&text))
        .map(|id| super::values::arxiv_without_version(&id));
    (pmid, arxiv)
}

/// What a record from Zotero keeps of its item beyond the bibliographic
/// fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ZoteroRecord {
    /// The library's API prefix: `users/0` or `groups/123`.
    pub library: String,
    pub key: String,
    pub version: u64,
    pub item_type: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pdfs: Vec<PathBuf>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pdf_keys: Vec<String>,
    /// PDF attachments that were not found, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pmid_and_an_arxiv_id_are_found_where_zotero_keeps_them() {
        let extra = "Publisher: ACM\nPMID: 30922926 \narXiv: 1706.03762v5";
        assert_eq!(
            ids_beyond_fields(Some(extra), None, None, None),
            (Some("30922926".into()), Some("1706.03762".into()))
        );
        // A preprint's archive id, an arXiv DOI, a link.
        for (archive, doi, url) in [
            (Some("arXiv:2101.00001"), None, None),
            (None, Some("10.48550/arXiv.2101.00001"), None),
            (None, None, Some("http://arxiv.org/abs/2101.00001v2")),
        ] {
            let (pmid, arxiv) = ids_beyond_fields(Some("tex.ids: x"), archive, doi, url);
            assert_eq!((pmid, arxiv.as_deref()), (None, Some("2101.00001")));
        }
        assert_eq!(
            ids_beyond_fields(Some("PMID: none yet"), None, Some("10.1000/x"), None),
            (None, None)
        );
    }
}
