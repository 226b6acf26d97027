//! Giving back to the system the memory a review's open freed. Building ten
//! thousand rows parses as many small files on every core, and glibc keeps
//! what those threads freed in their arenas: the app stayed some 80 MB larger
//! after opening a review of 10,000 papers than its rows need. `malloc_trim`
//! returns the free pages of every arena; it costs a few milliseconds, so it
//! runs after the answer has gone.

/// Return the allocator's free pages to the system, off the caller's path.
pub fn give_back_later() {
    drop(tokio::task::spawn_blocking(give_back));
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
