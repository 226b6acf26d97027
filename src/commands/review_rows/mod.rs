//! The results table's rows, a page at a time. A review of ten thousand
//! papers is too much to ship to the window whole (megabytes of JSON that
//! the web view then holds), so the app asks for the rows it draws: the
//! filter, the sort, the counts and the score histogram are worked out here,
//! over the rows the last open built, and only the page in view crosses.
//!
//! The rows are those of the review's last [`super::review_view::review_open`]
//! in this process, kept with the app's own label and metadata edits since;
//! anything else that writes a review (a run, an import) is followed by an
//! open, which builds them again.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use crate::review::Verdict;
use crate::review::failures::PaperFailure;
use crate::review::imports::Candidate;
use crate::review::labels::Label;
use crate::workspace::FolderTimes;
use crate::workspace::ImportedFrom;

/// One paper as the board and the table list it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperRow {
    pub id: String,
    /// The file's path as shown: a name that is not UTF-8 travels with
    /// U+FFFD in place of its odd bytes (the record keeps it exactly).
    pub file: String,
    pub title: Option<String>,
    pub authors: Vec<String>,
    pub year: Option<u16>,
    pub status: String,
    pub reason: Option<String>,
    pub pages: usize,
    /// A search record (title and abstract, no PDF): its export's format
    /// and its place there. `file` is then the export.
    pub imported: Option<ImportedFrom>,
    /// The text was read by OCR.
    pub ocr: bool,
    pub duplicates: usize,
    /// On a search record: the review's PDF attached as its full text.
    pub full_text: Option<String>,
    /// On a PDF: the search record it is the full text of.
    pub full_text_of: Option<String>,
    /// The engine's reading (by the applied cut-offs, reconciled under
    /// dual reading).
    pub score: Option<f64>,
    pub verdict: Option<Verdict>,
    /// The researcher's label, when it counts now.
    pub label: Option<Label>,
    /// The researcher's label given under an earlier question: kept and
    /// shown as such, counted nowhere (the paper is screened again).
    pub earlier_label: Option<Label>,
    /// What the review shows, the researcher's label over the reading: what
    /// the table sorts, filters and counts by. The app applies nothing itself.
    pub shown_score: Option<f64>,
    pub shown_verdict: Option<Verdict>,
    /// Why a readable paper has no result: the model could not read it.
    pub failure: Option<PaperFailure>,
    /// Its two independent readings disagreed (dual reading).
    pub disagreed: bool,
    /// Why its reading is stale (made under an earlier question, protocol,
    /// engine or model): it counts nowhere until the paper is read again.
    pub stale: Option<String>,
}

/// The filters and the order of the results table, and the page wanted.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RowQuery {
    /// Words that must all appear in the title, authors, file, year, the
    /// label's note or the Zotero item's tags and notes (any case).
    pub text: String,
    pub verdict: VerdictFilter,
    pub status: StatusFilter,
    pub label: LabelFilter,
    pub readers: ReadersFilter,
    /// Shown score at least this (0 shows papers without a score too).
    pub min_score: f64,
    /// Earliest year shown; none shows all (papers without a year too).
    pub from_year: Option<u16>,
    /// Only papers whose Zotero item carries this tag (a record's full text
    /// goes with its record).
    pub zotero_tag: Option<String>,
    pub sort: SortKey,
    pub descending: bool,
    /// The first row of the page, in the query's order.
    pub offset: usize,
    /// Rows in the page at most.
    pub limit: usize,
}

/// A first screen of rows and some to scroll into.
pub const FIRST_PAGE: usize = 100;

impl Default for RowQuery {
    fn default() -> Self {
        Self {
            text: String::new(),
            verdict: VerdictFilter::Any,
            status: StatusFilter::Any,
            label: LabelFilter::Any,
            readers: ReadersFilter::Any,
            min_score: 0.0,
            from_year: None,
            zotero_tag: None,
            sort: SortKey::Score,
            descending: true,
            offset: 0,
            limit: FIRST_PAGE,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum VerdictFilter {
    Any,
    Include,
    Maybe,
    Exclude,
}

/// Where a paper stands: scored (has a result), stale (read under earlier
/// inputs), unread (readable, no result yet), unreadable (cannot be read).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum StatusFilter {
    Any,
    Scored,
    Stale,
    Unread,
    Unreadable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum LabelFilter {
    Any,
    Labelled,
    Unlabelled,
}

/// `disagree`: the two independent readings disagree (dual reading).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ReadersFilter {
    Any,
    Disagree,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum SortKey {
    /// The order the review lists its papers in (the run board's, the
    /// setup's), not one the table offers.
    Listed,
    Score,
    Title,
    Year,
    Verdict,
    Status,
}

/// One page of the rows a query shows.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RowsPage {
    /// Papers in the review.
    pub total: usize,
    /// Papers the filters let through.
    pub matched: usize,
    pub offset: usize,
    pub rows: Vec<PaperRow>,
    /// The shown scores of the matched papers in ten bins, 0-1 to 9-10.
    pub histogram: [usize; 10],
    /// Every paper counted, whatever the filters: labels change some counts
    /// (the disagreements left to settle), so each page says them anew.
    pub counts: PaperCounts,
}

/// The review's papers counted, for the lines and buttons that say how many.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PaperCounts {
    pub total: usize,
    /// Search records (title and abstract); the rest are files.
    pub records: usize,
    /// Search records with the review's PDF attached as full text.
    pub records_with_full_text: usize,
    /// Items from Zotero.
    pub zotero: usize,
    /// Files not extracted yet.
    pub pending: usize,
    /// Papers whose text was read cleanly (status ok).
    pub readable: usize,
    /// Papers with the engine's reading that stands.
    pub scored: usize,
    /// Papers with an engine verdict.
    pub with_verdict: usize,
    /// Papers whose reading was made under earlier inputs, and why the
    /// first of them is stale (they share a reason but for rare mixes).
    pub stale: usize,
    pub stale_reason: Option<String>,
    /// Papers whose two readings disagreed, and those of them not labelled.
    pub disagreed: usize,
    pub unsettled: usize,
    /// Every Zotero tag of the review's items, sorted, for the filter.
    pub zotero_tags: Vec<String>,
}

impl PaperCounts {
    pub fn of(rows: &[PaperRow]) -> Self {
        let count = |keep: fn(&PaperRow) -> bool| rows.iter().filter(|r| keep(r)).count();
        let mut tags: Vec<String> = rows
            .iter()
            .filter_map(|r| r.imported.as_ref()?.zotero.as_ref())
            .flat_map(|z| z.tags.iter().cloned())
            .collect();
        tags.sort_by(|a, b| collate(a, b));
        tags.dedup();
        Self {
            total: rows.len(),
            records: count(|r| r.imported.is_some()),
            records_with_full_text: count(|r| r.imported.is_some() && r.full_text.is_some()),
            zotero: count(|r| r.imported.as_ref().is_some_and(|i| i.zotero.is_some())),
            pending: count(|r| r.status == "pending"),
            readable: count(|r| r.status == "ok"),
            scored: count(|r| r.score.is_some()),
            with_verdict: count(|r| r.verdict.is_some()),
            stale: count(|r| r.stale.is_some()),
            stale_reason: rows.iter().find_map(|r| r.stale.clone()),
            disagreed: count(|r| r.disagreed),
            unsettled: count(|r| r.disagreed && r.label.is_none()),
            zotero_tags: tags,
        }
    }
}

/// A review's rows as built at one moment, with the folders' times then
/// (an open reads again only the papers whose folder moved since) and, row
/// by row, what duplicate detection needs of each paper.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) root: PathBuf,
    pub(crate) times: FolderTimes,
    pub(crate) rows: Arc<Vec<PaperRow>>,
    pub(crate) candidates: Arc<Vec<Option<Candidate>>>,
}

/// The rows of the review last opened in this process (one review at a
/// time: the window shows one).
#[derive(Clone, Debug, Default)]
pub(crate) struct RowCache {
    kept: Arc<Mutex<Option<Arc<Kept>>>>,
    /// Held while rows are built: an open that comes while the rows are
    /// being warmed waits for them rather than reading every file again.
    building: Arc<tokio::sync::Mutex<()>>,
}

impl RowCache {
    pub(crate) async fn building(&self) -> tokio::sync::OwnedMutexGuard<()> {
        self.building.clone().lock_owned().await
    }

    pub(crate) fn keep(&self, kept: Arc<Kept>) {
        if let Ok(mut slot) = self.kept.lock() {
            *slot = Some(kept);
        }
    }

    /// The rows kept of the review at `workspace` (any path to it).
    pub(crate) fn kept(&self, workspace: &Path) -> Option<Arc<Kept>> {
        let root = canonical(workspace);
        let slot = self.kept.lock().ok()?;
        slot.as_ref().filter(|k| k.root == root).cloned()
    }

    /// Put `row` in place of the row with its id (a label or a correction
    /// the app just wrote). The folder times stay as they were, so the next
    /// open reads that paper again from its files.
    pub(crate) fn replace(&self, workspace: &Path, row: &PaperRow) {
        let root = canonical(workspace);
        let Ok(mut slot) = self.kept.lock() else {
            return;
        };
        let Some(kept) = slot.as_mut().filter(|k| k.root == root) else {
            return;
        };
        if let Some(at) = kept.rows.iter().position(|r| r.id == row.id) {
            let kept = Arc::make_mut(kept);
            Arc::make_mut(&mut kept.rows)[at] = row.clone();
        }
    }
}

/// The path a workspace is kept under: the one it opens at (its links
/// resolved), as [`Kept::root`] is.
fn canonical(workspace: &Path) -> PathBuf {
    std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_path_buf())
}

/// The page `query` asks for, over `rows`.
pub fn page(rows: &[PaperRow], query: &RowQuery) -> RowsPage {
    let words: Vec<String> = query
        .text
        .to_lowercase()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    // Only a tag filter needs to find a full text's record by its id.
    let by_id: HashMap<&str, &PaperRow> = match query.zotero_tag {
        Some(_) => rows.iter().map(|r| (r.id.as_str(), r)).collect(),
        None => HashMap::new(),
    };
    let carries = |row: &PaperRow, tag: &String| {
        let tags_of = |row: &PaperRow| {
            row.imported
                .as_ref()
                .and_then(|i| i.zotero.as_ref())
                .map(|item| item.tags.contains(tag))
        };
        tags_of(row)
            .or_else(|| tags_of(by_id.get(row.full_text_of.as_deref()?)?))
            .unwrap_or(false)
    };
    let mut matched: Vec<&PaperRow> = rows
        .iter()
        .filter(|row| {
            if let Some(tag) = &query.zotero_tag
                && !carries(row, tag)
            {
                return false;
            }
            keeps(row, query) && matches_text(row, &words)
        })
        .collect();
    let mut histogram = [0; 10];
    for score in matched.iter().filter_map(|r| r.shown_score) {
        histogram[(score.clamp(0.0, 10.0).floor() as usize).min(9)] += 1;
    }
    if query.sort != SortKey::Listed {
        sort(&mut matched, query);
    }
    let total = rows.len();
    let count = matched.len();
    let offset = query.offset.min(count);
    let end = offset.saturating_add(query.limit).min(count);
    RowsPage {
        total,
        matched: count,
        offset,
        rows: matched[offset..end].iter().map(|r| (*r).clone()).collect(),
        histogram,
        counts: PaperCounts::of(rows),
    }
}

/// In the query's order, ties by title, then id, so the order never jumps.
/// Each row's title is folded to lower case once, beside it, not at every
/// comparison: ten thousand rows take some 140,000 comparisons.
fn sort(matched: &mut Vec<&PaperRow>, query: &RowQuery) {
    let mut keyed: Vec<(String, &PaperRow)> = matched
        .iter()
        .map(|r| (title_of(r).to_lowercase(), *r))
        .collect();
    keyed.sort_by(|(title_a, a), (title_b, b)| {
        let by_key = compare(a, b, query.sort, title_a, title_b);
        let by_key = if query.descending {
            by_key.reverse()
        } else {
            by_key
        };
        by_key
            .then_with(|| collate(title_a, title_b))
            .then_with(|| a.id.cmp(&b.id))
    });
    *matched = keyed.into_iter().map(|(_, row)| row).collect();
}

fn keeps(row: &PaperRow, query: &RowQuery) -> bool {
    let verdict = match query.verdict {
        VerdictFilter::Any => None,
        VerdictFilter::Include => Some(Verdict::Include),
        VerdictFilter::Maybe => Some(Verdict::Maybe),
        VerdictFilter::Exclude => Some(Verdict::Exclude),
    };
    if verdict.is_some() && row.shown_verdict != verdict {
        return false;
    }
    if query.status != StatusFilter::Any && status_of(row) != query.status {
        return false;
    }
    match query.label {
        LabelFilter::Labelled if row.label.is_none() => return false,
        LabelFilter::Unlabelled if row.label.is_some() => return false,
        _ => {}
    }
    if query.readers == ReadersFilter::Disagree && !row.disagreed {
        return false;
    }
    if query.min_score > 0.0 && row.shown_score.unwrap_or(-1.0) < query.min_score {
        return false;
    }
    if let Some(from) = query.from_year
        && row.year.is_none_or(|year| year < from)
    {
        return false;
    }
    true
}

/// Statuses whose text can be read.
const READABLE: [&str; 3] = ["ok", "damaged", "pending"];

fn status_of(row: &PaperRow) -> StatusFilter {
    if row.score.is_some() {
        StatusFilter::Scored
    } else if row.stale.is_some() {
        StatusFilter::Stale
    } else if READABLE.contains(&row.status.as_str()) {
        StatusFilter::Unread
    } else {
        StatusFilter::Unreadable
    }
}

/// The title shown: the paper's, else its file's name.
fn title_of(row: &PaperRow) -> &str {
    match row.title.as_deref().map(str::trim) {
        Some(title) if !title.is_empty() => title,
        _ => row.file.rsplit(['/', '\\']).next().unwrap_or(&row.file),
    }
}

fn matches_text(row: &PaperRow, words: &[String]) -> bool {
    if words.is_empty() {
        return true;
    }
    let mut haystack = format!(
        "{} {} {} {}",
        title_of(row),
        row.authors.join(" "),
        row.file,
        row.year.map(|y| y.to_string()).unwrap_or_default()
    );
    if let Some(note) = row.label.as_ref().and_then(|l| l.note.as_deref()) {
        haystack.push(' ');
        haystack.push_str(note);
    }
    if let Some(item) = row.imported.as_ref().and_then(|i| i.zotero.as_ref()) {
        for text in item.tags.iter().chain(&item.notes) {
            haystack.push(' ');
            haystack.push_str(text);
        }
    }
    let haystack = haystack.to_lowercase();
    words.iter().all(|w| haystack.contains(w.as_str()))
}

fn compare(a: &PaperRow, b: &PaperRow, key: SortKey, title_a: &str, title_b: &str) -> Ordering {
    let rank = |v: Option<Verdict>| match v {
        None => -1,
        Some(Verdict::Exclude) => 0,
        Some(Verdict::Maybe) => 1,
        Some(Verdict::Include) => 2,
    };
    match key {
        SortKey::Listed => Ordering::Equal,
        SortKey::Score => a
            .shown_score
            .unwrap_or(-1.0)
            .total_cmp(&b.shown_score.unwrap_or(-1.0)),
        SortKey::Year => a.year.unwrap_or(0).cmp(&b.year.unwrap_or(0)),
        SortKey::Verdict => rank(a.shown_verdict).cmp(&rank(b.shown_verdict)),
        SortKey::Status => collate(&a.status, &b.status),
        SortKey::Title => collate(title_a, title_b),
    }
}

/// Text in the order a reader expects: case aside, and numbers by their
/// value ("Part 2" before "Part 10").
fn collate(a: &str, b: &str) -> Ordering {
    let (mut a, mut b) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (a.peek().copied(), b.peek().copied()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) if x.is_ascii_digit() && y.is_ascii_digit() => {
                let number = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
                    let mut digits = String::new();
                    while let Some(c) = chars.peek().copied().filter(char::is_ascii_digit) {
                        digits.push(c);
                        chars.next();
                    }
                    digits
                };
                let (x, y) = (number(&mut a), number(&mut b));
                let (x, y) = (x.trim_start_matches('0'), y.trim_start_matches('0'));
                let by_value = x.len().cmp(&y.len()).then_with(|| x.cmp(y));
                if by_value != Ordering::Equal {
                    return by_value;
                }
            }
            (Some(x), Some(y)) if x.is_ascii() && y.is_ascii() => {
                let by_char = x.to_ascii_lowercase().cmp(&y.to_ascii_lowercase());
                if by_char != Ordering::Equal {
                    return by_char;
                }
                a.next();
                b.next();
            }
            (Some(x), Some(y)) => {
                let by_char = x.to_lowercase().cmp(y.to_lowercase());
                if by_char != Ordering::Equal {
                    return by_char;
                }
                a.next();
                b.next();
            }
        }
    }
}

#[cfg(test)]
mod tests;
