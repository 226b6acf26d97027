//! API keys: where they come from and how they are kept out of sight.
//!
//! A key is looked up, in order, in the profile's environment variable, the OS
//! secret store (Secret Service, Keychain, Credential Manager; via `keyring`),
//! and `keys.toml` in the config folder, which Quire creates with 0600
//! permissions and refuses to read when others can. `QUIRE_SECRET_STORE=file`
//! skips the OS store. [`ApiKey`] never prints its value: `Debug` and `Display`
//! show `ApiKey(***)`, and it is not `Serialize`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::settings::ModelSettings;

/// The file fallback for keys, in the config folder.
pub const KEY_FILE: &str = "keys.toml";
const SERVICE: &str = "quire";

#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into().trim().to_owned())
    }

    /// The secret itself, for the one place that needs it: the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl std::fmt::Display for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// Where a key was found or stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeySource {
    Env(String),
    SecretStore,
    KeyFile(PathBuf),
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Env(name) => write!(f, "environment variable {name}"),
            Self::SecretStore => f.write_str("the OS secret store"),
            Self::KeyFile(path) => write!(f, "{}", path.display()),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("{path} can be read by other users (mode {mode:o}); run `chmod 600 {path}`")]
    KeyFileOpen { path: PathBuf, mode: u32 },
    #[error("cannot read {path}: {message}")]
    KeyFileRead { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    KeyFileWrite {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the OS secret store failed: {0}")]
    Store(String),
    #[error("the key is empty")]
    Empty,
}

fn secret_store_enabled() -> bool {
    std::env::var("QUIRE_SECRET_STORE").map_or(true, |v| v != "file")
}

/// The OS secret store's entry for a profile, if the platform has a store.
fn store_entry(profile: &str) -> Option<keyring::Entry> {
    if !secret_store_enabled() {
        return None;
    }
    keyring::Entry::new(SERVICE, profile).ok()
}

/// Find the key for a profile. `Ok(None)` means there is none (fine for local
/// servers that need no key). Blocking: the secret store is a D-Bus call.
pub fn resolve_key(
    profile: &str,
    settings: &ModelSettings,
    config_dir: &Path,
) -> Result<Option<(ApiKey, KeySource)>, SecretError> {
    if let Some(var) = settings.api_key_env.as_deref().filter(|v| !v.is_empty())
        && let Ok(value) = std::env::var(var)
        && !value.trim().is_empty()
    {
        return Ok(Some((ApiKey::new(value), KeySource::Env(var.to_owned()))));
    }
    if let Some(entry) = store_entry(profile) {
        match entry.get_password() {
            Ok(value) if !value.trim().is_empty() => {
                return Ok(Some((ApiKey::new(value), KeySource::SecretStore)));
            }
            Ok(_) | Err(keyring::Error::NoEntry) => {}
            // A store that exists but fails (locked, no daemon) falls through to the file.
            Err(e) => tracing::debug!(error = %e, "secret store unavailable"),
        }
    }
    let path = config_dir.join(KEY_FILE);
    Ok(read_key_file(&path)?
        .remove(profile)
        .filter(|k| !k.trim().is_empty())
        .map(|k| (ApiKey::new(k), KeySource::KeyFile(path))))
}

/// Save a key for a profile: in the OS secret store when there is one, else in
/// the 0600 key file.
pub fn store_key(profile: &str, key: &ApiKey, config_dir: &Path) -> Result<KeySource, SecretError> {
    if key.expose().is_empty() {
        return Err(SecretError::Empty);
    }
    if let Some(entry) = store_entry(profile) {
        match entry.set_password(key.expose()) {
            Ok(()) => return Ok(KeySource::SecretStore),
            Err(e) => {
                tracing::debug!(error = %e, "secret store refused the key; using the key file")
            }
        }
    }
    let path = config_dir.join(KEY_FILE);
    let mut keys = read_key_file(&path)?;
    keys.insert(profile.to_owned(), key.expose().to_owned());
    write_key_file(&path, &keys)?;
    Ok(KeySource::KeyFile(path))
}

/// Remove a profile's key from the secret store and the key file. Returns
/// whether there was one.
pub fn delete_key(profile: &str, config_dir: &Path) -> Result<bool, SecretError> {
    let mut found = false;
    if let Some(entry) = store_entry(profile) {
        found |= entry.delete_credential().is_ok();
    }
    let path = config_dir.join(KEY_FILE);
    let mut keys = read_key_file(&path)?;
    if keys.remove(profile).is_some() {
        write_key_file(&path, &keys)?;
        found = true;
    }
    Ok(found)
}

fn read_key_file(path: &Path) -> Result<BTreeMap<String, String>, SecretError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => {
            return Err(SecretError::KeyFileRead {
                path: path.to_owned(),
                message: e.to_string(),
            });
        }
    };
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(SecretError::KeyFileOpen {
            path: path.to_owned(),
            mode,
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| SecretError::KeyFileRead {
        path: path.to_owned(),
        message: e.to_string(),
    })?;
    #[derive(serde::Deserialize)]
    struct KeyFile {
        #[serde(default)]
        keys: BTreeMap<String, String>,
    }
    // The parser's message could quote the file, and so a key: say only where.
    toml::from_str::<KeyFile>(&text)
        .map(|f| f.keys)
        .map_err(|e| SecretError::KeyFileRead {
            path: path.to_owned(),
            message: format!("not valid TOML near byte {:?}", e.span().map(|s| s.start)),
        })
}

/// Write the key file atomically, created 0600 from the start so the key is
/// never readable by others, not even for a moment.
fn write_key_file(path: &Path, keys: &BTreeMap<String, String>) -> Result<(), SecretError> {
    let mut text = String::from(
        "# API keys for Quire's model profiles. Keep this file private (mode 600).\n[keys]\n",
    );
    for (profile, key) in keys {
        text.push_str(&format!(
            "{} = {}\n",
            toml_key(profile),
            toml::Value::String(key.clone())
        ));
    }
    super::settings::write_config_file(path, &text, 0o600).map_err(|source| {
        SecretError::KeyFileWrite {
            path: path.to_owned(),
            source,
        }
    })
}

fn toml_key(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        name.to_owned()
    } else {
        toml::Value::String(name.to_owned()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_key_never_prints() {
        let key = ApiKey::new("sk-very-secret");
        assert_eq!(format!("{key:?} {key}"), "ApiKey(***) ApiKey(***)");
    }

    #[test]
    fn the_key_file_is_private_and_refused_when_it_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE);
        let mut keys = BTreeMap::new();
        keys.insert("my profile".to_owned(), "sk-\"quoted\"".to_owned());
        write_key_file(&path, &keys).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(read_key_file(&path).unwrap(), keys);

        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_key_file(&path).unwrap_err().to_string();
        assert!(
            err.contains("chmod 600") && !err.contains("quoted"),
            "{err}"
        );
    }
}
