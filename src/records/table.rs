//! Search results saved as a table (CSV, or TSV by its extension): one
//! record a row, columns found by their header (case and spacing aside).
//! Read here rather than by `biblib`, whose table reader takes the first
//! word of "Alan D Garely" for the family name: a table's author cell is
//! kept as printed and put in order here ([`family_first`]).

use std::path::Path;

use super::{Format, Record, RecordsError, normalize_doi};
use crate::workspace::Author;

/// Header names each field is found under, compared lowercased with
/// spaces, `_` and `-` taken out.
const COLUMNS: [(&str, &[&str]); 8] = [
    (
        "title",
        &["title", "articletitle", "publicationtitle", "primarytitle"],
    ),
    ("abstract", &["abstract", "abstractnote", "summary"]),
    ("authors", &["author", "authors", "creator", "creators"]),
    ("year", &["year", "publicationyear", "pubyear"]),
    (
        "journal",
        &[
            "journal",
            "journaltitle",
            "sourcetitle",
            "secondarytitle",
            "publication",
        ],
    ),
    ("doi", &["doi", "digitalobjectidentifier"]),
    ("pmid", &["pmid", "pubmedid"]),
    (
        "keywords",
        &["keywords", "tags", "manualtags", "authorkeywords"],
    ),
];

/// The records of a table export.
pub fn parse(text: &str, path: &Path) -> Result<Vec<Record>, RecordsError> {
    let tsv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    let malformed = |reason: String| RecordsError::Malformed {
        path: path.to_owned(),
        format: Format::Csv.as_str(),
        reason,
    };
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(if tsv { b'\t' } else { b',' })
        .flexible(true)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| malformed(e.to_string()))?
        .clone();
    let column = |field: &str| {
        let names = COLUMNS.iter().find(|(f, _)| *f == field).map(|(_, n)| *n)?;
        headers.iter().position(|h| {
            let h: String = h
                .chars()
                .filter(|c| !matches!(c, ' ' | '_' | '-'))
                .flat_map(char::to_lowercase)
                .collect();
            names.contains(&h.as_str())
        })
    };
    let Some(title) = column("title") else {
        return Err(malformed("no title column in its header".to_owned()));
    };
    let (abstract_text, authors, year) = (column("abstract"), column("authors"), column("year"));
    let (journal, doi, pmid, keywords) = (
        column("journal"),
        column("doi"),
        column("pmid"),
        column("keywords"),
    );
    let mut records = Vec::new();
    for (index, row) in reader.records().enumerate() {
        let row = row.map_err(|e| malformed(format!("row {}: {e}", index + 2)))?;
        let cell = |at: Option<usize>| {
            at.and_then(|i| row.get(i))
                .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|s| !s.is_empty())
        };
        let list = |at: Option<usize>| -> Vec<String> {
            cell(at)
                .map(|s| {
                    s.split(';')
                        .map(str::trim)
                        .filter(|a| !a.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        records.push(Record {
            title: cell(Some(title)).unwrap_or_default(),
            abstract_text: cell(abstract_text),
            authors: list(authors).iter().map(|a| family_first(a)).collect(),
            year: cell(year).and_then(|y| y.get(..4).and_then(|y| y.parse().ok())),
            journal: cell(journal),
            doi: cell(doi).and_then(|d: String| normalize_doi(&d)),
            pmid: cell(pmid),
            keywords: list(keywords),
            file: path.to_owned(),
            index,
            format: Format::Csv,
            zotero: None,
            citation: None,
            arxiv: None,
        });
    }
    Ok(records)
}

/// A name as a table prints it, as "Family, Given": "Smith, John" stays,
/// PubMed's "Goldenberg MM" (initials last, no dots) turns round, and the
/// rest is read given names first ("Alan D Garely", "Ludwig van Beethoven").
pub fn family_first(printed: &str) -> String {
    if printed.contains(',') {
        return printed.to_owned();
    }
    let words: Vec<&str> = printed.split_whitespace().collect();
    if let [family @ .., initials] = words.as_slice()
        && !family.is_empty()
        && (1..=3).contains(&initials.chars().count())
        && initials.chars().all(char::is_uppercase)
    {
        return format!("{}, {initials}", family.join(" "));
    }
    let author = Author::parse(printed);
    if author.given.is_empty() {
        author.family
    } else {
        format!("{}, {}", author.family, author.given)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_put_family_first_however_a_table_prints_them() {
        assert_eq!(family_first("Smith, John"), "Smith, John");
        assert_eq!(family_first("Goldenberg MM"), "Goldenberg, MM");
        assert_eq!(family_first("M M Goldenberg"), "Goldenberg, M M");
        assert_eq!(family_first("Alan D Garely"), "Garely, Alan D");
        assert_eq!(family_first("K Hjälmås"), "Hjälmås, K");
        assert_eq!(
            family_first("Ludwig van Beethoven"),
            "van Beethoven, Ludwig"
        );
        assert_eq!(family_first("Plato"), "Plato");
    }

    #[test]
    fn columns_are_found_by_their_header_and_rows_keep_their_place() {
        let text = "Record ID,Article Title,Abstract,Author,Publication Year,DOI,PubMed ID\n\
                    1,Tolterodine for the overactive bladder,A trial.,M M Goldenberg; Alan D Garely,2001-05,https://doi.org/10.1/X,123\n\
                    2,\"Oxybutynin, extended release\",,Smith J,,,\n";
        let records = parse(text, Path::new("wos.csv")).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].authors, ["Goldenberg, M M", "Garely, Alan D"]);
        assert_eq!(records[0].year, Some(2001));
        assert_eq!(records[0].doi.as_deref(), Some("10.1/x"));
        assert_eq!(records[0].pmid.as_deref(), Some("123"));
        assert_eq!(records[1].title, "Oxybutynin, extended release");
        assert_eq!(records[1].authors, ["Smith, J"]);
        assert_eq!(records[1].abstract_text, None);
        assert_eq!(records[1].index, 1);
        let err = parse("name,size\nx,1\n", Path::new("files.csv")).unwrap_err();
        assert!(err.to_string().contains("no title column"), "{err}");
    }
}
