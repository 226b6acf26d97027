//! `quire snowball REVIEW`: citation searching from a review's included
//! papers (or `--seed` ones), backward and forward in OpenAlex. The plan is
//! printed first (seeds, calls, cost, today's allowance); `--plan` stops
//! there. The round's new works join the review as records, screened by the
//! next `quire review`. Nothing is downloaded until approved: `--copies`
//! lists the open copies of the kept records (host, version, licence), and
//! `--fetch PAPER` fetches the ones named.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use quire::commands::snowball::{
    CopiesParams, FetchParams, SnowballParams, snowball_copies, snowball_fetch, snowball_plan,
    snowball_run,
};
use quire::commands::{AppContext, AppPaths, CommandError};
use quire::review::snowball::copies::{CopyOffer, FetchOutcome};
use quire::review::snowball::{Plan, RoundSummary};
use quire::workspace::Direction;

use super::print_json;

#[derive(Args)]
pub struct SnowballArgs {
    /// The review's workspace folder.
    workspace: PathBuf,
    /// A seed paper, by id or the start of it (repeatable); without any, the
    /// papers the review includes that no earlier round followed.
    #[arg(long = "seed")]
    seeds: Vec<String>,
    /// Follow only this way (default: both).
    #[arg(long, value_enum)]
    direction: Option<Way>,
    /// Print the plan and stop: no paid call is made.
    #[arg(long)]
    plan: bool,
    /// List the open-access copies of the records found by citation
    /// searching that the review keeps without full text; fetch nothing.
    #[arg(long, conflicts_with_all = ["plan", "fetch"])]
    copies: bool,
    /// Fetch this record's open copy as its full text (repeatable): your
    /// approval of the download.
    #[arg(long = "fetch", conflicts_with = "plan")]
    fetch: Vec<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum Way {
    /// The works the seeds cite.
    Backward,
    /// The works citing the seeds.
    Forward,
}

pub async fn run(args: SnowballArgs) -> Result<(), CommandError> {
    let ctx = AppContext::new(AppPaths::from_env()?);
    if args.copies {
        let offers = snowball_copies(CopiesParams {
            workspace: args.workspace,
            contact: None,
        })
        .await?;
        return if args.json {
            print_json(&offers)
        } else {
            print_offers(&offers);
            Ok(())
        };
    }
    if !args.fetch.is_empty() {
        let outcomes = snowball_fetch(
            &ctx,
            FetchParams {
                workspace: args.workspace,
                papers: args.fetch,
                contact: None,
            },
        )
        .await?;
        return if args.json {
            print_json(&outcomes)
        } else {
            print_fetched(&outcomes);
            Ok(())
        };
    }
    let params = SnowballParams {
        workspace: args.workspace,
        seeds: (!args.seeds.is_empty()).then_some(args.seeds),
        directions: match args.direction {
            Some(Way::Backward) => vec![Direction::Backward],
            Some(Way::Forward) => vec![Direction::Forward],
            None => Vec::new(),
        },
    };
    if args.plan {
        let plan = snowball_plan(&ctx, params).await?;
        return if args.json {
            print_json(&plan)
        } else {
            print_plan(&plan);
            Ok(())
        };
    }
    // Planned and run in one go: the seeds are looked up once.
    let summary = snowball_run(&ctx, params).await?;
    if args.json {
        return print_json(&summary);
    }
    print_plan(&summary.plan);
    print_round(&summary);
    Ok(())
}

fn print_plan(plan: &Plan) {
    outln!(
        "Citation searching, round {}: {} seed{}",
        plan.round,
        plan.seeds.len(),
        plural(plan.seeds.len())
    );
    for seed in &plan.seeds {
        let title = seed.title.as_deref().unwrap_or("(untitled)");
        match (&seed.openalex, &seed.not_followed) {
            (Some(id), _) => outln!(
                "  {}  {title}  [{id}: {} references, cited by {}]",
                seed.paper.0,
                seed.references,
                seed.cited_by
            ),
            (None, why) => outln!(
                "  {}  {title}  [not followed: {}]",
                seed.paper.0,
                why.as_deref().unwrap_or("unknown")
            ),
        }
    }
    let ways: Vec<&str> = plan.directions.iter().map(|d| d.as_str()).collect();
    outln!(
        "Directions: {}. Calls to OpenAlex: {} backward ({} references not in the review, 100 a call), {} forward ({} citing works, 100 a page); lookups so far: {} free, {} search{}.",
        ways.join(" and "),
        plan.backward_calls,
        plan.references,
        plan.forward_calls,
        plan.citing,
        plan.planning.singleton,
        plan.planning.search,
        if plan.planning.search == 1 { "" } else { "es" },
    );
    let left = match plan.allowance {
        Some(a) => format!("${:.4} of ${:.4} left today", a.remaining_usd, a.limit_usd),
        None => "today's allowance not told".to_owned(),
    };
    outln!(
        "Cost: ${:.4} at OpenAlex's prices ({left}){}.",
        plan.cost_usd,
        match plan.affordable {
            Some(false) => "; not enough left: the round will stop when it runs out",
            _ => "",
        }
    );
    outln!("Downloads: none until you approve them.");
    for notice in &plan.notices {
        outln!("Note: {notice}");
    }
}

fn print_round(round: &RoundSummary) {
    outln!(
        "Round {}: {} work{} found, {} new (now records to screen: {} backward, {} forward), {} already in the review; {} with an open-access PDF listed.",
        round.round,
        round.found,
        plural(round.found),
        round.added,
        round.backward,
        round.forward,
        round.duplicates,
        round.open_copies,
    );
    outln!(
        "OpenAlex: {} list call{}, {} free lookup{}, {} search{}: ${:.4}. Kept in {}.",
        round.calls.list,
        plural(round.calls.list as usize),
        round.calls.singleton,
        plural(round.calls.singleton as usize),
        round.calls.search,
        if round.calls.search == 1 { "" } else { "es" },
        round.calls.cost_usd,
        round.file
    );
    if !round.complete {
        outln!("The round is incomplete.");
    }
    for notice in &round.notices {
        outln!("Note: {notice}");
    }
    if round.added > 0 {
        outln!("Screen them with `quire review` on this review, or in the app.");
    }
}

fn print_offers(offers: &[CopyOffer]) {
    if offers.is_empty() {
        outln!("No record found by citation searching is kept without full text.");
        return;
    }
    for o in offers {
        let title = o.title.as_deref().unwrap_or("(untitled)");
        outln!("{}  {title}", o.paper);
        if let Some(copy) = o.copy.as_ref().filter(|c| c.pdf_url.is_some()) {
            outln!(
                "    open copy ({}): {}, {}, licence {}",
                o.from.as_deref().unwrap_or("?"),
                copy.host.as_deref().unwrap_or("unnamed host"),
                copy.version.as_deref().unwrap_or("version not stated"),
                copy.licence.as_deref().unwrap_or("not stated"),
            );
        }
        if let Some(why) = &o.none_because {
            outln!("    no PDF to fetch: {why}");
        }
        if let Some(last) = &o.last_attempt {
            outln!(
                "    last attempt {}: {}",
                last.at,
                last.reason.as_deref().unwrap_or("retrieved")
            );
        }
    }
    outln!("Approve a download with `--fetch PAPER` (repeatable).");
}

fn print_fetched(outcomes: &[FetchOutcome]) {
    for o in outcomes {
        let title = o.title.as_deref().unwrap_or("(untitled)");
        match &o.retrieval.reason {
            None => outln!("{}  {title}: retrieved, now its full text", o.paper),
            Some(why) => outln!("{}  {title}: not retrieved: {why}", o.paper),
        }
    }
    let got = outcomes.iter().filter(|o| o.retrieval.retrieved).count();
    if got > 0 {
        outln!(
            "The next `quire review` reads the {got} retrieved PDF{}.",
            plural(got)
        );
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
