//! Web of Science's plain text (`FN Clarivate Analytics Web of Science`,
//! `PT J` … `ER`, saved as `.txt` or `.ciw`), its most common export: each
//! record's two-letter tags mapped to a [`Record`]. Full names (`AF`) are
//! preferred to the short ones (`AU`).

use std::path::Path;

use super::tagged::{self, Syntax, TaggedRecord};
use super::values::{list_in, tidy, year_in};
use super::{Format, Record};

/// Whether `text` is a Web of Science plain-text export.
pub fn is_wos(text: &str) -> bool {
    let has_line = |tag: &str| text.starts_with(tag) || text.contains(&format!("\n{tag}"));
    text.starts_with("FN ") || (has_line("PT ") && has_line("ER\n") && has_line("TI "))
}

/// The records of a Web of Science `text`, and what the reader should
/// know of it.
pub fn parse(text: &str, path: &Path) -> (Vec<Record>, Vec<String>) {
    let read = tagged::read(text, Syntax::WebOfScience);
    let records: Vec<Record> = read
        .records
        .iter()
        .enumerate()
        .map(|(index, r)| record(r, path, index))
        .collect();
    let notices = read
        .cut_at
        .map(|line| super::cut_short(read.records.len(), line, "ER"))
        .into_iter()
        .collect();
    (records, notices)
}

fn record(r: &TaggedRecord, path: &Path, index: usize) -> Record {
    let mut record = Record::blank(path, index, Format::WebOfScience);
    record.title = r.first(&["TI"]).and_then(tidy).unwrap_or_default();
    record.abstract_text = r.first(&["AB"]).and_then(tidy);
    record.authors = r.names(&["AF", "AU"]);
    record.year = r
        .first(&["PY"])
        .or_else(|| r.first(&["EA"]))
        .and_then(year_in);
    record.journal = r.first(&["SO"]).and_then(tidy);
    record.doi = r.first(&["DI"]).and_then(super::normalize_doi);
    record.pmid = r.first(&["PM"]).and_then(tidy);
    record.accession = r.first(&["UT"]).and_then(tidy);
    record.keywords = r.all("DE").chain(r.all("ID")).flat_map(list_in).collect();
    record
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_names_keywords_and_identifiers_are_read() {
        let text = "FN Clarivate Analytics Web of Science\nVR 1.0\nPT J\nAU Smith, J\n   Jones, A\nAF Smith, John\n   Jones, Ann\nTI A title\n   that wraps\nSO PEDIATRICS\nDE ADHD; children\nID METHYLPHENIDATE\nAB An abstract.\nPY 2004\nDI 10.1542/PEDS.2003-0001\nPM 15001234\nUT WOS:000189\nER\n\nEF\n";
        assert!(is_wos(text));
        let (records, notices) = parse(text, Path::new("savedrecs.txt"));
        assert!(notices.is_empty());
        let r = &records[0];
        assert_eq!(r.title, "A title that wraps");
        assert_eq!(r.authors, ["Smith, John", "Jones, Ann"]);
        assert_eq!(r.year, Some(2004));
        assert_eq!(r.doi.as_deref(), Some("10.1542/peds.2003-0001"));
        assert_eq!(r.pmid.as_deref(), Some("15001234"));
        assert_eq!(r.keywords, ["ADHD", "children", "METHYLPHENIDATE"]);
    }
}
