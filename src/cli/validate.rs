//! `quire validate`: check the engine's screening against your own labels.
//! Proposes a sample to label blind (`quire label`), then prints what the
//! sample's labels show for the whole review: recall with its interval,
//! WSS@95, kappa on the sample, lost papers, the cut-offs the sample
//! supports and whether it supports automatic exclusion (if not, how many
//! more labels and where; `--extend` draws them). `--apply` puts the
//! cut-offs in force, `--reset` takes them back.

use std::path::PathBuf;

use clap::Args;
use quire::commands::CommandError;
use quire::commands::validation::{ValidateParams, validate};

#[derive(Args)]
pub(crate) struct ValidateArgs {
    /// The review's workspace.
    workspace: PathBuf,
    /// Propose a new validation sample of this many papers (default size 30
    /// when given without a number), spread across the score range.
    #[arg(long, num_args = 0..=1, default_missing_value = "30")]
    sample: Option<usize>,
    /// The recall the cut-offs are calibrated to (default 0.95).
    #[arg(long)]
    target: Option<f64>,
    /// Draw into the sample the further labels the assessment says a claim
    /// needs, in the score bands it names.
    #[arg(long, conflicts_with = "sample")]
    extend: bool,
    /// Apply the cut-offs your labels support (at the target recall); the
    /// report, exports and app then show verdicts by them. result.json keeps
    /// the engine's own verdict.
    #[arg(long, conflicts_with = "reset")]
    apply: bool,
    /// Go back to the default cut-offs (include from 6.5, maybe from 4.0).
    #[arg(long)]
    reset: bool,
    /// Print the assessment as JSON.
    #[arg(long)]
    json: bool,
}

pub(crate) async fn run(args: ValidateArgs) -> Result<(), CommandError> {
    let view = validate(ValidateParams {
        workspace: args.workspace.clone(),
        sample: args.sample,
        target: args.target,
        extend: args.extend,
        apply: args.apply,
        reset: args.reset,
    })
    .await?;
    if args.json {
        return super::print_json(&view);
    }
    if !view.to_label.is_empty() {
        outln!(
            "To label ({} of the sample; the engine's score is not shown, so your call is your own):",
            view.to_label.len()
        );
        for paper in &view.to_label {
            outln!("  {}  {}", paper.id, paper.title);
        }
        outln!(
            "Label each with: quire label {} ID --verdict include|maybe|exclude\n",
            args.workspace.display()
        );
    } else if view.assessment.sample_size == 0 {
        outln!(
            "No validation sample yet: `quire validate {} --sample` proposes one.\n",
            args.workspace.display()
        );
    }
    out!("{}", view.markdown);
    Ok(())
}
