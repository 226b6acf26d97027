//! Keeping the app's heap close to what it holds. Building ten thousand rows
//! parses as many small files on every core, and glibc keeps what those
//! threads freed in their arenas (one per thread, up to eight a core, each
//! with its own free pages): the app stayed some 80 MB larger after opening a
//! review of 10,000 papers than its rows need. Two arenas serve a desktop
//! app's few busy threads, and `malloc_trim` after an open returns the free
//! pages of each; it costs a few milliseconds, so it runs after the answer
//! has gone.

/// Have the allocator keep two arenas; called first thing, before other
/// threads allocate.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // mallopt: glibc's own setting, made before any other thread runs
pub fn fewer_arenas() {
    // SAFETY: mallopt only sets the allocator's parameter; no thread has started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn fewer_arenas() {}

/// `answer`, once the allocator has been told to return its free pages to
/// the system, off the answer's path: for a command that built and dropped
/// a review's worth of rows.
pub fn giving_back<T>(answer: T) -> T {
    drop(tokio::task::spawn_blocking(give_back));
    answer
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // malloc_trim: glibc's own call, which takes the arenas' locks
fn give_back() {
    // SAFETY: malloc_trim only walks and releases the allocator's free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}
