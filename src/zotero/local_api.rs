//! Zotero's local API (Zotero 7 and later): the Web API v3 served by the
//! running desktop app at `http://localhost:23119/api/`, read-only and
//! without a key. It answers 403 until the researcher ticks "Allow other
//! applications on this computer to communicate with Zotero". An attachment's
//! file is located by `items/{key}/file/view/url`, which answers a `file://`
//! URL.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;
use serde_json::Value;

use super::{Collection, Item, Library, ZoteroError, author_name, note_text, year_of};
use crate::records::zotero::ids_beyond_fields;

/// Items asked for per page (the Web API's most; the local API may send all).
const PAGE: usize = 100;

pub struct LocalApi {
    http: reqwest::Client,
    base: String,
}

#[derive(Deserialize)]
struct Envelope {
    key: String,
    #[serde(default)]
    version: u64,
    #[serde(default)]
    meta: Value,
    data: Value,
}

#[derive(Deserialize)]
struct GroupEnvelope {
    id: u64,
    #[serde(default)]
    data: Value,
}

impl LocalApi {
    /// The local API at `base` (`http://127.0.0.1:23119`).
    pub fn new(base: &str) -> Result<Self, ZoteroError> {
        crate::net::install_crypto_provider();
        let http = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(60))
            // Zotero refuses requests that look like a web page's.
            .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ZoteroError::LocalApi(e.to_string()))?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
        })
    }

    /// Whether Zotero is running with its local API on: `Ok(false)` when
    /// nothing answers (Zotero closed), an error when it answers 403.
    pub async fn is_running(&self) -> Result<bool, ZoteroError> {
        match self.get("/api/").await {
            Ok(_) => Ok(true),
            Err(Failure::Unreachable) => Ok(false),
            Err(Failure::Zotero(e)) => Err(e),
        }
    }

    /// The local user's library and the groups' it syncs.
    pub async fn libraries(&self) -> Result<Vec<Library>, ZoteroError> {
        let mut libraries = vec![Library {
            kind: "user".into(),
            id: 0,
            name: "My Library".into(),
        }];
        let groups: Vec<GroupEnvelope> = self.json("/api/users/0/groups").await?;
        for group in groups {
            let name = group.data["name"]
                .as_str()
                .map_or_else(|| format!("Group {}", group.id), str::to_owned);
            libraries.push(Library {
                kind: "group".into(),
                id: group.id,
                name,
            });
        }
        Ok(libraries)
    }

    /// Every collection of `library`, with its path of names.
    pub async fn collections(&self, library: &Library) -> Result<Vec<Collection>, ZoteroError> {
        let raw: Vec<Envelope> = self
            .pages(&format!("/api/{}/collections", library.prefix()))
            .await?;
        let by_key: HashMap<&str, (&str, Option<&str>)> = raw
            .iter()
            .map(|c| {
                let name = c.data["name"].as_str().unwrap_or("(unnamed)");
                let parent = c.data["parentCollection"].as_str();
                (c.key.as_str(), (name, parent))
            })
            .collect();
        let mut collections: Vec<Collection> = raw
            .iter()
            .map(|c| {
                let (name, _) = by_key[c.key.as_str()];
                Collection {
                    library: library.clone(),
                    key: c.key.clone(),
                    name: name.to_owned(),
                    path: path_of(&by_key, &c.key),
                    items: c.meta["numItems"].as_u64().unwrap_or(0) as usize,
                }
            })
            .collect();
        collections.sort_by_key(|a| a.path.to_lowercase());
        Ok(collections)
    }

    /// The items of a collection with their tags, notes and PDFs.
    pub async fn items(&self, collection: &Collection) -> Result<Vec<Item>, ZoteroError> {
        let prefix = collection.library.prefix();
        let top: Vec<Envelope> = self
            .pages(&format!(
                "/api/{prefix}/collections/{}/items/top",
                collection.key
            ))
            .await?;
        let mut items = Vec::new();
        for envelope in top {
            let kind = envelope.data["itemType"].as_str().unwrap_or("");
            match kind {
                "note" | "annotation" => continue,
                "attachment" => {
                    // A PDF standing alone in the collection is an item of its own.
                    let mut item = item_of(&envelope);
                    if is_pdf(&envelope.data) {
                        self.locate(&prefix, &envelope, &mut item).await;
                        items.push(item);
                    }
                }
                _ => {
                    let mut item = item_of(&envelope);
                    let children: Vec<Envelope> = self
                        .pages(&format!("/api/{prefix}/items/{}/children", envelope.key))
                        .await?;
                    for child in &children {
                        match child.data["itemType"].as_str() {
                            Some("note") => {
                                let text = note_text(child.data["note"].as_str().unwrap_or(""));
                                if !text.is_empty() {
                                    item.notes.push(text);
                                }
                            }
                            Some("attachment") if is_pdf(&child.data) => {
                                self.locate(&prefix, child, &mut item).await;
                            }
                            _ => {}
                        }
                    }
                    items.push(item);
                }
            }
        }
        Ok(items)
    }

    /// Add the attachment's file to `item.pdfs`, or say why it is missing.
    async fn locate(&self, prefix: &str, attachment: &Envelope, item: &mut Item) {
        let what = attachment.data["filename"]
            .as_str()
            .or(attachment.data["title"].as_str())
            .unwrap_or(&attachment.key)
            .to_owned();
        let found = match self
            .get(&format!(
                "/api/{prefix}/items/{}/file/view/url",
                attachment.key
            ))
            .await
        {
            Ok(body) => file_url_path(body.trim()),
            Err(_) => None,
        };
        match found {
            Some(path) if path.is_file() => {
                item.pdfs.push(path);
                item.pdf_keys.push(attachment.key.clone());
            }
            Some(path) => item
                .missing
                .push(format!("{what}: not found at {}", path.display())),
            None => item
                .missing
                .push(format!("{what}: the file is not on this computer")),
        }
    }

    /// Every page of a list: `limit`/`start`, until `Total-Results`.
    async fn pages<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
    ) -> Result<Vec<T>, ZoteroError> {
        let mut all = Vec::new();
        loop {
            let sep = if path.contains('?') { '&' } else { '?' };
            let url = format!("{path}{sep}format=json&limit={PAGE}&start={}", all.len());
            let (body, total) = self.get_with_total(&url).await?;
            let page: Vec<T> = serde_json::from_str(&body)
                .map_err(|e| ZoteroError::LocalApi(format!("{path}: {e}")))?;
            let got = page.len();
            all.extend(page);
            if got == 0 || total.is_none_or(|t| all.len() >= t) {
                return Ok(all);
            }
        }
    }

    async fn json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, ZoteroError> {
        let body = self.get(path).await.map_err(Failure::into_error)?;
        serde_json::from_str(&body).map_err(|e| ZoteroError::LocalApi(format!("{path}: {e}")))
    }

    async fn get(&self, path: &str) -> Result<String, Failure> {
        self.get_full(path).await.map(|(body, _)| body)
    }

    async fn get_with_total(&self, path: &str) -> Result<(String, Option<usize>), ZoteroError> {
        self.get_full(path).await.map_err(Failure::into_error)
    }

    async fn get_full(&self, path: &str) -> Result<(String, Option<usize>), Failure> {
        let response = self
            .http
            .get(format!("{}{path}", self.base))
            .header("Zotero-API-Version", "3")
            .header("Zotero-Allowed-Request", "1")
            .send()
            .await
            .map_err(|_| Failure::Unreachable)?;
        let status = response.status();
        let total = response
            .headers()
            .get("total-results")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok());
        match status {
            StatusCode::OK => response
                .text()
                .await
                .map(|body| (body, total))
                .map_err(|e| Failure::Zotero(ZoteroError::LocalApi(format!("{path}: {e}")))),
            StatusCode::FORBIDDEN => Err(Failure::Zotero(ZoteroError::LocalApiOff)),
            other => Err(Failure::Zotero(ZoteroError::LocalApi(format!(
                "{path} answered {}",
                other.as_u16()
            )))),
        }
    }
}

enum Failure {
    /// Nothing listens: Zotero is closed.
    Unreachable,
    Zotero(ZoteroError),
}

impl Failure {
    fn into_error(self) -> ZoteroError {
        match self {
            Self::Unreachable => ZoteroError::LocalApi("Zotero stopped answering".into()),
            Self::Zotero(e) => e,
        }
    }
}

fn is_pdf(data: &Value) -> bool {
    data["contentType"].as_str() == Some("application/pdf")
        || data["filename"]
            .as_str()
            .is_some_and(|f| f.to_lowercase().ends_with(".pdf"))
}

/// "Parent / Child" for the collection `key`.
fn path_of(by_key: &HashMap<&str, (&str, Option<&str>)>, key: &str) -> String {
    let mut names = Vec::new();
    let mut at = Some(key);
    // A cycle cannot happen in Zotero; the bound keeps a broken answer finite.
    while let Some(k) = at.filter(|_| names.len() < 64) {
        let Some((name, parent)) = by_key.get(k) else {
            break;
        };
        names.push(*name);
        at = *parent;
    }
    names.reverse();
    names.join(" / ")
}

/// An item's fields as the Web API's JSON gives them.
fn item_of(envelope: &Envelope) -> Item {
    let data = &envelope.data;
    let text = |field: &str| {
        data[field]
            .as_str()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let creators = data["creators"].as_array().cloned().unwrap_or_default();
    let named = |wanted: Option<&str>| -> Vec<String> {
        creators
            .iter()
            .filter(|c| wanted.is_none_or(|w| c["creatorType"].as_str() == Some(w)))
            .filter_map(|c| match c["name"].as_str() {
                Some(name) => author_name("", name),
                None => author_name(
                    c["firstName"].as_str().unwrap_or(""),
                    c["lastName"].as_str().unwrap_or(""),
                ),
            })
            .collect()
    };
    let mut authors = named(Some("author"));
    if authors.is_empty() {
        authors = named(None);
    }
    let (pmid, arxiv) = ids_beyond_fields(
        text("extra").as_deref(),
        text("archiveID").as_deref(),
        text("DOI").as_deref(),
        text("url").as_deref(),
    );
    Item {
        key: envelope.key.clone(),
        version: data["version"].as_u64().unwrap_or(envelope.version),
        item_type: text("itemType").unwrap_or_default(),
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
        tags: data["tags"]
            .as_array()
            .map(|tags| {
                tags.iter()
                    .filter_map(|t| t["tag"].as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        notes: Vec::new(),
        pdfs: Vec::new(),
        pdf_keys: Vec::new(),
        missing: Vec::new(),
    }
}

/// The path of a `file://` URL.
fn file_url_path(url: &str) -> Option<PathBuf> {
    reqwest::Url::parse(url).ok()?.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_reads_from_the_web_api_shape() {
        let envelope: Envelope = serde_json::from_str(
            r#"{"key":"ABCD2345","version":12,"library":{"type":"user","id":0,"name":"x"},
            "meta":{"creatorSummary":"Vaswani et al.","numChildren":2},
            "data":{"key":"ABCD2345","version":12,"itemType":"conferencePaper","title":" Attention Is All You Need ",
              "creators":[{"creatorType":"editor","firstName":"Ed","lastName":"Itor"},
                          {"creatorType":"author","firstName":"Ashish","lastName":"Vaswani"},
                          {"creatorType":"author","name":"Google Brain"}],
              "abstractNote":"The dominant models","date":"2017-12","proceedingsTitle":"NeurIPS",
              "DOI":"https://doi.org/10.5555/ABC","tags":[{"tag":"transformers"},{"tag":"auto","type":1}]}}"#,
        )
        .unwrap();
        let item = item_of(&envelope);
        assert_eq!(item.title, "Attention Is All You Need");
        assert_eq!(item.authors, ["Vaswani, Ashish", "Google Brain"]);
        assert_eq!(item.year, Some(2017));
        assert_eq!(item.venue.as_deref(), Some("NeurIPS"));
        assert_eq!(item.doi.as_deref(), Some("10.5555/abc"));
        assert_eq!(item.tags, ["transformers", "auto"]);
        assert_eq!(item.version, 12);
        assert_eq!(
            file_url_path("file:///home/r/Zotero/storage/K/a%20b.pdf").unwrap(),
            PathBuf::from("/home/r/Zotero/storage/K/a b.pdf")
        );
        assert_eq!(file_url_path("https://example.org/x.pdf"), None);
    }
}
