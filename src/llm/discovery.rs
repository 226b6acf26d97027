//! Finding models: listing what an endpoint serves (`GET …/models`), checking
//! that every endpoint of a pool serves the profile's model, and noticing a
//! local Ollama (`GET localhost:11434/api/tags`) so Quire works with no
//! settings at all when one is running.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::error::{LlmError, classify_http};
use super::http::{auth_headers, http_client};
use super::secrets::ApiKey;
use super::settings::{ModelSettings, Protocol};

/// Where a local Ollama listens, unless `QUIRE_OLLAMA_URL` says otherwise.
pub const OLLAMA_URL: &str = "http://localhost:11434";

fn ollama_root() -> String {
    std::env::var("QUIRE_OLLAMA_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| OLLAMA_URL.to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// Model ids the endpoint lists, sorted.
pub async fn list_models(
    settings: &ModelSettings,
    key: Option<&ApiKey>,
) -> Result<Vec<String>, LlmError> {
    let http = http_client(settings)?;
    let url = settings.models_url();
    let response = http
        .get(&url)
        .headers(auth_headers(settings.protocol, key))
        .timeout(settings.read_timeout())
        .send()
        .await
        .map_err(|e| LlmError::Unreachable {
            url: url.clone(),
            message: if e.is_timeout() {
                "no answer in time".to_owned()
            } else {
                "connection failed".to_owned()
            },
        })?;
    let status = response.status();
    let body = response.text().await.unwrap_or_default();
    if !status.is_success() {
        return Err(classify_http(status.as_u16(), None, &body));
    }
    let value: Value = serde_json::from_str(&body)
        .map_err(|_| LlmError::Malformed(format!("{url} did not answer with JSON")))?;
    Ok(model_ids(&value))
}

/// What one endpoint of a profile said when asked what it serves.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EndpointCheck {
    /// Its address (no password).
    pub endpoint: String,
    /// It answered the models list.
    pub reached: bool,
    /// It lists the profile's model.
    pub serves: bool,
    /// Why not, said so the setting can be fixed.
    pub problem: Option<String>,
}

/// Ask every endpoint of `settings` (all at once) what it serves; each
/// check comes with the list it gave.
pub async fn check_endpoints(
    settings: &ModelSettings,
    key: Option<&ApiKey>,
) -> Vec<(EndpointCheck, Vec<String>)> {
    // Each server is asked with its own key; one whose key cannot be had is
    // asked with none (it says so if it needs one).
    let keys = settings
        .endpoint_keys(key)
        .unwrap_or_else(|_| vec![None; settings.endpoints().len()]);
    let asks = settings
        .endpoints()
        .into_iter()
        .zip(keys)
        .map(|(one, key)| async move {
            let endpoint = super::pool::endpoint_label(&one.base_url);
            match list_models(&one, key.as_ref()).await {
                Ok(models) => {
                    let serves = models.iter().any(|m| m == &one.model);
                    let problem = (!serves).then(|| {
                        let listed = if models.is_empty() {
                            "no models".to_owned()
                        } else {
                            models.join(", ")
                        };
                        format!("serves {listed}, not {}", one.model)
                    });
                    let check = EndpointCheck {
                        endpoint,
                        reached: true,
                        serves,
                        problem,
                    };
                    (check, models)
                }
                Err(e) => {
                    let check = EndpointCheck {
                        endpoint,
                        reached: false,
                        serves: false,
                        problem: Some(e.to_string()),
                    };
                    (check, Vec::new())
                }
            }
        });
    futures_util::future::join_all(asks).await
}

/// Ids from an OpenAI/Anthropic list (`data[].id`) or Ollama's (`models[].name`).
fn model_ids(value: &Value) -> Vec<String> {
    let mut ids: Vec<String> = value
        .get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("id").and_then(Value::as_str))
        .chain(
            value
                .get("models")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("name").or(m.get("model")).and_then(Value::as_str)),
        )
        .map(str::to_owned)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// A local Ollama and its models, if one answers within a second.
pub async fn detect_ollama() -> Option<(ModelSettings, Vec<String>)> {
    let root = ollama_root();
    let settings = ModelSettings {
        protocol: Protocol::Openai,
        base_url: format!("{root}/v1"),
        // Ollama loses streamed tool calls (MODEL-SERVERS.md).
        stream_tool_turns: false,
        connect_timeout_secs: 1.0,
        read_timeout_secs: 2.0,
        ..ModelSettings::default()
    };
    let http = http_client(&settings).ok()?;
    let response = http
        .get(format!("{root}/api/tags"))
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    let value: Value = response.json().await.ok()?;
    let models = model_ids(&value);
    let settings = ModelSettings {
        model: models.first().cloned().unwrap_or_default(),
        connect_timeout_secs: ModelSettings::default().connect_timeout_secs,
        read_timeout_secs: ModelSettings::default().read_timeout_secs,
        ..settings
    };
    Some((settings, models))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_every_list_shape() {
        let openai = json!({"object": "list", "data": [{"id": "b"}, {"id": "a"}]});
        assert_eq!(model_ids(&openai), ["a", "b"]);
        let ollama = json!({"models": [{"name": "qwen3:8b", "model": "qwen3:8b"}]});
        assert_eq!(model_ids(&ollama), ["qwen3:8b"]);
        assert!(model_ids(&json!({"unexpected": true})).is_empty());
    }
}
