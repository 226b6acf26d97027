//! A Zotero library for tests, both ways Quire reads one: a data folder with
//! a `zotero.sqlite` built from the tables of Zotero's published schema
//! (`resource/schema/userdata.sql`, and the system tables its item types and
//! fields come from) and `storage/<key>/<file>.pdf` holding real PDFs; and a
//! real HTTP server answering as Zotero 7's local API does
//! (`/api/users/0/collections`, `…/collections/{key}/items/top`,
//! `…/items/{key}/children`, `…/items/{key}/file/view/url`), Web API v3
//! JSON with `Zotero-API-Version` and `Total-Results`, paged by
//! `limit`/`start`, and 403 while "Allow other applications" is off.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

use crate::http::{serve_on_thread, write_full};

#[derive(Clone, Debug, Default)]
pub struct Library {
    /// Groups, by id and name (the user's library is always there).
    pub groups: Vec<(u64, String)>,
    pub collections: Vec<Collection>,
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, Default)]
pub struct Collection {
    /// 0 for the user's library, else a group's id.
    pub library: u64,
    pub key: String,
    pub name: String,
    pub parent: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct Item {
    pub library: u64,
    pub key: String,
    pub version: u64,
    /// "journalArticle", "conferencePaper", …
    pub item_type: String,
    pub title: String,
    /// (creatorType, first name, last name); an empty first name is a
    /// one-field name.
    pub creators: Vec<(String, String, String)>,
    /// As typed ("2017", "June 2017").
    pub date: String,
    pub doi: Option<String>,
    pub abstract_text: Option<String>,
    pub publication: Option<String>,
    /// Zotero's Extra field, one `Key: value` a line as its translators
    /// write them (`PMID: 123`, `arXiv: 2101.00001`).
    pub extra: Option<String>,
    pub tags: Vec<String>,
    /// Child notes, as Zotero stores them (HTML).
    pub notes: Vec<String>,
    /// The collections it is in, by key.
    pub collections: Vec<String>,
    pub attachments: Vec<Attachment>,
    pub trashed: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Attachment {
    pub key: String,
    pub file_name: String,
    /// A real PDF copied into `storage/<key>/`; `None` leaves the file
    /// missing (synced metadata, file never downloaded).
    pub source: Option<PathBuf>,
}

/// Zotero's item type and field ids (from its global schema; the values
/// only need to be consistent within one database).
const ITEM_TYPES: [(i64, &str); 5] = [
    (1, "note"),
    (3, "attachment"),
    (11, "conferencePaper"),
    (22, "journalArticle"),
    (27, "preprint"),
];
const FIELDS: [(i64, &str); 9] = [
    (1, "title"),
    (2, "abstractNote"),
    (6, "date"),
    (13, "url"),
    (26, "DOI"),
    (12, "publicationTitle"),
    (69, "proceedingsTitle"),
    (115, "extra"),
    (116, "accessDate"),
];

/// The tables of Zotero's schema this fixture fills, as `userdata.sql`
/// (schema 107 and later) declares them, and the system tables the item
/// types, fields and creator types come from.
const SCHEMA: &str = "
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1);
CREATE TABLE itemTypesCombined (itemTypeID INT NOT NULL, typeName TEXT NOT NULL, display INT DEFAULT 1 NOT NULL, custom INT NOT NULL, PRIMARY KEY (itemTypeID));
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT);
CREATE TABLE fieldsCombined (fieldID INT NOT NULL, fieldName TEXT NOT NULL, label TEXT, fieldFormatID INT, custom INT NOT NULL, PRIMARY KEY (fieldID));
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL, filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0, storageVersion INT NOT NULL DEFAULT 0, lastSync INT NOT NULL DEFAULT 0, archived INT NOT NULL DEFAULT 0);
CREATE TABLE groups (groupID INTEGER PRIMARY KEY, libraryID INT NOT NULL UNIQUE, name TEXT NOT NULL, description TEXT NOT NULL, version INT NOT NULL, FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE);
CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL, dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key), FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE);
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID), FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (fieldID) REFERENCES fieldsCombined(fieldID), FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID));
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT, FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT, charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash TEXT, lastProcessedModificationTime INT, FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT NULL, PRIMARY KEY (itemID, tagID), FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (tagID) REFERENCES tags(tagID) ON DELETE CASCADE);
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT, UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1, orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex), UNIQUE (itemID, orderIndex), FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (creatorID) REFERENCES creators(creatorID) ON DELETE CASCADE, FOREIGN KEY (creatorTypeID) REFERENCES creatorTypes(creatorTypeID));
CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL, parentCollectionID INT DEFAULT NULL, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key), FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE, FOREIGN KEY (parentCollectionID) REFERENCES collections(collectionID) ON DELETE CASCADE);
CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (collectionID, itemID), FOREIGN KEY (collectionID) REFERENCES collections(collectionID) ON DELETE CASCADE, FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL, FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
";

/// Write a Zotero data folder for `library` into `dir`: `zotero.sqlite`
/// and `storage/`.
pub fn write_data_dir(dir: &Path, library: &Library) -> rusqlite::Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
    let db = rusqlite::Connection::open(dir.join("zotero.sqlite"))?;
    db.execute_batch(SCHEMA)?;
    db.execute("INSERT INTO version VALUES ('userdata', 121)", [])?;
    for (id, name) in ITEM_TYPES {
        db.execute(
            "INSERT INTO itemTypes VALUES (?1, ?2, NULL, 1)",
            rusqlite::params![id, name],
        )?;
        db.execute(
            "INSERT INTO itemTypesCombined VALUES (?1, ?2, 1, 0)",
            rusqlite::params![id, name],
        )?;
    }
    for (id, name) in FIELDS {
        db.execute(
            "INSERT INTO fields VALUES (?1, ?2, NULL)",
            rusqlite::params![id, name],
        )?;
        db.execute(
            "INSERT INTO fieldsCombined VALUES (?1, ?2, NULL, NULL, 0)",
            rusqlite::params![id, name],
        )?;
    }
    for (id, name) in [(1, "author"), (2, "contributor"), (3, "editor")] {
        db.execute(
            "INSERT INTO creatorTypes VALUES (?1, ?2)",
            rusqlite::params![id, name],
        )?;
    }
    db.execute(
        "INSERT INTO libraries VALUES (1, 'user', 1, 1, 0, 0, 0, 0)",
        [],
    )?;
    let mut library_ids = HashMap::from([(0_u64, 1_i64)]);
    for (n, (group, name)) in library.groups.iter().enumerate() {
        let lib = 2 + n as i64;
        db.execute(
            "INSERT INTO libraries VALUES (?1, 'group', 1, 1, 0, 0, 0, 0)",
            [lib],
        )?;
        db.execute(
            "INSERT INTO groups VALUES (?1, ?2, ?3, '', 0)",
            rusqlite::params![*group as i64, lib, name],
        )?;
        library_ids.insert(*group, lib);
    }
    let mut collection_ids = HashMap::new();
    for (n, c) in library.collections.iter().enumerate() {
        let id = 1 + n as i64;
        let parent = c
            .parent
            .as_ref()
            .and_then(|p| collection_ids.get(p).copied());
        db.execute(
            "INSERT INTO collections (collectionID, collectionName, parentCollectionID, libraryID, key, version) VALUES (?1, ?2, ?3, ?4, ?5, 1)",
            rusqlite::params![id, c.name, parent, library_ids[&c.library], c.key],
        )?;
        collection_ids.insert(c.key.clone(), id);
    }
    let type_id = |name: &str| {
        ITEM_TYPES
            .iter()
            .find(|(_, n)| *n == name)
            .map_or(22, |(id, _)| *id)
    };
    let field_id = |name: &str| FIELDS.iter().find(|(_, n)| *n == name).map(|(id, _)| *id);
    let mut next_item = 1_i64;
    let mut next_value = 1_i64;
    let mut values: HashMap<String, i64> = HashMap::new();
    let mut tags: HashMap<String, i64> = HashMap::new();
    let mut creators: HashMap<(String, String), i64> = HashMap::new();
    for item in &library.items {
        let lib = library_ids[&item.library];
        let id = next_item;
        next_item += 1;
        db.execute(
            "INSERT INTO items (itemID, itemTypeID, libraryID, key, version, synced) VALUES (?1, ?2, ?3, ?4, ?5, 1)",
            rusqlite::params![id, type_id(&item.item_type), lib, item.key, item.version as i64],
        )?;
        let date = if item.date.is_empty() {
            None
        } else {
            // Zotero stores a date as "YYYY-MM-DD as typed".
            let year: String = item
                .date
                .chars()
                .filter(char::is_ascii_digit)
                .take(4)
                .collect();
            Some(format!("{year}-00-00 {}", item.date))
        };
        let venue_field = if item.item_type == "conferencePaper" {
            "proceedingsTitle"
        } else {
            "publicationTitle"
        };
        for (field, value) in [
            ("title", Some(item.title.clone())),
            ("abstractNote", item.abstract_text.clone()),
            ("date", date),
            ("DOI", item.doi.clone()),
            ("extra", item.extra.clone()),
            (venue_field, item.publication.clone()),
        ] {
            let (Some(value), Some(field)) = (value, field_id(field)) else {
                continue;
            };
            let value_id = *values.entry(value.clone()).or_insert_with(|| {
                next_value += 1;
                next_value
            });
            db.execute(
                "INSERT OR IGNORE INTO itemDataValues VALUES (?1, ?2)",
                rusqlite::params![value_id, value],
            )?;
            db.execute(
                "INSERT INTO itemData VALUES (?1, ?2, ?3)",
                rusqlite::params![id, field, value_id],
            )?;
        }
        for (order, (kind, first, last)) in item.creators.iter().enumerate() {
            let next = creators.len() as i64 + 1;
            let creator = *creators
                .entry((first.clone(), last.clone()))
                .or_insert(next);
            db.execute(
                "INSERT OR IGNORE INTO creators VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![creator, first, last, i64::from(first.is_empty())],
            )?;
            let kind_id = match kind.as_str() {
                "editor" => 3,
                "contributor" => 2,
                _ => 1,
            };
            db.execute(
                "INSERT INTO itemCreators VALUES (?1, ?2, ?3, ?4)",
                rusqlite::params![id, creator, kind_id, order as i64],
            )?;
        }
        for tag in &item.tags {
            let next = tags.len() as i64 + 1;
            let tag_id = *tags.entry(tag.clone()).or_insert(next);
            db.execute(
                "INSERT OR IGNORE INTO tags VALUES (?1, ?2)",
                rusqlite::params![tag_id, tag],
            )?;
            db.execute(
                "INSERT INTO itemTags VALUES (?1, ?2, 0)",
                rusqlite::params![id, tag_id],
            )?;
        }
        for (order, key) in item.collections.iter().enumerate() {
            db.execute(
                "INSERT INTO collectionItems VALUES (?1, ?2, ?3)",
                rusqlite::params![collection_ids[key], id, order as i64],
            )?;
        }
        if item.trashed {
            db.execute("INSERT INTO deletedItems (itemID) VALUES (?1)", [id])?;
        }
        for (n, note) in item.notes.iter().enumerate() {
            let note_id = next_item;
            next_item += 1;
            db.execute(
                "INSERT INTO items (itemID, itemTypeID, libraryID, key, version) VALUES (?1, 1, ?2, ?3, 1)",
                rusqlite::params![note_id, lib, format!("N{n}{}", &item.key[2..])],
            )?;
            db.execute(
                "INSERT INTO itemNotes VALUES (?1, ?2, ?3, '')",
                rusqlite::params![note_id, id, note],
            )?;
        }
        for attachment in &item.attachments {
            let att_id = next_item;
            next_item += 1;
            db.execute(
                "INSERT INTO items (itemID, itemTypeID, libraryID, key, version) VALUES (?1, 3, ?2, ?3, 1)",
                rusqlite::params![att_id, lib, attachment.key],
            )?;
            db.execute(
                "INSERT INTO itemAttachments (itemID, parentItemID, linkMode, contentType, path) VALUES (?1, ?2, 1, 'application/pdf', ?3)",
                rusqlite::params![att_id, id, format!("storage:{}", attachment.file_name)],
            )?;
            if let Some(source) = &attachment.source {
                let folder = dir.join("storage").join(&attachment.key);
                std::fs::create_dir_all(&folder)
                    .and_then(|()| {
                        std::fs::copy(source, folder.join(&attachment.file_name)).map(drop)
                    })
                    .map_err(|e| rusqlite::Error::ToSqlConversionFailure(e.into()))?;
            }
        }
    }
    Ok(())
}

/// One request the local API fixture saw.
#[derive(Clone, Debug)]
pub struct Seen {
    pub path: String,
    pub api_version: Option<String>,
}

pub struct LocalApiServer {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
}

struct Shared {
    library: Library,
    data_dir: PathBuf,
    enabled: bool,
    seen: Arc<Mutex<Vec<Seen>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LocalApiServer {
    /// Zotero running over `library`, its files in `data_dir` (written by
    /// [`write_data_dir`]); with `enabled` false, every request is 403.
    pub fn start(library: Library, data_dir: &Path, enabled: bool) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(("127.0.0.1", 0))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let shared = Arc::new(Shared {
            library,
            data_dir: data_dir.to_owned(),
            enabled,
            seen: seen.clone(),
        });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        serve_on_thread(
            listener,
            runtime,
            shared,
            |shared, mut stream, request| async move {
                let _ = answer(&shared, &mut stream, &request).await;
            },
        );
        Ok(Self { addr, seen })
    }

    /// The base URL, as `QUIRE_ZOTERO_URL` takes it.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn requests(&self) -> Vec<Seen> {
        lock(&self.seen).clone()
    }
}

async fn answer(
    shared: &Shared,
    stream: &mut tokio::net::TcpStream,
    request: &crate::http::HttpRequest,
) -> std::io::Result<()> {
    lock(&shared.seen).push(Seen {
        path: request.path.clone(),
        api_version: request.header("zotero-api-version").map(str::to_owned),
    });
    let headers = [
        ("zotero-api-version", "3".to_owned()),
        ("zotero-schema-version", "31".to_owned()),
    ];
    if !shared.enabled {
        return write_full(
            stream,
            403,
            &headers,
            "text/plain",
            b"Local API is not enabled",
        )
        .await;
    }
    let (route, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
    let param = |name: &str| {
        query
            .split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_owned())
    };
    let parts: Vec<&str> = route.trim_matches('/').split('/').collect();
    let lib = &shared.library;
    let library_of = |kind: &str, id: &str| -> Option<u64> {
        match kind {
            "users" if id == "0" => Some(0),
            "groups" => id
                .parse()
                .ok()
                .filter(|g| lib.groups.iter().any(|(gid, _)| gid == g)),
            _ => None,
        }
    };
    let list: Option<Vec<Value>> = match parts.as_slice() {
        ["api"] => {
            return write_full(stream, 200, &headers, "text/plain", b"Nothing to see here.").await;
        }
        ["api", "users", "0", "groups"] => Some(
            lib.groups
                .iter()
                .map(|(id, name)| json!({"id": id, "version": 1, "links": {}, "meta": {"numItems": 0}, "data": {"id": id, "version": 1, "name": name, "type": "Private"}}))
                .collect(),
        ),
        ["api", kind, id, "collections"] => library_of(kind, id).map(|l| {
            lib.collections
                .iter()
                .filter(|c| c.library == l)
                .map(|c| collection_json(lib, c))
                .collect()
        }),
        ["api", kind, id, "collections", key, "items", "top"] => library_of(kind, id).map(|l| {
            lib.items
                .iter()
                .filter(|i| i.library == l && !i.trashed && i.collections.iter().any(|k| k == key))
                .map(item_json)
                .collect()
        }),
        ["api", kind, id, "items", key, "children"] => library_of(kind, id).map(|l| {
            lib.items
                .iter()
                .filter(|i| i.library == l && i.key == *key)
                .flat_map(children_json)
                .collect()
        }),
        ["api", kind, id, "items", key, "file", "view", "url"] => {
            let found = library_of(kind, id).and_then(|l| {
                lib.items
                    .iter()
                    .filter(|i| i.library == l)
                    .flat_map(|i| i.attachments.iter())
                    .find(|a| a.key == *key)
            });
            let file = found.map(|a| shared.data_dir.join("storage").join(&a.key).join(&a.file_name));
            return match file.filter(|f| f.is_file()) {
                Some(file) => {
                    let url = format!("file://{}", percent_path(&file));
                    write_full(stream, 200, &headers, "text/plain", url.as_bytes()).await
                }
                None => write_full(stream, 404, &headers, "text/plain", b"Not found").await,
            };
        }
        _ => None,
    };
    let Some(all) = list else {
        return write_full(stream, 404, &headers, "text/plain", b"Not found").await;
    };
    let start: usize = param("start").and_then(|s| s.parse().ok()).unwrap_or(0);
    let limit: usize = param("limit")
        .and_then(|s| s.parse().ok())
        .unwrap_or(usize::MAX);
    let total = all.len();
    let page: Vec<Value> = all.into_iter().skip(start).take(limit).collect();
    let mut headers = headers.to_vec();
    headers.push(("total-results", total.to_string()));
    write_full(
        stream,
        200,
        &headers,
        "application/json",
        Value::Array(page).to_string().as_bytes(),
    )
    .await
}

fn library_json(library: u64, lib: &Library) -> Value {
    match lib.groups.iter().find(|(id, _)| *id == library) {
        Some((id, name)) => json!({"type": "group", "id": id, "name": name, "links": {}}),
        None => json!({"type": "user", "id": 0, "name": "", "links": {}}),
    }
}

fn collection_json(lib: &Library, c: &Collection) -> Value {
    let items = lib
        .items
        .iter()
        .filter(|i| !i.trashed && i.collections.contains(&c.key))
        .count();
    json!({
        "key": c.key, "version": 1, "library": library_json(c.library, lib), "links": {},
        "meta": {"numCollections": 0, "numItems": items},
        "data": {"key": c.key, "version": 1, "name": c.name,
                 "parentCollection": c.parent.as_ref().map_or(Value::Bool(false), |p| json!(p)),
                 "relations": {}}
    })
}

fn item_json(item: &Item) -> Value {
    let creators: Vec<Value> = item
        .creators
        .iter()
        .map(|(kind, first, last)| {
            if first.is_empty() {
                json!({"creatorType": kind, "name": last})
            } else {
                json!({"creatorType": kind, "firstName": first, "lastName": last})
            }
        })
        .collect();
    let venue_field = if item.item_type == "conferencePaper" {
        "proceedingsTitle"
    } else {
        "publicationTitle"
    };
    let mut data = json!({
        "key": item.key, "version": item.version, "itemType": item.item_type,
        "title": item.title, "creators": creators,
        "abstractNote": item.abstract_text.clone().unwrap_or_default(),
        "date": item.date, "DOI": item.doi.clone().unwrap_or_default(),
        "url": "", "accessDate": "", "extra": item.extra.clone().unwrap_or_default(),
        "tags": item.tags.iter().map(|t| json!({"tag": t})).collect::<Vec<_>>(),
        "collections": item.collections, "relations": {},
        "dateAdded": "2026-01-05T10:00:00Z", "dateModified": "2026-01-06T10:00:00Z"
    });
    data[venue_field] = json!(item.publication.clone().unwrap_or_default());
    json!({
        "key": item.key, "version": item.version,
        "library": {"type": "user", "id": 0, "name": "", "links": {}},
        "links": {"self": {"href": format!("http://localhost:23119/api/users/0/items/{}", item.key), "type": "application/json"}},
        "meta": {"creatorSummary": "", "parsedDate": item.date, "numChildren": item.notes.len() + item.attachments.len()},
        "data": data
    })
}

fn children_json(item: &Item) -> Vec<Value> {
    let mut out = Vec::new();
    for (n, note) in item.notes.iter().enumerate() {
        let key = format!("N{n}{}", &item.key[2..]);
        out.push(json!({
            "key": key, "version": 1, "library": {"type": "user", "id": 0, "name": "", "links": {}}, "links": {}, "meta": {},
            "data": {"key": key, "version": 1, "itemType": "note", "parentItem": item.key, "note": note, "tags": [], "relations": {}}
        }));
    }
    for a in &item.attachments {
        out.push(json!({
            "key": a.key, "version": 1, "library": {"type": "user", "id": 0, "name": "", "links": {}},
            "links": {"enclosure": {"type": "application/pdf", "title": a.file_name}},
            "meta": {"numChildren": 0},
            "data": {"key": a.key, "version": 1, "itemType": "attachment", "parentItem": item.key,
                     "linkMode": "imported_file", "title": "Full Text PDF", "accessDate": "", "url": "",
                     "note": "", "contentType": "application/pdf", "charset": "", "filename": a.file_name,
                     "md5": null, "mtime": null, "tags": [], "relations": {}}
        }));
    }
    out
}

/// A path as a `file://` URL's path: every byte but unreserved ones and
/// `/` percent-encoded.
fn percent_path(path: &Path) -> String {
    let mut out = String::new();
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
