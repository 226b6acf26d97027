//! One round of citation searching, as planned: the seeds' references
//! fetched by id (100 a call; an id OpenAlex merged away is asked alone, and
//! its redirect names the work it became), their citing works page by page;
//! every work checked against the review and the round's earlier finds; the
//! new ones written as the round's file and imported as records.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{Plan, closed_notice, round_path};
use crate::blocking::blocking;
use crate::records::citations::{self, DuplicateWork, FoundWork, Round};
use crate::records::duplicates::{Known, Work};
use crate::review::imports::{self, ImportSummary};
use crate::review::{ReviewError, corrections};
use crate::scholar::citations::{
    CallError, CitedWork, PAGE_SIZE, WorkKey, cites_path, ids_path, pages_for,
};
use crate::scholar::{LIST_USD, Lookup};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{Direction, FoundVia, PaperId, Workspace};

/// What a round did.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SnowballRound"))]
pub struct RoundSummary {
    pub round: u32,
    /// The round's file, relative to the review.
    pub file: String,
    pub seeds: usize,
    /// Works found, duplicates included, each once.
    pub found: usize,
    /// Of the found, new to the review: now records awaiting screening.
    pub added: usize,
    /// Of the found, works the review already had (any version).
    pub duplicates: usize,
    /// New works found backward (in a seed's references) and forward
    /// (citing a seed); a work found both ways counts in both.
    pub backward: usize,
    pub forward: usize,
    /// New works with an open-access copy listed (not downloaded).
    pub open_copies: usize,
    pub calls: citations::Calls,
    pub complete: bool,
    pub notices: Vec<String>,
    /// The papers the new records are, in the order found.
    pub papers: Vec<String>,
    /// The plan the round followed.
    pub plan: Plan,
}

/// A work found, with every seed and direction that led to it.
struct Candidate {
    work: CitedWork,
    merged_from: Vec<String>,
    via: Vec<FoundVia>,
}

/// Works found so far, by OpenAlex id, in the order found.
#[derive(Default)]
struct Finds {
    order: Vec<Candidate>,
    at: HashMap<String, usize>,
}

impl Finds {
    fn add(&mut self, work: CitedWork, via: FoundVia, merged_from: Option<String>) {
        let i = match self.at.get(&work.openalex) {
            Some(&i) => i,
            None => {
                self.at.insert(work.openalex.clone(), self.order.len());
                self.order.push(Candidate {
                    work,
                    merged_from: Vec::new(),
                    via: Vec::new(),
                });
                self.order.len() - 1
            }
        };
        let found = &mut self.order[i];
        if !found.via.contains(&via) {
            found.via.push(via);
        }
        if let Some(old) = merged_from.filter(|old| !found.merged_from.contains(old)) {
            found.merged_from.push(old);
        }
    }
}

/// Run the round `plan` describes, write its file and import its new works.
pub async fn run_round(
    ws: &Workspace,
    lookup: &Lookup,
    plan: Plan,
) -> Result<RoundSummary, ReviewError> {
    let mut calls = plan.planning;
    let mut notices = plan.notices.clone();
    let mut finds = Finds::default();
    let mut complete = true;
    let outcome = follow(lookup, &plan, &mut finds, &mut calls, &mut notices).await;
    if let Err(why) = outcome {
        complete = false;
        notices.push(why);
    }
    calls.cost_usd += calls.list as f64 * LIST_USD;
    let sorting = ws.clone();
    let (records, duplicates) = blocking(move || sort_out(&sorting, finds)).await?;
    let round = Round {
        quire_citations: citations::ROUND_VERSION,
        round: plan.round,
        made_at: now_rfc3339(),
        directions: plan.directions.clone(),
        seeds: plan.seeds.clone(),
        records,
        duplicates,
        calls,
        notices,
        complete: complete && !plan.seeds.is_empty(),
    };
    let file = round_path(plan.round)?;
    // The round's file is the import's source, so it is written first; a
    // kill before the import finishes is taken up by the next plan or round
    // ([`super::import_unfinished_rounds`]).
    let (writing, kept, path) = (
        ws.clone(),
        round.clone(),
        ws.root().join(file.to_relative()),
    );
    let imported: ImportSummary = blocking(move || {
        writing.write_json(&file, &kept)?;
        imports::import_files(&writing, std::slice::from_ref(&path))
    })
    .await?;
    if let Some(failed) = imported.failed().next() {
        return Err(ReviewError::WriteFailed {
            cause: failed.error.clone().unwrap_or_default(),
        });
    }
    let file = round_path(plan.round)?;
    let count = |d: Direction| {
        round
            .records
            .iter()
            .filter(|r| r.via.iter().any(|v| v.direction == d))
            .count()
    };
    Ok(RoundSummary {
        round: round.round,
        file: file.to_relative().to_string_lossy().into_owned(),
        seeds: round.seeds.len(),
        found: round.records.len() + round.duplicates.len(),
        added: imported.added,
        duplicates: round.duplicates.len(),
        backward: count(Direction::Backward),
        forward: count(Direction::Forward),
        open_copies: round
            .records
            .iter()
            .filter(|r| r.open_copy.as_ref().is_some_and(|c| c.pdf_url.is_some()))
            .count(),
        calls: round.calls,
        complete: round.complete,
        notices: round.notices,
        papers: imported.papers,
        plan,
    })
}

/// Make the round's calls; an `Err` says why the round stopped early
/// (what was found until then is kept).
async fn follow(
    lookup: &Lookup,
    plan: &Plan,
    finds: &mut Finds,
    calls: &mut citations::Calls,
    notices: &mut Vec<String>,
) -> Result<(), String> {
    let stopped = |e: CallError, notices: &mut Vec<String>| match e {
        CallError::Closed(why) => Some(closed_notice(&why)),
        CallError::Failed(why) => {
            notices.push(format!(
                "One call to OpenAlex gave nothing usable ({why}); the round is incomplete."
            ));
            None
        }
    };
    let mut failed = false;
    if plan.follows(Direction::Backward) {
        // Which seeds cite each reference.
        let mut cited_by: BTreeMap<&str, Vec<&PaperId>> = BTreeMap::new();
        for (seed, work) in &plan.works {
            for id in &work.referenced {
                cited_by.entry(id.as_str()).or_default().push(seed);
            }
        }
        let wanted = plan.references_to_fetch();
        for batch in wanted.chunks(PAGE_SIZE) {
            let answer = lookup.openalex_list(&ids_path(batch)).await;
            calls.list += u64::from(made(&answer));
            let works = match answer {
                Ok((_, works)) => works,
                Err(e) => match stopped(e, notices) {
                    Some(why) => return Err(why),
                    None => {
                        failed = true;
                        continue;
                    }
                },
            };
            let mut answered: Vec<String> = Vec::new();
            for work in works {
                answered.push(work.openalex.clone());
                for seed in cited_by.get(work.openalex.as_str()).into_iter().flatten() {
                    let via = backward(seed);
                    finds.add(work.clone(), via, None);
                }
            }
            // An id missing from the list was merged into another work: its
            // own lookup (free) is redirected to the work it became.
            for old in batch.iter().filter(|id| !answered.contains(id)) {
                let answer = lookup.openalex_work(&WorkKey::Id(old.clone())).await;
                calls.singleton += u64::from(made(&answer));
                match answer {
                    Ok(Some(work)) => {
                        let merged = (work.openalex != *old).then(|| old.clone());
                        for seed in cited_by.get(old.as_str()).into_iter().flatten() {
                            finds.add(work.clone(), backward(seed), merged.clone());
                        }
                    }
                    Ok(None) => {}
                    Err(e) => {
                        if let Some(why) = stopped(e, notices) {
                            return Err(why);
                        }
                        failed = true;
                    }
                }
            }
        }
    }
    if plan.follows(Direction::Forward) {
        for (seed, work) in &plan.works {
            for page in 1..=pages_for(work.cited_by) {
                let answer = lookup
                    .openalex_list(&cites_path(&work.openalex, page))
                    .await;
                calls.list += u64::from(made(&answer));
                let (_, citing) = match answer {
                    Ok(answer) => answer,
                    Err(e) => match stopped(e, notices) {
                        Some(why) => return Err(why),
                        None => {
                            failed = true;
                            break;
                        }
                    },
                };
                let last = citing.len() < PAGE_SIZE;
                for found in citing {
                    let via = FoundVia {
                        seed: seed.clone(),
                        direction: Direction::Forward,
                    };
                    finds.add(found, via, None);
                }
                if last {
                    break;
                }
            }
        }
    }
    if failed {
        return Err(
            "Some of OpenAlex's answers could not be used; run another round to try them again."
                .into(),
        );
    }
    Ok(())
}

/// Whether a call was made and answered (a call refused before it was
/// sent, or answered "closed", is not counted or charged).
fn made<T>(answer: &Result<T, CallError>) -> bool {
    !matches!(answer, Err(CallError::Closed(_)))
}

fn backward(seed: &PaperId) -> FoundVia {
    FoundVia {
        seed: seed.clone(),
        direction: Direction::Backward,
    }
}

/// Split the finds into works new to the review and works it has (in any
/// version), checking each against the review and the finds before it.
fn sort_out(
    ws: &Workspace,
    finds: Finds,
) -> Result<(Vec<FoundWork>, Vec<DuplicateWork>), ReviewError> {
    let papers = corrections::corrected(ws)?;
    let mut owners: Vec<PaperId> = Vec::new();
    let mut known = Known::new();
    for paper in &papers {
        known.add(&imports::work_of(paper), owners.len());
        // A record's full text is the record's report: the record owns it.
        owners.push(paper.full_text_of.clone().unwrap_or(paper.id.clone()));
    }
    let mut records = Vec::new();
    let mut duplicates = Vec::new();
    for found in finds.order {
        let work = work_of(&found);
        match known.find(&work) {
            Some((owner, why)) => duplicates.push(DuplicateWork {
                openalex: found.work.openalex,
                title: found.work.record.title.unwrap_or_default(),
                paper: owners[owner].clone(),
                why: why.as_words().to_owned(),
                via: found.via,
            }),
            None => {
                known.add(&work, owners.len());
                owners.push(imports::citation_paper_id(&found.work.openalex));
                records.push(found_work(found));
            }
        }
    }
    Ok((records, duplicates))
}

fn work_of(found: &Candidate) -> Work {
    let r = &found.work.record;
    Work {
        title: r.title.clone().unwrap_or_default(),
        year: r.year.map(i32::from),
        first_author: r.authors.first().map(|a| a.family.clone()),
        doi: r.doi.clone(),
        pmid: found.work.pmid.clone(),
        arxiv: r.arxiv.clone(),
        openalex: std::iter::once(found.work.openalex.clone())
            .chain(found.merged_from.iter().cloned())
            .collect(),
    }
}

fn found_work(found: Candidate) -> FoundWork {
    let r = found.work.record;
    FoundWork {
        openalex: found.work.openalex,
        merged_from: found.merged_from,
        title: r.title.unwrap_or_default(),
        abstract_text: r.abstract_text,
        authors: r.authors.iter().map(|a| a.family_first()).collect(),
        year: r.year.map(i32::from),
        venue: r.venue,
        doi: r.doi,
        pmid: found.work.pmid,
        arxiv: r.arxiv,
        via: found.via,
        open_copy: found.work.open_copy,
    }
}
