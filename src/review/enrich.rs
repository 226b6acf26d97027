//! Filling in papers' records from the scholarly indexes ([`crate::scholar`]):
//! each readable paper's printed DOI, arXiv id or title is looked up, and a
//! record that is this paper's gives its authoritative fields, each marked
//! with where it came from. A paper's record has three layers, each in its
//! own file and written by one party: `paper.json` (what extraction read from
//! the PDF), `lookup.json` (what an index said, written here) and
//! `corrections.json` (what the researcher typed). They are laid over each
//! other in that order when read ([`super::corrections::corrected`]), so a
//! lookup never overwrites a correction, and the next lookup always asks by
//! what the PDF itself prints.

use std::sync::Arc;

use futures_util::StreamExt;
use futures_util::stream;
use serde::{Deserialize, Serialize};

use super::ReviewError;
use super::paper_text;
use crate::blocking::blocking;
use crate::scholar::{Found, Lookup, LookupStats, Query, ScholarRecord, Service};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{
    MetaField, Origin, PaperFile, PaperId, PaperRecord, PaperStatus, Workspace, WorkspaceError,
};

/// Papers looked up at once (each service still takes one request at a time).
const IN_FLIGHT: usize = 6;

/// How the lookups went, as the review's `--json` and the log tell it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EnrichOutcome {
    /// Papers with something to look up (an id or a title).
    pub looked_up: usize,
    /// Papers an index knew.
    pub matched: usize,
    #[serde(flatten)]
    pub stats: LookupStats,
}

/// Look `papers` up and save what the indexes know into their records.
pub async fn enrich_papers(
    ws: &Workspace,
    papers: &[PaperRecord],
    lookup: Arc<Lookup>,
) -> Result<EnrichOutcome, ReviewError> {
    let readable: Vec<PaperRecord> = papers
        .iter()
        .filter(|p| p.status == PaperStatus::Ok)
        // A search record carries its database's metadata already; a
        // lookup each for thousands of records would spend the allowance.
        .filter(|p| !p.is_record())
        .cloned()
        .collect();
    let queries = {
        let ws = ws.clone();
        blocking(move || queries_of(&ws, readable)).await?
    };
    let arxiv_ids: Vec<String> = queries
        .iter()
        .filter(|(_, q)| q.doi.is_none())
        .filter_map(|(_, q)| q.arxiv.clone())
        .collect();
    lookup.prefetch_arxiv(&arxiv_ids).await;
    let looked_up = queries.len();
    let found: Vec<(PaperId, Found)> = stream::iter(queries)
        .map(|(id, query)| {
            let lookup = lookup.clone();
            async move { lookup.find(&query).await.map(|f| (id, f)) }
        })
        .buffer_unordered(IN_FLIGHT)
        .filter_map(|f| async move { f })
        .collect()
        .await;
    let matched = found.len();
    let ws = ws.clone();
    blocking(move || {
        for (id, found) in found {
            save(&ws, &id, &found)?;
        }
        Ok::<_, ReviewError>(())
    })
    .await?;
    let outcome = EnrichOutcome {
        looked_up,
        matched,
        stats: lookup.stats(),
    };
    tracing::info!(
        looked_up,
        matched,
        requests = outcome.stats.requests,
        from_cache = outcome.stats.from_cache,
        "looked papers up in the scholarly indexes"
    );
    Ok(outcome)
}

/// What each paper prints that an index can be asked by (only these leave
/// the machine: identifiers and the title).
fn queries_of(
    ws: &Workspace,
    papers: Vec<PaperRecord>,
) -> Result<Vec<(PaperId, Query)>, ReviewError> {
    let mut queries = Vec::new();
    for paper in papers {
        let pages = paper_text::load(ws, &paper.id)?.unwrap_or_default();
        let front_text = pages.iter().take(2).cloned().collect::<Vec<_>>().join("\n");
        // A title made up from the file name is not worth asking about.
        let title = paper
            .title
            .clone()
            .filter(|_| paper.meta.sources.get(&MetaField::Title) == Some(&Origin::Pdf));
        let query = Query {
            doi: paper.meta.doi.clone(),
            arxiv: paper.meta.arxiv.clone(),
            title,
            front_text,
        };
        if query.doi.is_some() || query.arxiv.is_some() || query.title.is_some() {
            queries.push((paper.id, query));
        }
    }
    Ok(queries)
}

/// `papers/<id>/lookup.json`: the record an index gave for the paper.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SavedLookup {
    service: Service,
    record: ScholarRecord,
    /// When it was looked up (RFC 3339).
    at: String,
}

fn save(ws: &Workspace, id: &PaperId, found: &Found) -> Result<(), WorkspaceError> {
    let saved = SavedLookup {
        service: found.service,
        record: found.record.clone(),
        at: now_rfc3339(),
    };
    ws.write_paper_file(id, PaperFile::Lookup, &saved)
}

/// Lay the paper's looked-up record, if it has one, over what the PDF said.
pub fn apply_saved(ws: &Workspace, paper: &mut PaperRecord) -> Result<(), WorkspaceError> {
    let Some(saved) = ws.read_paper_file::<SavedLookup>(&paper.id, PaperFile::Lookup)? else {
        return Ok(());
    };
    apply(
        paper,
        &Found {
            service: saved.service,
            record: saved.record,
        },
    );
    Ok(())
}

/// Take the record's fields over what the PDF gave, marking each.
pub fn apply(paper: &mut PaperRecord, found: &Found) {
    let origin = match found.service {
        Service::Crossref => Origin::Crossref,
        Service::Arxiv => Origin::Arxiv,
        Service::Openalex => Origin::Openalex,
    };
    let record = &found.record;
    let meta = &mut paper.meta;
    let mut took = Vec::new();
    if let Some(title) = &record.title {
        paper.title = Some(title.clone());
        took.push(MetaField::Title);
    }
    if !record.authors.is_empty() {
        meta.authors = record.authors.clone();
        took.push(MetaField::Authors);
    }
    if let Some(year) = record.year {
        meta.year = Some(year);
        took.push(MetaField::Year);
    }
    let texts = [
        (MetaField::Venue, &record.venue, &mut meta.venue),
        (MetaField::Doi, &record.doi, &mut meta.doi),
        (MetaField::Arxiv, &record.arxiv, &mut meta.arxiv),
        (
            MetaField::Abstract,
            &record.abstract_text,
            &mut meta.abstract_text,
        ),
    ];
    for (field, value, slot) in texts {
        if let Some(value) = value {
            *slot = Some(value.clone());
            took.push(field);
        }
    }
    for field in took {
        meta.sources.insert(field, origin);
    }
}
