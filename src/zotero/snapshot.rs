//! A collection read from Zotero, written where a review can read it again:
//! `<data>/zotero/<library>-<collection key>/collection.zotero.json`. The
//! path (by key, not by name) is the review's source, so opening the same
//! collection again, even renamed, finds the same review, and each opening
//! rewrites the file with what Zotero holds now.

use std::path::{Path, PathBuf};

use super::{Collection, Item, Snapshot, Via};
use crate::records::ZOTERO_SNAPSHOT_ENDING;
use crate::records::zotero::SNAPSHOT_VERSION;
use crate::workspace::records::now_rfc3339;

/// Where the snapshot of `collection` lives under `data_dir`.
pub fn path_for(data_dir: &Path, collection: &Collection) -> PathBuf {
    let library = collection.library.prefix().replace('/', "-");
    data_dir
        .join("zotero")
        .join(format!("{library}-{}", collection.key))
        .join(format!("collection{ZOTERO_SNAPSHOT_ENDING}"))
}

/// Write the snapshot (whole or not at all) and return its path.
pub fn write(
    data_dir: &Path,
    collection: &Collection,
    items: Vec<Item>,
    via: Via,
) -> std::io::Result<PathBuf> {
    let path = path_for(data_dir, collection);
    let snapshot = Snapshot {
        quire_zotero: SNAPSHOT_VERSION,
        collection: collection.clone(),
        via,
        read_at: now_rfc3339(),
        items,
    };
    let bytes = serde_json::to_vec_pretty(&snapshot).map_err(std::io::Error::other)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temp = path.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, &path).inspect_err(|_| {
        let _ = std::fs::remove_file(&temp);
    })?;
    Ok(path)
}
