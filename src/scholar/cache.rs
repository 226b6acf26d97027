//! The indexes' answers, kept in memory for the run and on disk in the data
//! folder (`scholar/<service>/<key hash>.json`) across runs, so a review opened
//! again, or a second review of the same papers, asks nothing twice. A "not
//! found" is kept a week (the work may be registered since); a record for good.
//! The cache is only an optimisation: a file that cannot be read or written is
//! a miss, never an error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ScholarRecord, Service};

const NOT_FOUND_KEPT: Duration = Duration::from_secs(7 * 24 * 3600);

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// Seconds since the Unix epoch.
    fetched_at: u64,
    /// What the service answered for the key; empty when it knows no such work.
    records: Vec<ScholarRecord>,
}

pub struct Cache {
    dir: Option<PathBuf>,
    memory: Mutex<HashMap<(Service, String), Vec<ScholarRecord>>>,
}

impl Cache {
    pub fn new(dir: Option<PathBuf>) -> Self {
        Self {
            dir,
            memory: Mutex::new(HashMap::new()),
        }
    }

    /// The answer held for `key`, if there is one still fresh.
    pub fn get(&self, service: Service, key: &str) -> Option<Vec<ScholarRecord>> {
        let held = self
            .memory
            .lock()
            .ok()
            .and_then(|m| m.get(&(service, key.to_owned())).cloned());
        if held.is_some() {
            return held;
        }
        let entry: Entry =
            serde_json::from_slice(&std::fs::read(self.file(service, key)?).ok()?).ok()?;
        let age = now_secs().saturating_sub(entry.fetched_at);
        if entry.records.is_empty() && age > NOT_FOUND_KEPT.as_secs() {
            return None;
        }
        self.remember(service, key, &entry.records);
        Some(entry.records)
    }

    pub fn put(&self, service: Service, key: &str, records: &[ScholarRecord]) {
        self.remember(service, key, records);
        let Some(file) = self.file(service, key) else {
            return;
        };
        let entry = Entry {
            fetched_at: now_secs(),
            records: records.to_vec(),
        };
        if let Err(e) = write_atomically(&file, &entry) {
            tracing::debug!(file = %file.display(), error = %e, "cannot cache a scholarly record");
        }
    }

    fn remember(&self, service: Service, key: &str, records: &[ScholarRecord]) {
        if let Ok(mut memory) = self.memory.lock() {
            memory.insert((service, key.to_owned()), records.to_vec());
        }
    }

    fn file(&self, service: Service, key: &str) -> Option<PathBuf> {
        let hash = hex::encode(Sha256::digest(key.as_bytes()));
        Some(
            self.dir
                .as_ref()?
                .join(service.as_str())
                .join(format!("{}.json", &hash[..32])),
        )
    }
}

fn write_atomically(file: &Path, entry: &Entry) -> std::io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer(&mut tmp, entry)?;
    tmp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_outlive_the_run_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let record = ScholarRecord {
            title: Some("A".into()),
            ..ScholarRecord::default()
        };
        Cache::new(Some(dir.path().into())).put(
            Service::Crossref,
            "10.1/a",
            std::slice::from_ref(&record),
        );
        Cache::new(Some(dir.path().into())).put(Service::Crossref, "10.1/none", &[]);
        let again = Cache::new(Some(dir.path().into()));
        assert_eq!(again.get(Service::Crossref, "10.1/a"), Some(vec![record]));
        assert_eq!(again.get(Service::Crossref, "10.1/none"), Some(vec![]));
        assert_eq!(again.get(Service::Arxiv, "10.1/a"), None);
        assert_eq!(Cache::new(None).get(Service::Crossref, "10.1/a"), None);
    }
}
