//! The same work exported twice: across files (two databases searched) or
//! within one. Records are the same work when they share a DOI or a PMID;
//! failing both, when their titles (letters and digits, lowercased), years
//! and first authors' family names agree. Groups are shown to the
//! researcher with the reason, never merged here: a preprint and its
//! journal version can share a title and be screened apart. A PDF's paper
//! gives the same keys ([`Work`]), so records are checked against a
//! review's PDFs too. [`Known`] answers the other question citation
//! searching asks of each work it finds: does the review have it already,
//! in any version (the arXiv preprint of a journal paper, a work OpenAlex
//! merged into another)?

use std::collections::HashMap;

use serde::Serialize;

use super::Record;

/// Why two records were found to be one work; strongest first, as a group
/// is said to be one work by its strongest reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Why {
    Doi,
    Pmid,
    /// The same arXiv id (a preprint and the journal paper it became).
    Arxiv,
    /// The same OpenAlex work (after merges).
    Openalex,
    /// The same title, year and first author.
    TitleYearAuthor,
    /// The same title and first author a year or two apart: a preprint and
    /// its published version. Only [`Known`] joins by it.
    Version,
}

impl Why {
    /// The reason in words, for a list a person reads.
    pub fn as_words(self) -> &'static str {
        match self {
            Self::Doi => "the same DOI",
            Self::Pmid => "the same PMID",
            Self::TitleYearAuthor => "the same title, year and first author",
            Self::Arxiv => "the same arXiv id",
            Self::Openalex => "the same OpenAlex work",
            Self::Version => "another version (same title and first author, a year or two apart)",
        }
    }
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
    /// Without its version (`1706.03762`).
    pub arxiv: Option<String>,
    /// Its OpenAlex ids (`W…`): the current one and any merged into it.
    pub openalex: Vec<String>,
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
            arxiv: r.arxiv.clone(),
            openalex: r.citation.iter().map(|c| c.openalex.clone()).collect(),
        }
    }
}

/// The works a review already has, by every key that tells a work: what
/// citation searching checks each work it finds against.
#[derive(Debug, Default)]
pub struct Known {
    /// "doi:…", "pmid:…", "arxiv:…", "openalex:…", "tya:…" → the owner.
    keys: HashMap<String, usize>,
    /// Title and first author → (year, owner), for versions.
    versions: HashMap<String, Vec<(Option<i32>, usize)>>,
}

/// The most years apart a preprint and its published version are taken to
/// be: journals take a while.
const VERSION_YEARS: i32 = 2;

impl Known {
    pub fn new() -> Self {
        Self::default()
    }

    /// Remember `work` as `owner`'s (an index the caller keeps). A key
    /// already known keeps its first owner.
    pub fn add(&mut self, work: &Work, owner: usize) {
        for (_, key) in keys_of(work) {
            self.keys.entry(key).or_insert(owner);
        }
        if let Some(key) = title_author(work) {
            self.versions
                .entry(key)
                .or_default()
                .push((work.year, owner));
        }
    }

    /// The owner of a known work `work` is, and the strongest reason; none
    /// when it is new.
    pub fn find(&self, work: &Work) -> Option<(usize, Why)> {
        if let Some(found) = keys_of(work)
            .into_iter()
            .find_map(|(why, key)| self.keys.get(&key).map(|&owner| (owner, why)))
        {
            return Some(found);
        }
        let versions = self.versions.get(&title_author(work)?)?;
        versions.iter().find_map(|&(year, owner)| {
            let close = match (year, work.year) {
                (Some(a), Some(b)) => (a - b).abs() <= VERSION_YEARS,
                _ => true,
            };
            close.then_some((owner, Why::Version))
        })
    }
}

/// Every key of a work, strongest first.
fn keys_of(work: &Work) -> Vec<(Why, String)> {
    let mut keys = Vec::new();
    for id in &work.openalex {
        keys.push((Why::Openalex, format!("openalex:{}", id.to_uppercase())));
    }
    if let Some(doi) = &work.doi {
        keys.push((Why::Doi, format!("doi:{}", doi.to_lowercase())));
        // An arXiv DOI is the arXiv id under another name.
        if let Some(id) = doi.to_lowercase().strip_prefix("10.48550/arxiv.") {
            keys.push((Why::Arxiv, format!("arxiv:{id}")));
        }
    }
    if let Some(id) = &work.arxiv {
        keys.push((Why::Arxiv, format!("arxiv:{}", id.to_lowercase())));
    }
    if let Some(pmid) = &work.pmid {
        keys.push((Why::Pmid, format!("pmid:{pmid}")));
    }
    if let Some(key) = title_year_author(work) {
        keys.push((Why::TitleYearAuthor, format!("tya:{key}")));
    }
    keys
}

/// Title and first author, without the year: the key versions share.
fn title_author(work: &Work) -> Option<String> {
    let title = title_key(&work.title)?;
    let author = work.first_author.as_deref()?.to_lowercase();
    Some(format!("{title}|{author}"))
}

/// Groups of two or more works that are one, in order of their first
/// member (indices into `records`).
pub fn find(records: &[Work]) -> Vec<Group> {
    let mut sets = UnionFind::new(records.len());
    let mut why: HashMap<usize, Why> = HashMap::new();
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        for (reason, key) in keys_of(r) {
            match first.get(&key) {
                Some(&j) => {
                    let root = sets.union(j, i);
                    let kept = why.entry(root).or_insert(reason);
                    if (reason as u8) < (*kept as u8) {
                        *kept = reason;
                    }
                }
                None => {
                    first.insert(key, i);
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
            accession: None,
            keywords: Vec::new(),
            file: "x.ris".into(),
            index: 0,
            format: Format::Ris,
            zotero: None,
            citation: None,
            arxiv: None,
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

#[cfg(test)]
mod known_tests {
    use super::*;

    /// A work as one line of the labelled set: title | year | first author |
    /// DOI | arXiv | OpenAlex ids.
    fn w(line: &str) -> Work {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Work {
            title: f[0].into(),
            year: f[1].parse().ok(),
            first_author: some(f[2]),
            doi: some(f[3]),
            pmid: None,
            arxiv: some(f[4]),
            openalex: f[5]
                .split(',')
                .filter(|s| !s.is_empty())
                .map(Into::into)
                .collect(),
        }
    }

    /// Real works paired with what citation searching finds of them: the
    /// same work by another route (true), a preprint and its published
    /// version (true), and different works that look alike (false): a reply
    /// to a paper, a sequel with the same first author, a same-titled work
    /// by others, an erratum years later.
    const LABELLED: &[(&str, &str, bool)] = &[
        (
            "Attention Is All You Need|2017|Vaswani|||",
            "Attention is all you need|2017|Vaswani|10.48550/arxiv.1706.03762||W1",
            true,
        ),
        (
            "Deep Residual Learning for Image Recognition|2016|He|10.1109/cvpr.2016.90||",
            "Deep Residual Learning for Image Recognition|2015|He|10.48550/arxiv.1512.03385|1512.03385|W2",
            true,
        ),
        (
            "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding|2019|Devlin|10.18653/v1/n19-1423||",
            "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding|2018|Devlin|||W3",
            true,
        ),
        (
            "Adam: A Method for Stochastic Optimization|2015|Kingma||1412.6980|",
            "Adam: A Method for Stochastic Optimization|2014|Kingma|10.48550/arxiv.1412.6980||W4",
            true,
        ),
        (
            "Bigtable: A Distributed Storage System for Structured Data|2008|Chang|10.1145/1365815.1365816||",
            "Bigtable: A Distributed Storage System for Structured Data|2006|Chang|||W5",
            true,
        ),
        (
            "Paxos made simple|2001|Lamport|||",
            "Paxos Made Simple|2001|Lamport|10.1145/568425.568433||W6",
            true,
        ),
        (
            "Spanner: Google's Globally-Distributed Database|2013|Corbett|10.1145/2491245||",
            "Spanner: Google’s globally distributed database|2013|Corbett|10.1145/2491245||W7",
            true,
        ),
        (
            "Dropout: a simple way to prevent neural networks from overfitting|2014|Srivastava|||W8",
            "Dropout: A Simple Way to Prevent Neural Networks from Overfitting|2014|Srivastava|||W8",
            true,
        ),
        (
            "In Search of an Understandable Consensus Algorithm|2014|Ongaro|||W9",
            "In search of an understandable consensus algorithm (extended version)|2014|Ongaro|||W10",
            false,
        ),
        (
            "Generative Adversarial Nets|2014|Goodfellow|||",
            "Generative adversarial networks|2020|Goodfellow|10.1145/3422622||W11",
            false,
        ),
        (
            "Consistency Tradeoffs in Modern Distributed Database System Design|2012|Abadi|10.1109/mc.2012.33||",
            "Consistency tradeoffs in modern distributed database system design: CAP is only part of the story|2012|Abadi|10.1109/mc.2012.33||W12",
            true,
        ),
        (
            "Language Models are Few-Shot Learners|2020|Brown||2005.14165|",
            "Language Models are Few-Shot Learners|2020|Brown|||W13",
            true,
        ),
        (
            "Mastering the game of Go with deep neural networks and tree search|2016|Silver|10.1038/nature16961||",
            "Mastering the game of Go without human knowledge|2017|Silver|10.1038/nature24270||W14",
            false,
        ),
        (
            "Introduction to the special issue on distributed systems|2019|Smith|||",
            "Introduction to the special issue on distributed systems|2019|Jones|||W15",
            false,
        ),
        (
            "The Google File System|2003|Ghemawat|10.1145/945445.945450||",
            "The Google file system|2003|Ghemawat|10.1145/1165389.945450||W16",
            true,
        ),
        (
            "MapReduce: Simplified Data Processing on Large Clusters|2004|Dean|||",
            "MapReduce: simplified data processing on large clusters|2008|Dean|10.1145/1327452.1327492||W17",
            false,
        ),
        (
            "A Relational Model of Data for Large Shared Data Banks|1970|Codd|10.1145/362384.362685||",
            "A relational model of data for large shared data banks|1983|Codd|10.1145/357980.358007||W18",
            false,
        ),
        (
            "Reply to: Attention is not explanation|2019|Wiegreffe|||",
            "Attention is not explanation|2019|Jain||1902.10186|W19",
            false,
        ),
        (
            "Scikit-learn: Machine Learning in Python|2011|Pedregosa|||",
            "Scikit-learn: Machine Learning in Python|2012|Pedregosa||1201.0490|W20",
            true,
        ),
        (
            "Time, clocks, and the ordering of events in a distributed system|1978|Lamport|10.1145/359545.359563||",
            "Time, Clocks, and the Ordering of Events in a Distributed System|1978|Lamport|||W21",
            true,
        ),
    ];

    #[test]
    fn known_finds_versions_and_routes_with_high_precision_and_recall() {
        let (mut tp, mut fp, mut fneg) = (0, 0, 0);
        let mut wrong = Vec::new();
        for (review, found, same) in LABELLED {
            let mut known = Known::new();
            known.add(&w(review), 0);
            let said = known.find(&w(found)).is_some();
            match (said, *same) {
                (true, true) => tp += 1,
                (true, false) => {
                    fp += 1;
                    wrong.push(*found);
                }
                (false, true) => {
                    fneg += 1;
                    wrong.push(*found);
                }
                (false, false) => {}
            }
        }
        let precision = f64::from(tp) / f64::from(tp + fp);
        let recall = f64::from(tp) / f64::from(tp + fneg);
        eprintln!(
            "dedupe on {} labelled pairs: precision {precision:.2}, recall {recall:.2}; wrong: {wrong:?}",
            LABELLED.len()
        );
        assert!(precision >= 0.99, "precision {precision:.2}: {wrong:?}");
        assert!(recall >= 0.75, "recall {recall:.2}: {wrong:?}");
    }
}
