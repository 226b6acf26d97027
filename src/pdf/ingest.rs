//! From a PDF file to its pages of text and a status, with the reason a person
//! needs when it is not `ok`.
//!
//! Cheap checks first (empty, not a PDF, too large), then the text cache, then
//! the engines in worker processes: pdf_oxide first; pdf-extract as a second
//! opinion whenever the first result is missing or fails the quality check; the
//! better-scoring text wins. Results are cached by content hash and chain
//! version, so a second run over the same papers extracts nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::engines::{Engine, EngineFailure, InfoDict, RawText};
use super::layout::TextLine;
use super::quality::{self, Quality, Verdict};
use super::worker::{WorkerLimits, WorkerOutcome, WorkerReply, run_worker};
use crate::workspace::PaperStatus;

/// The chain's own revision: bump it when the cleaning, the classification
/// or the metadata read from the text changes (the engines carry their own).
const CHAIN_REVISION: &str = "chain-9";

/// What produced a text: the chain's revision and every engine's version. A
/// cached text or a paper's record from another chain is read again.
pub fn chain_version() -> &'static str {
    static VERSION: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        let engines: Vec<&str> = Engine::ALL.iter().map(|e| e.version()).collect();
        format!("{CHAIN_REVISION}:{}", engines.join(","))
    });
    &VERSION
}

/// Files larger than this are `too_large` without being opened.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct IngestOptions {
    /// A binary that runs [`super::worker::run_worker_if_requested`] at start.
    pub worker_exe: PathBuf,
    pub limits: WorkerLimits,
    /// Extractions in flight at once.
    pub jobs: usize,
    pub max_file_bytes: u64,
    /// Where extracted text is cached; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
    /// Read pages with no usable text layer by OCR (see [`super::ocr`]).
    pub ocr: bool,
}

impl IngestOptions {
    pub fn new(worker_exe: PathBuf) -> Self {
        Self {
            worker_exe,
            limits: WorkerLimits::default(),
            jobs: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            max_file_bytes: DEFAULT_MAX_FILE_BYTES,
            cache_dir: None,
            ocr: super::ocr::available(),
        }
    }
}

/// One file's extraction result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Extracted {
    pub status: PaperStatus,
    pub reason: Option<String>,
    /// Cleaned text, one entry per page (empty unless `status` is ok or damaged).
    pub pages: Vec<String>,
    pub engine: Option<Engine>,
    pub info: InfoDict,
    /// Page one's lines of type, for metadata (empty when the engine that
    /// won gives no layout).
    #[serde(default)]
    pub head: Vec<TextLine>,
    pub quality: Option<Quality>,
    /// Filled when the result came from the cache (not stored in it).
    #[serde(skip)]
    pub from_cache: bool,
}

impl Extracted {
    fn failed(status: PaperStatus, reason: impl Into<String>) -> Self {
        Self {
            status,
            reason: Some(reason.into()),
            pages: Vec::new(),
            engine: None,
            info: InfoDict::default(),
            head: Vec::new(),
            quality: None,
            from_cache: false,
        }
    }

    /// The text was read from page images, not from a text layer.
    pub fn ocr(&self) -> bool {
        self.engine == Some(Engine::Tesseract)
    }

    /// `engine@version` for provenance.
    pub fn extractor(&self) -> Option<String> {
        self.engine.map(|e| format!("{}@{}", e.name(), e.version()))
    }
}

#[derive(Serialize, Deserialize)]
struct CacheEntry {
    chain: String,
    extracted: Extracted,
    /// Whether OCR could run when the entry was made: a scan cached as
    /// `needs_ocr` without it is read again once it can.
    #[serde(default)]
    ocr: bool,
}

/// Extract many files in parallel (at most `jobs` at once), calling `on_done` as
/// each finishes. Results come back in the order of `files`.
pub async fn extract_all(
    files: Vec<(PathBuf, String)>,
    options: &IngestOptions,
    on_done: impl Fn(usize, &Extracted) + Send + Sync + 'static,
) -> Vec<Extracted> {
    let permits = Arc::new(Semaphore::new(options.jobs.max(1)));
    let on_done = Arc::new(on_done);
    let mut set = JoinSet::new();
    for (index, (path, sha256)) in files.into_iter().enumerate() {
        let permits = permits.clone();
        let options = options.clone();
        let on_done = on_done.clone();
        set.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let extracted = extract_file(&path, &sha256, &options).await;
            on_done(index, &extracted);
            (index, extracted)
        });
    }
    let mut results: Vec<Option<Extracted>> = Vec::new();
    while let Some(joined) = set.join_next().await {
        let Ok((index, extracted)) = joined else {
            continue;
        };
        if results.len() <= index {
            results.resize(index + 1, None);
        }
        results[index] = Some(extracted);
    }
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| Extracted::failed(PaperStatus::Damaged, "extraction task failed"))
        })
        .collect()
}

/// Extract one file (from the cache when possible).
pub async fn extract_file(path: &Path, sha256: &str, options: &IngestOptions) -> Extracted {
    if let Some(precheck) = precheck(path, options.max_file_bytes) {
        return precheck;
    }
    let cache_path = options
        .cache_dir
        .as_ref()
        .map(|dir| dir.join(format!("{sha256}.json")));
    if let Some(cached) = cache_path
        .as_deref()
        .and_then(|p| read_cache(p, options.ocr))
    {
        return cached;
    }
    let extracted = run_chain(path, options).await;
    if let Some(cache_path) = &cache_path {
        write_cache(cache_path, &extracted, options.ocr);
    }
    extracted
}

fn precheck(path: &Path, max_bytes: u64) -> Option<Extracted> {
    let size = match std::fs::metadata(path) {
        Ok(meta) => meta.len(),
        Err(e) => {
            return Some(Extracted::failed(
                PaperStatus::Damaged,
                format!("cannot read the file: {e}"),
            ));
        }
    };
    if size == 0 {
        return Some(Extracted::failed(
            PaperStatus::NotPdf,
            "the file is empty (0 bytes)",
        ));
    }
    if size > max_bytes {
        return Some(Extracted::failed(
            PaperStatus::TooLarge,
            format!(
                "{} MB is over the {} MB limit",
                size / (1 << 20),
                max_bytes / (1 << 20)
            ),
        ));
    }
    let mut head = vec![0u8; 1024];
    let read = std::fs::File::open(path).and_then(|mut f| std::io::Read::read(&mut f, &mut head));
    let Ok(read) = read else {
        return Some(Extracted::failed(
            PaperStatus::Damaged,
            "cannot read the file",
        ));
    };
    if !head[..read].windows(5).any(|w| w == b"%PDF-") {
        return Some(Extracted::failed(
            PaperStatus::NotPdf,
            "not a PDF: the file has no %PDF- header",
        ));
    }
    None
}

/// A text candidate from one engine.
struct Candidate {
    engine: Engine,
    pages: Vec<String>,
    failed_pages: usize,
    info: InfoDict,
    head: Vec<TextLine>,
    quality: Quality,
}

async fn run_chain(path: &Path, options: &IngestOptions) -> Extracted {
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut failures: Vec<(Engine, Extracted)> = Vec::new();
    // An engine killed by its memory cap or a signal: the file may be
    // hostile (a decompression bomb), so it is not rendered for OCR either.
    // A parser's panic is only that parser's limit.
    let mut crashed = false;
    for engine in Engine::TEXT_LAYER {
        let outcome = run_worker(&options.worker_exe, engine, path, options.limits, None).await;
        match outcome {
            WorkerOutcome::Reply(WorkerReply::Text { raw }) => {
                let pages = quality::clean_pages(&raw.pages);
                let quality = quality::assess(&pages);
                let good = quality.verdict() == Verdict::Good && raw.failed_pages == 0;
                candidates.push(Candidate {
                    engine,
                    pages,
                    failed_pages: raw.failed_pages,
                    info: raw.info,
                    head: raw.head,
                    quality,
                });
                if good {
                    break;
                }
            }
            WorkerOutcome::Reply(WorkerReply::Failed { failure }) => {
                let final_answer = matches!(
                    failure,
                    EngineFailure::Encrypted | EngineFailure::TooManyPages { .. }
                );
                failures.push((engine, failure_status(failure)));
                // A password or a page count is the file's property, not the engine's.
                if final_answer && candidates.is_empty() {
                    break;
                }
            }
            WorkerOutcome::Reply(WorkerReply::Panicked { message }) => failures.push((
                engine,
                Extracted::failed(
                    PaperStatus::Damaged,
                    format!("the {} parser failed: {message}", engine.name()),
                ),
            )),
            WorkerOutcome::TimedOut => failures.push((
                engine,
                Extracted::failed(
                    PaperStatus::Timeout,
                    format!(
                        "extraction took longer than {} s",
                        options.limits.timeout.as_secs()
                    ),
                ),
            )),
            WorkerOutcome::Crashed { detail } => {
                crashed = true;
                failures.push((engine, Extracted::failed(PaperStatus::Damaged, detail)));
            }
        }
    }
    let mut best = candidates
        .into_iter()
        .max_by(|a, b| a.quality.score().total_cmp(&b.quality.score()));
    if let Some(candidate) = best.take_if(|c| needs_ocr(c) && !crashed) {
        if !options.ocr {
            return with_ocr_hint(classify_text(candidate, truncated(path)));
        }
        let read = read_by_ocr(path, options, &candidate.info).await;
        best = Some(read.unwrap_or(candidate));
    } else if let Some(candidate) = best.as_mut().filter(|_| options.ocr && !crashed) {
        read_scanned_front_by_ocr(path, options, candidate).await;
    }
    match best {
        // No text, and another engine died trying: the file is hostile (e.g. a
        // decompression bomb), not a scan.
        Some(candidate) if candidate.quality.verdict() == Verdict::Empty => {
            match failures
                .into_iter()
                .find(|(_, f)| f.status == PaperStatus::Damaged)
            {
                Some((engine, crash)) => Extracted::failed(
                    PaperStatus::Damaged,
                    format!(
                        "no text could be read ({}: {})",
                        engine.name(),
                        crash.reason.unwrap_or_default()
                    ),
                ),
                None => classify_text(candidate, truncated(path)),
            }
        }
        Some(candidate) => classify_text(candidate, truncated(path)),
        // Prefer the first engine's account of why nothing came out.
        None => failures
            .into_iter()
            .map(|(_, f)| f)
            .next()
            .unwrap_or_else(|| Extracted::failed(PaperStatus::Damaged, "no extraction engine ran")),
    }
}

/// The text layer is missing or unreadable: only OCR can read the paper.
fn needs_ocr(candidate: &Candidate) -> bool {
    matches!(
        candidate.quality.verdict(),
        Verdict::Empty | Verdict::Garbage
    )
}

/// The pages read by OCR in a worker, when they came out readable. The Info
/// dictionary still comes from the PDF itself.
async fn read_by_ocr(path: &Path, options: &IngestOptions, info: &InfoDict) -> Option<Candidate> {
    let raw = ocr_pages(path, options, options.limits.max_pages).await?;
    let pages: Vec<String> = raw.pages.iter().map(|p| quality::clean_page(p)).collect();
    let quality = quality::assess(&pages);
    let readable = matches!(quality.verdict(), Verdict::Good | Verdict::MissingSpaces);
    readable.then(|| Candidate {
        engine: Engine::Tesseract,
        pages,
        failed_pages: raw.failed_pages,
        info: info.clone(),
        head: Vec::new(),
        quality,
    })
}

/// How many leading pages may be scans in front of a text layer.
const MAX_SCANNED_FRONT_PAGES: usize = 3;

/// Fewer words than this on a page of a paper is no text: a page number, a
/// stamp.
const BLANK_PAGE_WORDS: usize = 10;

/// A paper whose first pages are scans in front of a text layer (a scanned
/// title page before the typeset body): those pages are read by OCR, so its
/// title, authors and abstract are not lost. Nothing changes when OCR reads
/// no more than the text layer did.
async fn read_scanned_front_by_ocr(
    path: &Path,
    options: &IngestOptions,
    candidate: &mut Candidate,
) {
    let words = |page: &String| page.split_whitespace().count();
    let blank = candidate
        .pages
        .iter()
        .take(MAX_SCANNED_FRONT_PAGES)
        .take_while(|page| words(page) < BLANK_PAGE_WORDS)
        .count();
    if blank == 0 || blank == candidate.pages.len() {
        return;
    }
    let Some(raw) = ocr_pages(path, options, blank).await else {
        return;
    };
    let mut read = false;
    for (page, text) in candidate.pages.iter_mut().zip(raw.pages) {
        let text = quality::clean_page(&text);
        if words(&text) >= BLANK_PAGE_WORDS && words(&text) > words(page) {
            *page = text;
            read = true;
        }
    }
    if read {
        // Page one's lines of type were those of the blank page.
        candidate.head.clear();
        candidate.quality = quality::assess(&candidate.pages);
    }
}

/// The first `pages` pages of a PDF, read by OCR in a worker.
async fn ocr_pages(path: &Path, options: &IngestOptions, pages: usize) -> Option<RawText> {
    let limits = WorkerLimits {
        timeout: options.limits.ocr_timeout,
        max_pages: pages,
        ..options.limits
    };
    // Page images go in a folder removed here, whatever becomes of the worker.
    let scratch = tempfile::Builder::new().prefix("quire-ocr-").tempdir().ok();
    let outcome = run_worker(
        &options.worker_exe,
        Engine::Tesseract,
        path,
        limits,
        scratch.as_ref().map(|d| d.path()),
    )
    .await;
    drop(scratch);
    match outcome {
        WorkerOutcome::Reply(WorkerReply::Text { raw }) => Some(raw),
        outcome => {
            tracing::debug!(file = %path.display(), ?outcome, "OCR gave no text");
            None
        }
    }
}

/// A scan with no OCR engine here: say what would read it.
fn with_ocr_hint(mut extracted: Extracted) -> Extracted {
    if extracted.status == PaperStatus::NeedsOcr
        && let Some(reason) = &mut extracted.reason
    {
        reason.push_str(" (install tesseract-ocr and poppler-utils to read it)");
    }
    extracted
}

fn failure_status(failure: EngineFailure) -> Extracted {
    match failure {
        EngineFailure::Encrypted => {
            Extracted::failed(PaperStatus::Encrypted, "the PDF needs a password to open")
        }
        EngineFailure::TooManyPages { pages } => Extracted::failed(
            PaperStatus::TooLarge,
            format!("{pages} pages is over the page limit"),
        ),
        EngineFailure::Damaged { reason } => Extracted::failed(
            PaperStatus::Damaged,
            format!("the PDF is damaged: {}", first_line(&reason)),
        ),
    }
}

/// A PDF ends with `%%EOF` (real files may have a little junk after it); one
/// without it in its last 4 KiB was cut off.
fn truncated(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let tail = std::fs::File::open(path).and_then(|mut f| {
        let len = f.metadata()?.len();
        f.seek(SeekFrom::Start(len.saturating_sub(4096)))?;
        let mut buf = Vec::new();
        f.read_to_end(&mut buf)?;
        Ok(buf)
    });
    tail.is_ok_and(|buf| !buf.windows(5).any(|w| w == b"%%EOF"))
}

fn classify_text(c: Candidate, truncated: bool) -> Extracted {
    let total = c.pages.len();
    let (status, reason) = match c.quality.verdict() {
        Verdict::Empty => (
            PaperStatus::NeedsOcr,
            Some("no text layer (scanned pages?): it needs OCR".to_owned()),
        ),
        Verdict::Garbage => (
            PaperStatus::NeedsOcr,
            Some("the text layer is unreadable (broken font encoding): it needs OCR".to_owned()),
        ),
        _ if truncated => (
            PaperStatus::Damaged,
            Some(format!(
                "the file is truncated (no end-of-file marker); {total} pages of text were recovered"
            )),
        ),
        _ if c.failed_pages > 0 => (
            PaperStatus::Damaged,
            Some(format!(
                "the file is damaged: {} of {total} pages could not be read",
                c.failed_pages
            )),
        ),
        Verdict::MissingSpaces => (
            PaperStatus::Ok,
            Some("words may run together in the extracted text".to_owned()),
        ),
        Verdict::Good => (PaperStatus::Ok, None),
    };
    let keep_text = matches!(status, PaperStatus::Ok | PaperStatus::Damaged);
    Extracted {
        status,
        reason,
        pages: if keep_text { c.pages } else { Vec::new() },
        engine: Some(c.engine),
        info: c.info,
        head: if keep_text { c.head } else { Vec::new() },
        quality: Some(c.quality),
        from_cache: false,
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or(text)
}

fn read_cache(path: &Path, ocr_now: bool) -> Option<Extracted> {
    let bytes = std::fs::read(path).ok()?;
    let entry: CacheEntry = serde_json::from_slice(&bytes).ok()?;
    if entry.chain != chain_version()
        || (entry.extracted.status == PaperStatus::NeedsOcr && ocr_now && !entry.ocr)
    {
        return None;
    }
    let mut extracted = entry.extracted;
    extracted.from_cache = true;
    Some(extracted)
}

/// Best effort: a cache that cannot be written only costs time later.
fn write_cache(path: &Path, extracted: &Extracted, ocr: bool) {
    let entry = CacheEntry {
        chain: chain_version().to_owned(),
        extracted: extracted.clone(),
        ocr,
    };
    let Ok(bytes) = serde_json::to_vec(&entry) else {
        return;
    };
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    if std::fs::write(&tmp, bytes)
        .and_then(|()| std::fs::rename(&tmp, path))
        .is_err()
    {
        let _ = std::fs::remove_file(&tmp);
        tracing::debug!(cache = %path.display(), "could not write the text cache");
    }
}
