//! Zotero's database read when Zotero is closed: `zotero.sqlite` is copied
//! into a private temporary folder first (Zotero's own file is never opened,
//! so it can never be locked or written), and its tables are read as Zotero's
//! published schema lays them out: `items`, `itemData` over
//! `fieldsCombined`, `itemCreators`, `itemTags`, `itemNotes`,
//! `itemAttachments`, `collections` and `collectionItems`. A stored file's
//! path (`storage:name.pdf`) is under `storage/<attachment key>/`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use super::{Collection, Item, Library, ZoteroError, author_name, note_text, year_of};
use crate::records::zotero::ids_beyond_fields;

pub struct Database {
    conn: Connection,
    data_dir: PathBuf,
    /// Holds the private copy for as long as it is read.
    _copy: tempfile::TempDir,
    fields: &'static str,
    item_types: &'static str,
}

/// Zotero's `linkMode` for a file linked in place (not in `storage/`).
const LINKED_FILE: i64 = 2;

impl Database {
    /// A private copy of `data_dir/zotero.sqlite`, opened read-only.
    pub fn open(data_dir: &Path) -> Result<Self, ZoteroError> {
        let source = data_dir.join("zotero.sqlite");
        if !source.is_file() {
            return Err(ZoteroError::NoDatabase(data_dir.to_owned()));
        }
        let failed = |reason: String| ZoteroError::Database {
            path: source.clone(),
            reason,
        };
        let copy = tempfile::tempdir().map_err(|e| failed(e.to_string()))?;
        let private = copy.path().join("zotero.sqlite");
        std::fs::copy(&source, &private).map_err(|e| failed(e.to_string()))?;
        // A write-ahead log left by a Zotero that did not close cleanly holds
        // the latest changes; the copy reads it too.
        for suffix in ["-wal", "-journal"] {
            let side = data_dir.join(format!("zotero.sqlite{suffix}"));
            if side.is_file() {
                let _ = std::fs::copy(&side, copy.path().join(format!("zotero.sqlite{suffix}")));
            }
        }
        let conn = Connection::open_with_flags(&private, OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| failed(e.to_string()))?;
        let has = |table: &str| -> bool {
            conn.query_row(
                "SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1",
                [table],
                |_| Ok(()),
            )
            .optional()
            .ok()
            .flatten()
            .is_some()
        };
        if !has("items") || !has("collections") {
            return Err(failed(
                "it is not a Zotero database (no items or collections table)".into(),
            ));
        }
        let fields = if has("fieldsCombined") {
            "fieldsCombined"
        } else {
            "fields"
        };
        let item_types = if has("itemTypesCombined") {
            "itemTypesCombined"
        } else {
            "itemTypes"
        };
        Ok(Self {
            conn,
            data_dir: data_dir.to_owned(),
            _copy: copy,
            fields,
            item_types,
        })
    }

    fn failed(&self, e: rusqlite::Error) -> ZoteroError {
        ZoteroError::Database {
            path: self.data_dir.join("zotero.sqlite"),
            reason: e.to_string(),
        }
    }

    /// The user's library and the groups'.
    pub fn libraries(&self) -> Result<Vec<Library>, ZoteroError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT l.libraryID, l.type, g.groupID, g.name FROM libraries l \
                 LEFT JOIN groups g ON g.libraryID = l.libraryID \
                 WHERE l.type IN ('user', 'group') ORDER BY l.libraryID",
            )
            .map_err(|e| self.failed(e))?;
        let rows = statement
            .query_map([], |row| {
                let kind: String = row.get(1)?;
                let group: Option<i64> = row.get(2)?;
                let name: Option<String> = row.get(3)?;
                Ok(match kind.as_str() {
                    "group" => Library {
                        kind,
                        id: group.unwrap_or_default() as u64,
                        name: name.unwrap_or_else(|| "Group".into()),
                    },
                    _ => Library {
                        kind,
                        id: 0,
                        name: "My Library".into(),
                    },
                })
            })
            .map_err(|e| self.failed(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.failed(e))
    }

    fn library_id(&self, library: &Library) -> Result<i64, ZoteroError> {
        let query = match library.kind.as_str() {
            "group" => "SELECT libraryID FROM groups WHERE groupID = ?1",
            _ => "SELECT libraryID FROM libraries WHERE type = 'user' AND ?1 = 0",
        };
        self.conn
            .query_row(query, [library.id as i64], |row| row.get(0))
            .map_err(|e| self.failed(e))
    }

    pub fn collections(&self, library: &Library) -> Result<Vec<Collection>, ZoteroError> {
        let library_id = self.library_id(library)?;
        let mut statement = self
            .conn
            .prepare(
                "SELECT c.collectionID, c.key, c.collectionName, c.parentCollectionID, \
                 (SELECT COUNT(*) FROM collectionItems ci WHERE ci.collectionID = c.collectionID \
                  AND ci.itemID NOT IN (SELECT itemID FROM deletedItems)) \
                 FROM collections c WHERE c.libraryID = ?1",
            )
            .map_err(|e| self.failed(e))?;
        let rows: Vec<(i64, String, String, Option<i64>, i64)> = statement
            .query_map([library_id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        let by_id: HashMap<i64, (&str, Option<i64>)> = rows
            .iter()
            .map(|(id, _, name, parent, _)| (*id, (name.as_str(), *parent)))
            .collect();
        let path_of = |mut at: Option<i64>| {
            let mut names = Vec::new();
            while let Some((name, parent)) = at.and_then(|id| by_id.get(&id)) {
                names.push(*name);
                at = *parent;
                if names.len() > 64 {
                    break;
                }
            }
            names.reverse();
            names.join(" / ")
        };
        let mut collections: Vec<Collection> = rows
            .iter()
            .map(|(id, key, name, _, count)| Collection {
                library: library.clone(),
                key: key.clone(),
                name: name.clone(),
                path: path_of(Some(*id)),
                items: *count as usize,
            })
            .collect();
        collections.sort_by_key(|a| a.path.to_lowercase());
        Ok(collections)
    }

    /// The collection's items (not in the trash), with tags, notes and PDFs.
    pub fn items(&self, collection: &Collection) -> Result<Vec<Item>, ZoteroError> {
        let library_id = self.library_id(&collection.library)?;
        let query = format!(
            "SELECT i.itemID, i.key, i.version, t.typeName FROM collections c \
             JOIN collectionItems ci ON ci.collectionID = c.collectionID \
             JOIN items i ON i.itemID = ci.itemID \
             JOIN {} t ON t.itemTypeID = i.itemTypeID \
             WHERE c.libraryID = ?1 AND c.key = ?2 \
             AND i.itemID NOT IN (SELECT itemID FROM deletedItems) \
             ORDER BY ci.orderIndex, i.itemID",
            self.item_types
        );
        let mut statement = self.conn.prepare(&query).map_err(|e| self.failed(e))?;
        let members: Vec<(i64, String, i64, String)> = statement
            .query_map(params![library_id, collection.key], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        let mut items = Vec::new();
        for (id, key, version, kind) in members {
            match kind.as_str() {
                "note" | "annotation" => {}
                "attachment" => {
                    let mut item = self.item(id, key, version, kind)?;
                    let attachments = self.attachments("a.itemID = ?1", id)?;
                    if !attachments.is_empty() {
                        self.locate(&attachments, &mut item);
                        items.push(item);
                    }
                }
                _ => {
                    let mut item = self.item(id, key, version, kind)?;
                    item.notes = self.notes(id)?;
                    let attachments = self.attachments("a.parentItemID = ?1", id)?;
                    self.locate(&attachments, &mut item);
                    items.push(item);
                }
            }
        }
        Ok(items)
    }

    fn item(&self, id: i64, key: String, version: i64, kind: String) -> Result<Item, ZoteroError> {
        let query = format!(
            "SELECT f.fieldName, v.value FROM itemData d \
             JOIN {} f ON f.fieldID = d.fieldID \
             JOIN itemDataValues v ON v.valueID = d.valueID WHERE d.itemID = ?1",
            self.fields
        );
        let mut statement = self.conn.prepare(&query).map_err(|e| self.failed(e))?;
        let fields: HashMap<String, String> = statement
            .query_map([id], |r| {
                let value: rusqlite::types::Value = r.get(1)?;
                let value = match value {
                    rusqlite::types::Value::Text(t) => t,
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Real(f) => f.to_string(),
                    _ => String::new(),
                };
                Ok((r.get::<_, String>(0)?, value))
            })
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        let text = |name: &str| {
            fields
                .get(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        let mut statement = self
            .conn
            .prepare(
                "SELECT c.firstName, c.lastName, t.creatorType FROM itemCreators ic \
                 JOIN creators c ON c.creatorID = ic.creatorID \
                 JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID \
                 WHERE ic.itemID = ?1 ORDER BY ic.orderIndex",
            )
            .map_err(|e| self.failed(e))?;
        let creators: Vec<(Option<String>, Option<String>, String)> = statement
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        let named = |only_authors: bool| -> Vec<String> {
            creators
                .iter()
                .filter(|(_, _, kind)| !only_authors || kind == "author")
                .filter_map(|(first, last, _)| {
                    author_name(
                        first.as_deref().unwrap_or(""),
                        last.as_deref().unwrap_or(""),
                    )
                })
                .collect()
        };
        let mut authors = named(true);
        if authors.is_empty() {
            authors = named(false);
        }
        let mut statement = self
            .conn
            .prepare(
                "SELECT t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID \
                 WHERE it.itemID = ?1 ORDER BY t.name",
            )
            .map_err(|e| self.failed(e))?;
        let tags: Vec<String> = statement
            .query_map([id], |r| r.get(0))
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        let (pmid, arxiv) = ids_beyond_fields(
            text("extra").as_deref(),
            text("archiveID").as_deref(),
            text("DOI").as_deref(),
            text("url").as_deref(),
        );
        Ok(Item {
            key,
            version: version.max(0) as u64,
            item_type: kind,
            title: text("title").unwrap_or_default(),
            authors,
            year: text("date").as_deref().and_then(year_of),
            venue: text("publicationTitle")
                .or_else(|| text("proceedingsTitle"))
                .or_else(|| text("bookTitle"))
                .or_else(|| text("conferenceName")),
            doi: text("DOI").map(|d| crate::records::bare_doi(&d)),
            abstract_text: text("abstractNote"),
            url: text("url"),
            pmid,
            arxiv,
            tags,
            notes: Vec::new(),
            pdfs: Vec::new(),
            pdf_keys: Vec::new(),
            missing: Vec::new(),
        })
    }

    fn notes(&self, parent: i64) -> Result<Vec<String>, ZoteroError> {
        let mut statement = self
            .conn
            .prepare(
                "SELECT n.note FROM itemNotes n WHERE n.parentItemID = ?1 \
                 AND n.itemID NOT IN (SELECT itemID FROM deletedItems) ORDER BY n.itemID",
            )
            .map_err(|e| self.failed(e))?;
        let notes: Vec<Option<String>> = statement
            .query_map([parent], |r| r.get(0))
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))?;
        Ok(notes
            .into_iter()
            .flatten()
            .map(|n| note_text(&n))
            .filter(|n| !n.is_empty())
            .collect())
    }

    /// The PDF attachments `filter` selects: (key, link mode, path).
    fn attachments(
        &self,
        filter: &str,
        id: i64,
    ) -> Result<Vec<(String, i64, Option<String>)>, ZoteroError> {
        let query = format!(
            "SELECT i.key, a.linkMode, a.path FROM itemAttachments a \
             JOIN items i ON i.itemID = a.itemID WHERE {filter} \
             AND a.itemID NOT IN (SELECT itemID FROM deletedItems) \
             AND (a.contentType = 'application/pdf' OR lower(a.path) LIKE '%.pdf') \
             ORDER BY i.itemID"
        );
        let mut statement = self.conn.prepare(&query).map_err(|e| self.failed(e))?;
        statement
            .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.failed(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.failed(e))
    }

    fn locate(&self, attachments: &[(String, i64, Option<String>)], item: &mut Item) {
        for (key, mode, path) in attachments {
            let path = path.as_deref().unwrap_or("");
            let found = if let Some(name) = path.strip_prefix("storage:") {
                Ok(self.data_dir.join("storage").join(key).join(name))
            } else if *mode == LINKED_FILE && Path::new(path).is_absolute() {
                Ok(PathBuf::from(path))
            } else if path.starts_with("attachments:") {
                Err(format!(
                    "{}: linked relative to Zotero's base folder, which Quire cannot see with Zotero closed",
                    path.trim_start_matches("attachments:")
                ))
            } else {
                Err(format!("{key}: no file is stored for it"))
            };
            match found {
                Ok(file) if file.is_file() => {
                    item.pdfs.push(file);
                    item.pdf_keys.push(key.clone());
                }
                Ok(file) => item.missing.push(format!(
                    "{}: not found at {}",
                    file.file_name()
                        .map_or_else(|| key.clone(), |n| n.to_string_lossy().into_owned()),
                    file.display()
                )),
                Err(why) => item.missing.push(why),
            }
        }
    }
}
