//! The HTTP both Batch APIs share: the profile's key and timeouts on every
//! request, an error status read as the interactive client reads it, and an
//! answer parsed into what the API documents.

use serde::Deserialize;

use crate::llm::LlmError;
use crate::llm::classify_http;
use crate::llm::http::{auth_headers, http_client};
use crate::llm::secrets::ApiKey;
use crate::llm::settings::ModelSettings;

/// One endpoint's Batch API connection.
pub(super) struct BatchHttp {
    pub base: String,
    pub http: reqwest::Client,
    key: Option<ApiKey>,
    settings: ModelSettings,
}

impl BatchHttp {
    pub fn new(settings: &ModelSettings, key: Option<ApiKey>) -> Result<Self, LlmError> {
        Ok(Self {
            base: settings.base_url.trim_end_matches('/').to_owned(),
            key,
            http: http_client(settings)?,
            settings: settings.clone(),
        })
    }

    /// Send `request` with the profile's key; the answer's text.
    pub async fn send(
        &self,
        request: reqwest::RequestBuilder,
        what: &str,
    ) -> Result<String, LlmError> {
        let url = format!("{} ({what})", self.base);
        let response = request
            .headers(auth_headers(self.settings.protocol, self.key.as_ref()))
            .timeout(self.settings.request_timeout())
            .send()
            .await
            .map_err(|e| LlmError::Unreachable {
                url: url.clone(),
                message: crate::net::failure_words(&e).to_owned(),
            })?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response.text().await.map_err(|_| LlmError::CutStream)?;
        if !status.is_success() {
            return Err(classify_http(
                status.as_u16(),
                retry_after.as_deref(),
                &body,
            ));
        }
        Ok(body)
    }

    /// `body` read as the answer to `what`.
    pub fn json<T: for<'de> Deserialize<'de>>(body: &str, what: &str) -> Result<T, LlmError> {
        serde_json::from_str(body).map_err(|e| {
            LlmError::Malformed(format!(
                "the answer to {what} is not what the Batch API sends: {e}"
            ))
        })
    }
}
