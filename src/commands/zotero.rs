//! A Zotero collection as a review: `quire zotero collections`, `quire review
//! --zotero COLLECTION` and the app's *Open a Zotero collection*. The
//! collection is read from the running Zotero (its local API) or, with Zotero
//! closed, from a private copy of its database ([`crate::zotero`]); it is
//! written as a snapshot in the data folder, which becomes the review's
//! source, so the same collection always opens the same review, brought up
//! to date with what Zotero holds.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::workspaces::{WorkspaceCreateParams, WorkspaceSummary, workspace_create};
use super::{AppContext, CommandError, ErrorKind};
use crate::blocking::blocking;
use crate::llm::secrets::{
    ApiKey, KeySource, delete_service_key, resolve_service_key, store_service_key,
};
use crate::review::zotero_push::{PushSummary, plan, push, record_written};
use crate::workspace::Workspace;
use crate::zotero::local_write::{LocalWrite, LocalWriteError, key_service};
use crate::zotero::web_api::{WebApi, WebError};
use crate::zotero::{self, Collection, Via, ZoteroError, ZoteroPlaces};

/// The Web API key's name among the web services' keys, and the variable
/// that, when set, is the key.
const KEY_SERVICE: &str = "zotero";
pub const KEY_ENV: &str = "QUIRE_ZOTERO_API_KEY";
/// A Zotero 10 local write key from the environment (for scripted setups);
/// normally Zotero grants it through its dialog and Quire keeps it.
pub const LOCAL_KEY_ENV: &str = "QUIRE_ZOTERO_LOCAL_KEY";

/// The collections Zotero holds, and how they were read.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroCollections {
    pub via: Via,
    pub collections: Vec<Collection>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroOpenParams {
    /// The collection's key, path ("Thesis / Chapter 2") or unique name.
    pub collection: String,
}

/// A collection read into its snapshot: what the review will take.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroRead {
    pub collection: Collection,
    pub via: Via,
    /// The snapshot file, the review's source.
    #[cfg_attr(test, ts(type = "string"))]
    pub snapshot: PathBuf,
    pub items: usize,
    /// Items with a PDF found on disk.
    pub with_pdf: usize,
    /// PDF attachments not found, "title: why".
    pub missing: Vec<String>,
}

/// A collection opened as a review.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroOpened {
    pub read: ZoteroRead,
    pub workspace: WorkspaceSummary,
}

impl From<ZoteroError> for CommandError {
    fn from(e: ZoteroError) -> Self {
        let (kind, code) = match &e {
            ZoteroError::LocalApiOff => (ErrorKind::InvalidInput, "zotero_local_api_off"),
            ZoteroError::NoDatabase(_) => (ErrorKind::NotFound, "zotero_not_found"),
            ZoteroError::NoSuchCollection { .. } | ZoteroError::Ambiguous { .. } => {
                (ErrorKind::NotFound, "zotero_collection_not_found")
            }
            ZoteroError::LocalApi(_) | ZoteroError::Database { .. } => {
                (ErrorKind::Storage, "zotero_unreadable")
            }
        };
        CommandError::new(kind, code, e.to_string())
    }
}

/// Every collection of every library Zotero holds.
pub async fn zotero_collections(_ctx: &AppContext) -> Result<ZoteroCollections, CommandError> {
    let (collections, via) = zotero::collections(&ZoteroPlaces::from_env()).await?;
    Ok(ZoteroCollections { via, collections })
}

/// Read a collection and write its snapshot (the review's source).
pub async fn zotero_read(ctx: &AppContext, collection: &str) -> Result<ZoteroRead, CommandError> {
    let (collection, items, via) =
        zotero::read_collection(&ZoteroPlaces::from_env(), collection).await?;
    let count = items.len();
    let with_pdf = items.iter().filter(|i| !i.pdfs.is_empty()).count();
    let missing = items
        .iter()
        .flat_map(|i| {
            let title = if i.title.is_empty() { &i.key } else { &i.title };
            i.missing.iter().map(move |m| format!("{title}: {m}"))
        })
        .collect();
    let data_dir = ctx.paths().data_dir.clone();
    let written = collection.clone();
    let snapshot = tokio::task::spawn_blocking(move || {
        zotero::snapshot::write(&data_dir, &written, items, via)
    })
    .await
    .map_err(CommandError::internal)?
    .map_err(|e| CommandError::storage(format!("cannot write the Zotero snapshot: {e}")))?;
    tracing::info!(collection = %collection.path, items = count, with_pdf, via = ?via, "Zotero collection read");
    Ok(ZoteroRead {
        collection,
        via,
        snapshot,
        items: count,
        with_pdf,
        missing,
    })
}

/// Open a collection as a review: read it, then make (or reopen) the
/// review whose source is its snapshot.
pub async fn zotero_open(
    ctx: &AppContext,
    params: ZoteroOpenParams,
) -> Result<ZoteroOpened, CommandError> {
    let read = zotero_read(ctx, &params.collection).await?;
    let workspace = workspace_create(
        ctx,
        WorkspaceCreateParams {
            folder: read.snapshot.clone(),
        },
    )
    .await?;
    Ok(ZoteroOpened { read, workspace })
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroPushParams {
    /// The review's workspace folder.
    #[cfg_attr(test, ts(type = "string"))]
    pub workspace: PathBuf,
}

impl From<WebError> for CommandError {
    fn from(e: WebError) -> Self {
        let (kind, code) = match &e {
            WebError::BadKey | WebError::Forbidden => {
                (ErrorKind::InvalidInput, "zotero_key_refused")
            }
            WebError::Unreachable(_) | WebError::LocalUnreachable(_) => {
                (ErrorKind::Storage, "zotero_unreachable")
            }
            WebError::TooLong(_) => (ErrorKind::Busy, "zotero_busy"),
            WebError::Status { .. } | WebError::Unreadable { .. } => {
                (ErrorKind::Storage, "zotero_write_failed")
            }
            WebError::LocalKeyRefused | WebError::ServerChanged => {
                (ErrorKind::InvalidInput, "zotero_local_refused")
            }
        };
        CommandError::new(kind, code, e.to_string())
    }
}

/// Write the review's verdicts to its Zotero items (tags and one note
/// each) through Zotero's Web API, with the saved key.
pub async fn zotero_push(
    ctx: &AppContext,
    params: ZoteroPushParams,
) -> Result<PushSummary, CommandError> {
    let writer = writer(ctx).await?;
    let root = params.workspace.clone();
    let desired = blocking(move || {
        let ws = Workspace::open_read_only(&root)?;
        Ok::<_, CommandError>(plan(&ws)?)
    })
    .await?;
    if desired.is_empty() {
        return Ok(PushSummary::default());
    }
    let summary = push(&desired, &writer).await?;
    // Which `screen:` tags are Quire's now: the next push removes only
    // those. A review a run holds cannot take the note now; its next push
    // then leaves the tags written here in place, as if they were the
    // researcher's, which loses nothing of theirs.
    let root = params.workspace.clone();
    let kept = summary.clone();
    let recorded = blocking(move || {
        let ws = Workspace::open(&root)?;
        Ok::<_, CommandError>(record_written(&ws, &kept)?)
    })
    .await;
    if let Err(e) = recorded {
        tracing::warn!(error = %e, "could not keep which screen: tags Quire wrote");
    }
    tracing::info!(
        local = writer.is_local(),
        items = summary.items,
        tagged = summary.tagged,
        notes_created = summary.notes_created,
        notes_updated = summary.notes_updated,
        unchanged = summary.unchanged,
        requests = summary.requests,
        "review written to Zotero"
    );
    Ok(summary)
}

/// How a push writes: through the running Zotero 10 when Quire is allowed
/// to write to its database (no cloud key, no sync wait), else through the
/// Web API with the saved key.
async fn writer(ctx: &AppContext) -> Result<WebApi, CommandError> {
    let places = ZoteroPlaces::from_env();
    let local = LocalWrite::new(&places.local_api)?;
    if let Ok(server_id) = local.server_id().await {
        let config_dir = ctx.paths().config_dir.clone();
        let service = key_service(&server_id);
        let key = blocking(move || {
            Ok::<_, CommandError>(resolve_service_key(&service, LOCAL_KEY_ENV, &config_dir)?)
        })
        .await?;
        if let Some((key, _)) = key {
            return Ok(WebApi::local(&local.api_base(), key, server_id)?);
        }
    }
    let config_dir = ctx.paths().config_dir.clone();
    let key = blocking(move || Ok::<_, CommandError>(resolve_service_key(KEY_SERVICE, KEY_ENV, &config_dir)?))
        .await?
        .map(|(key, _)| key)
        .ok_or_else(|| {
            CommandError::new(
                ErrorKind::InvalidInput,
                "zotero_key_missing",
                "writing to Zotero needs its permission: with Zotero 10 or later running, allow Quire once (`quire zotero authorize`, or Settings → Zotero → Allow Quire to write); otherwise a Zotero Web API key with write access to the library (zotero.org/settings/keys, saved with `quire zotero key` or in Settings)",
            )
        })?;
    let base = std::env::var("QUIRE_ZOTERO_WEB_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
        .unwrap_or_else(|| "https://api.zotero.org".into());
    Ok(WebApi::new(&base, key)?)
}

/// What asking the running Zotero for write access gave.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroLocalAccess {
    /// The database Zotero serves.
    pub server_id: String,
    /// Where the lasting key is kept; none when Zotero granted one write
    /// only (not kept: a push is many writes).
    pub key_source: Option<String>,
}

/// Ask the running Zotero (10 or later) to let Quire write to it: Zotero
/// shows a dialog, and this waits for the researcher's answer. A lasting
/// key (*Always Allow*) is kept like the other keys.
pub async fn zotero_authorize(ctx: &AppContext) -> Result<ZoteroLocalAccess, CommandError> {
    let local = LocalWrite::new(&ZoteroPlaces::from_env().local_api)?;
    let server_id = local.server_id().await?;
    let granted = local.authorize(&server_id).await?;
    let key_source = if granted.lasting {
        let config_dir = ctx.paths().config_dir.clone();
        let service = key_service(&server_id);
        let kept = blocking(move || {
            Ok::<_, CommandError>(store_service_key(&service, &granted.key, &config_dir)?)
        })
        .await?;
        tracing::info!(kept_in = %kept, "Zotero local write access kept");
        Some(kept.to_string())
    } else {
        None
    };
    Ok(ZoteroLocalAccess {
        server_id,
        key_source,
    })
}

impl From<LocalWriteError> for CommandError {
    fn from(e: LocalWriteError) -> Self {
        let code = match &e {
            LocalWriteError::NotRunning(_) => "zotero_not_running",
            LocalWriteError::Off => "zotero_local_api_off",
            LocalWriteError::TooOld => "zotero_no_local_writes",
            LocalWriteError::Denied => "zotero_write_denied",
            LocalWriteError::Status { .. } => "zotero_write_failed",
        };
        CommandError::new(ErrorKind::InvalidInput, code, e.to_string())
    }
}

/// Where the Zotero Web API key is kept; the key itself never leaves the core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroKeyStatus {
    /// "the OS secret store", the key file's path, "environment variable …";
    /// `None` without a key.
    pub key_source: Option<String>,
    /// From the environment (Settings cannot replace it).
    pub from_env: bool,
}

#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ZoteroKeyParams {
    pub key: String,
}

/// The key as `***`: parameters are logged and shown in errors.
impl std::fmt::Debug for ZoteroKeyParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZoteroKeyParams")
            .field("key", &"***")
            .finish()
    }
}

/// Where the Zotero Web API key is kept.
pub async fn zotero_key_status(ctx: &AppContext) -> Result<ZoteroKeyStatus, CommandError> {
    let config_dir = ctx.paths().config_dir.clone();
    let found = blocking(move || {
        Ok::<_, CommandError>(resolve_service_key(KEY_SERVICE, KEY_ENV, &config_dir)?)
    })
    .await?;
    Ok(ZoteroKeyStatus {
        from_env: matches!(&found, Some((_, KeySource::Env(_)))),
        key_source: found.map(|(_, source)| source.to_string()),
    })
}

/// Save the Zotero Web API key (replacing any).
pub async fn zotero_key_save(
    ctx: &AppContext,
    params: ZoteroKeyParams,
) -> Result<ZoteroKeyStatus, CommandError> {
    let key = ApiKey::new(params.key);
    if key.expose().is_empty() || key.expose().chars().any(char::is_whitespace) {
        return Err(CommandError::invalid(
            "api_key_invalid",
            "a Zotero API key is one word with no spaces (zotero.org/settings/keys)",
        ));
    }
    let config_dir = ctx.paths().config_dir.clone();
    let kept =
        blocking(move || Ok::<_, CommandError>(store_service_key(KEY_SERVICE, &key, &config_dir)?))
            .await?;
    tracing::info!(kept_in = %kept, "Zotero API key saved");
    zotero_key_status(ctx).await
}

/// Remove the saved Zotero Web API key (one from the environment stays).
pub async fn zotero_key_remove(ctx: &AppContext) -> Result<ZoteroKeyStatus, CommandError> {
    let config_dir = ctx.paths().config_dir.clone();
    blocking(move || Ok::<_, CommandError>(delete_service_key(KEY_SERVICE, &config_dir)?)).await?;
    zotero_key_status(ctx).await
}
