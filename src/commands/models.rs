//! Choosing and reaching a model: resolve a settings profile (or a local
//! Ollama when nothing is configured), find its key, build the client, and
//! record its calls in a workspace and the index.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::Serialize;

use super::{AppContext, CommandError};
use crate::llm::accounting::{CallLog, PriceTable};
use crate::llm::discovery::{detect_ollama, list_models};
use crate::llm::secrets::{ApiKey, KeySource, resolve_key};
use crate::llm::settings::{SettingsError, SettingsFile};
use crate::llm::{HttpProvider, ModelClient, ModelSettings};
use crate::workspace::{ModelCallRecord, Workspace};

/// The profile name used for an auto-detected local Ollama.
pub const OLLAMA_PROFILE: &str = "ollama";

/// A profile ready to use.
pub struct ResolvedModel {
    pub profile: String,
    pub settings: ModelSettings,
    pub key: Option<(ApiKey, KeySource)>,
    pub config_dir: PathBuf,
}

/// The named profile, else the default one, else a running local Ollama.
pub async fn resolve_model(
    config_dir: PathBuf,
    profile: Option<&str>,
) -> Result<ResolvedModel, CommandError> {
    let file = SettingsFile::load(&config_dir)?;
    let (profile, settings) = match file.profile(&config_dir, profile) {
        Ok(found) => found,
        Err(SettingsError::NoProfile { path }) => match detect_ollama().await {
            Some((settings, models)) if !models.is_empty() => {
                tracing::info!(model = %settings.model, "using the local Ollama");
                (OLLAMA_PROFILE.to_owned(), settings)
            }
            _ => return Err(SettingsError::NoProfile { path }.into()),
        },
        Err(e) => return Err(e.into()),
    };
    let key = {
        let (profile, settings, dir) = (profile.clone(), settings.clone(), config_dir.clone());
        tokio::task::spawn_blocking(move || resolve_key(&profile, &settings, &dir))
            .await
            .map_err(CommandError::internal)??
    };
    Ok(ResolvedModel {
        profile,
        settings,
        key,
        config_dir,
    })
}

impl ResolvedModel {
    /// A client for this profile, with the price table from the config folder.
    pub fn client(&self) -> Result<ModelClient, CommandError> {
        let provider = HttpProvider::new(
            self.settings.clone(),
            self.key.as_ref().map(|k| k.0.clone()),
        )?;
        let prices = PriceTable::load(&self.config_dir)?;
        Ok(ModelClient::new(self.profile.clone(), provider, prices))
    }

    /// The models the endpoint lists.
    pub async fn models(&self) -> Result<Vec<String>, CommandError> {
        Ok(list_models(&self.settings, self.key.as_ref().map(|k| &k.0)).await?)
    }
}

/// What `quire models` shows of a profile.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelListing {
    pub profile: String,
    pub base_url: String,
    pub configured_model: String,
    /// Where the key came from, never the key.
    pub key_source: Option<String>,
    pub models: Vec<String>,
}

pub async fn models_list(
    config_dir: PathBuf,
    profile: Option<&str>,
) -> Result<ModelListing, CommandError> {
    let resolved = resolve_model(config_dir, profile).await?;
    let models = resolved.models().await?;
    Ok(ModelListing {
        profile: resolved.profile.clone(),
        base_url: resolved.settings.base_url.clone(),
        configured_model: resolved.settings.model.clone(),
        key_source: resolved.key.as_ref().map(|(_, source)| source.to_string()),
        models,
    })
}

/// Records a workspace's model calls in its `model-calls.jsonl` and in the
/// index. A failed index write marks the index stale (rebuilt from the files
/// on next use); a failed file write is logged, never fatal to the call.
pub struct WorkspaceCallLog {
    workspace: Arc<Workspace>,
    workspace_id: String,
    ctx: AppContext,
    /// Lines in the workspace's log so far; held while a call is written so
    /// the file and the index agree on each line's number.
    lines: Mutex<u64>,
}

impl WorkspaceCallLog {
    pub fn new(workspace: Arc<Workspace>, ctx: AppContext) -> Result<Self, CommandError> {
        let workspace_id = workspace.task()?.id.0;
        let lines = workspace.model_calls()?.len() as u64;
        Ok(Self {
            workspace,
            workspace_id,
            ctx,
            lines: Mutex::new(lines),
        })
    }
}

impl CallLog for WorkspaceCallLog {
    fn record(&self, call: &ModelCallRecord) {
        let mut lines = self.lines.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = self.workspace.log_model_call(call) {
            tracing::warn!(error = %e, "could not log a model call in the workspace");
            return;
        }
        *lines += 1;
        let seq = *lines;
        let indexed = self
            .ctx
            .with_index(|index| Ok(index.record_model_call(&self.workspace_id, seq, call)?));
        if let Err(e) = indexed {
            tracing::warn!(error = %e, "could not record a model call in the index");
            self.ctx.mark_index_stale();
        }
    }
}
