//! RIS, as databases and reference managers write it (Scopus, Ovid,
//! EBSCO, Embase, ProQuest, EndNote, Zotero, Mendeley): each record from
//! `TY  -` to `ER  -`, its tags mapped to a [`Record`]. Authors are `AU`
//! and `A1` alone: `A2`–`A4` and `ED` name editors, series editors,
//! translators or (in Ovid) the cited authors, never the work's authors.

use std::path::Path;

use super::tagged::{self, Syntax, TaggedRecord};
use super::values::{doi_in, list_in, tidy, year_in};
use super::{Format, Record};

/// The records of an RIS `text`, and what the reader should know of it.
pub fn parse(text: &str, path: &Path) -> (Vec<Record>, Vec<String>) {
    let read = tagged::read(text, Syntax::Ris);
    let mut notices = Vec::new();
    let mut records = Vec::new();
    for tagged in &read.records {
        let record = record(tagged, path, records.len());
        if record.is_blank() {
            notices.push(format!(
                "the record at line {} has no title, abstract or identifier: it was skipped",
                tagged.line
            ));
            continue;
        }
        records.push(record);
    }
    if let Some(line) = read.cut_at {
        notices.push(super::cut_short(read.records.len(), line, "ER  -"));
    }
    (records, notices)
}

fn record(r: &TaggedRecord, path: &Path, index: usize) -> Record {
    let mut record = Record::blank(path, index, Format::Ris);
    record.title = r
        .first(&["TI", "T1", "CT"])
        .or_else(|| r.first(&["BT"]))
        .and_then(tidy)
        .unwrap_or_default();
    record.abstract_text = r.first(&["AB", "N2"]).and_then(tidy);
    record.authors = r
        .fields
        .iter()
        .filter(|f| matches!(f.tag.as_str(), "AU" | "A1"))
        .filter_map(|f| tidy(&f.value))
        .collect();
    record.year = ["PY", "Y1", "DA", "Y2"]
        .iter()
        .find_map(|tag| r.all(tag).find_map(year_in));
    record.journal = r
        .first(&["JF", "JO", "T2", "JA", "J2", "J1"])
        .and_then(tidy);
    record.doi = ["DO", "M3", "L3", "UR", "L1", "L2", "LK", "N1"]
        .iter()
        .find_map(|tag| r.all(tag).find_map(doi_in));
    // PubMed's own RIS, and Ovid's MEDLINE, carry the PMID as the
    // accession number; other databases' accession numbers are theirs.
    let from_medline = r.first(&["DB", "DP"]).is_some_and(|db| {
        db.to_lowercase().contains("medline") || db.to_lowercase().contains("pubmed")
    });
    record.pmid = r
        .first(&["PM"])
        .or_else(|| r.first(&["AN"]).filter(|_| from_medline))
        .filter(|id| !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_owned);
    record.accession = r.first(&["AN"]).and_then(tidy);
    record.keywords = r
        .all("KW")
        .flat_map(|k| {
            if k.contains(';') {
                list_in(k)
            } else {
                tidy(k).into_iter().collect()
            }
        })
        .collect();
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editors_and_cited_names_are_not_authors() {
        let text = "TY  - CHAP\nTI  - A chapter\nAU  - Smith, John\nA2  - Editor, Ed\nED  - Other, Ed\nA1  - Jones, Ann\nT2  - The book\nPY  - 2019///\nER  - \n";
        let (records, notices) = parse(text, Path::new("x.ris"));
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(records[0].authors, ["Smith, John", "Jones, Ann"]);
        assert_eq!(records[0].journal.as_deref(), Some("The book"));
        assert_eq!(records[0].year, Some(2019));
    }

    #[test]
    fn a_doi_in_a_link_is_the_doi_and_a_medline_accession_number_the_pmid() {
        let text = "TY  - JOUR\nTI  - T\nUR  - https://doi.org/10.1000/XYZ\nAN  - 12345678\nDB  - Ovid MEDLINE(R)\nER  - \n\nTY  - JOUR\nTI  - U\nAN  - 2004-1234-001\nDB  - APA PsycInfo\nER  - \n";
        let (records, _) = parse(text, Path::new("x.ris"));
        assert_eq!(records[0].doi.as_deref(), Some("10.1000/xyz"));
        assert_eq!(records[0].pmid.as_deref(), Some("12345678"));
        assert_eq!(records[1].pmid, None);
    }

    #[test]
    fn an_empty_record_is_skipped_and_said() {
        let (records, notices) = parse(
            "TY  - JOUR\nER  - \nTY  - JOUR\nTI  - T\nER  - \n",
            Path::new("x.ris"),
        );
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].index, 0);
        assert!(notices[0].contains("line 1"), "{notices:?}");
    }
}
