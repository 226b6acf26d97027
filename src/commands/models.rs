//! Choosing and reaching a model: resolve a settings profile (or a local
//! Ollama when nothing is configured), find its key, build the client, and
//! record its calls in a workspace and the index.

use super::ErrorKind;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;

use super::{AppContext, CommandError};
use crate::llm::ModelSettings;
use crate::llm::accounting::CallLog;
use crate::llm::call_file::FileCallLog;
use crate::llm::discovery::{EndpointCheck, check_endpoints, detect_ollama, list_models};
use crate::llm::secrets::{ApiKey, KeySource, resolve_key};
use crate::llm::settings::{SettingsError, SettingsFile};
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
    /// The models the endpoint lists.
    pub async fn models(&self) -> Result<Vec<String>, CommandError> {
        Ok(list_models(&self.settings, self.key.as_ref().map(|k| &k.0)).await?)
    }
}

/// What `quire models` shows of a profile.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelListing {
    pub profile: String,
    pub base_url: String,
    pub configured_model: String,
    /// Where the key came from, never the key.
    pub key_source: Option<String>,
    pub models: Vec<String>,
    /// A pool's endpoints, each as it answered (empty for one endpoint).
    pub endpoints: Vec<EndpointCheck>,
}

pub async fn models_list(
    config_dir: PathBuf,
    profile: Option<&str>,
) -> Result<ModelListing, CommandError> {
    let resolved = resolve_model(config_dir, profile).await?;
    let (models, endpoints) = if resolved.settings.pool.is_empty() {
        (resolved.models().await?, Vec::new())
    } else {
        pool_listing(&resolved).await?
    };
    Ok(ModelListing {
        profile: resolved.profile.clone(),
        base_url: resolved.settings.base_url.clone(),
        configured_model: resolved.settings.model.clone(),
        key_source: resolved.key.as_ref().map(|(_, source)| source.to_string()),
        models,
        endpoints,
    })
}

/// Every endpoint of a pool asked at once: the models of the first that
/// answered, and what each said. Only none answering is an error.
async fn pool_listing(
    resolved: &ResolvedModel,
) -> Result<(Vec<String>, Vec<EndpointCheck>), CommandError> {
    let checks = check_endpoints(&resolved.settings, resolved.key.as_ref().map(|k| &k.0)).await;
    let Some((_, models)) = checks.iter().find(|(check, _)| check.reached) else {
        let each: Vec<String> = checks
            .iter()
            .map(|(c, _)| format!("{}: {}", c.endpoint, c.problem.as_deref().unwrap_or("")))
            .collect();
        return Err(CommandError::new(
            ErrorKind::ModelSetup,
            "pool_unreachable",
            format!("no endpoint of the pool answered ({})", each.join("; ")),
        ));
    };
    let models = models.clone();
    Ok((models, checks.into_iter().map(|(check, _)| check).collect()))
}

/// Records a workspace's model calls in its `model-calls.jsonl` and in the
/// index, on a writer thread of its own so no call waits for an fsync or for
/// SQLite. A failed index write marks the index stale (rebuilt from the files
/// on next use); a failed file write is logged, never fatal to the call.
pub struct WorkspaceCallLog {
    file: Arc<FileCallLog>,
}

impl WorkspaceCallLog {
    pub fn new(workspace: Arc<Workspace>, ctx: AppContext) -> Result<Self, CommandError> {
        let workspace_id = workspace.task()?.id.0;
        let lines = workspace.model_calls()?.len() as u64;
        let mirror = move |seq: u64, call: &ModelCallRecord| {
            let indexed =
                ctx.with_index(|index| Ok(index.record_model_call(&workspace_id, seq, call)?));
            if let Err(e) = indexed {
                tracing::warn!(error = %e, "could not record a model call in the index");
                ctx.mark_index_stale();
            }
        };
        Ok(Self {
            file: FileCallLog::start_with((*workspace).clone(), lines, Some(Box::new(mirror))),
        })
    }

    /// Wait until every call recorded so far is in the file and the index.
    /// Blocking.
    pub fn flush(&self) {
        self.file.flush();
    }
}

impl CallLog for WorkspaceCallLog {
    fn record(&self, call: &ModelCallRecord) {
        self.file.record(call);
    }
}

/// The model a review would use now.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ActiveModel {
    pub profile: String,
    pub model: String,
    pub base_url: String,
    /// True when no profile is configured and a local Ollama was found.
    pub detected: bool,
}

/// A profile as the settings screen shows it: its settings and where its key
/// comes from, never the key.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ProfileView {
    pub name: String,
    pub settings: ModelSettings,
    pub key_source: Option<String>,
}

/// Everything the model settings screen needs.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelSetup {
    /// `None`: no model, so reviews use the offline engine.
    pub active: Option<ActiveModel>,
    pub profiles: Vec<ProfileView>,
    pub default_profile: Option<String>,
    pub settings_path: String,
    /// What a new profile starts from.
    pub defaults: ModelSettings,
}

pub async fn model_setup(ctx: &AppContext) -> Result<ModelSetup, CommandError> {
    let config_dir = ctx.paths().config_dir.clone();
    let file = SettingsFile::load(&config_dir)?;
    let active = match file.profile(&config_dir, None) {
        Ok((profile, settings)) => Some(ActiveModel {
            profile,
            model: settings.model,
            base_url: settings.base_url,
            detected: false,
        }),
        Err(SettingsError::NoProfile { .. }) => detect_ollama()
            .await
            .filter(|(_, models)| !models.is_empty())
            .map(|(settings, _)| ActiveModel {
                profile: OLLAMA_PROFILE.to_owned(),
                model: settings.model,
                base_url: settings.base_url,
                detected: true,
            }),
        // A broken default is shown as no model; the screen lists the profiles
        // and saving one fixes it.
        Err(_) => None,
    };
    let profiles = {
        let (file, dir) = (file.clone(), config_dir.clone());
        tokio::task::spawn_blocking(move || {
            file.profiles
                .iter()
                .map(|(name, settings)| ProfileView {
                    name: name.clone(),
                    settings: settings.clone(),
                    key_source: resolve_key(name, settings, &dir)
                        .ok()
                        .flatten()
                        .map(|(_, source)| source.to_string()),
                })
                .collect::<Vec<_>>()
        })
        .await
        .map_err(CommandError::internal)?
    };
    Ok(ModelSetup {
        active,
        profiles,
        default_profile: file.default.clone(),
        settings_path: config_dir
            .join(crate::llm::settings::SETTINGS_FILE)
            .to_string_lossy()
            .into_owned(),
        defaults: ModelSettings::default(),
    })
}

#[derive(Clone, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
// What the command accepts: a missing Option field reads as None.
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = nullable))]
pub struct ModelProfileSaveParams {
    pub name: String,
    pub settings: ModelSettings,
    /// A new key to store; `None` or empty keeps the stored one.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Make this the profile reviews use.
    #[serde(default)]
    pub make_default: bool,
}

/// The key as `***`: parameters are logged and shown in errors.
impl std::fmt::Debug for ModelProfileSaveParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelProfileSaveParams")
            .field("name", &self.name)
            .field("settings", &self.settings)
            .field("api_key", &self.api_key.as_ref().map(|_| "***"))
            .field("make_default", &self.make_default)
            .finish()
    }
}

/// Add or replace a profile (and its key), then show the new setup.
pub async fn model_profile_save(
    ctx: &AppContext,
    params: ModelProfileSaveParams,
) -> Result<ModelSetup, CommandError> {
    let name = params.name.trim().to_owned();
    let valid_name = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid_name {
        return Err(CommandError::new(
            ErrorKind::ModelSetup,
            "model_settings_invalid",
            "a profile name is 1 to 64 letters, digits, - or _",
        ));
    }
    params.settings.validate()?;
    let config_dir = ctx.paths().config_dir.clone();
    let key = params
        .api_key
        .filter(|k| !k.trim().is_empty())
        .map(ApiKey::new);
    let saved_name = name.clone();
    tokio::task::spawn_blocking(move || -> Result<(), CommandError> {
        let mut file = SettingsFile::load(&config_dir)?;
        file.profiles.insert(name.clone(), params.settings);
        if params.make_default || file.default.is_none() {
            file.default = Some(name.clone());
        }
        file.save(&config_dir)?;
        if let Some(key) = key {
            crate::llm::secrets::store_key(&name, &key, &config_dir)?;
        }
        Ok(())
    })
    .await
    .map_err(CommandError::internal)??;
    tracing::info!(profile = %saved_name, "model profile saved");
    model_setup(ctx).await
}

/// Reach a profile's endpoint and list its models: the settings screen's
/// "Test connection".
pub async fn model_profile_check(
    ctx: &AppContext,
    profile: Option<String>,
) -> Result<ModelListing, CommandError> {
    models_list(ctx.paths().config_dir.clone(), profile.as_deref()).await
}
