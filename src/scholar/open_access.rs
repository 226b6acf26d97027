//! Open-access copies: where one is (Unpaywall's best open location for a
//! DOI, `GET /v2/{doi}?email=…`, which Unpaywall asks to carry a contact
//! address) and fetching it once the researcher approved it. A fetched file
//! must be a PDF (`%PDF-` at its start): a landing page, a login wall or a
//! captcha served in its place is refused with what it was. Requests go one
//! at a time, spaced, with a `Retry-After` honoured when short; downloads
//! stop at a size no paper reaches. The contact address goes to Unpaywall
//! alone: file hosts are asked with a plain User-Agent, over https, at
//! public addresses only, each redirect checked ([`super::file_hosts`]).

use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::file_hosts::{self, FileHosts};
use super::percent_encode;
use crate::workspace::OpenCopy;

/// The largest file fetched: 200 MB.
const MAX_BYTES: u64 = 200 * 1024 * 1024;

/// The least time between two requests to Unpaywall (it asks for no more
/// than 100,000 a day; ten a second is well within).
const SPACING: Duration = Duration::from_millis(100);

/// The longest `Retry-After` waited out.
const LONGEST_WAIT: Duration = Duration::from_secs(30);

/// Redirects followed from a copy's address to its file, at most.
const MAX_REDIRECTS: usize = 8;

/// Asks Unpaywall and fetches copies.
pub struct OpenAccess {
    /// Unpaywall's client, whose User-Agent carries the contact address.
    http: reqwest::Client,
    /// The file hosts' client: a plain User-Agent, redirects followed by
    /// hand (each one checked), names resolved to public addresses only.
    files: reqwest::Client,
    hosts: FileHosts,
    unpaywall: String,
    contact: Option<String>,
    next_at: Mutex<Instant>,
}

/// Why no copy was fetched, in words for the researcher (and PRISMA's
/// "reports not retrieved").
pub type Reason = String;

#[derive(Deserialize)]
struct UnpaywallWork {
    #[serde(default)]
    best_oa_location: Option<UnpaywallLocation>,
}

#[derive(Deserialize)]
struct UnpaywallLocation {
    #[serde(default)]
    url_for_pdf: Option<String>,
    #[serde(default)]
    url_for_landing_page: Option<String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    host_type: Option<String>,
    #[serde(default)]
    repository_institution: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    license: Option<String>,
}

/// The best open location of an Unpaywall answer; `Ok(None)` when the work
/// has none.
pub fn parse_unpaywall(body: &str) -> Result<Option<OpenCopy>, String> {
    let work: UnpaywallWork =
        serde_json::from_str(body).map_err(|e| format!("not an Unpaywall answer: {e}"))?;
    Ok(work.best_oa_location.and_then(|l| {
        let nonempty = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        let pdf_url = nonempty(l.url_for_pdf);
        let landing_url = nonempty(l.url_for_landing_page).or(nonempty(l.url));
        let host = nonempty(l.repository_institution)
            .or_else(|| {
                pdf_url
                    .as_deref()
                    .or(landing_url.as_deref())
                    .and_then(host_of)
            })
            .map(|h| match l.host_type.as_deref() {
                Some(kind @ ("publisher" | "repository")) => format!("{h} ({kind})"),
                _ => h,
            });
        (pdf_url.is_some() || landing_url.is_some()).then_some(OpenCopy {
            pdf_url,
            landing_url,
            host,
            version: nonempty(l.version),
            licence: nonempty(l.license),
        })
    }))
}

/// The host name of a URL.
fn host_of(url: &str) -> Option<String> {
    reqwest::Url::parse(url)
        .ok()?
        .host_str()
        .map(|h| h.trim_start_matches("www.").to_owned())
}

impl OpenAccess {
    /// Unpaywall at `unpaywall` (`https://api.unpaywall.org`, or
    /// `QUIRE_UNPAYWALL_URL`); without a contact address it is not asked.
    /// File hosts follow the rules of [`FileHosts::from_env`].
    pub fn new(unpaywall: String, contact: Option<String>) -> Result<Self, String> {
        Self::with_file_hosts(unpaywall, contact, FileHosts::from_env())
    }

    /// As [`Self::new`], with file hosts kept to `hosts`' rules.
    pub fn with_file_hosts(
        unpaywall: String,
        contact: Option<String>,
        hosts: FileHosts,
    ) -> Result<Self, String> {
        crate::net::install_crypto_provider();
        let contact = contact
            .map(|c| c.trim().to_owned())
            .filter(|c| c.contains('@') && !c.chars().any(char::is_whitespace));
        let agent = match &contact {
            Some(c) => format!(
                "quire/{} (literature review app; mailto:{c})",
                env!("CARGO_PKG_VERSION")
            ),
            None => format!(
                "quire/{} (literature review app)",
                env!("CARGO_PKG_VERSION")
            ),
        };
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(120))
            .user_agent(agent)
            .build()
            .map_err(|e| format!("cannot set up HTTP: {e}"))?;
        let files = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(120))
            .user_agent(concat!(
                "quire/",
                env!("CARGO_PKG_VERSION"),
                " (literature review app)"
            ))
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(hosts.resolver())
            .build()
            .map_err(|e| format!("cannot set up HTTP: {e}"))?;
        Ok(Self {
            http,
            files,
            hosts,
            unpaywall: unpaywall.trim_end_matches('/').to_owned(),
            contact,
            next_at: Mutex::new(Instant::now()),
        })
    }

    /// `QUIRE_UNPAYWALL_URL`, else Unpaywall's public API.
    pub fn unpaywall_from_env() -> String {
        std::env::var("QUIRE_UNPAYWALL_URL")
            .ok()
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| "https://api.unpaywall.org".into())
    }

    /// Unpaywall's best open location for `doi`.
    pub async fn unpaywall(&self, doi: &str) -> Result<Option<OpenCopy>, Reason> {
        let Some(contact) = &self.contact else {
            return Err(
                "Unpaywall was not asked: it needs a contact email (QUIRE_CONTACT_EMAIL, or the \
                 contact address in the review's lookup settings)"
                    .into(),
            );
        };
        let url = format!(
            "{}/v2/{}?email={}",
            self.unpaywall,
            percent_encode(doi, b"/"),
            percent_encode(contact, b"@")
        );
        for attempt in 0..2 {
            self.pace().await;
            let response = self.http.get(&url).send().await.map_err(|e| {
                format!(
                    "Unpaywall cannot be reached ({})",
                    crate::net::failure_words(&e)
                )
            })?;
            match response.status() {
                StatusCode::OK => {
                    let body = response.text().await.map_err(|e| {
                        format!(
                            "Unpaywall's answer was cut off ({})",
                            crate::net::failure_words(&e)
                        )
                    })?;
                    return parse_unpaywall(&body);
                }
                StatusCode::NOT_FOUND => return Ok(None),
                StatusCode::UNPROCESSABLE_ENTITY => {
                    return Err("Unpaywall refused the contact email (422)".into());
                }
                status if attempt == 0 && retryable(status) => {
                    let wait = crate::net::retry_after(&response).unwrap_or(Duration::from_secs(2));
                    if wait > LONGEST_WAIT {
                        return Err(format!("Unpaywall asked to wait {} s", wait.as_secs()));
                    }
                    *self.next_at.lock().await = Instant::now() + wait;
                }
                status => return Err(format!("Unpaywall answered {}", status.as_u16())),
            }
        }
        Err("Unpaywall kept refusing".into())
    }

    /// The PDF at `url`, or why it is not one.
    pub async fn fetch_pdf(&self, url: &str) -> Result<Vec<u8>, Reason> {
        let mut url = reqwest::Url::parse(url).map_err(|e| format!("not a web address ({e})"))?;
        self.hosts.check(&url)?;
        let mut hops = 0;
        let mut response = loop {
            let host = host_of(url.as_str()).unwrap_or_else(|| "the host".into());
            let response = self
                .files
                .get(url.clone())
                .header(reqwest::header::ACCEPT, "application/pdf")
                .send()
                .await
                .map_err(|e| match file_hosts::refused_name(&e) {
                    Some(refused) => {
                        format!("{refused}, which an open-access download never reaches")
                    }
                    None => format!(
                        "{host} cannot be reached ({})",
                        crate::net::failure_words(&e)
                    ),
                })?;
            if !response.status().is_redirection() {
                break response;
            }
            let next = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|to| url.join(to).ok())
                .ok_or_else(|| format!("{host} redirected to no valid address"))?;
            hops += 1;
            if hops > MAX_REDIRECTS {
                return Err(format!("{host} redirected more than {MAX_REDIRECTS} times"));
            }
            self.hosts.check_redirect(&url, &next)?;
            url = next;
        };
        let host = host_of(url.as_str()).unwrap_or_else(|| "the host".into());
        let status = response.status();
        if !status.is_success() {
            return Err(match status {
                StatusCode::FORBIDDEN | StatusCode::UNAUTHORIZED => format!(
                    "{host} refused the download ({}): it may need a login or block programs",
                    status.as_u16()
                ),
                StatusCode::NOT_FOUND | StatusCode::GONE => {
                    format!("{host} no longer has the file ({})", status.as_u16())
                }
                _ => format!("{host} answered {}", status.as_u16()),
            });
        }
        if response.content_length().is_some_and(|n| n > MAX_BYTES) {
            return Err(format!("{host}'s file is over {} MB", MAX_BYTES >> 20));
        }
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let mut bytes = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| {
            format!(
                "the download from {host} was cut off ({})",
                crate::net::failure_words(&e)
            )
        })? {
            bytes.extend_from_slice(&chunk);
            if bytes.len() as u64 > MAX_BYTES {
                return Err(format!("{host}'s file is over {} MB", MAX_BYTES >> 20));
            }
        }
        let start = &bytes[..bytes.len().min(1024)];
        if !start.windows(5).any(|w| w == b"%PDF-") {
            let what = if content_type.contains("html") {
                "a web page"
            } else {
                "not a PDF"
            };
            return Err(format!(
                "{host} served {what} instead of the PDF ({})",
                if content_type.is_empty() {
                    "no type"
                } else {
                    &content_type
                }
            ));
        }
        Ok(bytes)
    }

    async fn pace(&self) {
        let mut next = self.next_at.lock().await;
        tokio::time::sleep_until(*next).await;
        *next = Instant::now() + SPACING;
    }
}

fn retryable(status: StatusCode) -> bool {
    status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unpaywall_gives_its_best_location_with_host_version_and_licence() {
        let body = r#"{"doi":"10.1038/nature12373","is_oa":true,"best_oa_location":{
            "url":"https://europepmc.org/articles/pmc4221854?pdf=render",
            "url_for_pdf":"https://europepmc.org/articles/pmc4221854?pdf=render",
            "url_for_landing_page":"https://europepmc.org/articles/pmc4221854",
            "host_type":"repository","repository_institution":null,"evidence":"oa repository (via OAI-PMH doi match)",
            "version":"acceptedVersion","license":"cc-by"},"oa_locations":[]}"#;
        let copy = parse_unpaywall(body).unwrap().unwrap();
        assert_eq!(copy.host.as_deref(), Some("europepmc.org (repository)"));
        assert_eq!(copy.version.as_deref(), Some("acceptedVersion"));
        assert_eq!(copy.licence.as_deref(), Some("cc-by"));
        assert!(copy.pdf_url.unwrap().contains("pdf=render"));
        let closed = r#"{"doi":"10.1/x","is_oa":false,"best_oa_location":null,"oa_locations":[]}"#;
        assert_eq!(parse_unpaywall(closed).unwrap(), None);
        assert!(parse_unpaywall("<html>").is_err());
    }
}
