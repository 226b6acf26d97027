//! Search results saved as a table: comma-, tab- or semicolon-separated,
//! one record a row, as Scopus, Web of Science, Embase, PubMed, Zotero,
//! EndNote, Covidence and Rayyan write them. The header may come after a
//! preamble (Embase's `"SEARCH QUERY"` lines); each field is found under
//! the names those tools give it, in order of preference (Scopus's
//! "Author full names" before its "Authors"), and the reader is told which
//! columns were read. An author cell is parted where its writer parted it
//! (`;`, ` and `, `//`, or Scopus's and PubMed's commas between
//! "Family Initials" names) and each name put family first.

use std::path::Path;

use super::values::{doi_in, list_in, tidy, year_in};
use super::{Format, Record, RecordsError};
use crate::workspace::Author;

/// What a column can give a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Title,
    Abstract,
    Authors,
    Year,
    /// A cell a year can be found in: a date, or a citation ("Nature
    /// Communications (2024) 15:1"), when there is no year column.
    Dated,
    Journal,
    Doi,
    Pmid,
    /// The database's own record id (Scopus EID, WoS UT, an accession
    /// number).
    Accession,
    Keywords,
    /// Zotero's Extra (`PMID: …`, `arXiv: …` lines).
    Extra,
}

impl Field {
    fn as_words(self) -> &'static str {
        match self {
            Self::Title => "title",
            Self::Abstract => "abstract",
            Self::Authors => "authors",
            Self::Year => "year",
            Self::Dated => "year (from a date)",
            Self::Journal => "journal",
            Self::Doi => "DOI",
            Self::Pmid => "PMID",
            Self::Accession => "accession number",
            Self::Keywords => "keywords",
            Self::Extra => "identifiers in Extra",
        }
    }
}

/// The header names each field is found under, best first, compared
/// lowercased with everything but letters and digits taken out
/// ("Journal/Book" is `journalbook`, "UT (Unique WOS ID)" `utuniquewosid`).
/// Two-letter names are Web of Science's tab-delimited tags.
const COLUMNS: [(Field, &[&str]); 11] = [
    (
        Field::Title,
        &[
            "title",
            "articletitle",
            "documenttitle",
            "primarytitle",
            "ti",
        ],
    ),
    (
        Field::Abstract,
        &["abstract", "abstractnote", "ab", "summary"],
    ),
    (
        Field::Authors,
        &[
            "authorfullnames",
            "af",
            "authors",
            "author",
            "authornames",
            "au",
            "creators",
            "creator",
        ],
    ),
    (
        Field::Year,
        &["year", "publicationyear", "publishedyear", "pubyear", "py"],
    ),
    (
        Field::Dated,
        &[
            "date",
            "publicationdate",
            "datepublished",
            "dateofpublication",
            "source",
            "citation",
        ],
    ),
    (
        Field::Journal,
        &[
            "journal",
            "journaltitle",
            "sourcetitle",
            "so",
            "publicationtitle",
            "secondarytitle",
            "journalbook",
            "publication",
        ],
    ),
    (Field::Doi, &["doi", "di", "digitalobjectidentifier"]),
    (Field::Pmid, &["pmid", "pubmedid", "medlinepmid", "pm"]),
    (
        Field::Accession,
        &[
            "eid",
            "utuniquewosid",
            "ut",
            "accessionnumber",
            "embaseaccessionid",
            "an",
        ],
    ),
    (
        Field::Keywords,
        &[
            "authorkeywords",
            "keywords",
            "de",
            "manualtags",
            "tags",
            "kw",
        ],
    ),
    (Field::Extra, &["extra"]),
];

/// How far into a file its header is looked for (past a preamble).
const HEADER_WITHIN_ROWS: usize = 30;

/// A header cell as it is compared.
fn header_key(cell: &str) -> String {
    cell.chars()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `row` is a header: it names a title column.
fn is_header(row: &csv::StringRecord) -> bool {
    let titles = COLUMNS[0].1;
    row.len() > 1 && row.iter().any(|h| titles.contains(&header_key(h).as_str()))
}

/// Visit the rows of `text` parted at `delimiter`, each with the line it
/// starts on, until `visit` says stop. Rows are read one at a time, so a
/// 50,000-record export is never held twice.
fn each_row(text: &str, delimiter: u8, mut visit: impl FnMut(&csv::StringRecord, usize) -> bool) {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut record = csv::StringRecord::new();
    // The line each row starts on, counted from byte offsets (the csv
    // reader's own count passes over blank lines). A text's rows parse (it
    // is UTF-8 already); an unbalanced quote runs to the end of the file as
    // one cell.
    let (mut counted_to, mut line) = (0, 1);
    while let Ok(true) = reader.read_record(&mut record) {
        let mut at = record.position().map_or(counted_to, |p| p.byte() as usize);
        // The position is where the reader began, before blank lines it
        // passed over; a row itself never starts with a line end.
        while matches!(text.as_bytes().get(at), Some(b'\n' | b'\r')) {
            at += 1;
        }
        line += text.as_bytes()[counted_to..at.max(counted_to)]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted_to = at.max(counted_to);
        if !visit(&record, line) {
            break;
        }
    }
}

/// Where the header of `text` parted at `delimiter` is, within its first
/// rows: its row, the line it is on, and the header itself.
fn header_of(text: &str, delimiter: u8) -> Option<(usize, usize, csv::StringRecord)> {
    let (mut found, mut row) = (None, 0);
    each_row(text, delimiter, |record, line| {
        if is_header(record) {
            found = Some((row, line, record.clone()));
        }
        row += 1;
        found.is_none() && row < HEADER_WITHIN_ROWS
    });
    found
}

/// Whether `text` is a table export, whatever its file is called: a
/// tab-delimited file (Web of Science's and EndNote's `.txt`) whose header
/// names a title column.
pub fn looks_like_table(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.matches('\t').count() >= 2 && header_of(first, b'\t').is_some()
}

/// The records of a table export, and what the reader should know of it:
/// which columns were read, a preamble passed over, rows skipped.
pub fn parse(text: &str, path: &Path) -> Result<(Vec<Record>, Vec<String>), RecordsError> {
    let text = text.trim_start_matches('\u{feff}');
    let tsv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("tsv"));
    let delimiters: &[u8] = if tsv { b"\t" } else { b",\t;" };
    // The delimiter whose header has the most columns.
    let Some((delimiter, (header, header_line, names))) = delimiters
        .iter()
        .filter_map(|&d| Some((d, header_of(text, d)?)))
        .max_by_key(|(_, (_, _, names))| names.len())
    else {
        return Err(RecordsError::Malformed {
            path: path.to_owned(),
            format: Format::Csv.as_str(),
            reason: "no title column in its header (a column named Title, Article Title, TI, …)"
                .to_owned(),
        });
    };
    let columns = Columns::of(&names);
    let mut notices = Vec::new();
    // Counted in lines, blank ones too, as the researcher sees the file.
    let before = header_line.saturating_sub(1);
    if header > 0 {
        notices.push(format!(
            "the {before} line{} before the header (a search's preamble) {} passed over",
            if before == 1 { "" } else { "s" },
            if before == 1 { "was" } else { "were" }
        ));
    }
    notices.push(columns.describe(&names));
    let mut records = Vec::new();
    let mut skipped = Vec::new();
    let mut row = 0;
    each_row(text, delimiter, |cells, line| {
        row += 1;
        if row <= header + 1 || cells.iter().all(|c| c.trim().is_empty()) {
            return true;
        }
        let record = columns.record(cells, path, records.len());
        if record.is_blank() {
            skipped.push(line.to_string());
        } else {
            records.push(record);
        }
        true
    });
    if !skipped.is_empty() {
        notices.push(format!(
            "{} row{} with no title, abstract or identifier {} skipped (line {})",
            skipped.len(),
            if skipped.len() == 1 { "" } else { "s" },
            if skipped.len() == 1 { "was" } else { "were" },
            skipped.join(", ")
        ));
    }
    Ok((records, notices))
}

/// Where each field is in a header.
struct Columns {
    found: Vec<(Field, usize)>,
}

impl Columns {
    fn of(header: &csv::StringRecord) -> Self {
        let keys: Vec<String> = header.iter().map(header_key).collect();
        let found = COLUMNS
            .iter()
            .filter_map(|(field, names)| {
                let at = names
                    .iter()
                    .find_map(|name| keys.iter().position(|k| k == name))?;
                Some((*field, at))
            })
            .collect();
        Self { found }
    }

    fn at(&self, field: Field) -> Option<usize> {
        self.found
            .iter()
            .find(|(f, _)| *f == field)
            .map(|(_, i)| *i)
    }

    /// Which column each field was read from, and what no column gave.
    fn describe(&self, header: &csv::StringRecord) -> String {
        let read: Vec<String> = self
            .found
            .iter()
            .filter(|(f, _)| *f != Field::Dated || self.at(Field::Year).is_none())
            .map(|(field, at)| {
                format!(
                    "{} from “{}”",
                    field.as_words(),
                    header.get(*at).unwrap_or("").trim()
                )
            })
            .collect();
        let mut said = format!("columns read: {}", read.join(", "));
        for (field, why) in [
            (
                Field::Abstract,
                "records are screened on their titles alone",
            ),
            (Field::Authors, "duplicates are found without first authors"),
        ] {
            if self.at(field).is_none() {
                said.push_str(&format!("; no {} column, so {why}", field.as_words()));
            }
        }
        said
    }

    fn record(&self, row: &csv::StringRecord, path: &Path, index: usize) -> Record {
        let raw = |field: Field| self.at(field).and_then(|i| row.get(i));
        let cell = |field: Field| raw(field).and_then(tidy);
        let (extra_pmid, extra_arxiv) =
            super::zotero::ids_beyond_fields(raw(Field::Extra), None, None, None);
        let mut record = Record::blank(path, index, Format::Csv);
        record.title = cell(Field::Title).unwrap_or_default();
        record.abstract_text = cell(Field::Abstract);
        record.authors = cell(Field::Authors)
            .map(|c| names_in(&c))
            .unwrap_or_default();
        record.year = cell(Field::Year)
            .as_deref()
            .and_then(year_in)
            .or_else(|| cell(Field::Dated).as_deref().and_then(year_in));
        record.journal = cell(Field::Journal);
        record.doi = cell(Field::Doi).as_deref().and_then(doi_in);
        record.pmid = cell(Field::Pmid)
            .filter(|p| p.chars().all(|c| c.is_ascii_digit()))
            .or(extra_pmid);
        record.arxiv = extra_arxiv;
        record.accession = cell(Field::Accession);
        record.keywords = cell(Field::Keywords)
            .map(|k| list_in(&k))
            .unwrap_or_default();
        record
    }
}

/// The names of an author cell, each "Family, Given", in order.
fn names_in(cell: &str) -> Vec<String> {
    let parts: Vec<&str> = if cell.contains(';') {
        cell.split(';').collect()
    } else if cell.contains("//") {
        cell.split("//").collect()
    } else if cell.contains(" and ") {
        cell.split(" and ").collect()
    } else if is_comma_parted(cell) {
        cell.split(',').collect()
    } else {
        vec![cell]
    };
    // PubMed closes its list with a full stop ("… O'Connor RE.") that is
    // no initial's.
    let undotted = parts.len() > 1 && parts[..parts.len() - 1].iter().all(|p| !p.contains('.'));
    let count = parts.len();
    parts
        .into_iter()
        .enumerate()
        .filter_map(|(i, part)| {
            let part = without_scopus_id(part.trim());
            let part = if undotted && i + 1 == count {
                part.trim_end_matches('.')
            } else {
                part
            };
            tidy(part).map(|p| family_first(&p))
        })
        .collect()
}

/// Whether `cell` is names parted by commas, as Scopus ("Gao X., Ni W.")
/// and PubMed ("Griffin DK, Larkin DM") write them: every part a family
/// name and initials. "Smith, John" is one name.
fn is_comma_parted(cell: &str) -> bool {
    let parts: Vec<&str> = cell.split(',').map(str::trim).collect();
    parts.len() > 1
        && parts.iter().all(|part| {
            let words: Vec<&str> = part.trim_end_matches('.').split_whitespace().collect();
            words.len() > 1 && words.last().is_some_and(|w| is_initials(w))
        })
}

/// Scopus's "Wilson, Lauren N. (58975547800)": the name without its
/// author id.
fn without_scopus_id(name: &str) -> &str {
    match name.strip_suffix(')').and_then(|n| n.rsplit_once('(')) {
        Some((name, id)) if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) => {
            name.trim_end()
        }
        _ => name,
    }
}

/// Whether `word` is a name's initials: "J", "DK", "M.E.", "N.-E.".
fn is_initials(word: &str) -> bool {
    let letters = word.chars().filter(|c| c.is_alphabetic()).count();
    (1..=4).contains(&letters)
        && word
            .chars()
            .all(|c| c.is_uppercase() || matches!(c, '.' | '-'))
}

/// A name as a table prints it, as "Family, Given": "Smith, John" stays,
/// initials last ("Goldenberg MM", "Yang Z.", "Dos Santos H.B.") turn
/// round, and the rest is read given names first ("Alan D Garely",
/// "Ludwig van Beethoven").
pub fn family_first(printed: &str) -> String {
    if printed.contains(',') {
        return printed.to_owned();
    }
    let words: Vec<&str> = printed.split_whitespace().collect();
    if let [family @ .., initials] = words.as_slice()
        && !family.is_empty()
        && is_initials(initials)
        && !family.iter().all(|w| is_initials(w))
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
        assert_eq!(family_first("Dos Santos H.B."), "Dos Santos, H.B.");
        assert_eq!(family_first("Jalil N.-E."), "Jalil, N.-E.");
        assert_eq!(
            family_first("Ludwig van Beethoven"),
            "van Beethoven, Ludwig"
        );
        assert_eq!(family_first("Plato"), "Plato");
    }

    #[test]
    fn an_author_cell_is_parted_where_its_writer_parted_it() {
        assert_eq!(
            names_in("Gao X., Ni W., Zhu S."),
            ["Gao, X.", "Ni, W.", "Zhu, S."]
        );
        assert_eq!(
            names_in("Griffin DK, Larkin DM, O'Connor RE."),
            ["Griffin, DK", "Larkin, DM", "O'Connor, RE"]
        );
        assert_eq!(
            names_in("Yang, Z. and Jiang, B. and McNamara, M.E."),
            ["Yang, Z.", "Jiang, B.", "McNamara, M.E."]
        );
        assert_eq!(
            names_in("Wilson, Lauren N. (58975547800); Gardner, Jacob D. (57190394669)"),
            ["Wilson, Lauren N.", "Gardner, Jacob D."]
        );
        assert_eq!(names_in("Smith, John"), ["Smith, John"]);
        assert_eq!(names_in("Brownstein C.D."), ["Brownstein, C.D."]);
    }

    #[test]
    fn columns_are_found_by_their_header_and_rows_keep_their_place() {
        let text = "Record ID,Article Title,Abstract,Author,Publication Year,DOI,PubMed ID\n\
                    1,Tolterodine for the overactive bladder,A trial.,M M Goldenberg; Alan D Garely,2001-05,https://doi.org/10.1/X,123\n\
                    ,,,,,,\n\
                    2,\"Oxybutynin, extended release\",,Smith J,,,\n";
        let (records, notices) = parse(text, Path::new("wos.csv")).unwrap();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].authors, ["Goldenberg, M M", "Garely, Alan D"]);
        assert_eq!(records[0].year, Some(2001));
        assert_eq!(records[0].doi.as_deref(), Some("10.1/x"));
        assert_eq!(records[0].pmid.as_deref(), Some("123"));
        assert_eq!(records[1].title, "Oxybutynin, extended release");
        assert_eq!(records[1].authors, ["Smith, J"]);
        assert_eq!(records[1].abstract_text, None);
        assert_eq!(records[1].index, 1);
        assert!(
            notices[0].starts_with("columns read: title from “Article Title”, abstract from “Abstract”, authors from “Author”"),
            "{notices:?}"
        );
        let err = parse("name,size\nx,1\n", Path::new("files.csv")).unwrap_err();
        assert!(err.to_string().contains("no title column"), "{err}");
    }
}
