//! The context an Ollama really serves a model with. Ollama's `/v1` cannot be
//! told a context length per request (its native API's `options.num_ctx` is
//! ignored there), and past its own length (`OLLAMA_CONTEXT_LENGTH`, or a
//! Modelfile's `num_ctx`; 2,048 or 4,096 by default) it cuts prompts from the
//! front and answers anyway. So before a run Quire asks: is this endpoint an
//! Ollama (`GET /api/version`)? Then it loads the model (`POST /api/generate`
//! with no prompt, Ollama's documented preload) and reads the context it was
//! loaded with from `GET /api/ps`. A profile that claims more is fitted to it,
//! and the user is told what to set to get more.

use std::time::Duration;

use serde_json::{Value, json};

use super::provider::http_client;
use super::settings::{ModelSettings, Protocol};

/// What an Ollama serves the profile's model with, when it serves less than
/// the profile's `context_window`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedContext {
    pub model: String,
    pub served: u32,
    pub configured: u32,
}

impl ServedContext {
    /// What the user can do about it, in words.
    pub fn advice(&self) -> String {
        format!(
            "Ollama serves {} with a {}-token context, less than the profile's context_window of {}: Quire keeps every prompt under {} (papers are read in smaller parts). For the full window, start Ollama with OLLAMA_CONTEXT_LENGTH={} (or set PARAMETER num_ctx {} in a Modelfile) and set context_window to match",
            self.model, self.served, self.configured, self.served, self.configured, self.configured
        )
    }

    /// `settings` fitted to the served context: the window it has, and an
    /// answer cap that leaves at least half of it to the prompt.
    pub fn fit(&self, settings: &ModelSettings) -> ModelSettings {
        let mut fitted = settings.clone();
        fitted.context_window = self.served;
        fitted.max_output_tokens = settings.max_output_tokens.min(self.served / 2).max(1);
        fitted
    }
}

/// The endpoint's root when it is an OpenAI-compatible `…/v1`.
fn root_of(settings: &ModelSettings) -> Option<&str> {
    (settings.protocol == Protocol::Openai)
        .then(|| settings.base_url.trim_end_matches('/').strip_suffix("/v1"))
        .flatten()
}

/// `Some` when the endpoint is an Ollama serving the model with less context
/// than the profile says; `None` otherwise, and whenever it cannot tell (not
/// an Ollama, an old Ollama without `context_length`, unreachable).
pub async fn served_context(settings: &ModelSettings) -> Option<ServedContext> {
    let root = root_of(settings)?;
    let http = http_client(settings).ok()?;
    let version: Value = http
        .get(format!("{root}/api/version"))
        .timeout(Duration::from_secs(2))
        .send()
        .await
        .ok()
        .filter(|r| r.status().is_success())?
        .json()
        .await
        .ok()?;
    version.get("version")?.as_str()?;
    // Loading a large model on a CPU takes a while: the profile's patience.
    let loaded = http
        .post(format!("{root}/api/generate"))
        .json(&json!({"model": settings.model, "stream": false}))
        .timeout(settings.request_timeout())
        .send()
        .await
        .ok()?;
    if !loaded.status().is_success() {
        tracing::warn!(status = %loaded.status(), model = %settings.model, "Ollama would not load the model");
        return None;
    }
    let running: Value = http
        .get(format!("{root}/api/ps"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    let served = context_of(&running, &settings.model)?;
    (served < settings.context_window).then(|| ServedContext {
        model: settings.model.clone(),
        served,
        configured: settings.context_window,
    })
}

/// The `context_length` `/api/ps` gives `model` (listed by `name` or
/// `model`, with or without the `:latest` tag).
fn context_of(running: &Value, model: &str) -> Option<u32> {
    let bare = |name: &str| name.strip_suffix(":latest").unwrap_or(name).to_owned();
    running
        .get("models")?
        .as_array()?
        .iter()
        .find(|m| {
            ["name", "model"].iter().any(|k| {
                m.get(k)
                    .and_then(Value::as_str)
                    .is_some_and(|n| bare(n) == bare(model))
            })
        })?
        .get("context_length")?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_context_is_read_for_the_model_whatever_its_tag() {
        let running = json!({"models": [
            {"name": "llama3.2:latest", "model": "llama3.2:latest", "context_length": 4096},
            {"name": "qwen3:8b", "model": "qwen3:8b", "context_length": 8192},
        ]});
        assert_eq!(context_of(&running, "llama3.2"), Some(4096));
        assert_eq!(context_of(&running, "qwen3:8b"), Some(8192));
        assert_eq!(context_of(&running, "mistral"), None);
        // An Ollama too old to say.
        assert_eq!(context_of(&json!({"models": [{"name": "m"}]}), "m"), None);
    }

    #[test]
    fn only_an_openai_compatible_v1_endpoint_is_probed() {
        let at = |url: &str, protocol| ModelSettings {
            base_url: url.into(),
            protocol,
            ..ModelSettings::default()
        };
        assert_eq!(
            root_of(&at("http://localhost:11434/v1/", Protocol::Openai)),
            Some("http://localhost:11434")
        );
        assert_eq!(
            root_of(&at("https://api.anthropic.com", Protocol::Anthropic)),
            None
        );
        assert_eq!(
            root_of(&at("http://host:8080/openai", Protocol::Openai)),
            None
        );
    }

    #[test]
    fn a_fitted_profile_leaves_room_for_the_prompt() {
        let served = ServedContext {
            model: "m".into(),
            served: 4096,
            configured: 32768,
        };
        let fitted = served.fit(&ModelSettings::default());
        assert_eq!(fitted.context_window, 4096);
        assert_eq!(fitted.max_output_tokens, 2048);
        assert!(served.advice().contains("OLLAMA_CONTEXT_LENGTH=32768"));
    }
}
