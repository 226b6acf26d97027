//! OpenAlex's API key and the day's allowance, for Settings and `quire
//! openalex`. Since February 2026 OpenAlex gives a cent a day without a key
//! and a dollar a day with a free one. The key is kept like a model
//! profile's (the OS secret store, else `keys.toml` at mode 600), is read
//! for each run's lookups, and never crosses back to the UI: Settings learns
//! only where it is kept and what the allowance is.

use serde::{Deserialize, Serialize};

use super::context::AppContext;
use super::error::{CommandError, ErrorKind};
use crate::llm::secrets::{
    ApiKey, KeySource, delete_service_key, resolve_service_key, store_service_key,
};
use crate::scholar::{Allowance, Endpoints, Lookup, LookupOptions};

/// The key's name among the web services' keys.
const SERVICE: &str = "openalex";
/// The environment variable that, when set, is the key (and wins).
pub const KEY_ENV: &str = "QUIRE_OPENALEX_API_KEY";

/// Where OpenAlex's key is kept and what is left of today's allowance.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenAlexStatus {
    /// Where the key is kept ("the OS secret store", the key file's path,
    /// "environment variable …"); `None` without a key.
    pub key_source: Option<String>,
    /// Whether the key comes from the environment (Settings cannot replace it).
    pub from_env: bool,
    /// Today's allowance, when it was asked and OpenAlex told it.
    pub allowance: Option<Allowance>,
    /// Why the allowance is not known: offline, unreachable, a refused key.
    pub problem: Option<String>,
}

/// `openalex_key_save`'s parameters: the key as typed.
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OpenAlexKeyParams {
    pub key: String,
}

/// The key as `***`: parameters are logged and shown in errors.
impl std::fmt::Debug for OpenAlexKeyParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenAlexKeyParams")
            .field("key", &"***")
            .finish()
    }
}

/// The key runs use, if one is set. Blocking (the secret store is a D-Bus
/// call); a store that fails reads as no key, so lookups go on without one.
pub fn openalex_key(ctx: &AppContext) -> Option<ApiKey> {
    match resolve_service_key(SERVICE, KEY_ENV, &ctx.paths().config_dir) {
        Ok(found) => found.map(|(key, _)| key),
        Err(e) => {
            tracing::warn!(error = %e, "OpenAlex's key cannot be read; asking without it");
            None
        }
    }
}

/// Where the key is kept, and with `check`, today's allowance (one free
/// request to OpenAlex).
pub async fn openalex_status(
    ctx: &AppContext,
    check: bool,
) -> Result<OpenAlexStatus, CommandError> {
    let config_dir = ctx.paths().config_dir.clone();
    let found =
        tokio::task::spawn_blocking(move || resolve_service_key(SERVICE, KEY_ENV, &config_dir))
            .await
            .map_err(CommandError::internal)??;
    let (key, source) = match found {
        Some((key, source)) => (Some(key), Some(source)),
        None => (None, None),
    };
    let mut status = OpenAlexStatus {
        key_source: source.as_ref().map(ToString::to_string),
        from_env: matches!(source, Some(KeySource::Env(_))),
        allowance: None,
        problem: None,
    };
    if !check {
        return Ok(status);
    }
    if crate::net::offline_forced() {
        status.problem = Some("Quire is offline (QUIRE_OFFLINE), so OpenAlex was not asked".into());
        return Ok(status);
    }
    let contact = std::env::var("QUIRE_CONTACT_EMAIL").ok();
    let options = LookupOptions::new(Endpoints::from_env(), contact, None).with_openalex_key(key);
    let lookup = Lookup::new(options)
        .map_err(|e| CommandError::new(ErrorKind::Internal, "lookup_setup", e))?;
    match lookup.openalex_allowance().await {
        Ok(allowance) => status.allowance = Some(allowance),
        Err(problem) => status.problem = Some(problem),
    }
    Ok(status)
}

/// Save the key (replacing any), then check it against OpenAlex.
pub async fn openalex_key_save(
    ctx: &AppContext,
    params: OpenAlexKeyParams,
) -> Result<OpenAlexStatus, CommandError> {
    let key = ApiKey::new(params.key);
    if key.expose().is_empty() || key.expose().chars().any(char::is_whitespace) {
        return Err(CommandError::new(
            ErrorKind::InvalidInput,
            "api_key_invalid",
            "an OpenAlex API key is one word with no spaces (openalex.org/settings/api)",
        ));
    }
    let config_dir = ctx.paths().config_dir.clone();
    let kept = tokio::task::spawn_blocking(move || store_service_key(SERVICE, &key, &config_dir))
        .await
        .map_err(CommandError::internal)??;
    tracing::info!(kept_in = %kept, "OpenAlex API key saved");
    openalex_status(ctx, true).await
}

/// Remove the saved key (one from the environment stays).
pub async fn openalex_key_remove(ctx: &AppContext) -> Result<OpenAlexStatus, CommandError> {
    let config_dir = ctx.paths().config_dir.clone();
    let removed = tokio::task::spawn_blocking(move || delete_service_key(SERVICE, &config_dir))
        .await
        .map_err(CommandError::internal)??;
    tracing::info!(removed, "OpenAlex API key removed");
    openalex_status(ctx, false).await
}
