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
