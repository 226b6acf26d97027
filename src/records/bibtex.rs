//! BibTeX and biblatex files (Scopus, Web of Science, Google Scholar,
//! JabRef, Zotero, Mendeley): cut into entries here, each entry read by
//! biblatex on its own, so one broken entry is skipped and named instead
//! of refusing the file. What databases write around and inside entries is
//! made readable first: a header before the first `@` (Scopus's
//! "EXPORT DATE"), keys with spaces, field names with a no-break space.

use std::path::Path;

use biblatex::{Bibliography, ChunksExt, Entry, Person};

use super::latex::to_text;
use super::values::{arxiv_without_version, doi_in, list_in, scopus_eid_in, tidy, year_in};
use super::{Format, Record};

/// The records of a BibTeX `text`, and what the reader should know of it.
pub fn parse(text: &str, path: &Path) -> (Vec<Record>, Vec<String>) {
    let pieces = split(text);
    let strings: String = pieces
        .iter()
        .filter(|p| p.kind == "string")
        .map(|p| format!("{}\n", p.text))
        .collect();
    let mut notices = Vec::new();
    let mut records = Vec::new();
    for piece in &pieces {
        match piece.kind.as_str() {
            "string" | "comment" | "preamble" => continue,
            "set" | "xdata" => {
                notices.push(format!(
                    "the @{} entry at line {} groups other entries and is no work itself: it was skipped",
                    piece.kind, piece.line
                ));
                continue;
            }
            _ => {}
        }
        if !piece.closed {
            notices.push(format!(
                "the entry at line {} is never closed (a brace is missing): it was skipped",
                piece.line
            ));
            continue;
        }
        match entry(&strings, &piece.text) {
            Ok(entry) => records.push(record(&entry, path, records.len())),
            Err(why) => notices.push(format!(
                "the entry {} at line {} cannot be read ({why}): it was skipped",
                key_of(&piece.text),
                piece.line
            )),
        }
    }
    (records, notices)
}

/// One `@type{…}` of the file, as written.
struct Piece {
    /// Lowercased: "article", "string", "comment", …
    kind: String,
    text: String,
    /// 1-based line of its `@`.
    line: usize,
    /// Whether its braces closed before the file (or the next entry) began.
    closed: bool,
}

/// Cut `text` into its `@type{…}` pieces by counting braces. Text outside
/// them is a comment in BibTeX and is passed over. An entry still open
/// when a line starts with a new `@type{` was left unclosed.
fn split(text: &str) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let bytes = text.as_bytes();
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut i = 0;
    while let Some(at) = text[i..].find('@').map(|p| p + i) {
        let Some((kind, open)) = opening(text, at) else {
            i = at + 1;
            continue;
        };
        // Braces inside the entry are counted; its own closing delimiter
        // ends it at depth zero.
        let braced = bytes[open] == b'{';
        let mut depth = 0usize;
        let mut end = None;
        let mut j = open + 1;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => j += 1,
                b'{' => depth += 1,
                b'}' if depth == 0 && braced => {
                    end = Some(j + 1);
                    break;
                }
                b'}' => depth = depth.saturating_sub(1),
                b')' if depth == 0 && !braced => {
                    end = Some(j + 1);
                    break;
                }
                b'\n' if bytes.get(j + 1) == Some(&b'@') && opening(text, j + 1).is_some() => break,
                _ => {}
            }
            j += 1;
        }
        let stop = end.unwrap_or(j.min(bytes.len()));
        let written = &text[at..stop];
        let is_entry = !matches!(kind.as_str(), "string" | "comment" | "preamble");
        pieces.push(Piece {
            text: if is_entry {
                tidy_entry(written)
            } else {
                written.to_owned()
            },
            kind,
            line: line_of(at),
            closed: end.is_some(),
        });
        i = stop.max(at + 1);
    }
    pieces
}

/// The lowercased type of an entry opening at `at` (an `@`), and where
/// its opening delimiter is.
fn opening(text: &str, at: usize) -> Option<(String, usize)> {
    let rest = &text[at + 1..];
    let name_len = rest.find(|c: char| !c.is_ascii_alphanumeric() && c != '_')?;
    let after = rest[name_len..].trim_start();
    let open = at + 1 + rest.len() - after.len();
    (name_len > 0 && (after.starts_with('{') || after.starts_with('(')))
        .then(|| (rest[..name_len].to_lowercase(), open))
}

/// An entry as biblatex reads it: spaces in its key made underscores,
/// no-break spaces in field names too (Scopus's `funding_text 1`).
fn tidy_entry(entry: &str) -> String {
    let Some(open) = entry.find(['{', '(']) else {
        return entry.to_owned();
    };
    let (head, body) = entry.split_at(open + 1);
    let Some((key, fields)) = body.split_once(',').filter(|(key, _)| !key.contains('=')) else {
        return entry.to_owned();
    };
    let key = key.trim().replace(char::is_whitespace, "_");
    let fields: Vec<String> = fields
        .split('\n')
        .map(|line| match line.split_once('=') {
            Some((name, value)) if name.contains('\u{a0}') && !name.contains(['{', '"']) => {
                format!("{}={value}", name.trim().replace(char::is_whitespace, "_"))
            }
            _ => line.to_owned(),
        })
        .collect();
    format!("{head}{key},{}", fields.join("\n"))
}

/// The key written in an entry, to name it.
fn key_of(entry: &str) -> String {
    entry
        .split_once(['{', '('])
        .and_then(|(_, body)| body.split(',').next())
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty())
        .map_or_else(|| "without a key".to_owned(), |k| format!("\"{k}\""))
}

/// Read one entry, with the file's `@string`s. A bare word that no string
/// defines (`journal = JAMA`) reads as itself rather than failing.
fn entry(strings: &str, text: &str) -> Result<Entry, String> {
    let mut defined = String::new();
    for _ in 0..8 {
        match Bibliography::parse(&format!("{strings}{defined}{text}")) {
            Ok(bib) => {
                return bib
                    .into_vec()
                    .into_iter()
                    .next()
                    .ok_or_else(|| "no entry".to_owned());
            }
            Err(e) => match &e.kind {
                biblatex::ParseErrorKind::UnknownAbbreviation(name) => {
                    defined.push_str(&format!("@string{{{name} = {{{name}}}}}\n"));
                }
                kind => return Err(kind.to_string()),
            },
        }
    }
    Err("too many undefined abbreviations".to_owned())
}

fn record(entry: &Entry, path: &Path, index: usize) -> Record {
    let field = |name: &str| entry.get(name).map(|chunks| to_text(&plain(chunks)));
    let raw = |name: &str| entry.get(name).map(|chunks| chunks.format_verbatim());
    let mut record = Record::blank(path, index, Format::Bibtex);
    record.title = field("title").and_then(|t| tidy(&t)).unwrap_or_default();
    record.abstract_text = field("abstract").and_then(|a| tidy(&a));
    record.authors = entry
        .get("author")
        .and_then(|chunks| chunks.parse::<Vec<Person>>().ok())
        .unwrap_or_default()
        .iter()
        .filter_map(family_first)
        .collect();
    record.year = ["year", "date", "issued"]
        .iter()
        .find_map(|name| raw(name).as_deref().and_then(year_in));
    record.journal = ["journal", "journaltitle", "booktitle"]
        .iter()
        .find_map(|name| field(name).and_then(|j| tidy(&j)));
    record.doi = ["doi", "url", "note"]
        .iter()
        .find_map(|name| raw(name).as_deref().and_then(doi_in));
    record.pmid = ["pmid", "pubmed", "pubmed_id"]
        .iter()
        .find_map(|name| raw(name))
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    // Web of Science's BibTeX names its UT; Scopus's only in its link.
    record.accession = raw("unique-id")
        .and_then(|id| tidy(&id))
        .or_else(|| raw("url").as_deref().and_then(scopus_eid_in));
    let archive = raw("archiveprefix")
        .or_else(|| raw("eprinttype"))
        .unwrap_or_default();
    record.arxiv = raw("eprint")
        .filter(|_| archive.eq_ignore_ascii_case("arxiv"))
        .map(|id| arxiv_without_version(id.trim()));
    record.keywords = ["keywords", "author_keywords", "keyword"]
        .iter()
        .filter_map(|name| field(name))
        .flat_map(|k| list_in(&k))
        .collect();
    record
}

/// Chunks as written, math kept between dollars for [`to_text`].
fn plain(chunks: biblatex::ChunksRef) -> String {
    chunks
        .iter()
        .map(|c| match &c.v {
            biblatex::Chunk::Math(m) => format!("${m}$"),
            other => other.get().to_owned(),
        })
        .collect()
}

/// "Family, Given" with the prefix kept in the family ("van der Steen,
/// Martijn Pieter"); `None` for BibTeX's "and others".
fn family_first(person: &Person) -> Option<String> {
    let family = [
        person.prefix.as_str(),
        person.name.as_str(),
        person.suffix.as_str(),
    ]
    .iter()
    .filter(|p| !p.is_empty())
    .map(|p| to_text(p))
    .collect::<Vec<_>>()
    .join(" ");
    let given = to_text(&person.given_name);
    if family.eq_ignore_ascii_case("others") && given.is_empty() {
        return None;
    }
    Some(match (family.is_empty(), given.is_empty()) {
        (true, _) => given,
        (false, true) => family,
        (false, false) => format!("{family}, {given}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> (Vec<Record>, Vec<String>) {
        parse(text, Path::new("refs.bib"))
    }

    #[test]
    fn names_keep_their_protected_parts_and_prefixes_and_lose_and_others() {
        let (records, _) = read(
            "@article{a, author = {{van der Steen}, Martijn Pieter and de la Fontaine, Jean and T{\\\"u}rkmen, Ali and others}, title = {X}}",
        );
        assert_eq!(
            records[0].authors,
            [
                "van der Steen, Martijn Pieter",
                "de la Fontaine, Jean",
                "Türkmen, Ali"
            ]
        );
    }

    #[test]
    fn a_broken_entry_is_skipped_by_name_and_line_and_the_rest_read() {
        let text = "Scopus\nEXPORT DATE: 07 May 2021\n\n@ARTICLE{Good1,\n\tauthor = {Gao, X.},\n\ttitle = {One},\n\tyear = {2020},\n\tfunding_text\u{a0}1 = {Funded.},\n\tpages = {2668 – 2681}\n}\n\n@article{Bad, title = \"A \"quoted\" word\", year = 2020}\n\n@set{both, entryset = {Good1,Good2}}\n\n@article{Jothi Mary Jenifer20231141, title = {Two}, journal = JAMA, eprint = {2101.00001v2}, archiveprefix = {arXiv}}\n";
        let (records, notices) = read(text);
        let titles: Vec<&str> = records.iter().map(|r| r.title.as_str()).collect();
        assert_eq!(titles, ["One", "Two"]);
        assert_eq!(records[1].journal.as_deref(), Some("JAMA"));
        assert_eq!(records[1].arxiv.as_deref(), Some("2101.00001"));
        assert_eq!(records[1].index, 1);
        assert!(
            notices
                .iter()
                .any(|n| n.contains("\"Bad\"") && n.contains("line 12")),
            "{notices:?}"
        );
        assert!(
            notices
                .iter()
                .any(|n| n.contains("@set") && n.contains("line 14")),
            "{notices:?}"
        );
    }

    #[test]
    fn an_unclosed_entry_does_not_swallow_the_next() {
        let (records, notices) = read("@article{a, title = {One}\n@article{b, title = {Two}}\n");
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].title, "Two");
        assert!(
            notices[0].contains("line 1") && notices[0].contains("never closed"),
            "{notices:?}"
        );
    }

    #[test]
    fn strings_dois_in_links_and_keyword_lists_are_read() {
        let (records, notices) = read(
            "@string{jcpp = \"Journal of Child Psychology\"}\n@article{k, title = {{\\emph{In vivo}} study}, journal = jcpp, url = {https://doi.org/10.1111/JCPP.1}, keywords = {ADHD; stimulants}, date = {2019-04}}",
        );
        assert_eq!(records.len(), 1, "{notices:?}");
        let r = &records[0];
        assert_eq!(r.title, "In vivo study");
        assert_eq!(r.journal.as_deref(), Some("Journal of Child Psychology"));
        assert_eq!(r.doi.as_deref(), Some("10.1111/jcpp.1"));
        assert_eq!(r.keywords, ["ADHD", "stimulants"]);
        assert_eq!(r.year, Some(2019));
    }
}
