//! File paths in workspace records, kept exactly. A file name need not be
//! valid UTF-8 (a folder copied from an old Latin-1 disk holds `caf\xe9.pdf`),
//! and JSON strings must be: such a path is written as its raw bytes beside a
//! readable rendering, `{"bytes": [...], "shown": "caf\u{FFFD}.pdf"}`, and
//! read back to the same path, so the paper is still opened, hashed and
//! shown. Paths that are valid UTF-8 stay plain strings.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Stored {
    Text(String),
    Raw { bytes: Vec<u8>, shown: String },
}

fn stored(path: &Path) -> Stored {
    match path.to_str() {
        Some(text) => Stored::Text(text.to_owned()),
        None => Stored::Raw {
            bytes: raw_bytes(path),
            shown: path.to_string_lossy().into_owned(),
        },
    }
}

#[cfg(unix)]
fn raw_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn raw_bytes(path: &Path) -> Vec<u8> {
    // Elsewhere a path that is not Unicode is rare (unpaired UTF-16
    // surrogates); it is kept as its rendering.
    path.to_string_lossy().as_bytes().to_vec()
}

fn path_of(stored: Stored) -> PathBuf {
    match stored {
        Stored::Text(text) => PathBuf::from(text),
        #[cfg(unix)]
        Stored::Raw { bytes, .. } => {
            use std::os::unix::ffi::OsStringExt;
            PathBuf::from(std::ffi::OsString::from_vec(bytes))
        }
        #[cfg(not(unix))]
        Stored::Raw { shown, .. } => PathBuf::from(shown),
    }
}

pub fn serialize<S: Serializer>(path: &Path, s: S) -> Result<S::Ok, S::Error> {
    stored(path).serialize(s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<PathBuf, D::Error> {
    Stored::deserialize(d).map(path_of)
}

/// The same for a list of paths.
pub mod list {
    use super::*;

    pub fn serialize<S: Serializer>(paths: &[PathBuf], s: S) -> Result<S::Ok, S::Error> {
        let all: Vec<Stored> = paths.iter().map(|p| stored(p)).collect();
        all.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
        Ok(Vec::<Stored>::deserialize(d)?
            .into_iter()
            .map(path_of)
            .collect())
    }
}

/// The same for an optional path.
pub mod option {
    use super::*;

    pub fn serialize<S: Serializer>(path: &Option<PathBuf>, s: S) -> Result<S::Ok, S::Error> {
        path.as_deref().map(stored).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<PathBuf>, D::Error> {
        Ok(Option::<Stored>::deserialize(d)?.map(path_of))
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::ffi::OsStrExt;

    #[derive(Serialize, Deserialize, PartialEq, Debug)]
    struct Record {
        #[serde(with = "super")]
        file: PathBuf,
        #[serde(with = "super::list", default)]
        duplicates: Vec<PathBuf>,
    }

    #[test]
    fn a_path_that_is_not_utf8_survives_a_round_trip_and_a_plain_one_stays_a_string() {
        let latin1 = PathBuf::from(std::ffi::OsStr::from_bytes(b"/papers/caf\xe9.pdf"));
        let record = Record {
            file: latin1.clone(),
            duplicates: vec![PathBuf::from("/papers/cafe.pdf"), latin1.clone()],
        };
        let json = serde_json::to_string(&record).unwrap();
        assert!(
            json.contains(r#""shown":"/papers/caf\ufffd.pdf""#) || json.contains("caf\u{FFFD}.pdf"),
            "{json}"
        );
        assert!(json.contains(r#""/papers/cafe.pdf""#), "{json}");
        let back: Record = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        // Records written before keep reading: plain strings.
        let old: Record = serde_json::from_str(r#"{"file": "/papers/a.pdf"}"#).unwrap();
        assert_eq!(old.file, PathBuf::from("/papers/a.pdf"));
    }
}
