//! Search results in: the records a database search exports (RIS, PubMed
//! MEDLINE `.nbib`/`.txt`, BibTeX, CSV), each turned into one [`Record`]
//! with its title, abstract, authors, year, journal, DOI, PMID and
//! keywords, and where in which file it came from. The formats are read by
//! `biblib`; this module picks the parser, names a file it cannot read and
//! why, and keeps what screening needs. [`duplicates`] finds the same work
//! exported twice. Files in, records out: nothing here writes a workspace.

pub mod citations;
pub mod duplicates;
pub mod table;
pub mod zotero;

use std::path::{Path, PathBuf};

use biblib::CitationParser;
use serde::{Deserialize, Serialize};

/// The export formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Ris,
    /// PubMed's MEDLINE text (`.nbib`, or `.txt` saved from PubMed).
    Medline,
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
    #[error("{path} is not text (not UTF-8): a search export is RIS, MEDLINE, BibTeX or CSV")]
    NotText { path: PathBuf },
    #[error(
        "{path} is not a search export Quire reads: expected RIS (TY  - lines), PubMed/MEDLINE (PMID- lines), BibTeX (@article{{...}}) or CSV with a title column"
    )]
    UnknownFormat { path: PathBuf },
    #[error("{path} looks like {format} but cannot be read: {reason}")]
    Malformed {
        path: PathBuf,
        format: &'static str,
        reason: String,
    },
}

/// The records of the export at `path`.
pub fn read_file(path: &Path) -> Result<Vec<Record>, RecordsError> {
    let bytes = std::fs::read(path).map_err(|source| RecordsError::Unreadable {
        path: path.to_owned(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| RecordsError::NotText {
        path: path.to_owned(),
    })?;
    parse(&text, path)
}

/// The records of `text`, exported as the file `path` (whose extension
/// decides CSV; the content decides the rest).
pub fn parse(text: &str, path: &Path) -> Result<Vec<Record>, RecordsError> {
    let format = detect(text, path).ok_or_else(|| RecordsError::UnknownFormat {
        path: path.to_owned(),
    })?;
    let parsed = match format {
        Format::Ris => biblib::RisParser::new().parse(text),
        Format::Medline => biblib::PubMedParser::new().parse(text),
        Format::Bibtex => biblib::BibParser::new().parse(text),
        Format::Csv => return table::parse(text, path),
        Format::Zotero => return zotero::parse(text, path),
        Format::Citations => return citations::parse(text, path),
    };
    let citations = parsed.map_err(|e| RecordsError::Malformed {
        path: path.to_owned(),
        format: format.as_str(),
        reason: e.to_string(),
    })?;
    Ok(citations
        .into_iter()
        .enumerate()
        .map(|(index, c)| record(c, path, index, format))
        .collect())
}

/// File name endings a search export is saved under: what a drop or a
/// file dialog offers as records (the content still decides the format).
pub const EXPORT_EXTENSIONS: [&str; 7] = ["ris", "nbib", "txt", "bib", "csv", "tsv", "medline"];

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
    if body.starts_with('@') || body.contains("\n@") {
        return Some(Format::Bibtex);
    }
    let table = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv") || e.eq_ignore_ascii_case("tsv"));
    table.then_some(Format::Csv)
}

fn record(c: biblib::Citation, file: &Path, index: usize, format: Format) -> Record {
    let tidy = |s: String| {
        let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
        (!s.is_empty()).then_some(s)
    };
    Record {
        title: tidy(c.title).unwrap_or_default(),
        abstract_text: c.abstract_text.and_then(tidy),
        authors: c
            .authors
            .into_iter()
            .map(|a| {
                let given: Vec<String> = [a.given_name, a.middle_name]
                    .into_iter()
                    .flatten()
                    .collect();
                if given.is_empty() {
                    a.name
                } else {
                    format!("{}, {}", a.name, given.join(" "))
                }
            })
            .collect(),
        year: c.date.map(|d| d.year),
        journal: c.journal.and_then(tidy),
        doi: c.doi.and_then(|d| normalize_doi(&d)),
        pmid: c.pmid.and_then(tidy),
        keywords: c.keywords,
        file: file.to_owned(),
        index,
        format,
        zotero: None,
        citation: None,
        arxiv: None,
    }
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
        let ris = parse(RIS, Path::new("search.ris")).unwrap();
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

        let medline = parse(MEDLINE, Path::new("pubmed.nbib")).unwrap();
        assert_eq!(medline[0].format, Format::Medline);
        assert_eq!(medline[0].pmid.as_deref(), Some("15001234"));
        assert_eq!(medline[0].year, Some(2004));
        assert_eq!(medline[0].doi.as_deref(), Some("10.1542/peds.2003-0001"));

        let bib = parse(BIBTEX, Path::new("refs.bib")).unwrap();
        assert_eq!(bib[0].format, Format::Bibtex);
        assert_eq!(bib[0].authors.len(), 2);
        assert_eq!(bib[0].year, Some(2004));

        let csv = parse(CSV, Path::new("export.csv")).unwrap();
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
        std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x80]).unwrap();
        let err = read_file(&binary).unwrap_err();
        assert!(err.to_string().contains("not UTF-8"), "{err}");
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
