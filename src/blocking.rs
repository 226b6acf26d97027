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

/// Fewer items than this are not worth starting threads for.
const SPLIT_FROM: usize = 64;

/// `work` applied to every item, in order, on every core: for blocking work
/// made of many small independent parts (reading a thousand papers' files).
/// The first error (in item order) is returned; a panic in `work` goes on
/// in the caller, as in a plain loop (and [`blocking`] turns it into an error).
pub fn on_every_core<T, R, E>(
    items: &[T],
    work: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 || items.len() < SPLIT_FROM {
        return items.iter().map(&work).collect();
    }
    let work = &work;
    let share = items.len().div_ceil(cores);
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(share)
            .map(|part| scope.spawn(move || part.iter().map(work).collect::<Result<Vec<_>, E>>()))
            .collect();
        let mut out = Vec::with_capacity(items.len());
        for part in parts {
            let part = part
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            out.extend(part?);
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_core_keeps_the_order_and_the_first_error() {
        let items: Vec<u32> = (0..1000).collect();
        let doubled: Result<Vec<u32>, BlockingFailed> = on_every_core(&items, |n| Ok(n * 2));
        assert_eq!(
            doubled.unwrap(),
            items.iter().map(|n| n * 2).collect::<Vec<_>>()
        );

        let failed = on_every_core(&items, |&n| {
            if n % 300 == 299 {
                Err(BlockingFailed(format!("item {n}")))
            } else {
                Ok(n)
            }
        });
        assert_eq!(failed, Err(BlockingFailed("item 299".into())));
    }
}
