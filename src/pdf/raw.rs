//! What an extraction engine returns: a document's pages of text with its
//! information dictionary and page one's lines of type, or why there is none.
//! Plain data shared by the engines, the OCR and the metadata readers.

use serde::{Deserialize, Serialize};

use super::layout::TextLine;

/// The document-information fields we use for metadata.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InfoDict {
    pub title: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    pub keywords: Option<String>,
    pub creation_date: Option<String>,
    /// `dc:title` from the XMP metadata stream.
    #[serde(default)]
    pub xmp_title: Option<String>,
    /// `dc:creator` from the XMP metadata stream.
    #[serde(default)]
    pub xmp_creators: Vec<String>,
}

/// What an engine got out of a document.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RawText {
    pub pages: Vec<String>,
    /// Pages the engine failed on (their text is empty in `pages`).
    pub failed_pages: usize,
    pub info: InfoDict,
    /// The paper's first page's lines of type, for metadata (page two's when
    /// page one is a repository's cover sheet); empty from engines that give
    /// no layout.
    #[serde(default)]
    pub head: Vec<TextLine>,
}

/// Why an engine produced nothing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EngineFailure {
    /// A user password is needed (an owner-only password is opened with "").
    Encrypted,
    /// The engine could not parse the file at all.
    Damaged { reason: String },
    /// More pages than we are willing to read.
    TooManyPages { pages: usize },
}
