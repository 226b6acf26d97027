//! Search records into a review. Each record of a database search's export
//! (RIS, PubMed/MEDLINE, Web of Science, BibTeX, CSV: [`crate::records`]) becomes a paper
//! whose text is its title and abstract as one page, so both engines, the
//! quote checks, labels and exports treat it as they treat a PDF: a quote
//! is verified against the title and abstract. The same record imported
//! again is the same paper (its id is the hash of what it says); a record
//! a file holds twice is two papers, the second a duplicate. Works found
//! twice, among records and against the review's PDFs (DOI, PMID, else
//! title, year and first author), are shown as [`DuplicateGroup`]s and never
//! merged: the researcher decides.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::search_update::EarlierSearch;
use super::source::{link_full_text, register_papers};
use super::{ReviewError, corrections, paper_text};
use crate::pdf::FoundPdf;
use crate::records::duplicates::{self, Work};
use crate::records::{self, Export, Record};
use crate::workspace::{
    Author, Batch, ImportedFrom, MetaField, Origin, PaperFile, PaperId, PaperMeta, PaperRecord,
    PaperStatus, Workspace, ZoteroItem,
};

/// How one export file went in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileImport {
    /// The file as given (its name shown lossily when not UTF-8).
    pub file: String,
    /// The format read ("RIS", "PubMed/MEDLINE", …); none when unreadable.
    pub format: Option<String>,
    /// Records the file holds.
    pub records: usize,
    /// Of those, records new to the review.
    pub added: usize,
    /// The earlier export of the same search this one was matched against
    /// (it was named as replaced, or is the same file, exported again).
    pub replaces: Option<String>,
    /// Records of the earlier export found again, changed (a DOI added,
    /// an abstract corrected): each keeps its paper and labels.
    pub updated: usize,
    /// Of those, records whose title or abstract changed: their readings
    /// were dropped, and the next run reads them again.
    pub reread: usize,
    /// Records of the earlier export this one no longer holds: they left
    /// the search, and stay in the review marked so.
    pub left: Vec<LeftRecord>,
    /// Why the file could not be read; nothing of it was imported.
    pub error: Option<String>,
    /// What the researcher should know of how it was read: a guessed
    /// encoding, records skipped and why, a file cut short.
    pub notices: Vec<String>,
}

/// A record that left the search.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LeftRecord {
    pub paper: String,
    pub title: Option<String>,
}

/// One member of a group of duplicates.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DuplicateMember {
    pub paper: String,
    pub title: Option<String>,
    pub year: Option<u16>,
    /// "RIS record", "PDF", …: what the member is.
    pub kind: String,
    /// The researcher set it aside as a copy of this group's other member.
    pub set_aside: bool,
}

/// Papers of a review found to be one work, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct DuplicateGroup {
    pub members: Vec<DuplicateMember>,
    /// "the same DOI", "the same PMID", or "the same title, year and first
    /// author".
    pub why: String,
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportSummary {
    pub files: Vec<FileImport>,
    /// Records new to the review, over all files.
    pub added: usize,
    /// Every paper the imported files' records are, in file order, each once.
    pub papers: Vec<String>,
    /// The review's groups of duplicates after the import.
    pub duplicates: Vec<DuplicateGroup>,
}

impl FileImport {
    /// The line of `file` before anything of it is read.
    fn of(file: &Path) -> Self {
        Self {
            file: file.to_string_lossy().into_owned(),
            format: None,
            records: 0,
            added: 0,
            replaces: None,
            updated: 0,
            reread: 0,
            left: Vec::new(),
            error: None,
            notices: Vec::new(),
        }
    }
}

impl ImportSummary {
    /// The files that could not be read.
    pub fn failed(&self) -> impl Iterator<Item = &FileImport> {
        self.files.iter().filter(|f| f.error.is_some())
    }
}

/// Where an import is, for a progress display: records taken in of all the
/// readable files hold, then the saving of them as one change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ImportProgress {
    pub done: usize,
    pub total: usize,
    /// Every record is taken in and the import is being saved.
    pub saving: bool,
}

/// Counts records taken in and reports every hundredth of them.
struct Tally<'a> {
    done: usize,
    total: usize,
    report: &'a dyn Fn(ImportProgress),
}

impl Tally<'_> {
    fn record(&mut self) {
        self.done += 1;
        let step = (self.total / 100).max(1);
        if self.done.is_multiple_of(step) || self.done == self.total {
            self.say(false);
        }
    }

    fn say(&self, saving: bool) {
        (self.report)(ImportProgress {
            done: self.done,
            total: self.total,
            saving,
        });
    }
}

/// One export file as read, before anything of it is written: its records,
/// or why it could not be read.
#[derive(Debug)]
pub struct ReadExport {
    /// The file as given.
    pub given: PathBuf,
    /// Its canonical path and what it holds, or why it could not be read.
    pub read: Result<(PathBuf, Export), String>,
    /// The earlier export of the same search it is a newer run of, as the
    /// review knows that file; none to match it against the records of
    /// the same file imported before, if there are any.
    pub replaces: Option<PathBuf>,
}

impl ReadExport {
    /// This export, a newer run of the search whose earlier export was
    /// `earlier` (as given: a file moved or deleted since is still known
    /// by the path the review keeps).
    pub fn replacing(self, earlier: &Path) -> Self {
        let earlier = std::fs::canonicalize(earlier).unwrap_or_else(|_| earlier.to_owned());
        Self {
            replaces: Some(earlier),
            ..self
        }
    }
}

/// Read every file of `files`, writing nothing: an import reads first and
/// writes after, so a review is never made of files that all fail.
pub fn read_exports(files: &[PathBuf]) -> Vec<ReadExport> {
    files
        .iter()
        .map(|file| ReadExport {
            given: file.clone(),
            read: std::fs::canonicalize(file)
                .map_err(|e| e.to_string())
                .and_then(|path| {
                    records::read_file(&path)
                        .map(|export| (path, export))
                        .map_err(|e| e.to_string())
                }),
            replaces: None,
        })
        .collect()
}

/// Import the records of `files` into `ws`. A file that cannot be read is
/// reported in the summary and the others still go in.
pub fn import_files(ws: &Workspace, files: &[PathBuf]) -> Result<ImportSummary, ReviewError> {
    import_exports(ws, &read_exports(files), &|_| {})
}

/// Import the exports already read ([`read_exports`]) into `ws`, saying
/// where it is to `progress`.
pub fn import_exports(
    ws: &Workspace,
    exports: &[ReadExport],
    progress: &dyn Fn(ImportProgress),
) -> Result<ImportSummary, ReviewError> {
    let mut known: BTreeMap<PaperId, PaperRecord> = ws
        .papers()?
        .into_iter()
        .map(|p| (p.id.clone(), p))
        .collect();
    // Every file's records go in as one change: a kill mid-import leaves
    // the review as it was or with the whole import, never half.
    let mut batch = ws.batch()?;
    let known_before: HashSet<PaperId> = known.keys().cloned().collect();
    let mut summary = ImportSummary::default();
    let mut tally = Tally {
        done: 0,
        total: exports
            .iter()
            .filter_map(|e| e.read.as_ref().ok())
            .map(|(_, export)| export.records.len())
            .sum(),
        report: progress,
    };
    tally.say(false);
    for given in exports {
        let (path, export) = match &given.read {
            Ok(read) => read,
            Err(error) => {
                summary.files.push(FileImport {
                    error: Some(error.clone()),
                    ..FileImport::of(&given.given)
                });
                continue;
            }
        };
        let line = stage_read(
            &mut batch,
            &known_before,
            &mut known,
            Source {
                path,
                export,
                replaces: given.replaces.as_deref(),
            },
            &mut summary.papers,
            &mut tally,
        )?;
        summary.added += line.added;
        summary.files.push(line);
    }
    tally.say(true);
    batch.commit()?;
    for export in exports {
        if let Ok((_, export)) = &export.read {
            attach_zotero_pdfs(ws, &mut known, &export.records)?;
        }
    }
    let mut seen = HashSet::new();
    summary.papers.retain(|id| seen.insert(id.clone()));
    // From the papers at hand, one at a time: a second copy of every
    // paper would double an import's memory. Zotero's PDFs were registered
    // beside them, so a Zotero import reads the review again.
    let registered_pdfs = exports
        .iter()
        .filter_map(|e| e.read.as_ref().ok())
        .flat_map(|(_, export)| &export.records)
        .any(|r| r.zotero.as_ref().is_some_and(|z| !z.pdfs.is_empty()));
    if registered_pdfs {
        summary.duplicates = duplicate_groups(ws)?;
        return Ok(summary);
    }
    let candidates = known
        .values()
        .map(|p| Ok(Candidate::of(&corrections::corrected_paper(ws, p.clone())?)))
        .filter_map(Result::transpose)
        .collect::<Result<Vec<_>, ReviewError>>()?;
    summary.duplicates = duplicate_groups_of(candidates.iter());
    Ok(summary)
}

/// Import the records already read from the export at `path`: the review's
/// side of [`import_files`], for a caller that read the file first (to
/// refuse an unreadable one before making a workspace).
pub fn import_read(
    ws: &Workspace,
    known: &mut BTreeMap<PaperId, PaperRecord>,
    path: &Path,
    export: &Export,
    papers: &mut Vec<String>,
) -> Result<FileImport, ReviewError> {
    let mut batch = ws.batch()?;
    let before: HashSet<PaperId> = known.keys().cloned().collect();
    let mut tally = Tally {
        done: 0,
        total: export.records.len(),
        report: &|_| {},
    };
    let source = Source {
        path,
        export,
        replaces: None,
    };
    let line = stage_read(&mut batch, &before, known, source, papers, &mut tally)?;
    batch.commit()?;
    attach_zotero_pdfs(ws, known, &export.records)?;
    Ok(line)
}

/// An export file to stage: where it is, what it holds, and the earlier
/// export of the same search it replaces, if one was named.
struct Source<'a> {
    path: &'a Path,
    export: &'a Export,
    replaces: Option<&'a Path>,
}

/// Stage in `batch` what the records of an export change: new papers,
/// Zotero items brought up to date, another file listed on a paper it
/// repeats, and, for a newer export of a search already in the review,
/// its records matched to the earlier ones. `before` is what the review
/// held before the batch (whose files are on disk); `known` is kept up to
/// date with it.
fn stage_read(
    batch: &mut Batch<'_>,
    before: &HashSet<PaperId>,
    known: &mut BTreeMap<PaperId, PaperRecord>,
    source: Source<'_>,
    papers: &mut Vec<String>,
    tally: &mut Tally<'_>,
) -> Result<FileImport, ReviewError> {
    let Source {
        path,
        export,
        replaces,
    } = source;
    let records = &export.records;
    let mut line = FileImport {
        format: Some(export.format.as_str().to_owned()),
        records: records.len(),
        notices: export.notices.clone(),
        ..FileImport::of(path)
    };
    let mut earlier = EarlierSearch::of(known, replaces.unwrap_or(path));
    if let Some(named) = replaces {
        if earlier.is_some() {
            line.replaces = Some(named.to_string_lossy().into_owned());
        } else {
            line.notices.push(format!(
                "the review holds no records from {}, so this export went in as a search of its own",
                named.display()
            ));
        }
    }
    for notice in &line.notices {
        tracing::info!(file = %path.display(), "{notice}");
    }
    // A record exported twice in one file (a database's own repeat) is two
    // records: each occurrence is a paper, so PRISMA counts both and the
    // researcher sees them as duplicates.
    let mut occurrences: std::collections::HashMap<Vec<u8>, usize> = Default::default();
    for record in records {
        let repeat = occurrences.entry(identity_of(record)).or_default();
        let paper = paper_of(record, path, *repeat);
        *repeat += 1;
        let id = paper.id.clone();
        tally.record();
        if let Some(earlier) = earlier.as_mut()
            && let Some((target, found)) =
                stage_found_again(batch, before, known, earlier, record, paper.clone())?
        {
            if let Found::Changed { reread } = found {
                line.updated += 1;
                line.reread += usize::from(reread);
            }
            papers.push(target.0);
            continue;
        }
        match known.get_mut(&id) {
            // A Zotero item edited since it was read: its record now.
            Some(old) if old.file == path && zotero_changed(old, &paper) => {
                stage_renewed(batch, before, old, paper, record)?;
            }
            // Imported before from this very file: nothing new.
            Some(old) if old.file == path || old.duplicates.iter().any(|d| d == path) => {}
            // The same record, word for word, from another export: one
            // paper, the other file listed as a duplicate (as identical
            // PDFs are).
            Some(old) => {
                old.duplicates.push(path.to_owned());
                batch.write_json(&PaperFile::Record.path(&id)?, &*old)?;
            }
            None => {
                if paper.status.is_readable() {
                    paper_text::stage_record(batch, &id, &text_of(record))?;
                }
                batch.write_json(&PaperFile::Record.path(&id)?, &paper)?;
                known.insert(id.clone(), paper);
                line.added += 1;
            }
        }
        papers.push(id.0);
    }
    if let Some(earlier) = earlier {
        for id in earlier.left() {
            let Some(old) = known.get_mut(&id) else {
                continue;
            };
            // Still the search's record, marked as no longer in it: the
            // newer export is the search now, and the next one is matched
            // against it (a record that comes back is found again).
            let marked = old.imported.as_ref().is_some_and(|i| i.left_search);
            if !marked || old.file != path {
                if let Some(imported) = old.imported.as_mut() {
                    imported.left_search = true;
                }
                old.file = path.to_owned();
                batch.write_json(&PaperFile::Record.path(&id)?, &*old)?;
            }
            line.left.push(LeftRecord {
                paper: id.0.clone(),
                title: old.title.clone(),
            });
        }
    }
    Ok(line)
}

/// How a record of a newer export was found among the earlier ones.
enum Found {
    /// As it was.
    Unchanged,
    /// Changed; `reread` when its title or abstract did.
    Changed { reread: bool },
}

/// Stage a record of a newer export of a search that the earlier export
/// held too (word for word, or by its keys): the earlier paper is kept,
/// brought up to date and pointed at the newer file. None when `record`
/// is no earlier record of the search.
fn stage_found_again(
    batch: &mut Batch<'_>,
    before: &HashSet<PaperId>,
    known: &mut BTreeMap<PaperId, PaperRecord>,
    earlier: &mut EarlierSearch,
    record: &Record,
    fresh: PaperRecord,
) -> Result<Option<(PaperId, Found)>, ReviewError> {
    let target = if known.contains_key(&fresh.id) {
        if !earlier.found_as_it_was(&fresh.id) {
            return Ok(None);
        }
        fresh.id.clone()
    } else {
        match earlier.earlier_version_of(&fresh) {
            Some(id) => id,
            None => return Ok(None),
        }
    };
    let Some(old) = known.get_mut(&target) else {
        return Ok(None);
    };
    if old.sha256 != fresh.sha256 {
        let reread = stage_renewed(batch, before, old, fresh, record)?;
        return Ok(Some((target, Found::Changed { reread })));
    }
    let moved = old.file != fresh.file;
    let returned = old.imported.as_ref().is_some_and(|i| i.left_search);
    if moved || returned {
        old.file = fresh.file;
        if let (Some(imported), Some(now)) = (old.imported.as_mut(), fresh.imported) {
            imported.position = now.position;
            imported.left_search = false;
        }
        batch.write_json(&PaperFile::Record.path(&target)?, &*old)?;
    }
    Ok(Some((target, Found::Unchanged)))
}

/// Stage `old` as the record `fresh` says it is now, keeping its id (so
/// its labels and notes), its full text and its duplicate marks. Its
/// readings are dropped when its text changed: whether it did.
fn stage_renewed(
    batch: &mut Batch<'_>,
    before: &HashSet<PaperId>,
    old: &mut PaperRecord,
    fresh: PaperRecord,
    record: &Record,
) -> Result<bool, ReviewError> {
    let id = old.id.clone();
    let renewed = PaperRecord {
        id: id.clone(),
        full_text: old.full_text.clone(),
        duplicate_of: old.duplicate_of.clone(),
        duplicates: old.duplicates.clone(),
        ..fresh
    };
    let text = text_of(record);
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let read_before = if before.contains(&id) {
        paper_text::load(batch.workspace(), &id)?.map(|pages| words(&pages.join(" ")))
    } else {
        None
    };
    let changed = read_before.is_some_and(|before| before != words(&text));
    if changed {
        forget_readings(batch, &id)?;
    }
    if renewed.status.is_readable() {
        paper_text::stage_record(batch, &id, &text)?;
    }
    batch.write_json(&PaperFile::Record.path(&id)?, &renewed)?;
    *old = renewed;
    Ok(changed)
}

/// Take away the engine's readings of a record whose text changed (an
/// abstract corrected in Zotero): their verdicts, rationales and quotes
/// were made of the old text, so they are no result of the record now,
/// and the next run reads it again. The researcher's own label stays.
fn forget_readings(batch: &mut Batch<'_>, id: &PaperId) -> Result<(), ReviewError> {
    for file in [
        PaperFile::Result,
        PaperFile::SecondResult,
        PaperFile::TiebreakResult,
        PaperFile::Failure,
    ] {
        batch.remove(&file.path(id)?);
    }
    tracing::info!(paper = %id.0, "a record's text changed since it was read: it is read again");
    Ok(())
}

/// Whether a Zotero item's record differs from the one stored: a new
/// version, or fields that changed without one (Zotero 7 keeps the sync
/// version of an item edited offline).
fn zotero_changed(old: &PaperRecord, new: &PaperRecord) -> bool {
    let item = |p: &PaperRecord| p.imported.as_ref().and_then(|i| i.zotero.clone());
    item(new).is_some()
        && (item(old) != item(new) || old.meta != new.meta || old.title != new.title)
}

/// Give each Zotero record its PDF: Zotero says which file is whose, so no
/// matching is needed. The first PDF found on disk is the full text; a
/// record that already has one keeps it.
fn attach_zotero_pdfs(
    ws: &Workspace,
    known: &mut BTreeMap<PaperId, PaperRecord>,
    records: &[Record],
) -> Result<(), ReviewError> {
    let wanted: Vec<(PaperId, PathBuf)> = records
        .iter()
        .filter_map(|r| {
            let pdf = r.zotero.as_ref()?.pdfs.first()?;
            Some((paper_of(r, &r.file, 0).id, pdf.clone()))
        })
        .collect();
    if wanted.is_empty() {
        return Ok(());
    }
    let found: Vec<FoundPdf> = wanted
        .iter()
        .filter_map(|(_, path)| {
            let size = std::fs::metadata(path).ok()?.len();
            Some(FoundPdf {
                path: path.clone(),
                size,
            })
        })
        .collect();
    register_papers(ws, &found)?;
    let by_file: BTreeMap<PathBuf, PaperId> = ws
        .papers()?
        .into_iter()
        .filter(|p| !p.is_record())
        .flat_map(|p| {
            let id = p.id.clone();
            std::iter::once(p.file.clone())
                .chain(p.duplicates.clone())
                .map(move |f| (f, id.clone()))
        })
        .collect();
    for (record, path) in wanted {
        let Some(pdf) = by_file.get(&path) else {
            continue;
        };
        let has_own = known
            .get(&record)
            .and_then(|r| r.full_text.as_ref())
            .is_some_and(|current| current != pdf);
        if has_own {
            continue;
        }
        link_full_text(ws, &record, pdf)?;
        if let Some(r) = known.get_mut(&record) {
            r.full_text = Some(pdf.clone());
        }
    }
    Ok(())
}

/// The review's papers that are one work, and why: records against records
/// and against PDFs, by their metadata as corrected.
pub fn duplicate_groups(ws: &Workspace) -> Result<Vec<DuplicateGroup>, ReviewError> {
    Ok(duplicate_groups_among(&corrections::corrected(ws)?))
}

/// The groups of possible duplicates among `papers`, their corrections
/// already applied (for a caller that has them at hand).
pub fn duplicate_groups_among(papers: &[PaperRecord]) -> Vec<DuplicateGroup> {
    let candidates: Vec<Candidate> = papers.iter().filter_map(Candidate::of).collect();
    duplicate_groups_of(candidates.iter())
}

/// What duplicate detection needs of a paper, and no more: a caller that
/// keeps many papers' candidates (the app's rows) keeps no abstracts.
#[derive(Clone, Debug)]
pub struct Candidate {
    work: Work,
    member: DuplicateMember,
}

impl Candidate {
    /// `paper`'s candidate; none for a PDF attached as a record's full text,
    /// which is that record's report, not a work found twice.
    pub fn of(paper: &PaperRecord) -> Option<Self> {
        paper.full_text_of.is_none().then(|| Self {
            work: work_of(paper),
            member: member_of(paper),
        })
    }
}

/// The groups of possible duplicates among the papers of `candidates`.
pub fn duplicate_groups_of<'a>(
    candidates: impl Iterator<Item = &'a Candidate>,
) -> Vec<DuplicateGroup> {
    let candidates: Vec<&Candidate> = candidates.collect();
    let works: Vec<Work> = candidates.iter().map(|c| c.work.clone()).collect();
    duplicates::find(&works)
        .into_iter()
        .map(|group| DuplicateGroup {
            members: group
                .records
                .iter()
                .map(|&i| candidates[i].member.clone())
                .collect(),
            why: group.why.as_words().to_owned(),
        })
        .collect()
}

/// Whether `path` is to be imported as records rather than searched for
/// PDFs: a file named as a search export.
pub fn is_records_source(path: &Path) -> bool {
    path.is_file() && records::is_export_name(path)
}

/// The one page a record's text is: its title, then its abstract.
fn text_of(record: &Record) -> String {
    match &record.abstract_text {
        Some(abstract_text) if !record.title.is_empty() => {
            format!("{}\n\n{abstract_text}", record.title)
        }
        Some(abstract_text) => abstract_text.clone(),
        None => record.title.clone(),
    }
}

/// The paper a record is, read from `file` where the same record came
/// `repeat` times before it.
fn paper_of(record: &Record, file: &Path, repeat: usize) -> PaperRecord {
    let mut identity = identity_of(record);
    if repeat > 0 {
        identity.extend_from_slice(format!("\nrepeat {repeat}").as_bytes());
    }
    let sha256 = hex::encode(Sha256::digest(identity));
    let has_text = !record.title.is_empty() || record.abstract_text.is_some();
    let mut meta = PaperMeta {
        authors: record.authors.iter().map(|a| Author::parse(a)).collect(),
        year: record.year.and_then(|y| u16::try_from(y).ok()),
        doi: record.doi.clone(),
        arxiv: record.arxiv.clone(),
        venue: record.journal.clone(),
        abstract_text: record.abstract_text.clone(),
        sources: BTreeMap::new(),
    };
    let present = [
        (MetaField::Title, !record.title.is_empty()),
        (MetaField::Authors, !meta.authors.is_empty()),
        (MetaField::Year, meta.year.is_some()),
        (MetaField::Venue, meta.venue.is_some()),
        (MetaField::Doi, meta.doi.is_some()),
        (MetaField::Arxiv, meta.arxiv.is_some()),
        (MetaField::Abstract, meta.abstract_text.is_some()),
    ];
    let origin = if record.zotero.is_some() {
        Origin::Zotero
    } else if record.citation.is_some() {
        Origin::Openalex
    } else {
        Origin::Record
    };
    for (field, _) in present.iter().filter(|(_, here)| *here) {
        meta.sources.insert(*field, origin);
    }
    PaperRecord {
        id: PaperId(sha256[..16].to_owned()),
        file: file.to_owned(),
        sha256,
        size: text_of(record).len() as u64,
        status: if has_text {
            PaperStatus::Ok
        } else {
            PaperStatus::Damaged
        },
        title: (!record.title.is_empty()).then(|| record.title.clone()),
        duplicates: Vec::new(),
        reason: (!has_text).then(|| "the record has neither a title nor an abstract".to_owned()),
        pages: usize::from(has_text),
        extractor: Some(format!("{} record", record.format.as_str())),
        ocr: false,
        meta,
        imported: Some(ImportedFrom {
            format: record.format.as_str().to_owned(),
            position: record.index + 1,
            pmid: record.pmid.clone(),
            accession: record.accession.clone(),
            keywords: record.keywords.clone(),
            left_search: false,
            zotero: record.zotero.as_ref().map(|z| ZoteroItem {
                library: z.library.clone(),
                key: z.key.clone(),
                version: z.version,
                item_type: z.item_type.clone(),
                tags: z.tags.clone(),
                notes: z.notes.clone(),
                missing_pdfs: z.missing.clone(),
                pdf_key: z.pdf_keys.first().cloned(),
            }),
            citation: record.citation.clone(),
        }),
        full_text_of: None,
        full_text: None,
        duplicate_of: None,
    }
}

/// The paper a work found by citation searching is, whichever round found
/// it: what [`identity_of`] makes of its OpenAlex id.
pub fn citation_paper_id(openalex: &str) -> PaperId {
    let sha256 = hex::encode(Sha256::digest(citation_identity(openalex)));
    PaperId(sha256[..16].to_owned())
}

fn citation_identity(openalex: &str) -> String {
    format!("openalex:{openalex}")
}

/// What makes a record this record: everything it says, not where it was
/// found, so the same record from two files is one paper. A Zotero item is
/// its library and key: edited in Zotero, it stays the same paper (with its
/// labels), its record brought up to date.
fn identity_of(record: &Record) -> Vec<u8> {
    if let Some(z) = &record.zotero {
        return format!("zotero:{}:{}", z.library, z.key).into_bytes();
    }
    // A work found by citation searching is its OpenAlex work, whichever
    // round found it.
    if let Some(c) = &record.citation {
        return citation_identity(&c.openalex).into_bytes();
    }
    let fields = (
        &record.title,
        &record.abstract_text,
        &record.authors,
        record.year,
        &record.journal,
        &record.doi,
        &record.pmid,
    );
    // Serialising a tuple of strings and options cannot fail.
    serde_json::to_vec(&fields).unwrap_or_default()
}

/// What tells `paper`'s work from others: its identifiers and its title,
/// year and first author.
pub fn work_of(paper: &PaperRecord) -> Work {
    let citation = paper.imported.as_ref().and_then(|i| i.citation.as_ref());
    Work {
        title: paper.title.clone().unwrap_or_default(),
        year: paper.meta.year.map(i32::from),
        first_author: paper.meta.authors.first().map(|a| a.family.clone()),
        doi: paper.meta.doi.as_deref().and_then(records::normalize_doi),
        pmid: paper.imported.as_ref().and_then(|i| i.pmid.clone()),
        arxiv: paper.meta.arxiv.clone(),
        openalex: citation
            .map(|c| vec![c.openalex.clone()])
            .unwrap_or_default(),
    }
}

fn member_of(paper: &PaperRecord) -> DuplicateMember {
    DuplicateMember {
        paper: paper.id.0.clone(),
        title: paper.title.clone(),
        year: paper.meta.year,
        kind: match &paper.imported {
            Some(from) => format!("{} record", from.format),
            None => "PDF".to_owned(),
        },
        set_aside: paper.duplicate_of.is_some(),
    }
}

/// Set `paper` aside as a copy of `of` (or, with `None`, put it back): a
/// paper set aside is removed before screening, as PRISMA counts
/// duplicates, and never read. It must be a paper of its own (not a
/// record's full text), and `of` one that is not set aside itself. A
/// record set aside hands its full text to the record kept, when that one
/// has none.
pub fn set_aside(ws: &Workspace, paper: &PaperId, of: Option<&PaperId>) -> Result<(), ReviewError> {
    let invalid = |why: String| ReviewError::NotADuplicate { why };
    let mut stored = ws
        .paper(paper)?
        .ok_or_else(|| invalid(format!("no paper {} in this review", paper.0)))?;
    if let Some(of) = of {
        if of == paper {
            return Err(invalid(
                "a paper cannot be a duplicate of itself".to_owned(),
            ));
        }
        let kept = ws
            .paper(of)?
            .ok_or_else(|| invalid(format!("no paper {} in this review", of.0)))?;
        if kept.duplicate_of.is_some() {
            return Err(invalid(format!(
                "{} is itself set aside as a duplicate; set this one aside as a copy of the paper kept",
                of.0
            )));
        }
        if stored.full_text_of.is_some() {
            return Err(invalid(
                "this PDF is a record's full text, not a work of its own".to_owned(),
            ));
        }
        if let (Some(pdf_id), None) = (stored.full_text.clone(), &kept.full_text)
            && let Some(mut pdf) = ws.paper(&pdf_id)?
        {
            pdf.full_text_of = Some(kept.id.clone());
            ws.save_paper(&pdf)?;
            let mut kept = kept;
            kept.full_text = Some(pdf_id);
            ws.save_paper(&kept)?;
            stored.full_text = None;
        }
    }
    stored.duplicate_of = of.cloned();
    Ok(ws.save_paper(&stored)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{TaskMeta, WorkspaceId};

    const RIS: &str = "TY  - JOUR
TI  - Methylphenidate for children with attention deficit hyperactivity disorder
AB  - A randomised trial of methylphenidate in 120 children.
AU  - Smith, John
PY  - 2004
DO  - 10.1000/ADHD.1
ER  - 

TY  - JOUR
TI  - A title with no abstract at all
AU  - Doe, Jane
PY  - 2010
ER  - 
";

    const BIB: &str = "@article{smith2004,
  title = {Methylphenidate for Children with Attention Deficit Hyperactivity Disorder},
  author = {Smith, John},
  year = {2004},
  journal = {Pediatrics},
  doi = {https://doi.org/10.1000/adhd.1}
}
";

    fn workspace(dir: &Path) -> Workspace {
        let task = TaskMeta::new(WorkspaceId("t".into()), "t".into(), dir);
        Workspace::create(&dir.join("ws"), &task).unwrap()
    }

    #[test]
    fn records_become_papers_with_their_text_and_metadata_and_a_second_import_adds_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let ris = dir.path().join("search.ris");
        std::fs::write(&ris, RIS).unwrap();

        let first = import_files(&ws, std::slice::from_ref(&ris)).unwrap();
        assert_eq!(first.added, 2);
        assert_eq!(first.files[0].format.as_deref(), Some("RIS"));
        let papers = ws.papers().unwrap();
        let trial = papers
            .iter()
            .find(|p| p.meta.abstract_text.is_some())
            .unwrap();
        assert!(trial.is_record() && trial.status.is_readable());
        assert_eq!(trial.meta.doi.as_deref(), Some("10.1000/adhd.1"));
        assert_eq!(trial.meta.authors[0].family, "Smith");
        assert_eq!(
            trial.meta.sources.get(&MetaField::Doi),
            Some(&Origin::Record)
        );
        let text = paper_text::load(&ws, &trial.id).unwrap().unwrap();
        assert_eq!(text.len(), 1);
        assert!(text[0].starts_with("Methylphenidate for children"));
        assert!(text[0].ends_with("120 children."));

        let again = import_files(&ws, &[ris]).unwrap();
        assert_eq!(again.added, 0);
        assert_eq!(again.papers, first.papers);
        assert_eq!(ws.papers().unwrap().len(), 2);
    }

    #[test]
    fn the_same_work_from_two_exports_is_shown_as_a_group_and_both_stay() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let (ris, bib) = (dir.path().join("a.ris"), dir.path().join("b.bib"));
        std::fs::write(&ris, RIS).unwrap();
        std::fs::write(&bib, BIB).unwrap();
        let summary = import_files(&ws, &[ris, bib]).unwrap();
        assert_eq!(summary.added, 3, "never merged: {summary:?}");
        assert_eq!(summary.duplicates.len(), 1);
        let group = &summary.duplicates[0];
        assert_eq!(group.why, "the same DOI");
        let mut kinds: Vec<&str> = group.members.iter().map(|m| m.kind.as_str()).collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["BibTeX record", "RIS record"]);
    }

    #[test]
    fn an_unreadable_file_is_named_and_the_others_go_in() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let (ris, junk) = (dir.path().join("a.ris"), dir.path().join("notes.txt"));
        std::fs::write(&ris, RIS).unwrap();
        std::fs::write(&junk, "shopping list: eggs").unwrap();
        let missing = dir.path().join("missing.ris");
        let summary = import_files(&ws, &[junk.clone(), missing, ris]).unwrap();
        assert_eq!(summary.added, 2);
        let failed: Vec<&FileImport> = summary.failed().collect();
        assert_eq!(failed.len(), 2);
        assert!(
            failed[0]
                .error
                .as_deref()
                .unwrap()
                .contains("not a search export"),
            "{failed:?}"
        );
        assert!(failed[1].error.as_deref().unwrap().contains("No such file"));
    }

    #[test]
    fn a_record_set_aside_hands_its_full_text_to_the_record_kept() {
        let dir = tempfile::tempdir().unwrap();
        let ws = workspace(dir.path());
        let (ris, bib) = (dir.path().join("a.ris"), dir.path().join("b.bib"));
        std::fs::write(&ris, RIS).unwrap();
        std::fs::write(&bib, BIB).unwrap();
        let summary = import_files(&ws, &[ris, bib]).unwrap();
        let group = &summary.duplicates[0].members;
        let (copy, kept) = (
            PaperId(group[0].paper.clone()),
            PaperId(group[1].paper.clone()),
        );
        // A PDF attached to the copy, as `fulltext` links them.
        let pdf = PaperRecord {
            id: PaperId("f00df00df00df00d".into()),
            imported: None,
            full_text_of: Some(copy.clone()),
            ..ws.paper(&copy).unwrap().unwrap()
        };
        ws.save_paper(&pdf).unwrap();
        let mut stored = ws.paper(&copy).unwrap().unwrap();
        stored.full_text = Some(pdf.id.clone());
        ws.save_paper(&stored).unwrap();

        assert!(set_aside(&ws, &copy, Some(&copy)).is_err());
        assert!(
            set_aside(&ws, &pdf.id, Some(&kept)).is_err(),
            "a full text is no work of its own"
        );
        set_aside(&ws, &copy, Some(&kept)).unwrap();
        let kept_now = ws.paper(&kept).unwrap().unwrap();
        assert_eq!(kept_now.full_text.as_ref(), Some(&pdf.id));
        assert_eq!(
            ws.paper(&pdf.id).unwrap().unwrap().full_text_of,
            Some(kept.clone())
        );
        let copy_now = ws.paper(&copy).unwrap().unwrap();
        assert_eq!(
            (copy_now.duplicate_of, copy_now.full_text),
            (Some(kept.clone()), None)
        );
        // A copy of a copy is refused; putting back clears the mark.
        assert!(set_aside(&ws, &kept, Some(&copy)).is_err());
        set_aside(&ws, &copy, None).unwrap();
        assert_eq!(ws.paper(&copy).unwrap().unwrap().duplicate_of, None);
    }
}
