//! The offline engine's side of a review: every readable paper scored by
//! [`crate::offline`] (BM25 relevance, extractive summaries, no model), results
//! reused while their inputs are unchanged.

use std::collections::BTreeMap;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::EngineRun;
use crate::agent::{EventSink, PaperPhase, RunEvent};
use crate::blocking::blocking;
use crate::offline;
use crate::review::{
    Outcome, PaperResult, Provenance, ReviewError, ReviewSpec, inputs, paper_text,
};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperFile, PaperId, PaperRecord, Workspace};

/// Score the workspace's readable papers; each scored paper is an event.
pub async fn run(
    ws: &Workspace,
    spec: &ReviewSpec,
    events: Arc<dyn EventSink>,
) -> Result<EngineRun, ReviewError> {
    let (ws_, spec_, started) = (ws.clone(), spec.clone(), now_rfc3339());
    let results = blocking(move || offline_results(&ws_, &spec_, &started)).await?;
    for (id, result) in &results {
        events.emit(RunEvent::PaperStatus {
            paper: id.0.clone(),
            phase: PaperPhase::Scored,
            detail: Some(format!("{:.1}/10", result.score)),
        });
    }
    Ok(EngineRun {
        results,
        agent: None,
        model: None,
        outcome: Outcome::Done,
    })
}

/// Score every readable paper with the offline engine, reusing results whose
/// inputs are unchanged.
fn offline_results(
    ws: &Workspace,
    spec: &ReviewSpec,
    started_at: &str,
) -> Result<BTreeMap<PaperId, PaperResult>, ReviewError> {
    let papers = ws.papers()?;
    let readable: Vec<&PaperRecord> = papers.iter().filter(|p| p.status.is_readable()).collect();
    let input_hash = input_hash(spec, &readable);
    let mut results: BTreeMap<PaperId, PaperResult> = BTreeMap::new();
    let stale: Vec<&PaperRecord> = readable
        .iter()
        .copied()
        .filter(|p| match load_result(ws, &p.id) {
            Some(r) if r.provenance.input_hash == input_hash => {
                results.insert(p.id.clone(), r);
                false
            }
            _ => true,
        })
        .collect();
    if stale.is_empty() {
        return Ok(results);
    }
    // Relevance is relative to the collection, so all readable papers are scored
    // together; only the stale ones are written. The engine reads each paper's
    // content: no title block, running head or reference entry to quote.
    let texts: Vec<Vec<String>> = readable
        .iter()
        .map(|p| paper_text::load_text(ws, &p.id).map(|t| t.unwrap_or_default().content))
        .collect::<Result<_, _>>()?;
    let offline_papers: Vec<offline::Paper<'_>> = readable
        .iter()
        .zip(&texts)
        .map(|(p, pages)| offline::Paper {
            title: p.title.as_deref(),
            pages,
        })
        .collect();
    let findings = offline::review(&spec.question, &spec.criteria, &offline_papers);
    let finished_at = now_rfc3339();
    let made_under = inputs::fingerprint_of(spec);
    for (paper, f) in readable.iter().zip(findings) {
        if results.contains_key(&paper.id) {
            continue;
        }
        let mut provenance = Provenance::new(
            spec.engine,
            None,
            input_hash.clone(),
            paper.extractor.clone(),
            started_at.to_owned(),
            finished_at.clone(),
        );
        provenance.inputs = Some(made_under.clone());
        let result = PaperResult {
            summary: f.summary,
            key_points: f.key_points,
            score: f.score,
            verdict: f.verdict,
            rationale: f.rationale,
            evidence: f.evidence,
            criteria: f.criteria,
            // The offline criteria are lexical matches: shown, never excluding.
            excluded_by: None,
            doubts: Vec::new(),
            provenance,
            front_matter: None,
        };
        ws.write_paper_file(&paper.id, PaperFile::Result, &result)?;
        results.insert(paper.id.clone(), result);
    }
    Ok(results)
}

fn load_result(ws: &Workspace, id: &PaperId) -> Option<PaperResult> {
    ws.read_paper_file(id, PaperFile::Result).ok()?
}

/// Everything a result depends on: the question, criteria, engine, and which text
/// of which papers it was computed over.
fn input_hash(spec: &ReviewSpec, readable: &[&PaperRecord]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(spec.question.as_bytes());
    for c in &spec.criteria {
        hasher.update(b"\0criterion\0");
        hasher.update(c.as_bytes());
    }
    hasher.update(spec.engine.name().as_bytes());
    for p in readable {
        hasher.update(p.sha256.as_bytes());
        hasher.update(p.extractor.as_deref().unwrap_or("").as_bytes());
    }
    hex::encode(&hasher.finalize()[..16])
}
