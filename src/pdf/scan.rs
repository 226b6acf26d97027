//! Finding PDFs: a folder is searched recursively (hidden folders and symlinked
//! folders skipped, so a link cannot make the scan loop), a single file is taken
//! as it is. The `.pdf` extension decides what is a candidate; whether its
//! content really is a readable PDF is for the extraction stage to classify.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("{path} does not exist")]
    NotFound { path: PathBuf },
    #[error("{path} is neither a folder nor a PDF file")]
    NotPdfOrFolder { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ScanError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound { .. } => "folder_not_found",
            Self::NotPdfOrFolder { .. } => "not_a_folder",
            Self::Io { .. } => "io_error",
        }
    }
}

/// A candidate file: its absolute path and size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundPdf {
    pub path: PathBuf,
    pub size: u64,
}

/// Every `*.pdf` under `source` (or `source` itself), sorted by path.
pub fn find_pdfs(source: &Path) -> Result<Vec<FoundPdf>, ScanError> {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ScanError + '_ {
        move |source| ScanError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
    let meta = match std::fs::metadata(source) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ScanError::NotFound {
                path: source.to_path_buf(),
            });
        }
        Err(e) => return Err(io(source)(e)),
    };
    if meta.is_file() {
        if !has_pdf_extension(source) {
            return Err(ScanError::NotPdfOrFolder {
                path: source.to_path_buf(),
            });
        }
        return Ok(vec![FoundPdf {
            path: source.to_path_buf(),
            size: meta.len(),
        }]);
    }
    if !meta.is_dir() {
        return Err(ScanError::NotPdfOrFolder {
            path: source.to_path_buf(),
        });
    }
    let mut found = Vec::new();
    let mut stack = vec![source.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(io(&dir))?;
        for entry in entries {
            let entry = entry.map_err(io(&dir))?;
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            let kind = entry.file_type().map_err(io(&path))?;
            if kind.is_dir() && !hidden {
                stack.push(path);
            } else if !kind.is_dir() && has_pdf_extension(&path) {
                // Follows a symlinked file (that is the user's choice of content),
                // skips a dangling one.
                if let Ok(meta) = std::fs::metadata(&path)
                    && meta.is_file()
                {
                    found.push(FoundPdf {
                        path,
                        size: meta.len(),
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn has_pdf_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"))
}

/// The file's SHA-256 as lowercase hex, read in 64 KiB blocks.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}
