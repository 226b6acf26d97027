//! `quire-bench eval metadata`: how often the bibliographic metadata Quire reads
//! from a PDF matches a hand-checked table (title, first author's family name,
//! year; author count, DOI and arXiv id besides), and every miss.
//!
//! The table is tab-separated with a header row naming its columns: `file`
//! (relative to the table's folder), `title`, `first_author_family`,
//! `authors_count`, `year`, `doi`, `arxiv_id`. A blank cell means the paper
//! prints no such value; a paper with a blank year is left out of the year
//! accuracy, and likewise for DOI and arXiv id.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use clap::Args;
use quire::pdf::ingest::{IngestOptions, extract_all};
use quire::pdf::metadata::{Metadata, normalise_for_match, read_metadata};
use quire::pdf::sha256_file;

#[derive(Args)]
pub(crate) struct MetadataEvalArgs {
    /// The hand-checked table; its file paths are relative to its folder.
    #[arg(long, default_value = "../shared/corpus/metadata.tsv")]
    pub(crate) truth: PathBuf,
    /// Print at most this many misses per field.
    #[arg(long, default_value_t = 200)]
    pub(crate) misses: usize,
}

/// One row of the table: what the paper really prints.
#[derive(Debug)]
pub(crate) struct Truth {
    pub(crate) file: String,
    pub(crate) title: String,
    first_author: String,
    authors: Option<usize>,
    year: Option<u16>,
    doi: Option<String>,
    arxiv: Option<String>,
}

/// Hits and misses of one field.
#[derive(Default)]
struct Tally {
    hits: usize,
    total: usize,
    misses: Vec<(String, String, String)>,
}

impl Tally {
    fn record(&mut self, file: &str, expected: &str, got: Option<&str>, hit: bool) {
        self.total += 1;
        if hit {
            self.hits += 1;
        } else {
            self.misses.push((
                file.to_owned(),
                expected.to_owned(),
                got.unwrap_or("(none)").to_owned(),
            ));
        }
    }

    fn share(&self) -> f64 {
        self.hits as f64 / self.total.max(1) as f64
    }
}

pub(crate) async fn run(args: MetadataEvalArgs) -> Result<(), String> {
    let table = std::fs::read_to_string(&args.truth)
        .map_err(|e| format!("{}: {e}", args.truth.display()))?;
    let rows = parse_table(&table).map_err(|e| format!("{}: {e}", args.truth.display()))?;
    let base = args.truth.parent().unwrap_or(Path::new("."));
    let mut files = Vec::new();
    for row in &rows {
        let path = base.join(&row.file);
        let sha = sha256_file(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        files.push((path, sha));
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut options = IngestOptions::new(exe);
    options.cache_dir = Some(crate::default_paths()?.data_dir.join("cache").join("text"));
    let extracted = extract_all(files, &options, |_, _| {}).await;

    let mut fields: [(&str, Tally); 6] = [
        ("title", Tally::default()),
        ("first author", Tally::default()),
        ("year", Tally::default()),
        ("author count", Tally::default()),
        ("DOI", Tally::default()),
        ("arXiv id", Tally::default()),
    ];
    for (row, ex) in rows.iter().zip(&extracted) {
        let found = read_metadata(&ex.info, &ex.pages, &ex.head);
        score_row(row, &found, &mut fields);
    }

    println!(
        "metadata accuracy on {} papers ({})",
        rows.len(),
        args.truth.display()
    );
    println!("| field | right | of | accuracy |");
    println!("|---|---|---|---|");
    for (name, tally) in &fields {
        println!(
            "| {name} | {} | {} | {:.1}% |",
            tally.hits,
            tally.total,
            100.0 * tally.share()
        );
    }
    for (name, tally) in &fields {
        if tally.misses.is_empty() {
            continue;
        }
        println!("\nmisses: {name}");
        for (file, expected, got) in tally.misses.iter().take(args.misses) {
            println!("  {file}\n    expected: {expected}\n    got:      {got}");
        }
    }
    Ok(())
}

fn score_row(row: &Truth, found: &Metadata, fields: &mut [(&str, Tally); 6]) {
    let same = |a: &str, b: &str| normalise_for_match(a) == normalise_for_match(b);
    let title = found.title.as_deref();
    fields[0].1.record(
        &row.file,
        &row.title,
        title,
        title.is_some_and(|t| same(t, &row.title)),
    );
    let first = found.meta.authors.first().map(|a| a.family.clone());
    // A blank cell: the paper prints no author (or no title) to match.
    if !row.first_author.is_empty() {
        fields[1].1.record(
            &row.file,
            &row.first_author,
            first.as_deref(),
            first.as_deref().is_some_and(|f| same(f, &row.first_author)),
        );
    }
    if let Some(year) = row.year {
        let got = found.meta.year.map(|y| y.to_string());
        fields[2].1.record(
            &row.file,
            &year.to_string(),
            got.as_deref(),
            found.meta.year == Some(year),
        );
    }
    if let Some(count) = row.authors {
        let got = found.meta.authors.len().to_string();
        fields[3].1.record(
            &row.file,
            &count.to_string(),
            Some(&got),
            found.meta.authors.len() == count,
        );
    }
    if let Some(doi) = &row.doi {
        let got = found.meta.doi.as_deref();
        fields[4].1.record(
            &row.file,
            doi,
            got,
            got.is_some_and(|g| g.eq_ignore_ascii_case(doi)),
        );
    }
    if let Some(arxiv) = &row.arxiv {
        let got = found.meta.arxiv.as_deref();
        // The table names the paper, not its version: 1706.03762v5 is 1706.03762.
        let unversioned = |id: &str| id.split('v').next().unwrap_or(id).to_owned();
        fields[5].1.record(
            &row.file,
            arxiv,
            got,
            got.is_some_and(|g| unversioned(g) == unversioned(arxiv)),
        );
    }
}

pub(crate) fn parse_table(table: &str) -> Result<Vec<Truth>, String> {
    let mut lines = table.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or("the table is empty")?
        .split('\t')
        .collect();
    let column: HashMap<&str, usize> = header.iter().enumerate().map(|(i, h)| (*h, i)).collect();
    let index = |name: &str| {
        column
            .get(name)
            .copied()
            .ok_or_else(|| format!("no `{name}` column"))
    };
    let (file, title, author) = (
        index("file")?,
        index("title")?,
        index("first_author_family")?,
    );
    let optional = |name: &str| column.get(name).copied();
    let (count, year, doi, arxiv) = (
        optional("authors_count"),
        optional("year"),
        optional("doi"),
        optional("arxiv_id"),
    );
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split('\t').collect();
        let cell = |i: Option<usize>| {
            i.and_then(|i| cells.get(i))
                .map(|c| c.trim())
                .filter(|c| !c.is_empty())
        };
        let parse_number = |i: Option<usize>, what: &str| -> Result<Option<u64>, String> {
            cell(i)
                .map(|c| {
                    c.parse::<u64>()
                        .map_err(|_| format!("line {}: {what} `{c}` is not a number", n + 2))
                })
                .transpose()
        };
        rows.push(Truth {
            file: cell(Some(file))
                .ok_or_else(|| format!("line {}: no file", n + 2))?
                .to_owned(),
            title: cell(Some(title)).unwrap_or_default().to_owned(),
            first_author: cell(Some(author)).unwrap_or_default().to_owned(),
            authors: parse_number(count, "authors_count")?.map(|c| c as usize),
            year: parse_number(year, "year")?.and_then(|y| u16::try_from(y).ok()),
            doi: cell(doi).map(str::to_owned),
            arxiv: cell(arxiv).map(str::to_owned),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_table_by_its_header_and_leaves_blank_cells_out() {
        let table = "file\ttitle\tfirst_author_family\tauthors_count\tyear\tdoi\tarxiv_id\n\
                     a.pdf\tPaxos Made Simple\tLamport\t1\t2001\t\t\n\
                     b.pdf\tRaft\tOngaro\t2\t\t10.1/x\t1234.5678\n";
        let rows = parse_table(table).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].year, Some(2001));
        assert_eq!(rows[0].doi, None);
        assert_eq!(rows[1].year, None);
        assert_eq!(rows[1].arxiv.as_deref(), Some("1234.5678"));
        let bad = "file\ttitle\tfirst_author_family\tyear\nx.pdf\tT\tA\tsoon\n";
        assert!(parse_table(bad).unwrap_err().contains("line 2"));
        assert!(parse_table("title\n").unwrap_err().contains("`file`"));
    }
}
