//! Citation searching from a review: `quire snowball` and the app's *Find
//! more by citations*. A plan first (its seeds as OpenAlex knows them, the
//! calls a round makes, their cost against today's allowance), then the
//! round, whose new works join the review as records to screen
//! ([`crate::review::snowball`]). Rounds use OpenAlex's key from Settings.

use std::path::PathBuf;

use serde::Deserialize;

use super::openalex::openalex_key;
use super::reviews::index_workspace;
use super::{AppContext, CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::review::snowball::copies::{self, CopyOffer, FetchOutcome};
use crate::review::snowball::{self, Plan, RoundSummary, SnowballOptions};
use crate::scholar::open_access::OpenAccess;
use crate::scholar::{Endpoints, Lookup, LookupOptions};
use crate::workspace::{Direction, Workspace};

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SnowballParams {
    /// The review's workspace folder.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// Seeds by paper id; none means the included papers not yet followed.
    #[serde(default)]
    pub seeds: Option<Vec<String>>,
    /// Backward, forward or both (empty).
    #[serde(default)]
    pub directions: Vec<Direction>,
}

impl SnowballParams {
    fn options(&self) -> SnowballOptions {
        SnowballOptions {
            seeds: self.seeds.clone(),
            directions: self.directions.clone(),
        }
    }
}

/// What a round would follow and cost; only free lookups are made (and a
/// search for a seed with no DOI or arXiv id).
pub async fn snowball_plan(ctx: &AppContext, params: SnowballParams) -> Result<Plan, CommandError> {
    let lookup = citation_lookup(ctx).await?;
    let root = params.workspace.clone();
    let (ws, unfinished) = blocking(move || {
        let ws = Workspace::open_read_only(&root)?;
        let unfinished = snowball::unfinished_rounds(&ws)?;
        if unfinished.is_empty() {
            return Ok::<_, CommandError>((ws, unfinished));
        }
        // A round whose works were not all imported: import them now when
        // the review can be written (no run holds it), so the plan counts
        // them; else the plan says so and the round takes them up.
        match Workspace::open(&root) {
            Ok(writable) => {
                snowball::import_unfinished_rounds(&writable)?;
                Ok((writable, Vec::new()))
            }
            Err(_) => Ok((ws, unfinished)),
        }
    })
    .await?;
    let mut plan = snowball::plan(&ws, &lookup, &params.options()).await?;
    for round in unfinished {
        plan.notices.push(format!(
            "round {round}'s works were not all added to the review (it was stopped before they were); they are added with the next round"
        ));
    }
    Ok(plan)
}

/// Plan and run a round: its new works join the review as records awaiting
/// screening. Refused while a run reads the review.
pub async fn snowball_run(
    ctx: &AppContext,
    params: SnowballParams,
) -> Result<RoundSummary, CommandError> {
    if ctx.run_in(&params.workspace).is_some() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "review_running",
            "a run is reading this review; search its citations when it has finished",
        ));
    }
    let lookup = citation_lookup(ctx).await?;
    let root = params.workspace.clone();
    let ws = blocking(move || {
        let ws = Workspace::open(&root)?;
        snowball::import_unfinished_rounds(&ws)?;
        Ok::<_, CommandError>(ws)
    })
    .await?;
    let plan = snowball::plan(&ws, &lookup, &params.options()).await?;
    if plan.followable() == 0 {
        let unknown: Vec<String> = plan
            .seeds
            .iter()
            .filter_map(|s| {
                Some(format!(
                    "{} ({})",
                    s.title.as_deref()?,
                    s.not_followed.as_deref()?
                ))
            })
            .collect();
        let why = if plan.seeds.is_empty() {
            "no seed: every paper the review includes was followed in an earlier round, or none is included yet (label papers include, or name seeds)".to_owned()
        } else {
            format!("no seed OpenAlex knows: {}", unknown.join("; "))
        };
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "nothing_to_follow",
            why,
        ));
    }
    let summary = snowball::run_round(&ws, &lookup, plan).await?;
    drop(ws); // release the workspace lock before the index reads it
    ctx.queues().forget(&params.workspace);
    index_workspace(ctx, params.workspace).await;
    tracing::info!(
        round = summary.round,
        added = summary.added,
        duplicates = summary.duplicates,
        list_calls = summary.calls.list,
        complete = summary.complete,
        "citation searching round done"
    );
    Ok(summary)
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CopiesParams {
    /// The review's workspace folder.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// Unpaywall's contact address; none means `QUIRE_CONTACT_EMAIL`.
    #[serde(default)]
    pub contact: Option<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FetchParams {
    /// The review's workspace folder.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
    /// The records whose open copies the researcher approved.
    pub papers: Vec<String>,
    #[serde(default)]
    pub contact: Option<String>,
}

/// The records citation searching found that the review keeps without
/// full text, each with its open copy (host, version, licence) or why none:
/// nothing is fetched.
pub async fn snowball_copies(params: CopiesParams) -> Result<Vec<CopyOffer>, CommandError> {
    let oa = open_access(params.contact)?;
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open_read_only(&root)?)).await?;
    Ok(copies::offers(&ws, &oa).await?)
}

/// Fetch the approved records' open copies: each PDF becomes its record's
/// full text (read by the next run); each failure is kept with its reason.
pub async fn snowball_fetch(
    ctx: &AppContext,
    params: FetchParams,
) -> Result<Vec<FetchOutcome>, CommandError> {
    if ctx.run_in(&params.workspace).is_some() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "review_running",
            "a run is reading this review; fetch full text when it has finished",
        ));
    }
    let oa = open_access(params.contact)?;
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open(&root)?)).await?;
    let ingest = ctx.ingest_options()?;
    let outcomes = copies::fetch(&ws, &oa, &ingest, &params.papers).await?;
    drop(ws); // release the workspace lock before the index reads it
    index_workspace(ctx, params.workspace).await;
    Ok(outcomes)
}

fn open_access(contact: Option<String>) -> Result<OpenAccess, CommandError> {
    if crate::net::offline_forced() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "offline",
            "Quire is offline (QUIRE_OFFLINE is set), and open copies are asked of OpenAlex and Unpaywall",
        ));
    }
    let contact = contact
        .filter(|c| !c.trim().is_empty())
        .or_else(|| std::env::var("QUIRE_CONTACT_EMAIL").ok());
    OpenAccess::new(OpenAccess::unpaywall_from_env(), contact)
        .map_err(|e| CommandError::new(ErrorKind::Internal, "http_setup", e))
}

/// OpenAlex with the saved key and the contact address; refused offline.
async fn citation_lookup(ctx: &AppContext) -> Result<Lookup, CommandError> {
    if crate::net::offline_forced() {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "offline",
            "Quire is offline (QUIRE_OFFLINE is set), and citation searching asks OpenAlex",
        ));
    }
    let key = {
        let ctx = ctx.clone();
        blocking(move || Ok::<_, CommandError>(openalex_key(&ctx))).await?
    };
    let contact = std::env::var("QUIRE_CONTACT_EMAIL").ok();
    let options = LookupOptions::new(Endpoints::from_env(), contact, None).with_openalex_key(key);
    Lookup::new(options).map_err(|e| CommandError::new(ErrorKind::Internal, "lookup_setup", e))
}
