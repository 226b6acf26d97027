//! The review's protocol from a host: show where it stands for a question,
//! have the model draft it, approve the researcher's text, and hand the
//! approved text to an agent review, which never starts without one.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::run_model::RunModel;
use super::{AppContext, CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::llm::call_file::FileCallLog;
use crate::review::protocol::{self, Pilot, ProtocolFile, Version};
use crate::review::{EngineKind, ReviewSpec};
use crate::workspace::Workspace;

/// Which protocol: the workspace's, for a question and its criteria.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ProtocolParams {
    pub workspace: PathBuf,
    pub question: String,
    #[serde(default)]
    pub criteria: Vec<String>,
    /// The model profile that drafts (default: the configured one).
    #[serde(default)]
    pub profile: Option<String>,
    /// The text to approve.
    #[serde(default)]
    pub text: Option<String>,
}

impl ProtocolParams {
    fn spec(&self) -> ReviewSpec {
        ReviewSpec {
            question: self.question.trim().to_owned(),
            criteria: self
                .criteria
                .iter()
                .map(|c| c.trim().to_owned())
                .filter(|c| !c.is_empty())
                .collect(),
            engine: EngineKind::Agent,
            protocol: None,
        }
    }
}

/// Where the protocol for a question stands.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProtocolView {
    /// The approval in force for this question and criteria.
    pub approved: Option<Version>,
    /// A draft awaiting approval.
    pub draft: Option<Version>,
    /// Every draft and approval for this question and criteria, oldest first.
    pub history: Vec<Version>,
    /// The pilots run under the approved text.
    pub pilots: Vec<Pilot>,
}

fn view_of(file: &ProtocolFile, spec: &ReviewSpec) -> ProtocolView {
    let approved = file.approved_for(spec).cloned();
    let pilots = approved
        .as_ref()
        .map(|a| file.pilots_under(&a.hash).cloned().collect())
        .unwrap_or_default();
    ProtocolView {
        draft: file.draft_for(spec).cloned(),
        history: file
            .history
            .iter()
            .filter(|v| v.question == spec.question && v.criteria == spec.criteria)
            .cloned()
            .collect(),
        approved,
        pilots,
    }
}

fn check_question(spec: &ReviewSpec) -> Result<(), CommandError> {
    if spec.question.is_empty() {
        return Err(CommandError::invalid(
            "empty_question",
            "the review question is empty",
        ));
    }
    Ok(())
}

/// Where the protocol for the params' question stands.
pub async fn protocol_show(params: ProtocolParams) -> Result<ProtocolView, CommandError> {
    let spec = params.spec();
    blocking(move || {
        let ws = Workspace::open_read_only(&params.workspace)?;
        Ok(view_of(&ProtocolFile::load(&ws)?, &spec))
    })
    .await
}

/// Have the model draft the protocol (Quire's template stands in for an
/// answer that cannot serve, and says so); the draft is kept, not approved.
pub async fn protocol_draft(
    ctx: &AppContext,
    params: ProtocolParams,
) -> Result<ProtocolView, CommandError> {
    let spec = params.spec();
    check_question(&spec)?;
    let model = RunModel::prepare(ctx, params.profile.as_deref(), &Default::default()).await?;
    let root = params.workspace.clone();
    let ws = blocking(move || Ok::<_, CommandError>(Workspace::open(&root)?)).await?;
    // The draft's call is logged with the review's other calls.
    let calls = FileCallLog::start(ws.clone());
    let client = model.client(Some(calls.clone()));
    let drafted = protocol::draft(&client, &spec, &CancellationToken::new()).await;
    blocking(move || {
        calls.close();
        let draft = drafted?;
        let mut file = ProtocolFile::load(&ws)?;
        file.record_draft(&spec, draft);
        file.save(&ws)?;
        Ok(view_of(&file, &spec))
    })
    .await
}

/// Approve the params' text as the protocol for their question; every paper
/// is read by it from the next run on.
pub async fn protocol_approve(params: ProtocolParams) -> Result<ProtocolView, CommandError> {
    let spec = params.spec();
    check_question(&spec)?;
    let Some(text) = params.text.clone() else {
        return Err(CommandError::invalid(
            "no_protocol_text",
            "give the protocol's text to approve",
        ));
    };
    blocking(move || {
        let ws = Workspace::open(&params.workspace)?;
        let mut file = ProtocolFile::load(&ws)?;
        file.approve(&spec, &text)
            .map_err(|e| CommandError::invalid("bad_protocol", e.to_string()))?;
        file.save(&ws)?;
        Ok(view_of(&file, &spec))
    })
    .await
}

/// The approved protocol for an agent review of `spec` in `workspace`: the
/// run reads every paper by it, and does not start without it.
pub(crate) fn approved_protocol(
    workspace: &std::path::Path,
    spec: &ReviewSpec,
) -> Result<crate::review::ApprovedProtocol, CommandError> {
    let file = match Workspace::open_read_only(workspace) {
        Ok(ws) => ProtocolFile::load(&ws)?,
        Err(crate::workspace::WorkspaceError::NotFound { .. }) => ProtocolFile::default(),
        Err(e) => return Err(e.into()),
    };
    file.approved(spec).ok_or_else(|| {
        CommandError::new(
            ErrorKind::InvalidInput,
            "protocol_not_approved",
            "an agent review reads no paper before its protocol is approved: draft it, edit it if need be, and approve it (CLI: run without --approve to see the draft, then --approve, or --protocol FILE)",
        )
    })
}
