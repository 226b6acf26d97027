//! The typed files Quire itself keeps in a workspace: task metadata, one record per
//! paper, one per run. They are the record of truth the index is rebuilt from, so
//! every field the index shows lives here first.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::Author;

/// Version of the on-disk record format; bumped on incompatible changes.
pub const FORMAT_VERSION: u32 = 1;

/// Identifies a workspace; also the name of its folder under the default root.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WorkspaceId(pub String);

/// Identifies a paper within a workspace: the first 16 hex digits of its sha256,
/// so the same file always gets the same id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PaperId(pub String);

/// Identifies one run of an engine over a workspace.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RunId(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Created, no run started yet.
    New,
    Running,
    Done,
    Failed,
    Cancelled,
    /// Stopped at a cap or by a failed write; running it again resumes.
    Stopped,
    /// A pilot read some papers under the approved protocol; running the
    /// review reads the rest.
    Pilot,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::New => "new",
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Stopped => "stopped",
            Self::Pilot => "pilot",
        }
    }
}

/// `task.json`: what the review is about and where its papers came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskMeta {
    pub format: u32,
    pub id: WorkspaceId,
    pub title: String,
    /// The folder (or file) the papers were taken from.
    #[serde(default, with = "super::os_path::option")]
    pub source: Option<PathBuf>,
    #[serde(default)]
    pub question: Option<String>,
    /// Inclusion/exclusion criteria, one sentence each.
    #[serde(default)]
    pub criteria: Vec<String>,
    /// Folders of PDFs added to the review after its source (full text
    /// for its search records): their PDFs take part in every run too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub folders: Vec<PathBuf>,
    pub status: TaskStatus,
    pub created_at: String,
    pub updated_at: String,
}

impl TaskMeta {
    /// A new task over the papers of `source`, created now.
    pub fn new(id: WorkspaceId, title: String, source: &std::path::Path) -> Self {
        let now = now_rfc3339();
        Self {
            format: FORMAT_VERSION,
            id,
            title,
            source: Some(source.to_path_buf()),
            question: None,
            criteria: Vec::new(),
            folders: Vec::new(),
            status: TaskStatus::New,
            created_at: now.clone(),
            updated_at: now,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PaperStatus {
    /// Found, not read yet.
    Pending,
    /// Text extracted; ready to review.
    Ok,
    /// Needs a user password.
    Encrypted,
    /// No usable text layer (scanned pages, or a broken font encoding).
    NeedsOcr,
    /// Truncated or corrupt; the reason says how.
    Damaged,
    /// Not a PDF at all (empty, or another kind of file named .pdf).
    NotPdf,
    /// Over the size or page limit.
    TooLarge,
    /// Extraction did not finish within the time limit.
    Timeout,
}

impl PaperStatus {
    pub const ALL: [PaperStatus; 8] = [
        Self::Pending,
        Self::Ok,
        Self::Encrypted,
        Self::NeedsOcr,
        Self::Damaged,
        Self::NotPdf,
        Self::TooLarge,
        Self::Timeout,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Ok => "ok",
            Self::Encrypted => "encrypted",
            Self::NeedsOcr => "needs_ocr",
            Self::Damaged => "damaged",
            Self::NotPdf => "not_pdf",
            Self::TooLarge => "too_large",
            Self::Timeout => "timeout",
        }
    }

    /// Whether the paper has text to review.
    pub fn is_readable(self) -> bool {
        self == Self::Ok
    }
}

/// `papers/<id>/paper.json`: one source file and what is known of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperRecord {
    pub id: PaperId,
    /// Absolute path of the source file when it was found (exactly, even
    /// when it is not valid UTF-8: [`super::os_path`]).
    #[serde(with = "super::os_path")]
    pub file: PathBuf,
    pub sha256: String,
    pub size: u64,
    pub status: PaperStatus,
    #[serde(default)]
    pub title: Option<String>,
    /// Other files with identical bytes, listed under this one.
    #[serde(default, with = "super::os_path::list")]
    pub duplicates: Vec<PathBuf>,
    /// Why the status is what it is, for a person ("needs a password to open").
    #[serde(default)]
    pub reason: Option<String>,
    /// Pages with text, once extracted.
    #[serde(default)]
    pub pages: usize,
    /// The engine and version whose text is in `text.txt`.
    #[serde(default)]
    pub extractor: Option<String>,
    /// The text was read from page images by OCR (a scan with no text layer).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ocr: bool,
    #[serde(default)]
    pub meta: PaperMeta,
    /// Set when the paper is a record of a database search's export (title
    /// and abstract, no PDF): `file` is then the export it was read from,
    /// and its text is the title and the abstract, as one page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<ImportedFrom>,
    /// The search record this PDF is the full text of, matched when its
    /// folder was attached ([`crate::review::fulltext`]): the record is
    /// what is screened and counted; this is its report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_text_of: Option<PaperId>,
    /// On a search record: the PDF attached as its full text (the other
    /// side of `full_text_of`, written with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_text: Option<PaperId>,
    /// Set aside by the researcher as a copy of another paper of the
    /// review: removed before screening (PRISMA's duplicates), never read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<PaperId>,
}

impl PaperRecord {
    /// Whether the paper takes part in screening and reading: not set
    /// aside as a duplicate, nor a PDF that is a record's full text.
    pub fn is_screened_itself(&self) -> bool {
        self.duplicate_of.is_none() && self.full_text_of.is_none()
    }
}

impl PaperRecord {
    /// Whether the paper is a search record with no full text of its own.
    pub fn is_record(&self) -> bool {
        self.imported.is_some()
    }
}

/// Where an imported record came from, and what it holds beyond
/// [`PaperMeta`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportedFrom {
    /// The export's format, as a person names it ("RIS", "PubMed/MEDLINE").
    pub format: String,
    /// The record's place in its file, from 1.
    pub position: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    /// The database's own id of the record (WoS UT, Scopus EID, an Embase
    /// or Ovid accession number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accession: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// A newer export of the search this record came from no longer holds
    /// it: it left the search (kept, with its labels, for the researcher
    /// to judge).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub left_search: bool,
    /// The Zotero item the record is, for a record read from Zotero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zotero: Option<ZoteroItem>,
    /// How citation searching found the record, for one it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<CitationFound>,
}

/// Which way along the citations a record was found from its seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Direction {
    /// Cited by the seed (in its references).
    Backward,
    /// Citing the seed.
    Forward,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Backward => "backward",
            Self::Forward => "forward",
        }
    }
}

/// One seed that led to a record, and which way.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FoundVia {
    /// The seed: a paper of the review.
    #[cfg_attr(test, ts(type = "string"))]
    pub seed: PaperId,
    pub direction: Direction,
}

/// An open-access copy of a work, as OpenAlex or Unpaywall tells it: what
/// the researcher sees before approving a download.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenCopy {
    /// The PDF itself, when the host offers one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landing_url: Option<String>,
    /// Who hosts it: a repository or a publisher, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// "publishedVersion", "acceptedVersion" or "submittedVersion".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// "cc-by", "cc-by-nc", …; none when the host states none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub licence: Option<String>,
}

/// What citation searching knows of a record it found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CitationFound {
    /// Its OpenAlex id (`W…`), after any merge.
    pub openalex: String,
    /// The round of citation searching that found it, from 1.
    pub round: u32,
    /// Every seed that led to it, and which way.
    pub via: Vec<FoundVia>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_copy: Option<OpenCopy>,
}

/// A Zotero item as a record keeps it: where it lives, its version when
/// read, and the researcher's own tags and notes on it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroItem {
    /// The library's API prefix: `users/0` or `groups/123`.
    pub library: String,
    pub key: String,
    pub version: u64,
    pub item_type: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Its PDF attachments that were not found, with why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_pdfs: Vec<String>,
    /// The key of the attachment that is its full text (a page link's target).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf_key: Option<String>,
}

/// Bibliographic metadata: read offline from the PDF itself, then, where a
/// scholarly index knows the paper, its authoritative values. `sources` says
/// where each field came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperMeta {
    #[serde(default)]
    pub authors: Vec<Author>,
    #[serde(default)]
    pub year: Option<u16>,
    #[serde(default)]
    pub doi: Option<String>,
    #[serde(default)]
    pub arxiv: Option<String>,
    /// The journal, proceedings or conference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub venue: Option<String>,
    #[serde(default, rename = "abstract", skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    /// Where each field's value came from; a field not listed was not found.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: BTreeMap<MetaField, Origin>,
}

/// A field of a paper's bibliographic record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum MetaField {
    Title,
    Authors,
    Year,
    Venue,
    Doi,
    Arxiv,
    Abstract,
}

/// Where a field's value came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Origin {
    /// Read from the PDF (its first pages, its info dictionary).
    Pdf,
    /// Read on page one by the model's reader, and borne out by the page.
    Reader,
    Crossref,
    Arxiv,
    Openalex,
    /// Typed by the researcher (`corrections.json`).
    Corrected,
    /// Read from the search export the paper was imported from.
    Record,
    /// Read from the researcher's Zotero library.
    Zotero,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pdf => "pdf",
            Self::Reader => "reader",
            Self::Crossref => "crossref",
            Self::Arxiv => "arxiv",
            Self::Openalex => "openalex",
            Self::Corrected => "corrected",
            Self::Record => "record",
            Self::Zotero => "zotero",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Done,
    Failed,
    Cancelled,
    /// Stopped at a cap or by a failed write, before its end.
    Stopped,
    /// A pilot: some papers read under the approved protocol, on purpose.
    Pilot,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Stopped => "stopped",
            Self::Pilot => "pilot",
        }
    }
}

/// `runs/<id>.json`: one pass of an engine over the workspace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub id: RunId,
    pub engine: String,
    pub status: RunStatus,
    pub started_at: String,
    #[serde(default)]
    pub finished_at: Option<String>,
    /// The steps the model could not drive as an agent, and what ran in
    /// their place (the report's method says so).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undriven: Vec<String>,
}

/// One line of `model-calls.jsonl`: one HTTP attempt at a model call. Holds
/// counts and timings only, never message text or credentials.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCallRecord {
    pub at: String,
    /// The settings profile used.
    pub profile: String,
    /// "openai" or "anthropic".
    pub protocol: String,
    pub model: String,
    /// What the call was for (the caller's label, e.g. "reader" or "agent").
    pub purpose: String,
    /// 1 for the first try, 2 for the first retry, …
    pub attempt: u32,
    /// "ok", or the error code of the failure.
    pub outcome: String,
    pub streamed: bool,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// True when the server sent no usage and the counts were estimated locally.
    pub tokens_estimated: bool,
    pub latency_ms: u64,
    /// From the price table; `None` when the model has no price there.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// The endpoint that took the call (its address, never a password), when
    /// the profile's calls are spread over a pool of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
}

/// Now, as an RFC 3339 UTC timestamp with seconds precision.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
