//! The HTTP every request to a model server goes out on: a client with the
//! profile's timeouts, and the headers that authenticate and version a
//! request. Shared by the provider (chat calls), discovery (model lists) and
//! the served-context probes, none of which depends on another for it.

use reqwest::header::{HeaderMap, HeaderValue};

use super::error::LlmError;
use super::secrets::ApiKey;
use super::settings::{ModelSettings, Protocol};

/// The Anthropic API version we speak.
const ANTHROPIC_VERSION: &str = "2023-06-01";

/// An HTTP client with the settings' connect and read timeouts. Never a total
/// `timeout`: on a stream that would be a deadline for the whole answer.
pub fn http_client(settings: &ModelSettings) -> Result<reqwest::Client, LlmError> {
    crate::net::install_crypto_provider();
    reqwest::Client::builder()
        .connect_timeout(settings.connect_timeout())
        .read_timeout(settings.read_timeout())
        .user_agent(concat!("quire/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| LlmError::Unreachable {
            url: settings.base_url.clone(),
            message: format!("cannot set up HTTP: {e}"),
        })
}

/// The headers that authenticate and version a request. Secrets are marked
/// sensitive so reqwest and hyper never print them in debug output.
pub fn auth_headers(protocol: Protocol, key: Option<&ApiKey>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    let secret = |value: String| {
        HeaderValue::from_str(&value).ok().map(|mut v| {
            v.set_sensitive(true);
            v
        })
    };
    match protocol {
        Protocol::Openai => {
            if let Some(v) = key.and_then(|k| secret(format!("Bearer {}", k.expose()))) {
                headers.insert(reqwest::header::AUTHORIZATION, v);
            }
        }
        Protocol::Anthropic => {
            if let Some(v) = key.and_then(|k| secret(k.expose().to_owned())) {
                headers.insert("x-api-key", v);
            }
            headers.insert(
                "anthropic-version",
                HeaderValue::from_static(ANTHROPIC_VERSION),
            );
        }
    }
    headers
}
