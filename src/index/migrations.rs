//! Schema migrations, embedded in the binary and applied in order. The schema
//! version is SQLite's `user_version`, so no bookkeeping table is needed.

use rusqlite::Connection;

/// Each entry moves the schema from version `i` to `i + 1`. Append only.
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/0001_initial.sql"),
    include_str!("migrations/0002_model_calls.sql"),
    include_str!("migrations/0003_rebuilt_marker.sql"),
    include_str!("migrations/0004_call_endpoint.sql"),
];

/// The schema version this build writes.
pub(crate) const LATEST: i64 = MIGRATIONS.len() as i64;

pub(crate) fn apply(conn: &mut Connection) -> rusqlite::Result<()> {
    let current: i64 = conn.pragma_query_value(None, "user_version", |row| row.get(0))?;
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current.max(0) as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (index + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}
