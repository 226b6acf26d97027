//! A paper's bibliographic record from the scholarly indexes: Crossref by DOI,
//! arXiv by its id, OpenAlex by DOI (free), and an OpenAlex search by title
//! only when the paper prints no identifier (searches spend its allowance).
//! Only identifiers and titles leave the machine. Answers are cached in the
//! data folder, each service is paced to its published rate limit, and a
//! service that cannot be reached is left alone for the rest of the run, so no
//! network means a quick, silent fallback to what the PDF itself says.
//! [`citations`] follows OpenAlex's citation graph for citation searching.

mod arxiv;
mod cache;
pub mod citations;
mod client;
mod crossref;
pub mod file_hosts;
mod markup;
pub mod open_access;
mod openalex;

use serde::{Deserialize, Serialize};

pub use client::{Endpoints, Lookup, LookupOptions, LookupStats};
pub use markup::{is_this_paper, plain, title_is_printed};
pub use openalex::{Allowance, LIST_USD, SEARCH_USD};

use crate::workspace::Author;

/// A scholarly index Quire asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Service {
    Crossref,
    Arxiv,
    Openalex,
}

impl Service {
    pub const ALL: [Service; 3] = [Service::Crossref, Service::Arxiv, Service::Openalex];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Crossref => "crossref",
            Self::Arxiv => "arxiv",
            Self::Openalex => "openalex",
        }
    }
}

/// What an index holds about one work, its text already plain (no markup).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScholarRecord {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub authors: Vec<Author>,
    #[serde(default)]
    pub year: Option<u16>,
    /// The journal, proceedings or conference.
    #[serde(default)]
    pub venue: Option<String>,
    #[serde(default)]
    pub doi: Option<String>,
    #[serde(default)]
    pub arxiv: Option<String>,
    #[serde(default, rename = "abstract")]
    pub abstract_text: Option<String>,
}

/// What is known of a paper before the lookup: the identifiers it prints,
/// its title as read, and the text of its first pages (to check that a record
/// is this paper's and not a cited work's).
#[derive(Clone, Debug, Default)]
pub struct Query {
    pub doi: Option<String>,
    pub arxiv: Option<String>,
    pub title: Option<String>,
    pub front_text: String,
}

/// A record and the index it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub service: Service,
    pub record: ScholarRecord,
}

/// An arXiv id without its version: "1706.03762v5" → "1706.03762".
pub fn arxiv_base_id(id: &str) -> &str {
    let id = id.trim();
    match id.rfind('v') {
        Some(at)
            if at > 0 && id[at + 1..].chars().all(|c| c.is_ascii_digit()) && at + 1 < id.len() =>
        {
            &id[..at]
        }
        _ => id,
    }
}

/// A DOI as the indexes key it: no resolver prefix, lowercase (the one
/// key the search exports' records use too).
pub use crate::records::bare_doi;

/// `text` with every byte but unreserved characters (and `also_keep`)
/// percent-encoded, for a URL's path or query.
fn percent_encode(text: &str, also_keep: &[u8]) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || also_keep.contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_keyed_without_version_or_resolver() {
        assert_eq!(arxiv_base_id("1706.03762v5"), "1706.03762");
        assert_eq!(arxiv_base_id("1706.03762"), "1706.03762");
        assert_eq!(arxiv_base_id("cs/0112017v1"), "cs/0112017");
        assert_eq!(arxiv_base_id("hep-th/9901001"), "hep-th/9901001");
        assert_eq!(bare_doi("https://doi.org/10.1145/ABC.1"), "10.1145/abc.1");
        assert_eq!(bare_doi("10.1000/x"), "10.1000/x");
    }
}
