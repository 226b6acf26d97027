//! A Zotero library read in place: its libraries, collections and the items
//! of one collection, with their metadata, tags, notes and PDF attachments
//! (paths on disk). Zotero 7's local API (`http://localhost:23119/api/`,
//! read-only, no key) is asked first; when Zotero is closed, a private copy of
//! `zotero.sqlite` is read instead (never the file itself, never written).
//! A collection read becomes a snapshot file ([`snapshot`]) that the review
//! reads like a search export, so a Zotero collection is screened, read and
//! counted like any other records. Nothing here writes a workspace.

mod local_api;
pub mod local_write;
pub mod snapshot;
mod sqlite;
pub mod web_api;

use std::path::PathBuf;

pub use crate::records::zotero::{Collection, Item, Library, Snapshot, Via};
pub use local_api::LocalApi;
pub use sqlite::Database;

/// Where Zotero answers and keeps its files; tests point these at fixtures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoteroPlaces {
    /// The local API's base, without the trailing `/api/`.
    pub local_api: String,
    /// The Zotero data folder (holding `zotero.sqlite` and `storage/`).
    pub data_dir: Option<PathBuf>,
}

impl ZoteroPlaces {
    /// `QUIRE_ZOTERO_URL` (default `http://127.0.0.1:23119`) and
    /// `QUIRE_ZOTERO_DATA_DIR` (default `~/Zotero`, Zotero's own default).
    pub fn from_env() -> Self {
        let var = |name: &str| {
            std::env::var(name)
                .ok()
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        Self {
            local_api: var("QUIRE_ZOTERO_URL")
                .map(|u| u.trim_end_matches('/').trim_end_matches("/api").to_owned())
                .unwrap_or_else(|| "http://127.0.0.1:23119".into()),
            data_dir: var("QUIRE_ZOTERO_DATA_DIR")
                .map(PathBuf::from)
                .or_else(|| dirs::home_dir().map(|h| h.join("Zotero"))),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ZoteroError {
    #[error(
        "Zotero is running but does not let other applications read it (403): in Zotero, tick Settings → Advanced → \"Allow other applications on this computer to communicate with Zotero\", then try again"
    )]
    LocalApiOff,
    #[error("Zotero's local API answered something unreadable: {0}")]
    LocalApi(String),
    #[error(
        "Zotero is not running and no Zotero data folder was found at {0}: start Zotero, or set QUIRE_ZOTERO_DATA_DIR to the folder holding zotero.sqlite"
    )]
    NoDatabase(PathBuf),
    #[error("cannot read Zotero's database {path}: {reason}")]
    Database { path: PathBuf, reason: String },
    #[error("no Zotero collection is called \"{asked}\"{}", known_list(.known))]
    NoSuchCollection { asked: String, known: Vec<String> },
    #[error("\"{asked}\" names more than one Zotero collection: {}; give its path or key", .matches.join(", "))]
    Ambiguous { asked: String, matches: Vec<String> },
}

impl From<crate::blocking::BlockingFailed> for ZoteroError {
    fn from(e: crate::blocking::BlockingFailed) -> Self {
        Self::Database {
            path: PathBuf::from("zotero.sqlite"),
            reason: e.to_string(),
        }
    }
}

fn known_list(known: &[String]) -> String {
    if known.is_empty() {
        "; the library has no collections".into()
    } else {
        format!("; there are: {}", known.join(", "))
    }
}

/// Every collection of every library, from the local API when Zotero is
/// running, else from a private copy of its database.
pub async fn collections(places: &ZoteroPlaces) -> Result<(Vec<Collection>, Via), ZoteroError> {
    let api = LocalApi::new(&places.local_api)?;
    if api.is_running().await? {
        let mut all = Vec::new();
        for library in api.libraries().await? {
            all.extend(api.collections(&library).await?);
        }
        return Ok((all, Via::LocalApi));
    }
    let data_dir = database_dir(places)?;
    crate::blocking::blocking(move || {
        let db = Database::open(&data_dir)?;
        let mut all = Vec::new();
        for library in db.libraries()? {
            all.extend(db.collections(&library)?);
        }
        Ok((all, Via::Database))
    })
    .await
}

/// The collection `asked` names and its items, read the same way.
pub async fn read_collection(
    places: &ZoteroPlaces,
    asked: &str,
) -> Result<(Collection, Vec<Item>, Via), ZoteroError> {
    let api = LocalApi::new(&places.local_api)?;
    if api.is_running().await? {
        let mut all = Vec::new();
        for library in api.libraries().await? {
            all.extend(api.collections(&library).await?);
        }
        let collection = find_collection(&all, asked)?.clone();
        let items = api.items(&collection).await?;
        return Ok((collection, items, Via::LocalApi));
    }
    let data_dir = database_dir(places)?;
    let asked = asked.to_owned();
    crate::blocking::blocking(move || {
        let db = Database::open(&data_dir)?;
        let mut all = Vec::new();
        for library in db.libraries()? {
            all.extend(db.collections(&library)?);
        }
        let collection = find_collection(&all, &asked)?.clone();
        let items = db.items(&collection)?;
        Ok((collection, items, Via::Database))
    })
    .await
}

fn database_dir(places: &ZoteroPlaces) -> Result<PathBuf, ZoteroError> {
    match &places.data_dir {
        Some(dir) if dir.join("zotero.sqlite").is_file() => Ok(dir.clone()),
        Some(dir) => Err(ZoteroError::NoDatabase(dir.clone())),
        None => Err(ZoteroError::NoDatabase(PathBuf::from("~/Zotero"))),
    }
}

/// The one collection `asked` names: its key, its path ("Thesis / Chapter
/// 2", separators `/` or ` / `), or its name when only one has it. Case is
/// ignored; a library's name can lead (`Lab group / Reading`).
pub fn find_collection<'a>(
    collections: &'a [Collection],
    asked: &str,
) -> Result<&'a Collection, ZoteroError> {
    let norm = |s: &str| {
        s.split('/')
            .map(|part| part.trim().to_lowercase())
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("/")
    };
    let wanted = norm(asked);
    if let Some(c) = collections.iter().find(|c| c.key == asked.trim()) {
        return Ok(c);
    }
    let tiers: [&dyn Fn(&Collection) -> bool; 3] = [
        &|c| norm(&c.path) == wanted,
        &|c| norm(&format!("{} / {}", c.library.name, c.path)) == wanted,
        &|c| c.name.trim().to_lowercase() == wanted,
    ];
    for tier in tiers {
        let found: Vec<&Collection> = collections.iter().filter(|c| tier(c)).collect();
        match found.as_slice() {
            [one] => return Ok(one),
            [] => {}
            many => {
                return Err(ZoteroError::Ambiguous {
                    asked: asked.to_owned(),
                    matches: many.iter().map(|c| shown(c)).collect(),
                });
            }
        }
    }
    Err(ZoteroError::NoSuchCollection {
        asked: asked.to_owned(),
        known: collections.iter().map(shown).collect(),
    })
}

/// "My Library / Thesis / Chapter 2 (ABCD2345)".
fn shown(c: &Collection) -> String {
    format!("{} / {} ({})", c.library.name, c.path, c.key)
}

/// A year from Zotero's date as typed ("2017", "June 2017", "2017-06-12").
pub fn year_of(date: &str) -> Option<i32> {
    let bytes = date.as_bytes();
    (0..bytes.len().saturating_sub(3)).find_map(|i| {
        let window = &bytes[i..i + 4];
        let before = i == 0 || !bytes[i - 1].is_ascii_digit();
        let after = bytes.get(i + 4).is_none_or(|b| !b.is_ascii_digit());
        (before && after && window.iter().all(u8::is_ascii_digit))
            .then(|| std::str::from_utf8(window).ok()?.parse().ok())
            .flatten()
            .filter(|y| (1000..=2100).contains(y))
    })
}

/// "Family, Given" from Zotero's two fields (or its one field).
fn author_name(first: &str, last: &str) -> Option<String> {
    let (first, last) = (first.trim(), last.trim());
    match (first.is_empty(), last.is_empty()) {
        (true, true) => None,
        (true, false) => Some(last.to_owned()),
        (false, true) => Some(first.to_owned()),
        (false, false) => Some(format!("{last}, {first}")),
    }
}

/// A note's HTML as plain text.
fn note_text(html: &str) -> String {
    crate::scholar::plain(html)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collection(library: &str, path: &str, key: &str) -> Collection {
        Collection {
            library: Library {
                kind: if library == "My Library" {
                    "user".into()
                } else {
                    "group".into()
                },
                id: if library == "My Library" { 0 } else { 7 },
                name: library.into(),
            },
            key: key.into(),
            name: path.rsplit('/').next().unwrap().trim().into(),
            path: path.into(),
            items: 0,
        }
    }

    #[test]
    fn a_collection_is_found_by_key_path_or_unique_name() {
        let all = vec![
            collection("My Library", "Thesis / Chapter 2", "AAAA1111"),
            collection("My Library", "Reading", "BBBB2222"),
            collection("Lab", "Reading", "CCCC3333"),
        ];
        assert_eq!(find_collection(&all, "AAAA1111").unwrap().key, "AAAA1111");
        assert_eq!(
            find_collection(&all, "thesis/chapter 2").unwrap().key,
            "AAAA1111"
        );
        assert_eq!(find_collection(&all, "Chapter 2").unwrap().key, "AAAA1111");
        assert_eq!(
            find_collection(&all, "Lab / Reading").unwrap().key,
            "CCCC3333"
        );
        let two = find_collection(&all, "Reading").unwrap_err().to_string();
        assert!(
            two.contains("more than one") && two.contains("CCCC3333"),
            "{two}"
        );
        let none = find_collection(&all, "Nope").unwrap_err().to_string();
        assert!(none.contains("there are: My Library / Thesis"), "{none}");
    }

    #[test]
    fn years_and_names_read_as_zotero_stores_them() {
        assert_eq!(year_of("2017-06-00 June 2017"), Some(2017));
        assert_eq!(year_of("Spring 1999"), Some(1999));
        assert_eq!(year_of("12345"), None);
        assert_eq!(year_of(""), None);
        assert_eq!(author_name("Ashish", "Vaswani").unwrap(), "Vaswani, Ashish");
        assert_eq!(author_name("", "OpenAI").unwrap(), "OpenAI");
        assert_eq!(author_name(" ", " "), None);
    }
}
