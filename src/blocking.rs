//! Running blocking work (SQLite, file system, PDF parsing) off the async
//! threads, in one way for every layer: a panic in the work becomes an error of
//! the caller's own type instead of tearing down the task.

/// The blocking work panicked or was cancelled before it finished.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("background work failed: {0}")]
pub struct BlockingFailed(pub String);

/// Run `work` on tokio's blocking pool and wait for it.
pub async fn blocking<T, E>(work: impl FnOnce() -> Result<T, E> + Send + 'static) -> Result<T, E>
where
    T: Send + 'static,
    E: From<BlockingFailed> + Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| E::from(BlockingFailed(e.to_string())))?
}
