//! Search results in: the records a database search exports (RIS, PubMed
//! MEDLINE `.nbib`/`.txt`, Web of Science plain text, BibTeX, CSV), each
//! turned into one [`Record`] with its title, abstract, authors, year,
//! journal, DOI, PMID and keywords, and where in which file it came from.
//! This module decodes the file ([`text`]), picks the reader by content,
//! names a file it cannot read and why, and passes on what the reader
//! should know ([`Export::notices`]: a guessed encoding, a record skipped,
//! a file cut short). One bad record never refuses a file. [`duplicates`]
//! finds the same work exported twice. Files in, records out: nothing here
//! writes a workspace.

mod bibtex;
pub mod citations;
pub mod duplicates;
mod latex;
mod medline;
mod ris;
pub mod table;
mod tagged;
mod text;
mod values;
mod wos;
pub mod zotero;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The export formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Ris,
    /// PubMed's MEDLINE text (`.nbib`, or `.txt` saved from PubMed).
    Medline,
    /// Web of Science's plain text (`FN`/`PT` … `ER`, `.txt` or `.ciw`).
    #[serde(rename = "wos")]
    WebOfScience,
    Bibtex,
    Csv,
    /// A Zotero collection as Quire read it ([`zotero::Snapshot`]).
    Zotero,
    /// Works found by following citations ([`citations::Round`]).
    Citations,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ris => "RIS",
            Self::Medline => "PubMed/MEDLINE",
            Self::WebOfScience => "Web of Science",
            Self::Bibtex => "BibTeX",
            Self::Csv => "CSV",
            Self::Zotero => "Zotero",
            Self::Citations => "citation searching",
        }
    }
}

/// One record of a search export.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abstract_text: Option<String>,
    /// "Family, Given" as exported, in order.
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub year: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal: Option<String>,
    /// Lowercased, without a resolver prefix (`10.1000/xyz`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doi: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmid: Option<String>,
    /// The database's own id of the record (a Web of Science UT, a Scopus
    /// EID, an Embase or Ovid accession number): what finds it again in
    /// an updated export of the same search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accession: Option<String>,
    #[serde(default)]
    pub keywords: Vec<String>,
    /// The file it was exported in, and its place there (0-based).
    pub file: PathBuf,
    pub index: usize,
    pub format: Format,
    /// The Zotero item it is, for a record read from Zotero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zotero: Option<zotero::ZoteroRecord>,
    /// How citation searching found it, for a work it found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<crate::workspace::CitationFound>,
    /// Its arXiv id without version, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arxiv: Option<String>,
}

impl Record {
    /// A record of `format` at `index` in `file`, with nothing read yet.
    pub(crate) fn blank(file: &Path, index: usize, format: Format) -> Self {
        Self {
            title: String::new(),
            abstract_text: None,
            authors: Vec::new(),
            year: None,
            journal: None,
            doi: None,
            pmid: None,
            accession: None,
            keywords: Vec::new(),
            file: file.to_owned(),
            index,
            format,
            zotero: None,
            citation: None,
            arxiv: None,
        }
    }

    /// Whether it holds nothing to screen or to find it by: no title, no
    /// abstract, no identifier (what a stray tag line makes).
    pub(crate) fn is_blank(&self) -> bool {
        self.title.is_empty()
            && self.abstract_text.is_none()
            && self.doi.is_none()
            && self.pmid.is_none()
    }

    /// What screening reads of it: the title, then the abstract.
    pub fn text(&self) -> String {
        match &self.abstract_text {
            Some(a) => format!("{}. {a}", self.title),
            None => self.title.clone(),
        }
    }
}

/// Why a file's records could not be read.
#[derive(Debug, thiserror::Error)]
pub enum RecordsError {
    #[error("cannot read {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path} is not text (a binary file): a search export is RIS, MEDLINE, Web of Science, BibTeX or CSV text"
    )]
    NotText { path: PathBuf },
    #[error(
        "{path} is not a search export Quire reads: expected RIS (TY  - lines), PubMed/MEDLINE (PMID- lines), Web of Science plain text (PT … ER lines), BibTeX (@article{{...}}) or CSV with a title column"
    )]
    UnknownFormat { path: PathBuf },
    #[error("{path} looks like {format} but cannot be read: {reason}")]
    Malformed {
        path: PathBuf,
        format: &'static str,
        reason: String,
    },
}

/// What an export file holds: its format, its records in file order, and
/// what the researcher should know of how it was read (a guessed
/// encoding, records skipped and why, a file cut short).
#[derive(Debug)]
pub struct Export {
    pub format: Format,
    pub records: Vec<Record>,
    pub notices: Vec<String>,
}

/// The records of the export at `path`.
pub fn read_file(path: &Path) -> Result<Export, RecordsError> {
    let bytes = std::fs::read(path).map_err(|source| RecordsError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    let decoded = text::decode(&bytes).ok_or_else(|| RecordsError::NotText {
        path: path.to_owned(),
    })?;
    let mut export = parse(&decoded.text, path)?;
    export.notices.splice(0..0, decoded.notice);
    Ok(export)
}

/// The records of `text` (with `\n` line ends), exported as the file
/// `path` (whose extension decides CSV; the content decides the rest).
pub fn parse(text: &str, path: &Path) -> Result<Export, RecordsError> {
    let format = detect(text, path).ok_or_else(|| RecordsError::UnknownFormat {
        path: path.to_owned(),
    })?;
    let (records, notices) = match format {
        Format::Ris => ris::parse(text, path),
        Format::Medline => medline::parse(text, path),
        Format::WebOfScience => wos::parse(text, path),
        Format::Bibtex => bibtex::parse(text, path),
        Format::Csv => table::parse(text, path)?,
        Format::Zotero => (zotero::parse(text, path)?, Vec::new()),
        Format::Citations => (citations::parse(text, path)?, Vec::new()),
    };
    if records.is_empty() && !notices.is_empty() {
        // Nothing readable: the notices are why.
        return Err(RecordsError::Malformed {
            path: path.to_owned(),
            format: format.as_str(),
            reason: notices.join("; "),
        });
    }
    Ok(Export {
        format,
        records,
        notices,
    })
}

/// The notice for a file that stops inside its `count`th record, which
/// starts at `line`, before the `end` its format closes a record with.
fn cut_short(count: usize, line: usize, end: &str) -> String {
    format!(
        "the file ends inside record {count} (line {line}), before its closing {end} line: it was cut short, so that record may be incomplete; export the search again to be sure"
    )
}

/// File name endings a search export is saved under: what a drop or a
/// file dialog offers as records (the content still decides the format).
pub const EXPORT_EXTENSIONS: [&str; 8] =
    ["ris", "nbib", "txt", "bib", "csv", "tsv", "medline", "ciw"];

/// The ending of the snapshot files Quire writes for Zotero collections.
pub const ZOTERO_SNAPSHOT_ENDING: &str = ".zotero.json";

/// Whether `path` is named as a search export ([`EXPORT_EXTENSIONS`]) or a
/// Zotero snapshot.
pub fn is_export_name(path: &Path) -> bool {
    let ours = path
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_lowercase)
        .is_some_and(|n| {
            n.ends_with(ZOTERO_SNAPSHOT_ENDING) || n.ends_with(citations::ROUND_ENDING)
        });
    ours || path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXPORT_EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The format of `text`: by its content, CSV by the file's extension.
fn detect(text: &str, path: &Path) -> Option<Format> {
    let body = text.trim_start_matches('\u{feff}').trim_start();
    if zotero::is_snapshot(body) {
        return Some(Format::Zotero);
    }
    if citations::is_round(body) {
        return Some(Format::Citations);
    }
    let has_line = |tag: &str| body.starts_with(tag) || body.contains(&format!("\n{tag}"));
    if has_line("TY  -") {
        return Some(Format::Ris);
    }
    if has_line("PMID-") {
        return Some(Format::Medline);
    }
    if wos::is_wos(body) {
        return Some(Format::WebOfScience);
    }
    if table::looks_like_table(body) {
        return Some(Format::Csv);
    }
    if body.starts_with('@') || body.contains("\n@") {
        return Some(Format::Bibtex);
    }
    let table = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("tsv"));
    table.then_some(Format::Csv)
}

/// A DOI as one key: lowercased, without a resolver prefix
/// (`https://doi.org/`, `doi:`), whatever its case.
pub fn bare_doi(doi: &str) -> String {
    let d = doi.trim().to_lowercase();
    [
        "https://doi.org/",
        "http://doi.org/",
        "https://dx.doi.org/",
        "http://dx.doi.org/",
        "doi:",
    ]
    .iter()
    .find_map(|p| d.strip_prefix(p))
    .unwrap_or(&d)
    .trim()
    .to_owned()
}

/// [`bare_doi`], when it is a DOI at all (`10.` and on).
pub fn normalize_doi(doi: &str) -> Option<String> {
    Some(bare_doi(doi)).filter(|d| d.starts_with("10."))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RIS: &str = "TY  - JOUR
TI  - Methylphenidate for attention deficit hyperactivity disorder
AU  - Smith, John
AU  - Jones, Ann
PY  - 2004
JO  - Pediatrics
DO  - https://doi.org/10.1542/PEDS.2003-0001
AB  - A randomized trial of methylphenidate in children.
KW  - ADHD
ER  - 

TY  - JOUR
TI  - Atomoxetine in adults
AU  - Brown, Kim
PY  - 2006
ER  - 
";

    const MEDLINE: &str = "PMID- 15001234
TI  - Methylphenidate for attention deficit hyperactivity disorder.
AB  - A randomized trial of methylphenidate in children.
FAU - Smith, John
AU  - Smith J
DP  - 2004 Mar
TA  - Pediatrics
LID - 10.1542/peds.2003-0001 [doi]
";

    const BIBTEX: &str = "@article{smith2004,
  title = {Methylphenidate for Attention Deficit Hyperactivity Disorder},
  author = {Smith, John and Jones, Ann},
  journal = {Pediatrics},
  year = {2004},
  doi = {10.1542/peds.2003-0001}
}
";

    const CSV: &str = "record_id,title,abstract,authors,year,pmid,label_included
0,Methylphenidate for attention deficit hyperactivity disorder,A randomized trial.,\"Smith, John\",2004,15001234,1
1,Stock markets,Volatility.,\"Doe, Jane\",2010,,0
";

    #[test]
    fn each_format_gives_its_records_with_what_screening_needs() {
        let ris = parse(RIS, Path::new("search.ris")).unwrap().records;
        assert_eq!(ris.len(), 2);
        assert_eq!(ris[0].format, Format::Ris);
        assert_eq!(ris[0].authors, ["Smith, John", "Jones, Ann"]);
        assert_eq!(ris[0].year, Some(2004));
        assert_eq!(ris[0].doi.as_deref(), Some("10.1542/peds.2003-0001"));
        assert_eq!(ris[0].keywords, ["ADHD"]);
        assert_eq!(ris[1].index, 1);
        assert_eq!(ris[1].abstract_text, None);
        assert!(ris[0].text().starts_with("Methylphenidate for attention"));
        assert!(ris[0].text().ends_with("in children."));

        let medline = parse(MEDLINE, Path::new("pubmed.nbib")).unwrap().records;
        assert_eq!(medline[0].format, Format::Medline);
        assert_eq!(medline[0].pmid.as_deref(), Some("15001234"));
        assert_eq!(medline[0].year, Some(2004));
        assert_eq!(medline[0].doi.as_deref(), Some("10.1542/peds.2003-0001"));

        let bib = parse(BIBTEX, Path::new("refs.bib")).unwrap().records;
        assert_eq!(bib[0].format, Format::Bibtex);
        assert_eq!(bib[0].authors.len(), 2);
        assert_eq!(bib[0].year, Some(2004));

        let csv = parse(CSV, Path::new("export.csv")).unwrap().records;
        assert_eq!(csv.len(), 2);
        assert_eq!(csv[0].pmid.as_deref(), Some("15001234"));
        assert_eq!(csv[0].abstract_text.as_deref(), Some("A randomized trial."));
        assert_eq!(csv[1].pmid, None);
    }

    #[test]
    fn a_file_that_is_no_export_is_named_with_what_was_expected() {
        let err = parse("just some notes\n", Path::new("notes.txt")).unwrap_err();
        assert!(matches!(err, RecordsError::UnknownFormat { .. }));
        assert!(err.to_string().contains("notes.txt"), "{err}");
        assert!(err.to_string().contains("RIS"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let binary = dir.path().join("x.ris");
        std::fs::write(&binary, b"%PDF-1.7\n\x00\x01\x93\xff binary").unwrap();
        let err = read_file(&binary).unwrap_err();
        assert!(
            err.to_string().contains("not text (a binary file)"),
            "{err}"
        );
        let err = read_file(&dir.path().join("missing.ris")).unwrap_err();
        assert!(err.to_string().starts_with("cannot read"), "{err}");
    }

    #[test]
    fn dois_are_one_key_however_written() {
        assert_eq!(
            normalize_doi("https://doi.org/10.1000/ABC").as_deref(),
            Some("10.1000/abc")
        );
        assert_eq!(
            normalize_doi("doi:10.1000/abc").as_deref(),
            Some("10.1000/abc")
        );
        assert_eq!(normalize_doi("not a doi"), None);
    }
}
