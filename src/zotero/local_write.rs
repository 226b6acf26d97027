//! Writing through Zotero 10's local API, so a push needs no cloud key. The
//! running Zotero names its database in a `Zotero-Server-ID` header (`GET
//! /api/`); Quire asks once for write access (`POST /api/local/authorize`
//! with its name and that id), which Zotero shows as a dialog: *Always
//! Allow* grants a key that lasts until the researcher clears write
//! authorizations in Zotero's settings, *Allow* a key for one write, *Deny*
//! nothing. Every write carries the key and the server id, so a key never
//! writes into another Zotero database. Zotero 7 to 9 have no local writes:
//! `GET /api/` answers without the header, and the Web API is the way.

use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;

use crate::llm::secrets::ApiKey;

/// The name Zotero's dialog shows.
pub const APP_NAME: &str = "Quire";

/// The secret store's name for the write key of database `server_id`.
pub fn key_service(server_id: &str) -> String {
    format!("zotero-local:{server_id}")
}

/// Why local writes are not available, or were refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LocalWriteError {
    #[error("Zotero is not running (nothing answers at {0}): start Zotero, then try again")]
    NotRunning(String),
    #[error(
        "Zotero is running but does not let other applications talk to it (403): tick Settings → Advanced → \"Allow other applications on this computer to communicate with Zotero\""
    )]
    Off,
    #[error(
        "this Zotero cannot take writes from other applications (Zotero 10 or later can); use a Zotero Web API key instead (Settings, or `quire zotero key`)"
    )]
    TooOld,
    #[error("write access was denied in Zotero's dialog")]
    Denied,
    #[error("Zotero answered {status} to {what}")]
    Status { status: u16, what: String },
}

/// What Zotero's dialog granted.
#[derive(Debug)]
pub struct Granted {
    pub key: ApiKey,
    /// Whether it lasts (*Always Allow*) or serves one write (*Allow*).
    pub lasting: bool,
}

/// The local API at `base` (`http://127.0.0.1:23119`) for writes.
pub struct LocalWrite {
    http: reqwest::Client,
    base: String,
}

impl LocalWrite {
    pub fn new(base: &str) -> Result<Self, LocalWriteError> {
        crate::net::install_crypto_provider();
        let http = reqwest::Client::builder()
            .no_proxy()
            .connect_timeout(Duration::from_secs(2))
            // The dialog waits for the researcher.
            .timeout(Duration::from_secs(300))
            .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LocalWriteError::Status {
                status: 0,
                what: e.without_url().to_string(),
            })?;
        Ok(Self {
            http,
            base: base.trim_end_matches('/').to_owned(),
        })
    }

    /// The API's base for writes (`…/api`), as [`super::web_api::WebApi`]
    /// takes it.
    pub fn api_base(&self) -> String {
        format!("{}/api", self.base)
    }

    /// The id of the database the running Zotero serves; `TooOld` when it
    /// names none (no local writes).
    pub async fn server_id(&self) -> Result<String, LocalWriteError> {
        let response = self
            .http
            .get(format!("{}/api/", self.base))
            .header("Zotero-API-Version", "3")
            .send()
            .await
            .map_err(|_| LocalWriteError::NotRunning(self.base.clone()))?;
        match response.status() {
            StatusCode::OK => response
                .headers()
                .get("zotero-server-id")
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
                .ok_or(LocalWriteError::TooOld),
            StatusCode::FORBIDDEN => Err(LocalWriteError::Off),
            status => Err(LocalWriteError::Status {
                status: status.as_u16(),
                what: "GET /api/".into(),
            }),
        }
    }

    /// Ask Zotero for write access to database `server_id`: Zotero shows its
    /// dialog, and this waits for the researcher's answer.
    pub async fn authorize(&self, server_id: &str) -> Result<Granted, LocalWriteError> {
        #[derive(Deserialize)]
        struct Answer {
            key: String,
            #[serde(default)]
            remember: bool,
        }
        let response = self
            .http
            .post(format!("{}/api/local/authorize", self.base))
            .header("Zotero-API-Version", "3")
            .header("Zotero-Server-ID", server_id)
            .json(&serde_json::json!({ "appName": APP_NAME }))
            .send()
            .await
            .map_err(|_| LocalWriteError::NotRunning(self.base.clone()))?;
        match response.status() {
            StatusCode::OK => {
                let answer: Answer =
                    response.json().await.map_err(|e| LocalWriteError::Status {
                        status: 200,
                        what: format!("the authorization (unreadable: {})", e.without_url()),
                    })?;
                Ok(Granted {
                    key: ApiKey::new(answer.key),
                    lasting: answer.remember,
                })
            }
            StatusCode::FORBIDDEN => Err(LocalWriteError::Denied),
            StatusCode::NOT_FOUND | StatusCode::NOT_IMPLEMENTED => Err(LocalWriteError::TooOld),
            status => Err(LocalWriteError::Status {
                status: status.as_u16(),
                what: "the authorization".into(),
            }),
        }
    }
}
