//! Model settings: named profiles in `models.toml` in Quire's config folder
//! (`QUIRE_CONFIG_DIR`, else `~/.config/quire`), each naming a protocol, an
//! endpoint, a model and the limits Quire keeps to. `docs/models.md` has a
//! tested example for every server we support.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::secrets::ApiKey;

/// The file name of the settings inside the config folder.
pub const SETTINGS_FILE: &str = "models.toml";

/// Which wire protocol an endpoint speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Protocol {
    /// OpenAI-compatible Chat Completions (OpenAI, vLLM, llama.cpp, Ollama,
    /// LM Studio, OpenRouter, DeepSeek…).
    #[default]
    Openai,
    /// Anthropic's Messages API.
    Anthropic,
}

/// One endpoint and model, with the limits Quire keeps to.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelSettings {
    pub protocol: Protocol,
    /// Up to and including the version segment: `https://api.openai.com/v1`,
    /// `http://localhost:11434/v1`, `https://api.anthropic.com`.
    pub base_url: String,
    pub model: String,
    /// The environment variable holding the API key. When unset or empty, the key
    /// comes from the OS secret store or the 0600 key file (`quire key set`).
    pub api_key_env: Option<String>,
    /// The model's context window in tokens; prompts are kept below it.
    pub context_window: u32,
    /// The most tokens one answer may use (`max_tokens`).
    pub max_output_tokens: u32,
    /// At most this many requests in flight to this endpoint.
    pub concurrency: usize,
    /// Seconds to establish a connection.
    pub connect_timeout_secs: f64,
    /// Seconds of silence from the server (before the first byte or between
    /// bytes of a stream) before the attempt counts as timed out.
    pub read_timeout_secs: f64,
    /// Seconds one whole call may take, all retries included.
    pub request_timeout_secs: f64,
    /// Retries of a retryable failure (rate limit, 5xx, timeout, cut stream).
    pub max_retries: u32,
    /// Stream answers (text shows as it arrives).
    pub stream: bool,
    /// Stream turns that offer tools. Off for Ollama, which loses streamed tool
    /// calls.
    pub stream_tool_turns: bool,
    /// More endpoints serving the same model (replicas of a vLLM or llama.cpp
    /// server, a Ray Serve deployment's routes): calls are spread over
    /// `base_url` and these, each within its own concurrency. Empty: one endpoint.
    pub pool: Vec<PoolEndpoint>,
    /// Seconds an endpoint of a pool is rested after it failed three calls
    /// in a row (`pool::FAILURES_BEFORE_REST`); its calls go to the others
    /// meanwhile.
    pub pool_cooldown_secs: f64,
}

/// One more endpoint of a profile's pool. It serves the profile's model, with
/// the profile's protocol, and the profile's key unless it names its own:
/// every server of a pool is sent the key it is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PoolEndpoint {
    pub base_url: String,
    /// At most this many requests in flight here; `None`: the profile's.
    #[serde(default)]
    pub concurrency: Option<usize>,
    /// The environment variable holding this server's own API key; `None`:
    /// it gets the profile's key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
}

impl Default for ModelSettings {
    fn default() -> Self {
        Self {
            protocol: Protocol::Openai,
            base_url: "http://localhost:11434/v1".to_owned(),
            model: String::new(),
            api_key_env: None,
            context_window: 32_768,
            max_output_tokens: 4_096,
            concurrency: 4,
            connect_timeout_secs: 10.0,
            read_timeout_secs: 120.0,
            request_timeout_secs: 900.0,
            max_retries: 4,
            stream: true,
            stream_tool_turns: true,
            pool: Vec::new(),
            pool_cooldown_secs: 30.0,
        }
    }
}

impl ModelSettings {
    pub fn connect_timeout(&self) -> Duration {
        seconds(self.connect_timeout_secs)
    }

    pub fn read_timeout(&self) -> Duration {
        seconds(self.read_timeout_secs)
    }

    pub fn request_timeout(&self) -> Duration {
        seconds(self.request_timeout_secs)
    }

    /// The endpoint for chat calls.
    pub fn chat_url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        match self.protocol {
            Protocol::Openai => format!("{base}/chat/completions"),
            Protocol::Anthropic if base.ends_with("/v1") => format!("{base}/messages"),
            Protocol::Anthropic => format!("{base}/v1/messages"),
        }
    }

    /// The endpoint listing models.
    pub fn models_url(&self) -> String {
        let base = self.base_url.trim_end_matches('/');
        match self.protocol {
            Protocol::Anthropic if !base.ends_with("/v1") => format!("{base}/v1/models"),
            _ => format!("{base}/models"),
        }
    }

    /// Every endpoint of the profile, `base_url` first, each as settings of
    /// its own (its address and concurrency; the pool left out).
    pub fn endpoints(&self) -> Vec<ModelSettings> {
        let one = |base_url: &str, concurrency: usize| ModelSettings {
            base_url: base_url.to_owned(),
            concurrency,
            pool: Vec::new(),
            ..self.clone()
        };
        std::iter::once(one(&self.base_url, self.concurrency))
            .chain(self.pool.iter().map(|member| {
                one(
                    &member.base_url,
                    member.concurrency.unwrap_or(self.concurrency),
                )
            }))
            .collect()
    }

    /// These settings over only the endpoints `keep` accepts (by address),
    /// the first kept one in `base_url`; `None` when it keeps none.
    pub fn keep_endpoints(&self, keep: impl Fn(&str) -> bool) -> Option<ModelSettings> {
        let mut kept = self
            .endpoints()
            .into_iter()
            .filter(|one| keep(&one.base_url));
        let first = kept.next()?;
        let own_key = |url: &str| {
            self.pool
                .iter()
                .find(|m| m.base_url == url)
                .and_then(|m| m.api_key_env.clone())
        };
        // A pool member put in `base_url`'s place keeps its own key: its
        // variable becomes the profile's (read first, as a profile's is).
        let api_key_env = if first.base_url == self.base_url {
            self.api_key_env.clone()
        } else {
            own_key(&first.base_url).or(self.api_key_env.clone())
        };
        Some(ModelSettings {
            pool: kept
                .map(|one| PoolEndpoint {
                    api_key_env: own_key(&one.base_url),
                    base_url: one.base_url,
                    concurrency: Some(one.concurrency),
                })
                .collect(),
            api_key_env,
            ..first
        })
    }

    /// The key each endpoint is sent, in the order of [`Self::endpoints`]:
    /// `base_url` the profile's (its `api_key_env` when set, else
    /// `profile_key`, which was resolved from it or the secret store); a
    /// pool member its own `api_key_env`'s when it names one (refused when
    /// that variable is not set: the profile's key is not sent in its
    /// place), else the profile's.
    pub fn endpoint_keys(
        &self,
        profile_key: Option<&ApiKey>,
    ) -> Result<Vec<Option<ApiKey>>, SettingsError> {
        let from_env = |var: &str| {
            std::env::var(var)
                .ok()
                .filter(|v| !v.trim().is_empty())
                .map(ApiKey::new)
        };
        let base = self
            .api_key_env
            .as_deref()
            .filter(|v| !v.is_empty())
            .and_then(from_env)
            .or_else(|| profile_key.cloned());
        let mut keys = vec![base];
        for member in &self.pool {
            keys.push(match member.api_key_env.as_deref() {
                Some(var) => Some(from_env(var).ok_or_else(|| {
                    SettingsError::Invalid(format!(
                        "the pool endpoint {} takes its key from {var}, which is not set",
                        super::pool::endpoint_label(&member.base_url)
                    ))
                })?),
                None => profile_key.cloned(),
            });
        }
        Ok(keys)
    }

    /// What a researcher should know of where the keys go: each endpoint a
    /// key is sent to over plain HTTP at a host that is not this machine
    /// (anyone on the way can read it), and the pool's servers sent the
    /// profile's own key.
    pub fn key_exposure(
        &self,
        keys: &[Option<ApiKey>],
        profile_key: Option<&ApiKey>,
    ) -> Vec<String> {
        let mut said = Vec::new();
        let endpoints = self.endpoints();
        for (one, key) in endpoints.iter().zip(keys) {
            if key.is_some() && plain_http_off_machine(&one.base_url) {
                said.push(format!(
                    "an API key goes over plain HTTP to {}: anyone on the network between can read it; use https",
                    super::pool::endpoint_label(&one.base_url)
                ));
            }
        }
        let sharing: Vec<String> = endpoints
            .iter()
            .zip(keys)
            .skip(1)
            .filter(|(_, key)| key.is_some() && key.as_ref() == profile_key)
            .map(|(one, _)| super::pool::endpoint_label(&one.base_url))
            .collect();
        if profile_key.is_some() && !sharing.is_empty() {
            said.push(format!(
                "the profile's API key is sent to every server of its pool ({}); give a server a key of its own with api_key_env",
                sharing.join(", ")
            ));
        }
        said
    }

    /// Requests in flight across every endpoint at most.
    pub fn total_concurrency(&self) -> usize {
        self.endpoints().iter().map(|e| e.concurrency).sum()
    }

    pub fn pool_cooldown(&self) -> Duration {
        seconds(self.pool_cooldown_secs)
    }

    /// What is wrong with these settings, if anything, said so a user can fix it.
    pub fn validate(&self) -> Result<(), SettingsError> {
        let bad = |m: String| Err(SettingsError::Invalid(m));
        let mut seen = std::collections::BTreeSet::new();
        for endpoint in self.endpoints() {
            let url = endpoint.base_url.trim_end_matches('/');
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return bad(format!(
                    "base_url {:?} must start with http:// or https://",
                    endpoint.base_url
                ));
            }
            if !seen.insert(url.to_owned()) {
                return bad(format!(
                    "{url} is named twice; each endpoint of a pool is a different server"
                ));
            }
            if endpoint.concurrency == 0 {
                return bad(format!("concurrency at {url} must be at least 1"));
            }
        }
        if self.model.trim().is_empty() {
            return bad("model is empty; name the model to use (see `quire models`)".into());
        }
        if self.max_output_tokens == 0 || self.max_output_tokens >= self.context_window {
            return bad(format!(
                "max_output_tokens ({}) must be above 0 and below context_window ({})",
                self.max_output_tokens, self.context_window
            ));
        }
        for (name, value) in [
            ("connect_timeout_secs", self.connect_timeout_secs),
            ("read_timeout_secs", self.read_timeout_secs),
            ("request_timeout_secs", self.request_timeout_secs),
            ("pool_cooldown_secs", self.pool_cooldown_secs),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return bad(format!("{name} must be a positive number of seconds"));
            }
        }
        Ok(())
    }
}

/// Whether `url` is plain HTTP to a host other than this machine.
fn plain_http_off_machine(url: &str) -> bool {
    let Ok(parsed) = reqwest::Url::parse(url) else {
        return false;
    };
    if parsed.scheme() != "http" {
        return false;
    }
    let host = parsed
        .host_str()
        .unwrap_or_default()
        .trim_start_matches('[')
        .trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    !loopback
}

fn seconds(value: f64) -> Duration {
    Duration::try_from_secs_f64(value).unwrap_or(Duration::from_secs(1))
}

/// The settings file: named profiles and which one is used by default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SettingsFile {
    /// The profile used when none is named.
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub profiles: BTreeMap<String, ModelSettings>,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read or write {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid settings: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("no model profile {name:?} in {path}; profiles there: {known}")]
    UnknownProfile {
        name: String,
        path: PathBuf,
        known: String,
    },
    #[error(
        "no model is configured: add a profile to {path} (see docs/models.md), or start Ollama on localhost:11434"
    )]
    NoProfile { path: PathBuf },
    #[error("invalid model settings: {0}")]
    Invalid(String),
    #[error("no config folder: set QUIRE_CONFIG_DIR")]
    NoConfigDir,
}

/// Quire's config folder: `QUIRE_CONFIG_DIR`, else the platform's.
pub fn config_dir() -> Result<PathBuf, SettingsError> {
    if let Some(dir) = std::env::var_os("QUIRE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    dirs::config_dir()
        .map(|d| d.join("quire"))
        .ok_or(SettingsError::NoConfigDir)
}

/// Write a file in the config folder atomically (temp file, fsync, rename),
/// created with `mode` from the start.
pub(crate) fn write_config_file(path: &Path, text: &str, mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("config");
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&temp)
        .and_then(|mut file| {
            file.write_all(text.as_bytes())?;
            file.sync_all()
        })
        .and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

impl SettingsFile {
    /// Write the settings back (comments in a hand-edited file are not kept).
    pub fn save(&self, config_dir: &Path) -> Result<(), SettingsError> {
        let path = config_dir.join(SETTINGS_FILE);
        let body = toml::to_string_pretty(self).map_err(|e| SettingsError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let text =
            format!("# Quire's model profiles; see docs/models.md for every setting.\n{body}");
        write_config_file(&path, &text, 0o644)
            .map_err(|source| SettingsError::Read { path, source })
    }

    /// Read the settings; a missing file is an empty one.
    pub fn load(config_dir: &Path) -> Result<Self, SettingsError> {
        let path = config_dir.join(SETTINGS_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(source) => return Err(SettingsError::Read { path, source }),
        };
        toml::from_str(&text).map_err(|e| SettingsError::Parse {
            path,
            message: e.message().to_owned(),
        })
    }

    /// The named profile, or the default one, validated.
    pub fn profile(
        &self,
        config_dir: &Path,
        name: Option<&str>,
    ) -> Result<(String, ModelSettings), SettingsError> {
        let path = config_dir.join(SETTINGS_FILE);
        let wanted = name
            .map(str::to_owned)
            .or_else(|| self.default.clone())
            .or_else(|| {
                (self.profiles.len() == 1)
                    .then(|| self.profiles.keys().next().cloned())
                    .flatten()
            });
        let Some(wanted) = wanted else {
            return Err(SettingsError::NoProfile { path });
        };
        let Some(settings) = self.profiles.get(&wanted) else {
            return Err(SettingsError::UnknownProfile {
                name: wanted,
                path,
                known: self.profiles.keys().cloned().collect::<Vec<_>>().join(", "),
            });
        };
        settings.validate()?;
        Ok((wanted, settings.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pooled(base: &str, members: &[(&str, Option<&str>)]) -> ModelSettings {
        ModelSettings {
            base_url: base.into(),
            model: "m".into(),
            pool: members
                .iter()
                .map(|(url, env)| PoolEndpoint {
                    base_url: (*url).into(),
                    concurrency: None,
                    api_key_env: env.map(Into::into),
                })
                .collect(),
            ..ModelSettings::default()
        }
    }

    #[test]
    fn a_pool_server_gets_its_own_key_or_the_profiles_and_an_unset_own_key_is_refused() {
        let profile = ApiKey::new("sk-profile");
        let shared = pooled("https://a.example/v1", &[("https://b.example/v1", None)]);
        let keys = shared.endpoint_keys(Some(&profile)).unwrap();
        assert_eq!(keys, [Some(profile.clone()), Some(profile.clone())]);
        let own = pooled(
            "https://a.example/v1",
            &[(
                "https://b.example/v1",
                Some("QUIRE_SURELY_UNSET_KEY_VARIABLE"),
            )],
        );
        let refused = own.endpoint_keys(Some(&profile)).unwrap_err().to_string();
        assert!(
            refused.contains("QUIRE_SURELY_UNSET_KEY_VARIABLE"),
            "{refused}"
        );
        assert!(refused.contains("https://b.example/v1"), "{refused}");
    }

    #[test]
    fn where_keys_go_is_said_plain_http_off_this_machine_and_a_shared_key() {
        let profile = ApiKey::new("sk-profile");
        let pool = pooled(
            "http://localhost:8000/v1",
            &[
                ("http://gpu-2:8000/v1", None),
                ("https://gpu-3.example/v1", None),
            ],
        );
        let keys = pool.endpoint_keys(Some(&profile)).unwrap();
        let said = pool.key_exposure(&keys, Some(&profile));
        assert_eq!(said.len(), 2, "{said:?}");
        assert!(
            said[0].contains("plain HTTP to http://gpu-2:8000/v1"),
            "{said:?}"
        );
        assert!(
            said[1].contains("sent to every server of its pool")
                && said[1].contains("http://gpu-2:8000/v1, https://gpu-3.example/v1"),
            "{said:?}"
        );
        // No key, nothing to say; loopback over http is this machine.
        assert!(pool.key_exposure(&[None, None, None], None).is_empty());
        let local = pooled("http://127.0.0.1:8000/v1", &[]);
        assert!(
            local
                .key_exposure(&[Some(profile.clone())], Some(&profile))
                .is_empty()
        );
    }

    #[test]
    fn a_pool_member_put_in_base_urls_place_keeps_its_own_key() {
        let pool = pooled(
            "https://a.example/v1",
            &[
                ("https://b.example/v1", Some("B_KEY")),
                ("https://c.example/v1", None),
            ],
        );
        let kept = pool
            .keep_endpoints(|url| url != "https://a.example/v1")
            .unwrap();
        assert_eq!(kept.base_url, "https://b.example/v1");
        assert_eq!(kept.api_key_env.as_deref(), Some("B_KEY"));
        assert_eq!(kept.pool.len(), 1);
        assert_eq!(kept.pool[0].api_key_env, None);
        let all = pool.keep_endpoints(|_| true).unwrap();
        assert_eq!(all.pool[0].api_key_env.as_deref(), Some("B_KEY"));
    }

    #[test]
    fn reads_profiles_with_defaults_and_rejects_typos() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            "default = \"local\"\n[profiles.local]\nmodel = \"qwen3:8b\"\nstream_tool_turns = false\n\
             [profiles.claude]\nprotocol = \"anthropic\"\nbase_url = \"https://api.anthropic.com\"\nmodel = \"claude-sonnet-4-5\"\napi_key_env = \"ANTHROPIC_API_KEY\"\n",
        )
        .unwrap();
        let file = SettingsFile::load(dir.path()).unwrap();
        let (name, local) = file.profile(dir.path(), None).unwrap();
        assert_eq!(name, "local");
        assert_eq!(
            local.chat_url(),
            "http://localhost:11434/v1/chat/completions"
        );
        assert!(!local.stream_tool_turns);
        assert_eq!(local.max_retries, 4);
        let (_, claude) = file.profile(dir.path(), Some("claude")).unwrap();
        assert_eq!(claude.chat_url(), "https://api.anthropic.com/v1/messages");
        assert_eq!(claude.models_url(), "https://api.anthropic.com/v1/models");
        let missing = file.profile(dir.path(), Some("gpt")).unwrap_err();
        assert!(missing.to_string().contains("claude, local"), "{missing}");

        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            "[profiles.x]\nmodle = \"typo\"\n",
        )
        .unwrap();
        let typo = SettingsFile::load(dir.path()).unwrap_err().to_string();
        assert!(typo.contains("modle"), "{typo}");
    }

    #[test]
    fn a_pool_is_each_endpoint_with_its_concurrency_and_survives_a_save() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(SETTINGS_FILE),
            "[profiles.replicas]\nbase_url = \"http://gpu-1:8000/v1\"\nmodel = \"m\"\nconcurrency = 16\n\
             pool = [{ base_url = \"http://gpu-2:8000/v1\" }, { base_url = \"http://gpu-3:8000/v1\", concurrency = 8 }]\n",
        )
        .unwrap();
        let file = SettingsFile::load(dir.path()).unwrap();
        let (_, settings) = file.profile(dir.path(), None).unwrap();
        let each: Vec<(String, usize)> = settings
            .endpoints()
            .into_iter()
            .map(|e| (e.base_url, e.concurrency))
            .collect();
        assert_eq!(
            each,
            [
                ("http://gpu-1:8000/v1".to_owned(), 16),
                ("http://gpu-2:8000/v1".to_owned(), 16),
                ("http://gpu-3:8000/v1".to_owned(), 8),
            ]
        );
        assert_eq!(settings.total_concurrency(), 40);
        file.save(dir.path()).unwrap();
        assert_eq!(SettingsFile::load(dir.path()).unwrap(), file);

        // Only the endpoints kept, the first of them in base_url.
        let kept = settings
            .keep_endpoints(|url| !url.contains("gpu-1"))
            .unwrap();
        assert_eq!(kept.base_url, "http://gpu-2:8000/v1");
        assert_eq!(kept.pool.len(), 1);
        assert_eq!(kept.pool[0].concurrency, Some(8));
        assert!(settings.keep_endpoints(|_| false).is_none());

        let mut twice = settings.clone();
        twice.pool[0].base_url = "http://gpu-1:8000/v1/".into();
        assert!(
            twice
                .validate()
                .unwrap_err()
                .to_string()
                .contains("named twice")
        );
        let mut idle = settings.clone();
        idle.pool[1].concurrency = Some(0);
        assert!(idle.validate().unwrap_err().to_string().contains("gpu-3"));
    }

    #[test]
    fn validation_names_the_field_to_fix() {
        let mut s = ModelSettings {
            model: "m".into(),
            ..ModelSettings::default()
        };
        assert!(s.validate().is_ok());
        s.max_output_tokens = s.context_window;
        assert!(
            s.validate()
                .unwrap_err()
                .to_string()
                .contains("max_output_tokens")
        );
        s.max_output_tokens = 100;
        s.base_url = "localhost:8080".into();
        assert!(s.validate().unwrap_err().to_string().contains("http://"));
    }
}
