//! The same work exported twice: across files (two databases searched) or
//! within one. Records are the same work when they share a DOI or a PMID;
//! failing both, when their titles (letters and digits, lowercased), years
//! and first authors' family names agree. Groups are shown to the
//! researcher with the reason, never merged here: a preprint and its
//! journal version can share a title and be screened apart. A PDF's paper
//! gives the same keys ([`Work`]), so records are checked against a
//! review's PDFs too.

use std::collections::HashMap;

use serde::Serialize;

use super::Record;

/// Why two records were found to be one work.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Why {
    Doi,
    Pmid,
    /// The same title, year and first author.
    TitleYearAuthor,
}

/// Records (their indices in the slice given) found to be one work; the
/// strongest reason that joined any two of them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Group {
    pub records: Vec<usize>,
    pub why: Why,
}

/// What tells one work from another, whatever it was read from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Work {
    pub title: String,
    pub year: Option<i32>,
    /// The first author's family name.
    pub first_author: Option<String>,
    /// Lowercased, without a resolver prefix.
    pub doi: Option<String>,
    pub pmid: Option<String>,
}

impl From<&Record> for Work {
    fn from(r: &Record) -> Self {
        Self {
            title: r.title.clone(),
            year: r.year,
            first_author: r
                .authors
                .first()
                .map(|a| a.split(',').next().unwrap_or(a).trim().to_owned()),
            doi: r.doi.clone(),
            pmid: r.pmid.clone(),
        }
    }
}

/// A work's key under one reason, if it has one.
type KeyOf = fn(&Work) -> Option<String>;

/// Groups of two or more works that are one, in order of their first
/// member (indices into `records`).
pub fn find(records: &[Work]) -> Vec<Group> {
    let mut sets = UnionFind::new(records.len());
    let mut why: HashMap<usize, Why> = HashMap::new();
    let keys: [(Why, KeyOf); 3] = [
        (Why::Doi, |r| r.doi.clone()),
        (Why::Pmid, |r| r.pmid.clone()),
        (Why::TitleYearAuthor, title_year_author),
    ];
    for (reason, key) in keys {
        let mut first: HashMap<String, usize> = HashMap::new();
        for (i, r) in records.iter().enumerate() {
            let Some(k) = key(r) else { continue };
            match first.get(&k) {
                Some(&j) => {
                    let root = sets.union(j, i);
                    why.entry(root).or_insert(reason);
                }
                None => {
                    first.insert(k, i);
                }
            }
        }
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..records.len() {
        groups.entry(sets.find(i)).or_default().push(i);
    }
    let mut out: Vec<Group> = groups
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|(root, records)| Group {
            why: why_of(&why, &mut sets, root),
            records,
        })
        .collect();
    out.sort_by_key(|g| g.records[0]);
    out
}

/// The reason recorded for a set, wherever its root moved since.
fn why_of(why: &HashMap<usize, Why>, sets: &mut UnionFind, root: usize) -> Why {
    why.iter()
        .filter(|(k, _)| sets.find(**k) == root)
        .map(|(_, w)| *w)
        .min_by_key(|w| *w as u8)
        .unwrap_or(Why::TitleYearAuthor)
}

/// A title as a key: its letters and digits, lowercased; none when it is
/// too short to tell works apart.
pub fn title_key(title: &str) -> Option<String> {
    let key: String = title
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    (key.chars().count() >= 12).then_some(key)
}

/// Title, year and first author's family name as one key; none when the
/// title is too short to tell works apart.
fn title_year_author(r: &Work) -> Option<String> {
    let title = title_key(&r.title)?;
    let author = r
        .first_author
        .as_deref()
        .map(str::to_lowercase)
        .unwrap_or_default();
    Some(format!("{title}|{}|{author}", r.year.unwrap_or(0)))
}

struct UnionFind(Vec<usize>);

impl UnionFind {
    fn new(n: usize) -> Self {
        Self((0..n).collect())
    }

    fn find(&mut self, i: usize) -> usize {
        let parent = self.0[i];
        if parent == i {
            return i;
        }
        let root = self.find(parent);
        self.0[i] = root;
        root
    }

    /// Join the sets of `a` and `b`; the root of the joined set.
    fn union(&mut self, a: usize, b: usize) -> usize {
        let (ra, rb) = (self.find(a), self.find(b));
        let root = ra.min(rb);
        self.0[ra.max(rb)] = root;
        root
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Format, Record};
    use super::*;

    fn record(title: &str, doi: Option<&str>, pmid: Option<&str>, author: &str) -> Record {
        Record {
            title: title.into(),
            abstract_text: None,
            authors: vec![author.into()],
            year: Some(2004),
            journal: None,
            doi: doi.map(Into::into),
            pmid: pmid.map(Into::into),
            keywords: Vec::new(),
            file: "x.ris".into(),
            index: 0,
            format: Format::Ris,
            zotero: None,
        }
    }

    #[test]
    fn same_doi_pmid_or_title_year_and_author_group_and_the_rest_stay_apart() {
        let records = [
            record(
                "Methylphenidate in children",
                Some("10.1/a"),
                None,
                "Smith, J",
            ),
            record(
                "Methylphenidate in Children.",
                None,
                Some("15"),
                "Smith, John",
            ),
            record(
                "Another title entirely",
                Some("10.1/a"),
                Some("15"),
                "Doe, J",
            ),
            record("Stimulants for ADHD in adults", None, None, "Brown, K"),
            record("Stimulants for ADHD in adults", None, None, "Green, K"),
            record("Short", None, None, "Smith, J"),
            record("Short", None, None, "Smith, J"),
        ];
        let works: Vec<Work> = records.iter().map(Work::from).collect();
        let groups = find(&works);
        assert_eq!(groups.len(), 1, "{groups:?}");
        // 0 and 2 share a DOI, 1 and 2 a PMID, 0 and 1 title, year, author.
        assert_eq!(groups[0].records, [0, 1, 2]);
        assert_eq!(groups[0].why, Why::Doi);
        // Same title, another first author: two works. A title too short
        // to tell works apart joins nothing.
    }
}
