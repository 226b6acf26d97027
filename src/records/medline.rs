//! PubMed's MEDLINE text (`.nbib`, or `.txt` saved from PubMed; also
//! what some sites save as `.ris`): a record a `PMID-` line, its fields
//! mapped to a [`Record`]. A record whose date cannot be read keeps the
//! rest of its fields and is named; it never refuses the file.

use std::path::Path;

use super::tagged::{self, Syntax, TaggedRecord};
use super::values::{tidy, year_in};
use super::{Format, Record};

/// The records of a MEDLINE `text`, and what the reader should know of it.
pub fn parse(text: &str, path: &Path) -> (Vec<Record>, Vec<String>) {
    let read = tagged::read(text, Syntax::Medline);
    let mut notices = Vec::new();
    let mut records = Vec::new();
    for tagged in &read.records {
        let record = record(tagged, path, records.len());
        if record.year.is_none() {
            let dp = tagged.first(&["DP"]).unwrap_or("none");
            notices.push(format!(
                "record {} (PMID {}, line {}): its publication date ({dp}) has no year; it was imported without one",
                records.len() + 1,
                record.pmid.as_deref().unwrap_or("?"),
                tagged.line,
            ));
        }
        records.push(record);
    }
    // Every PubMed record ends with its source line (SO); a last record
    // without one, in a file whose other records have it, was cut off.
    let has_source = |r: &TaggedRecord| r.first(&["SO"]).is_some();
    if let Some((last, earlier)) = read.records.split_last()
        && !has_source(last)
        && !earlier.is_empty()
        && earlier.iter().all(has_source)
    {
        notices.push(super::cut_short(read.records.len(), last.line, "SO  -"));
    }
    (records, notices)
}

fn record(r: &TaggedRecord, path: &Path, index: usize) -> Record {
    let mut record = Record::blank(path, index, Format::Medline);
    record.pmid = r.first(&["PMID"]).and_then(tidy);
    record.title = r.first(&["TI", "BTI"]).and_then(tidy).unwrap_or_default();
    record.abstract_text = r.first(&["AB"]).and_then(tidy);
    record.authors = r.names(&["FAU", "AU"]);
    record.year = r.first(&["DP"]).and_then(year_in);
    record.journal = r.first(&["JT", "TA"]).and_then(tidy);
    record.doi = ["LID", "AID"].iter().find_map(|tag| {
        r.all(tag).find_map(|v| {
            v.strip_suffix("[doi]")
                .and_then(|d| super::normalize_doi(d.trim()))
        })
    });
    record.keywords = r
        .all("OT")
        .chain(r.all("MH"))
        .filter_map(|k| tidy(k.trim_start_matches('*')))
        .collect();
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_without_a_readable_date_is_kept_and_named() {
        let text = "PMID- 1\nTI  - One\nDP  - 2004 Mar\nSO  - J. 2004.\n\nPMID- 2\nTI  - Two\nDP  - Spring\nSO  - J.\n";
        let (records, notices) = parse(text, Path::new("pubmed.nbib"));
        assert_eq!(records.len(), 2);
        assert_eq!(records[1].year, None);
        assert_eq!(records[1].title, "Two");
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].contains("PMID 2") && notices[0].contains("line 6"),
            "{notices:?}"
        );
    }

    #[test]
    fn a_file_cut_inside_its_last_record_is_said() {
        let text = "PMID- 1\nTI  - One\nDP  - 2004\nSO  - J. 2004.\n\nPMID- 2\nTI  - Two\nDP  - 2005\nAB  - Cut";
        let (records, notices) = parse(text, Path::new("pubmed.nbib"));
        assert_eq!(records.len(), 2);
        assert!(
            notices.iter().any(|n| n.contains("ends inside record 2")),
            "{notices:?}"
        );
    }
}
