//! API keys: where they come from and how they are kept out of sight.
//!
//! A key is looked up, in order, in the profile's environment variable, the OS
//! secret store (Secret Service, Keychain, Credential Manager; via `keyring`),
//! and `keys.toml` in the config folder, which Quire creates with 0600
//! permissions and refuses to read when others can. `QUIRE_SECRET_STORE=file`
//! skips the OS store. Keys for the web services Quire asks (OpenAlex) are
//! kept the same way, apart from the profiles' keys: their own entry names in
//! the store and their own table in the file. [`ApiKey`] never prints its value: `Debug` and `Display`
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

/// Whose key: a model profile's, or a web service's (named apart, so a
/// profile called "openalex" never shares its key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Owner<'a> {
    Profile(&'a str),
    Service(&'a str),
}

impl Owner<'_> {
    /// The entry's user name in the OS store. Profile names are letters,
    /// digits, `-` and `_`, so the colon keeps the two kinds apart.
    fn store_user(self) -> String {
        match self {
            Self::Profile(name) => name.to_owned(),
            Self::Service(name) => format!("service:{name}"),
        }
    }
}

/// The OS secret store's entry for a key, if the platform has a store.
fn store_entry(owner: Owner<'_>) -> Option<keyring::Entry> {
    if !secret_store_enabled() {
        return None;
    }
    keyring::Entry::new(SERVICE, &owner.store_user()).ok()
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
    stored_key(Owner::Profile(profile), config_dir)
}

/// The key of a web service (`"openalex"`): from `env_var` when set, else
/// the OS secret store, else the key file. Blocking, like [`resolve_key`].
pub fn resolve_service_key(
    service: &str,
    env_var: &str,
    config_dir: &Path,
) -> Result<Option<(ApiKey, KeySource)>, SecretError> {
    if let Ok(value) = std::env::var(env_var)
        && !value.trim().is_empty()
    {
        return Ok(Some((
            ApiKey::new(value),
            KeySource::Env(env_var.to_owned()),
        )));
    }
    stored_key(Owner::Service(service), config_dir)
}

/// Save a web service's key, as [`store_key`] saves a profile's.
pub fn store_service_key(
    service: &str,
    key: &ApiKey,
    config_dir: &Path,
) -> Result<KeySource, SecretError> {
    store(Owner::Service(service), key, config_dir)
}

/// Remove a web service's stored key. Returns whether there was one.
pub fn delete_service_key(service: &str, config_dir: &Path) -> Result<bool, SecretError> {
    delete(Owner::Service(service), config_dir)
}

fn stored_key(
    owner: Owner<'_>,
    config_dir: &Path,
) -> Result<Option<(ApiKey, KeySource)>, SecretError> {
    if let Some(entry) = store_entry(owner) {
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
        .table(owner)
        .remove(owner.name())
        .filter(|k| !k.trim().is_empty())
        .map(|k| (ApiKey::new(k), KeySource::KeyFile(path))))
}

/// Save a key for a profile: in the OS secret store when there is one, else in
/// the 0600 key file.
pub fn store_key(profile: &str, key: &ApiKey, config_dir: &Path) -> Result<KeySource, SecretError> {
    store(Owner::Profile(profile), key, config_dir)
}

fn store(owner: Owner<'_>, key: &ApiKey, config_dir: &Path) -> Result<KeySource, SecretError> {
    if key.expose().is_empty() {
        return Err(SecretError::Empty);
    }
    if let Some(entry) = store_entry(owner) {
        match entry.set_password(key.expose()) {
            Ok(()) => return Ok(KeySource::SecretStore),
            Err(e) => {
                tracing::debug!(error = %e, "secret store refused the key; using the key file")
            }
        }
    }
    let path = config_dir.join(KEY_FILE);
    let mut keys = read_key_file(&path)?;
    keys.table(owner)
        .insert(owner.name().to_owned(), key.expose().to_owned());
    write_key_file(&path, &keys)?;
    Ok(KeySource::KeyFile(path))
}

/// Remove a profile's key from the secret store and the key file. Returns
/// whether there was one.
pub fn delete_key(profile: &str, config_dir: &Path) -> Result<bool, SecretError> {
    delete(Owner::Profile(profile), config_dir)
}

fn delete(owner: Owner<'_>, config_dir: &Path) -> Result<bool, SecretError> {
    let mut found = false;
    if let Some(entry) = store_entry(owner) {
        found |= entry.delete_credential().is_ok();
    }
    let path = config_dir.join(KEY_FILE);
    let mut keys = read_key_file(&path)?;
    if keys.table(owner).remove(owner.name()).is_some() {
        write_key_file(&path, &keys)?;
        found = true;
    }
    Ok(found)
}

/// The key file's two tables: profiles' keys and web services' keys.
#[derive(Debug, Default, PartialEq, Eq, serde::Deserialize)]
struct KeyFile {
    #[serde(default)]
    keys: BTreeMap<String, String>,
    #[serde(default)]
    services: BTreeMap<String, String>,
}

impl KeyFile {
    fn table(&mut self, owner: Owner<'_>) -> &mut BTreeMap<String, String> {
        match owner {
            Owner::Profile(_) => &mut self.keys,
            Owner::Service(_) => &mut self.services,
        }
    }
}

impl Owner<'_> {
    fn name(&self) -> &str {
        match self {
            Self::Profile(name) | Self::Service(name) => name,
        }
    }
}

fn read_key_file(path: &Path) -> Result<KeyFile, SecretError> {
    use std::os::unix::fs::PermissionsExt;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(KeyFile::default()),
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
    // The parser's message could quote the file, and so a key: say only where.
    toml::from_str::<KeyFile>(&text).map_err(|e| SecretError::KeyFileRead {
        path: path.to_owned(),
        message: format!("not valid TOML near byte {:?}", e.span().map(|s| s.start)),
    })
}

/// Write the key file atomically, created 0600 from the start so the key is
/// never readable by others, not even for a moment.
fn write_key_file(path: &Path, file: &KeyFile) -> Result<(), SecretError> {
    let mut text = String::from(
        "# API keys for Quire's model profiles and the web services it asks.\n\
         # Keep this file private (mode 600).\n[keys]\n",
    );
    for (profile, key) in &file.keys {
        text.push_str(&format!(
            "{} = {}\n",
            toml_key(profile),
            toml::Value::String(key.clone())
        ));
    }
    if !file.services.is_empty() {
        text.push_str("\n[services]\n");
        for (service, key) in &file.services {
            text.push_str(&format!(
                "{} = {}\n",
                toml_key(service),
                toml::Value::String(key.clone())
            ));
        }
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
        let mut keys = KeyFile::default();
        keys.keys
            .insert("my profile".to_owned(), "sk-\"quoted\"".to_owned());
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

    #[test]
    fn a_service_key_is_kept_apart_from_a_profile_of_the_same_name() {
        // The file, which the OS store falls back to, holds both tables.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(KEY_FILE);
        let mut file = KeyFile::default();
        file.table(Owner::Profile("openalex"))
            .insert("openalex".into(), "sk-model".into());
        file.table(Owner::Service("openalex"))
            .insert("openalex".into(), "oa-service".into());
        write_key_file(&path, &file).unwrap();
        let mut read = read_key_file(&path).unwrap();
        assert_eq!(read, file);
        assert_eq!(
            read.table(Owner::Service("openalex")).remove("openalex"),
            Some("oa-service".to_owned())
        );
        assert_eq!(Owner::Service("openalex").store_user(), "service:openalex");
        assert_eq!(Owner::Profile("openalex").store_user(), "openalex");
    }
}
