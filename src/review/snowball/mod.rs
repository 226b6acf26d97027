//! Citation searching ("snowballing"), as PRISMA 2020 and TARCiS (BMJ 2024)
//! describe it. From seeds (the papers the review includes and has not
//! followed yet, or the researcher's own choice), a round follows each seed
//! backward (the works it cites) and forward (the works citing it) in
//! OpenAlex. First a [`Plan`]: the seeds as OpenAlex knows them (free
//! lookups), the paid calls the round would make and what they cost against
//! today's allowance. Then the round ([`run_round`]): every work found is
//! checked against the review and the round's earlier finds, in any version
//! (DOI, arXiv id, OpenAlex id after merges, PMID, else title, year and first
//! author, or title and first author a year or two apart); the new ones are
//! written as a round file (`citations/round-N.citations.json`, which also
//! keeps the duplicates, calls and cost for PRISMA's "other methods" boxes)
//! and imported as records, each with the seeds that led to it, to be
//! screened on title and abstract like any imported record. Nothing is
//! downloaded: open-access copies are only listed until the researcher
//! approves them.

mod collect;
pub mod copies;

use std::collections::BTreeSet;

use serde::Serialize;

use super::verdicts::Verdicts;
use super::{ReviewError, Verdict};
use crate::records::citations::{self, Calls, Round, Seed};
use crate::records::duplicates::title_key;
use crate::scholar::citations::{CallError, CitedWork, WorkKey, pages_for};
use crate::scholar::{Allowance, LIST_USD, Lookup, SEARCH_USD};
use crate::workspace::{Direction, PaperId, PaperRecord, Workspace, WsPath, layout};

pub use collect::{RoundSummary, run_round};

/// What a round is asked to follow.
#[derive(Clone, Debug, Default)]
pub struct SnowballOptions {
    /// The seeds, by paper id or its start; none means the review's
    /// included papers not yet followed.
    pub seeds: Option<Vec<String>>,
    /// Backward, forward or both; empty means both.
    pub directions: Vec<Direction>,
}

/// What a round will do and cost, shown before it runs.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "SnowballPlan"))]
pub struct Plan {
    /// The round it would be, from 1.
    pub round: u32,
    pub seeds: Vec<Seed>,
    pub directions: Vec<Direction>,
    /// Calls made to plan: the seeds' lookups (free by id or DOI; a search
    /// for a seed with neither).
    pub planning: Calls,
    /// List calls the round will make: the seeds' references, 100 a call,
    /// less those the review already has.
    pub backward_calls: u64,
    /// List calls the round will make: pages of 100 citing works per seed.
    pub forward_calls: u64,
    /// Distinct references to fetch.
    pub references: usize,
    /// Citing works within reach (the first 10,000 per seed).
    pub citing: u64,
    /// What the round's calls cost, in US dollars.
    pub cost_usd: f64,
    /// Today's allowance as OpenAlex last told it.
    pub allowance: Option<Allowance>,
    /// Whether what is left today pays for the round; none when unknown.
    pub affordable: Option<bool>,
    pub notices: Vec<String>,
    /// The seeds' works as OpenAlex answered them, for the round.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    works: Vec<(PaperId, CitedWork)>,
    /// OpenAlex ids the review already has: references not to fetch.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    known_ids: BTreeSet<String>,
}

/// The papers a round starts from by default: those the review includes
/// (the researcher's label over the engine's verdict) that no earlier round
/// followed.
pub fn default_seeds(ws: &Workspace) -> Result<Vec<PaperId>, ReviewError> {
    let followed: BTreeSet<PaperId> = rounds(ws)?
        .into_iter()
        .flat_map(|r| r.seeds.into_iter().map(|s| s.paper))
        .collect();
    let verdicts = Verdicts::load(ws)?;
    let mut seeds = Vec::new();
    for paper in ws.papers()? {
        if !paper.is_screened_itself() || followed.contains(&paper.id) {
            continue;
        }
        if verdicts.of_paper(ws, &paper.id)? == Some(Verdict::Include) {
            seeds.push(paper.id);
        }
    }
    Ok(seeds)
}

/// The papers `given` names (each by its id or the id's start), each once.
fn chosen(papers: &[PaperRecord], given: &[String]) -> Result<Vec<PaperRecord>, ReviewError> {
    let mut chosen: Vec<PaperRecord> = Vec::new();
    for id in given {
        let matches: Vec<&PaperRecord> = papers
            .iter()
            .filter(|p| p.is_screened_itself() && p.id.0.starts_with(id.trim()))
            .collect();
        match matches.as_slice() {
            [one] if !chosen.iter().any(|c| c.id == one.id) => chosen.push((*one).clone()),
            [_] => {}
            [] => return Err(ReviewError::NoSuchPaper { id: id.clone() }),
            _ => return Err(ReviewError::AmbiguousPaper { id: id.clone() }),
        }
    }
    Ok(chosen)
}

/// The review's rounds so far, in order.
pub fn rounds(ws: &Workspace) -> Result<Vec<Round>, ReviewError> {
    let dir = ws.root().join(layout::CITATIONS_DIR);
    let mut rounds = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(rounds);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let named = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(citations::ROUND_ENDING));
        if named {
            rounds.push(citations::read_round(&path)?);
        }
    }
    rounds.sort_by_key(|r| r.round);
    Ok(rounds)
}

/// Import again the works of every round whose file was written but whose
/// import did not finish (the app closed or killed between the two): the
/// round file is the import's source, so it comes first, and until its
/// works are in the review its seeds count as followed with nothing found.
/// Importing a file again adds only what is missing. The rounds taken up.
pub fn import_unfinished_rounds(ws: &Workspace) -> Result<Vec<u32>, ReviewError> {
    let have: BTreeSet<PaperId> = ws.papers()?.into_iter().map(|p| p.id).collect();
    let mut taken_up = Vec::new();
    for round in rounds(ws)? {
        let missing = round
            .records
            .iter()
            .any(|r| !have.contains(&super::imports::citation_paper_id(&r.openalex)));
        if !missing {
            continue;
        }
        let path = ws.root().join(round_path(round.round)?.to_relative());
        let imported = super::imports::import_files(ws, std::slice::from_ref(&path))?;
        if let Some(failed) = imported.failed().next() {
            return Err(ReviewError::WriteFailed {
                cause: failed.error.clone().unwrap_or_default(),
            });
        }
        tracing::info!(
            round = round.round,
            added = imported.added,
            "a round's works that were not imported are imported now"
        );
        taken_up.push(round.round);
    }
    Ok(taken_up)
}

/// Rounds whose works are not all in the review yet (see
/// [`import_unfinished_rounds`]).
pub fn unfinished_rounds(ws: &Workspace) -> Result<Vec<u32>, ReviewError> {
    let have: BTreeSet<PaperId> = ws.papers()?.into_iter().map(|p| p.id).collect();
    Ok(rounds(ws)?
        .into_iter()
        .filter(|round| {
            round
                .records
                .iter()
                .any(|r| !have.contains(&super::imports::citation_paper_id(&r.openalex)))
        })
        .map(|round| round.round)
        .collect())
}

/// Where round `n`'s file goes.
pub(crate) fn round_path(n: u32) -> Result<WsPath, ReviewError> {
    Ok(WsPath::parse(&format!(
        "{}/round-{n}{}",
        layout::CITATIONS_DIR,
        citations::ROUND_ENDING
    ))?)
}

/// Plan a round: look the seeds up in OpenAlex (free by id or DOI) and
/// count the calls the round would make. Fails only on a review that cannot
/// be read, or on seeds it does not have.
pub async fn plan(
    ws: &Workspace,
    lookup: &Lookup,
    options: &SnowballOptions,
) -> Result<Plan, ReviewError> {
    let papers = ws.papers()?;
    let seeds_papers = match &options.seeds {
        Some(given) => chosen(&papers, given)?,
        None => {
            let ids = default_seeds(ws)?;
            papers
                .iter()
                .filter(|p| ids.contains(&p.id))
                .cloned()
                .collect()
        }
    };
    let directions = if options.directions.is_empty() {
        vec![Direction::Backward, Direction::Forward]
    } else {
        let mut d = options.directions.clone();
        d.sort();
        d.dedup();
        d
    };
    let known_ids: BTreeSet<String> = papers
        .iter()
        .filter_map(|p| p.imported.as_ref()?.citation.as_ref())
        .map(|c| c.openalex.clone())
        .collect();
    let mut plan = Plan {
        round: rounds(ws)?.last().map_or(1, |r| r.round + 1),
        seeds: Vec::new(),
        directions,
        planning: Calls::default(),
        backward_calls: 0,
        forward_calls: 0,
        references: 0,
        citing: 0,
        cost_usd: 0.0,
        allowance: None,
        affordable: None,
        notices: Vec::new(),
        works: Vec::new(),
        known_ids,
    };
    for paper in &seeds_papers {
        let (seed, work) = match resolve(lookup, paper, &mut plan.planning).await {
            Ok(found) => found,
            Err(CallError::Closed(why)) => {
                plan.notices.push(closed_notice(&why));
                break;
            }
            Err(CallError::Failed(why)) => (
                unfollowed(paper, &format!("OpenAlex's answer was unusable ({why})")),
                None,
            ),
        };
        plan.seeds.push(seed);
        if let Some(work) = work {
            plan.works.push((paper.id.clone(), work));
        }
    }
    plan.count_calls();
    plan.allowance = lookup.stats().openalex_allowance;
    plan.affordable = plan.allowance.map(|a| a.can_pay(plan.cost_usd));
    Ok(plan)
}

impl Plan {
    /// Seeds OpenAlex knows: what a round can follow.
    pub fn followable(&self) -> usize {
        self.works.len()
    }

    fn follows(&self, direction: Direction) -> bool {
        self.directions.contains(&direction)
    }

    /// The round's calls and their cost, from the seeds' works.
    fn count_calls(&mut self) {
        let references = self.references_to_fetch();
        self.references = references.len();
        self.backward_calls = if self.follows(Direction::Backward) {
            references
                .len()
                .div_ceil(crate::scholar::citations::PAGE_SIZE) as u64
        } else {
            0
        };
        if self.follows(Direction::Forward) {
            for (_, work) in &self.works {
                let pages = pages_for(work.cited_by);
                self.forward_calls += pages;
                self.citing += work.cited_by.min(pages * 100);
                if pages * 100 < work.cited_by {
                    self.notices.push(format!(
                        "\u{ab}{}\u{bb} is cited by {} works; OpenAlex lists the first {} of them \
                         without cursor paging.",
                        work.record.title.as_deref().unwrap_or(&work.openalex),
                        work.cited_by,
                        pages * 100
                    ));
                }
            }
        }
        self.cost_usd = (self.backward_calls + self.forward_calls) as f64 * LIST_USD;
    }

    /// The seeds' references the review does not have yet, each once, in
    /// the order the seeds give them.
    fn references_to_fetch(&self) -> Vec<String> {
        let mut seen = BTreeSet::new();
        self.works
            .iter()
            .flat_map(|(_, w)| w.referenced.iter())
            .filter(|id| !self.known_ids.contains(*id) && seen.insert((*id).clone()))
            .cloned()
            .collect()
    }
}

/// A seed as OpenAlex knows it: by its OpenAlex id when a round found it,
/// else its DOI, else its arXiv id (as arXiv's DOI), else a search for its
/// title (the only paid lookup), taken only when the title is the same.
async fn resolve(
    lookup: &Lookup,
    paper: &PaperRecord,
    calls: &mut Calls,
) -> Result<(Seed, Option<CitedWork>), CallError> {
    let openalex = paper
        .imported
        .as_ref()
        .and_then(|i| i.citation.as_ref())
        .map(|c| c.openalex.clone());
    let doi = paper.meta.doi.as_deref().map(str::to_lowercase);
    let key = openalex.map(WorkKey::Id).or(doi.map(WorkKey::Doi)).or(paper
        .meta
        .arxiv
        .as_ref()
        .map(|id| WorkKey::Doi(format!("10.48550/arxiv.{}", id.to_lowercase()))));
    let work = match key {
        Some(key) => {
            calls.singleton += 1;
            lookup.openalex_work(&key).await?
        }
        None => {
            let Some(title) = paper.title.as_deref().filter(|t| title_key(t).is_some()) else {
                return Ok((
                    unfollowed(paper, "it has no DOI, no arXiv id and no usable title"),
                    None,
                ));
            };
            calls.search += 1;
            calls.cost_usd += SEARCH_USD;
            let wanted = title_key(title);
            lookup
                .openalex_search_works(title)
                .await?
                .into_iter()
                .find(|w| w.record.title.as_deref().and_then(title_key) == wanted)
        }
    };
    let Some(work) = work else {
        return Ok((unfollowed(paper, "OpenAlex does not know it"), None));
    };
    let seed = Seed {
        paper: paper.id.clone(),
        title: paper.title.clone(),
        openalex: Some(work.openalex.clone()),
        references: work.referenced.len(),
        cited_by: work.cited_by,
        not_followed: None,
    };
    Ok((seed, Some(work)))
}

fn unfollowed(paper: &PaperRecord, why: &str) -> Seed {
    Seed {
        paper: paper.id.clone(),
        title: paper.title.clone(),
        openalex: None,
        references: 0,
        cited_by: 0,
        not_followed: Some(why.to_owned()),
    }
}

/// The notice for OpenAlex closed mid-way, in the researcher's words.
fn closed_notice(why: &str) -> String {
    if why.contains("allowance") {
        "OpenAlex's daily allowance is spent, so citation searching stopped; what was found so \
         far is kept. The allowance renews at midnight UTC: run another round then (a free API \
         key, saved in Settings, gives a dollar a day)."
            .to_owned()
    } else if why.contains("401") {
        "OpenAlex refused the API key (401), so citation searching stopped: check the key in \
         Settings."
            .to_owned()
    } else {
        format!(
            "OpenAlex stopped answering ({why}), so citation searching stopped; what was found so far is kept."
        )
    }
}
