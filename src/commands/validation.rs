//! Screening validation for the CLI and the app: propose a sample to label
//! blind (and extend it where a claim needs more labels), apply or reset the
//! cut-offs it supports, and say what the labels given so far show.

use std::path::PathBuf;

use serde::Serialize;

use super::{CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::review::EngineKind;
use crate::review::inputs::InputsFile;
use crate::review::outputs::ReviewFiles;
use crate::review::report::title_of;
use crate::review::validation::{self, Assessment, ValidationFile};
use crate::workspace::Workspace;
use crate::workspace::records::now_rfc3339;

/// What the CLI and the app ask: a missing field reads as "leave it".
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ValidateParams {
    pub workspace: PathBuf,
    /// Propose a new sample of this many papers (replacing the last one).
    pub sample: Option<usize>,
    /// The recall the cut-offs are calibrated to (default 0.95).
    pub target: Option<f64>,
    /// Draw into the sample the further labels the assessment asks for.
    pub extend: bool,
    /// Apply the cut-offs the labels support: the verdicts shown follow them.
    pub apply: bool,
    /// Go back to the default cut-offs.
    pub reset: bool,
}

/// A paper of the sample still to label: its id and title, never its score
/// (labelling is blind).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ToLabel {
    pub id: String,
    pub title: String,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ValidationView {
    pub assessment: Assessment,
    pub to_label: Vec<ToLabel>,
    /// The report's screening-validation section, as it reads now.
    pub markdown: String,
}

/// Propose a sample when asked, then assess the engine on the labels given.
pub async fn validate(params: ValidateParams) -> Result<ValidationView, CommandError> {
    if let Some(target) = params.target
        && !(0.5..1.0).contains(&target)
    {
        return Err(CommandError::invalid(
            "bad_target",
            format!("a target recall is above 0.5 and below 1, not {target}"),
        ));
    }
    if params.apply && params.reset {
        return Err(CommandError::invalid(
            "apply_and_reset",
            "apply the calibrated cut-offs or reset to the defaults, not both",
        ));
    }
    if params.sample == Some(0) {
        return Err(CommandError::invalid(
            "bad_sample",
            "a sample has at least one paper",
        ));
    }
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let engine = ws
            .runs()?
            .last()
            .and_then(|run| EngineKind::parse(&run.engine))
            .ok_or_else(|| {
                CommandError::new(
                    ErrorKind::InvalidInput,
                    "not_reviewed",
                    "this workspace has no review yet; run one before validating it",
                )
            })?;
        let inputs = InputsFile::load(&ws)?;
        let mut file = ValidationFile::load(&ws)?;
        file.follow(&inputs);
        if let Some(target) = params.target {
            file.target = Some(target);
        }
        if let Some(size) = params.sample {
            let files = ReviewFiles::read(&ws, engine)?;
            let target = file.target();
            validation::new_sample(&files.results, &mut file, size, target);
        }
        if params.reset {
            file.applied = None;
            file.stale_applied = None;
        }
        if params.extend {
            let files = ReviewFiles::read(&ws, engine)?;
            validation::extend_sample(&files.results, &files.labels, &mut file)
                .map_err(|why| CommandError::invalid("cannot_extend", why))?;
        }
        if params.apply {
            let files = ReviewFiles::read(&ws, engine)?;
            validation::apply(&files.results, &files.labels, &mut file, &inputs)
                .map_err(|why| CommandError::invalid("too_few_labels", why))?;
        }
        let changed = params.sample.is_some() || params.target.is_some();
        if changed || params.extend || params.apply || params.reset {
            file.save(&ws)?;
        }
        let files = ReviewFiles::read(&ws, engine)?;
        if params.apply || params.reset {
            // The report and exports on disk show verdicts by the new cut-offs now.
            files.write_all(&ws, &now_rfc3339())?;
        }
        let (assessment, markdown) = files.validation();
        let to_label = assessment
            .to_label
            .iter()
            .map(|id| ToLabel {
                id: id.clone(),
                title: files
                    .papers
                    .iter()
                    .find(|p| &p.id.0 == id)
                    .map_or_else(|| id.clone(), title_of),
            })
            .collect();
        Ok(ValidationView {
            assessment,
            to_label,
            markdown,
        })
    })
    .await
}
