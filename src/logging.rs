//! Logging setup shared by every Quire binary: `tracing` to stderr, filtered by
//! `QUIRE_LOG` (e.g. `QUIRE_LOG=debug`), with a per-binary default level.

/// Install the subscriber; a second call is a no-op.
pub fn init(default_filter: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("QUIRE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}
