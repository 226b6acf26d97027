//! The protocol gate of `quire review --engine agent`: a question with no
//! approved protocol gets a draft, printed for the researcher, and no paper
//! is read until they approve it (`--approve HASH`, or bare for the draft
//! an earlier run printed) or give their own text (`--protocol FILE`). A
//! draft is never drafted and approved in one run: a script cannot approve
//! a text nobody was shown.

use std::path::{Path, PathBuf};

use quire::commands::protocol::{
    ProtocolParams, ProtocolView, protocol_approve, protocol_draft, protocol_show,
};
use quire::commands::reviews::ReviewParams;
use quire::commands::{AppContext, CommandError, ErrorKind};
use quire::review::protocol::{Origin, Version};

/// The approved protocol the run reads by, or `None` when it awaits
/// approval (the draft has been printed).
pub(crate) async fn settle(
    ctx: &AppContext,
    review: &ReviewParams,
    workspace: PathBuf,
    approve: Option<&str>,
    file: Option<&Path>,
    json: bool,
) -> Result<Option<Version>, CommandError> {
    let params = ProtocolParams {
        workspace,
        question: review.spec.question.clone(),
        criteria: review.spec.criteria.clone(),
        profile: review.profile.clone(),
        text: None,
    };
    if let Some(file) = file {
        let text = std::fs::read_to_string(file).map_err(|e| {
            CommandError::new(
                ErrorKind::InvalidInput,
                "protocol_unreadable",
                format!("cannot read the protocol file {}: {e}", file.display()),
            )
        })?;
        let view = protocol_approve(ProtocolParams {
            text: Some(text),
            ..params
        })
        .await?;
        return Ok(view.approved);
    }
    let mut view = protocol_show(params.clone()).await?;
    if let Some(hash) = approve {
        let Some(draft) = view.draft.clone() else {
            if view.approved.is_some() && hash.is_empty() {
                // Nothing pending: the approved protocol stands.
                return Ok(view.approved);
            }
            // Nothing shown yet: draft it and show it; approving waits.
            view = protocol_draft(ctx, params).await?;
            print_draft(&view, json, true)?;
            return Ok(None);
        };
        let wanted = hash.trim().to_ascii_lowercase();
        if !wanted.is_empty() && (wanted.len() < 6 || !draft.hash.starts_with(&wanted)) {
            return Err(CommandError::new(
                ErrorKind::InvalidInput,
                "protocol_mismatch",
                format!(
                    "the draft awaiting approval is {}, not {hash:?}: read it (run without --approve) and approve it by its hash",
                    draft.hash
                ),
            ));
        }
        view = protocol_approve(ProtocolParams {
            text: Some(draft.text),
            ..params
        })
        .await?;
        return Ok(view.approved);
    }
    if view.approved.is_some() {
        if view.draft.is_some() && !json {
            eprintln!(
                "note: a newer draft of the protocol awaits approval; this run reads by the approved one (--approve approves the draft)"
            );
        }
        return Ok(view.approved);
    }
    if view.draft.is_none() {
        view = protocol_draft(ctx, params).await?;
    }
    print_draft(&view, json, true)?;
    Ok(None)
}

/// The draft on stdout (the view as JSON with `--json`); what to do next on
/// stderr.
fn print_draft(view: &ProtocolView, json: bool, awaiting: bool) -> Result<(), CommandError> {
    if json {
        return super::print_json(view);
    }
    let Some(draft) = &view.draft else {
        return Ok(());
    };
    if let Some(note) = &draft.note {
        eprintln!("note: {note}");
    }
    outln!("{}", draft.text.trim());
    if awaiting {
        eprintln!(
            "\nThis is the review's protocol as drafted ({}, {}). No paper has been read.\nEvery paper will be read and judged by it. Approve it with --approve {}, or save it, edit it and give it with --protocol FILE.",
            draft.hash,
            origin_words(draft),
            draft.hash
        );
    }
    Ok(())
}

/// Who wrote a version, in words.
pub(crate) fn origin_words(version: &Version) -> String {
    match (version.origin, &version.model) {
        (Origin::Drafted, Some(model)) => format!("drafted by {model}"),
        (Origin::Drafted, None) => "drafted by the model".into(),
        (Origin::Template, _) => "Quire's template".into(),
        (Origin::Researcher, _) => "the researcher's text".into(),
    }
}
