//! Open-access full text for the records citation searching found, fetched
//! only as the researcher approves. [`offers`] lists the records the review
//! keeps (included or maybe) that have no full text, each with its best open
//! copy (OpenAlex's, else Unpaywall's for its DOI): host, version and licence
//! shown before anything is fetched, or why there is none. [`fetch`] fetches
//! the approved ones into the review's `downloads/` folder; each PDF becomes
//! its record's full text, read by the next run like a dropped PDF. Every
//! attempt is kept in `citations/retrieval.json`, which PRISMA's "reports
//! not retrieved" counts with their reasons.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::super::source::{link_full_text, register_papers};
use super::super::verdicts::Verdicts;
use super::super::{ReviewError, Verdict};
use crate::blocking::{BlockingFailed, blocking};
use crate::pdf::FoundPdf;
use crate::pdf::ingest::{IngestOptions, extract_file};
use crate::scholar::open_access::OpenAccess;
use crate::workspace::PaperStatus;
use crate::workspace::records::now_rfc3339;
use crate::workspace::{OpenCopy, PaperId, PaperRecord, Workspace, WsPath, layout};

/// A record the review keeps, and the open copy that could be its full text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CopyOffer {
    pub paper: String,
    pub title: Option<String>,
    pub doi: Option<String>,
    /// The copy, when one is known (a PDF link, or only a landing page).
    pub copy: Option<OpenCopy>,
    /// Who told of it: "OpenAlex" or "Unpaywall".
    pub from: Option<String>,
    /// Why there is no PDF to fetch, when there is none.
    pub none_because: Option<String>,
    /// The last attempt to fetch it, when there was one.
    pub last_attempt: Option<Retrieval>,
}

/// One attempt to fetch a record's open copy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Retrieval {
    pub retrieved: bool,
    /// Why it was not retrieved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The PDF's paper, when retrieved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf: Option<String>,
    /// When (RFC 3339).
    pub at: String,
}

/// Every record's last attempt, by paper id.
type RetrievalFile = BTreeMap<String, Retrieval>;

const RETRIEVAL_FILE: &str = "retrieval.json";

fn retrieval_path() -> Result<WsPath, ReviewError> {
    Ok(WsPath::parse(&format!(
        "{}/{RETRIEVAL_FILE}",
        layout::CITATIONS_DIR
    ))?)
}

/// The review's attempts to fetch open copies, by paper id.
pub fn retrievals(ws: &Workspace) -> Result<BTreeMap<String, Retrieval>, ReviewError> {
    Ok(ws
        .read_json_if_any::<RetrievalFile>(&retrieval_path()?)?
        .unwrap_or_default())
}

/// The records found by citation searching that the review keeps and that
/// have no full text yet.
fn wanted(ws: &Workspace) -> Result<Vec<PaperRecord>, ReviewError> {
    let verdicts = Verdicts::load(ws)?;
    let mut out = Vec::new();
    for paper in ws.papers()? {
        let by_citation = paper
            .imported
            .as_ref()
            .is_some_and(|i| i.citation.is_some());
        if !by_citation || paper.full_text.is_some() || !paper.is_screened_itself() {
            continue;
        }
        if matches!(
            verdicts.of_paper(ws, &paper.id)?,
            Some(Verdict::Include | Verdict::Maybe)
        ) {
            out.push(paper);
        }
    }
    Ok(out)
}

/// The offers for every record the review keeps without full text.
pub async fn offers(ws: &Workspace, oa: &OpenAccess) -> Result<Vec<CopyOffer>, ReviewError> {
    let reading = ws.clone();
    let (attempts, wanted) =
        blocking(move || Ok::<_, ReviewError>((retrievals(&reading)?, wanted(&reading)?))).await?;
    let mut out = Vec::new();
    for paper in wanted {
        let mut offer = offer_for(&paper, oa).await;
        offer.last_attempt = attempts.get(&paper.id.0).cloned();
        out.push(offer);
    }
    Ok(out)
}

/// The best open copy of one record: OpenAlex's when it links a PDF, else
/// Unpaywall's for the record's DOI.
async fn offer_for(paper: &PaperRecord, oa: &OpenAccess) -> CopyOffer {
    let openalex = paper
        .imported
        .as_ref()
        .and_then(|i| i.citation.as_ref())
        .and_then(|c| c.open_copy.clone());
    let mut offer = CopyOffer {
        paper: paper.id.0.clone(),
        title: paper.title.clone(),
        doi: paper.meta.doi.clone(),
        copy: None,
        from: None,
        none_because: None,
        last_attempt: None,
    };
    if let Some(copy) = openalex.as_ref().filter(|c| c.pdf_url.is_some()) {
        offer.copy = Some(copy.clone());
        offer.from = Some("OpenAlex".into());
        return offer;
    }
    let Some(doi) = paper.meta.doi.as_deref() else {
        offer.copy = openalex;
        offer.from = offer.copy.as_ref().map(|_| "OpenAlex".into());
        offer.none_because = Some(match &offer.copy {
            Some(_) => {
                "OpenAlex knows only a landing page, and with no DOI Unpaywall cannot be asked"
                    .into()
            }
            None => "OpenAlex knows no open copy, and with no DOI Unpaywall cannot be asked".into(),
        });
        return offer;
    };
    match oa.unpaywall(doi).await {
        Ok(Some(copy)) if copy.pdf_url.is_some() => {
            offer.copy = Some(copy);
            offer.from = Some("Unpaywall".into());
        }
        Ok(found) => {
            offer.copy = found.or(openalex);
            offer.from = offer.copy.as_ref().map(|_| "Unpaywall".into());
            offer.none_because = Some(match &offer.copy {
                Some(_) => "only a landing page is open, no PDF link (OpenAlex, Unpaywall)".into(),
                None => "no open-access copy known (OpenAlex, Unpaywall)".into(),
            });
        }
        Err(why) => {
            offer.copy = openalex;
            offer.none_because = Some(format!("OpenAlex knows no open PDF; {why}"));
        }
    }
    offer
}

/// What fetching one approved record did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FetchOutcome {
    pub paper: String,
    pub title: Option<String>,
    pub retrieval: Retrieval,
}

/// Fetch the open copies of the `approved` records (each by id or its
/// start; each must be one [`offers`] lists). A file is retrieved only once
/// it opens as a PDF (extracted as `ingest` reads any paper, its text then
/// cached for the next run); each becomes its record's full text, and each
/// failure is kept with its reason.
pub async fn fetch(
    ws: &Workspace,
    oa: &OpenAccess,
    ingest: &IngestOptions,
    approved: &[String],
) -> Result<Vec<FetchOutcome>, ReviewError> {
    let reading = ws.clone();
    let (wanted, mut attempts) =
        blocking(move || Ok::<_, ReviewError>((wanted(&reading)?, retrievals(&reading)?))).await?;
    let mut chosen: Vec<&PaperRecord> = Vec::new();
    for id in approved {
        let matches: Vec<&PaperRecord> = wanted
            .iter()
            .filter(|p| p.id.0.starts_with(id.trim()))
            .collect();
        match matches.as_slice() {
            [one] if !chosen.iter().any(|c| c.id == one.id) => chosen.push(one),
            [_] => {}
            [] => return Err(ReviewError::NoSuchPaper { id: id.clone() }),
            _ => return Err(ReviewError::AmbiguousPaper { id: id.clone() }),
        }
    }
    let mut outcomes = Vec::new();
    for paper in chosen {
        let offer = offer_for(paper, oa).await;
        let url = offer.copy.as_ref().and_then(|c| c.pdf_url.clone());
        let result = match &url {
            Some(url) => match oa.fetch_pdf(url).await {
                Ok(bytes) => match opens_as_pdf(&bytes, ingest).await {
                    Ok(()) => {
                        let (ws, record) = (ws.clone(), paper.id.clone());
                        blocking(move || keep_pdf(&ws, &record, &bytes))
                            .await
                            .map(Some)
                            .map_err(|e| e.to_string())
                    }
                    Err(why) => Err(why),
                },
                Err(why) => Err(why),
            },
            None => Err(offer
                .none_because
                .clone()
                .unwrap_or_else(|| "no open-access copy known".into())),
        };
        let retrieval = Retrieval {
            retrieved: result.is_ok(),
            reason: result.as_ref().err().cloned(),
            url,
            pdf: result.ok().flatten().map(|p| p.0),
            at: now_rfc3339(),
        };
        attempts.insert(paper.id.0.clone(), retrieval.clone());
        let (kept, all) = (ws.clone(), attempts.clone());
        blocking(move || Ok::<_, ReviewError>(kept.write_json(&retrieval_path()?, &all)?)).await?;
        outcomes.push(FetchOutcome {
            paper: paper.id.0.clone(),
            title: paper.title.clone(),
            retrieval,
        });
    }
    Ok(outcomes)
}

/// Whether `bytes` open as a paper: read as any dropped PDF is (in a
/// worker process, within its limits), a file that starts like a PDF but
/// is damaged beyond reading, encrypted or empty of pages is not one.
async fn opens_as_pdf(bytes: &[u8], ingest: &IngestOptions) -> Result<(), String> {
    let sha256 = hex::encode(Sha256::digest(bytes));
    let owned = bytes.to_vec();
    let written = blocking(move || {
        let write = || -> std::io::Result<tempfile::NamedTempFile> {
            let mut file = tempfile::Builder::new().suffix(".pdf").tempfile()?;
            std::io::Write::write_all(&mut file, &owned)?;
            Ok(file)
        };
        Ok::<_, BlockingFailed>(write().map_err(|e| e.to_string()))
    })
    .await
    .map_err(|e| e.to_string())
    .and_then(|written| written);
    let file = written.map_err(|e| format!("the download could not be kept to be read ({e})"))?;
    let read = extract_file(file.path(), &sha256, ingest).await;
    let readable = match read.status {
        PaperStatus::Ok | PaperStatus::NeedsOcr => true,
        PaperStatus::Damaged => !read.pages.is_empty(),
        _ => false,
    };
    if readable {
        return Ok(());
    }
    Err(format!(
        "the file starts like a PDF but does not open as one ({}: {})",
        read.status.as_str(),
        read.reason.as_deref().unwrap_or("no pages")
    ))
}

/// Write the fetched PDF into `downloads/` and make it the record's full
/// text; the PDF's paper id.
fn keep_pdf(ws: &Workspace, record: &PaperId, bytes: &[u8]) -> Result<PaperId, ReviewError> {
    let file = WsPath::parse(&format!("{}/{}.pdf", layout::DOWNLOADS_DIR, record.0))?;
    ws.write(&file, bytes)?;
    let path = ws.root().join(file.to_relative());
    register_papers(
        ws,
        &[FoundPdf {
            path,
            size: bytes.len() as u64,
        }],
    )?;
    let sha256 = hex::encode(Sha256::digest(bytes));
    let pdf = PaperId(sha256[..16].to_owned());
    link_full_text(ws, record, &pdf)?;
    Ok(pdf)
}
