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
use crate::zotero::{self, Collection, Via, ZoteroError, ZoteroPlaces};

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
