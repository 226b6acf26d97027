//! HTTP plumbing shared by every client that leaves the machine (the model
//! providers, the scholarly lookups): the TLS crypto provider, installed once,
//! and the switch that keeps the web services off the network.

use std::sync::OnceLock;

/// Install rustls' crypto provider before the first TLS client is built;
/// reqwest is built without one so the choice is made here, once.
pub fn install_crypto_provider() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        // Err means another provider is already installed, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// `QUIRE_OFFLINE=1` keeps every review (and every check of a web service) off the network,
/// whatever it asked.
pub fn offline_forced() -> bool {
    std::env::var("QUIRE_OFFLINE").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false" | "no"))
}

/// A whole-seconds header such as `Retry-After` or Zotero's `Backoff` (HTTP dates are rare
/// from the services Quire calls and are ignored).
pub fn header_seconds(response: &reqwest::Response, name: &str) -> Option<std::time::Duration> {
    let value = response.headers().get(name)?.to_str().ok()?;
    value
        .trim()
        .parse::<u64>()
        .ok()
        .map(std::time::Duration::from_secs)
}

/// `Retry-After`, when the server gave one in seconds.
pub fn retry_after(response: &reqwest::Response) -> Option<std::time::Duration> {
    header_seconds(response, reqwest::header::RETRY_AFTER.as_str())
}

/// A failure below HTTP in the few words a notice needs (reqwest's own message names the URL,
/// which the caller already says).
pub fn failure_words(e: &reqwest::Error) -> &'static str {
    if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    }
}
