//! The context a local server really serves a model with, in tokens a
//! request may hold: what fitting a profile and judging a cut prompt rest on.
//!
//! Ollama's `/v1` cannot be told a context length per request (its native
//! API's `options.num_ctx` is ignored there), and past its own length
//! (`OLLAMA_CONTEXT_LENGTH`, or a Modelfile's `num_ctx`; 2,048 or 4,096 by
//! default) it cuts prompts from the front and answers anyway. llama.cpp's
//! `llama-server` splits its `-c` between its `-np` slots and refuses a longer
//! prompt. So before a run Quire asks the endpoint: an Ollama (`GET
//! /api/version`) loads the model (`POST /api/generate` with no prompt, its
//! documented preload) and says the context it loaded with in `GET /api/ps`;
//! a llama.cpp server says a slot's context in `GET /props`
//! (`default_generation_settings.n_ctx`). A profile that claims more is
//! fitted to it, and the user is told what to set to get more. Servers that
//! say nothing (cloud APIs, vLLM) refuse an overlong prompt rather than cut
//! it, and are not asked.

use std::time::Duration;

use serde_json::{Value, json};

use super::http::{auth_headers, http_client};
use super::secrets::ApiKey;
use super::settings::{ModelSettings, Protocol};

/// Which kind of local server said how much it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    Ollama,
    LlamaCpp,
}

impl ServerKind {
    /// Whether a longer prompt than the window is cut to fit and answered
    /// (Ollama) rather than refused (llama.cpp's 400).
    pub fn cuts_prompts(self) -> bool {
        self == Self::Ollama
    }
}

/// The context a server gives each request for the profile's model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedContext {
    pub server: ServerKind,
    pub model: String,
    /// Tokens one request may hold (a llama.cpp slot's share of `-c`).
    pub served: u32,
    /// What the profile's `context_window` says.
    pub configured: u32,
}

impl ServedContext {
    /// The server holds less than the profile claims: prompts must be fitted.
    pub fn is_short(&self) -> bool {
        self.served < self.configured
    }

    /// What the user can do about a short context, in words.
    pub fn advice(&self) -> String {
        let how = match self.server {
            ServerKind::Ollama => format!(
                "start Ollama with OLLAMA_CONTEXT_LENGTH={} (or set PARAMETER num_ctx {} in a Modelfile)",
                self.configured, self.configured
            ),
            ServerKind::LlamaCpp => format!(
                "start llama-server with -c of {} times its parallel slots (-np)",
                self.configured
            ),
        };
        let server = match self.server {
            ServerKind::Ollama => "Ollama",
            ServerKind::LlamaCpp => "llama.cpp",
        };
        format!(
            "{server} serves {} with a {}-token context, less than the profile's context_window of {}: Quire keeps every prompt under {} (papers are read in smaller parts). For the full window, {how} and set context_window to match",
            self.model, self.served, self.configured, self.served
        )
    }

    /// `settings` fitted to the served context: the window it has, and an
    /// answer cap that leaves at least half of it to the prompt.
    pub fn fit(&self, settings: &ModelSettings) -> ModelSettings {
        let mut fitted = settings.clone();
        if self.is_short() {
            fitted.context_window = self.served;
            fitted.max_output_tokens = settings.max_output_tokens.min(self.served / 2).max(1);
        }
        fitted
    }
}

/// The endpoint's root when it is an OpenAI-compatible `…/v1`.
fn root_of(settings: &ModelSettings) -> Option<&str> {
    (settings.protocol == Protocol::Openai)
        .then(|| settings.base_url.trim_end_matches('/').strip_suffix("/v1"))
        .flatten()
}

/// What the endpoint serves the profile's model with, loading it first on
/// an Ollama; `None` whenever it cannot tell (not a local server that says,
/// an old Ollama without `context_length`, unreachable).
pub async fn served_context(
    settings: &ModelSettings,
    key: Option<&ApiKey>,
) -> Option<ServedContext> {
    let root = root_of(settings)?;
    let http = http_client(settings).ok()?;
    if is_ollama(&http, root, key).await {
        // Loading a large model on a CPU takes a while: the profile's patience.
        let loaded = http
            .post(format!("{root}/api/generate"))
            .headers(auth_headers(settings.protocol, key))
            .json(&json!({"model": settings.model, "stream": false}))
            .timeout(settings.request_timeout())
            .send()
            .await
            .ok()?;
        if !loaded.status().is_success() {
            tracing::warn!(status = %loaded.status(), model = %settings.model, "Ollama would not load the model");
            return None;
        }
    }
    served_window(settings, key)
        .await
        .map(|(server, served)| ServedContext {
            server,
            model: settings.model.clone(),
            served,
            configured: settings.context_window,
        })
}

/// The tokens a request may hold on this endpoint, as the server says it
/// now (an Ollama must have the model loaded), without loading anything.
pub async fn served_window(
    settings: &ModelSettings,
    key: Option<&ApiKey>,
) -> Option<(ServerKind, u32)> {
    let root = root_of(settings)?;
    let http = http_client(settings).ok()?;
    if is_ollama(&http, root, key).await {
        let running = get_json(&http, &format!("{root}/api/ps"), key).await?;
        return context_of(&running, &settings.model).map(|n| (ServerKind::Ollama, n));
    }
    let props = get_json(&http, &format!("{root}/props"), key).await?;
    slot_context(&props).map(|n| (ServerKind::LlamaCpp, n))
}

async fn is_ollama(http: &reqwest::Client, root: &str, key: Option<&ApiKey>) -> bool {
    get_json(http, &format!("{root}/api/version"), key)
        .await
        .is_some_and(|v| v.get("version").and_then(Value::as_str).is_some())
}

/// A GET with the profile's credentials: a server or proxy that wants a
/// key for chat wants it here too.
async fn get_json(http: &reqwest::Client, url: &str, key: Option<&ApiKey>) -> Option<Value> {
    http.get(url)
        .headers(auth_headers(Protocol::Openai, key))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()
        .filter(|r| r.status().is_success())?
        .json()
        .await
        .ok()
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

/// A llama.cpp slot's context from its `/props`: each request gets one slot,
/// and `n_ctx` there is already the slot's share of `-c`.
fn slot_context(props: &Value) -> Option<u32> {
    props
        .get("default_generation_settings")?
        .get("n_ctx")?
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
            server: ServerKind::Ollama,
            model: "m".into(),
            served: 4096,
            configured: 32768,
        };
        let fitted = served.fit(&ModelSettings::default());
        assert_eq!(fitted.context_window, 4096);
        assert_eq!(fitted.max_output_tokens, 2048);
        assert!(served.advice().contains("OLLAMA_CONTEXT_LENGTH=32768"));
        // A server holding more than the profile claims changes nothing.
        let roomy = ServedContext {
            served: 65_536,
            ..served
        };
        assert!(!roomy.is_short());
        assert_eq!(
            roomy.fit(&ModelSettings::default()),
            ModelSettings::default()
        );
    }

    #[test]
    fn a_llama_cpp_slot_context_is_read_from_its_props() {
        let props = json!({
            "default_generation_settings": {"n_ctx": 8192, "params": {}},
            "total_slots": 2,
            "model_path": "gemma.gguf",
        });
        assert_eq!(slot_context(&props), Some(8192));
        assert_eq!(slot_context(&json!({"total_slots": 2})), None);
    }
}
