//! Reading scanned papers: poppler's `pdftoppm` renders each page to a
//! grey-scale image and Tesseract reads it. Both are separate programs, so
//! this runs inside the extraction worker, under its memory cap (which the
//! programs inherit) and a time limit of its own; a page's program that is
//! running when the limit ends the worker finishes that page and exits.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::raw::{EngineFailure, InfoDict, RawText};

/// Rendering resolution: enough for Tesseract on 9-10 pt type without
/// making each page image large.
const DPI: &str = "200";

/// `QUIRE_OCR=0` turns OCR off even when the programs are installed.
pub const OCR_SETTING: &str = "QUIRE_OCR";

/// `QUIRE_OCR_TIMEOUT=SECONDS`: how long OCR may take on one paper.
pub const OCR_TIMEOUT_SETTING: &str = "QUIRE_OCR_TIMEOUT";
/// Ten minutes: a 100-page scan at about 1.5 s a page, with room to spare.
const DEFAULT_TIME_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// The time limit for reading one paper by OCR, from the setting.
pub fn time_limit() -> std::time::Duration {
    std::env::var(OCR_TIMEOUT_SETTING)
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|secs| secs.is_finite() && *secs > 0.0)
        .map_or(DEFAULT_TIME_LIMIT, std::time::Duration::from_secs_f64)
}

/// Whether OCR can run here: `tesseract` and `pdftoppm` are on the PATH and
/// the setting does not turn it off.
pub fn available() -> bool {
    let off = std::env::var(OCR_SETTING).is_ok_and(|v| matches!(v.trim(), "0" | "off" | "false"));
    !off && on_path("tesseract") && on_path("pdftoppm")
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| is_executable(&dir.join(program)))
    })
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

/// One string per page, read from the page images of the PDF in `bytes`.
pub fn read_pages(bytes: &[u8], max_pages: usize) -> Result<RawText, EngineFailure> {
    let damaged = |reason: String| EngineFailure::Damaged { reason };
    let dir = tempfile::Builder::new()
        .prefix("quire-ocr-")
        .tempdir()
        .map_err(|e| damaged(format!("cannot make a folder for page images: {e}")))?;
    let pdf = dir.path().join("paper.pdf");
    std::fs::write(&pdf, bytes).map_err(|e| damaged(format!("cannot write the PDF: {e}")))?;
    let rendered = Command::new("pdftoppm")
        .args(["-r", DPI, "-gray", "-png", "-l", &max_pages.to_string()])
        .arg(&pdf)
        .arg(dir.path().join("page"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| damaged(format!("cannot run pdftoppm: {e}")))?;
    let images = page_images(dir.path());
    if !rendered.status.success() && images.is_empty() {
        let stderr = String::from_utf8_lossy(&rendered.stderr);
        return Err(damaged(format!(
            "pdftoppm could not render the pages: {}",
            stderr.lines().next().unwrap_or("no reason given")
        )));
    }
    let mut raw = RawText::default();
    for image in images {
        match recognise(&image) {
            Ok(text) => raw.pages.push(text),
            Err(_) => {
                raw.pages.push(String::new());
                raw.failed_pages += 1;
            }
        }
        // Each page image is read once; free the space as we go.
        let _ = std::fs::remove_file(&image);
    }
    raw.info = InfoDict::default();
    Ok(raw)
}

/// pdftoppm names pages `page-1.png` … or `page-01.png` …, padded to the
/// page count's digits; sorting by the number keeps page order either way.
fn page_images(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut pages: Vec<(u32, PathBuf)> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter_map(|path| {
            let stem = path.file_stem()?.to_str()?;
            let number = stem.strip_prefix("page-")?.parse().ok()?;
            (path.extension()? == "png").then_some((number, path))
        })
        .collect();
    pages.sort();
    pages.into_iter().map(|(_, path)| path).collect()
}

fn recognise(image: &Path) -> Result<String, String> {
    let output = Command::new("tesseract")
        .arg(image)
        .args(["stdout", "-l", "eng", "quiet"])
        // Extractions already run in parallel; one thread each avoids
        // oversubscribing the cores.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run tesseract: {e}"))?;
    if !output.status.success() {
        return Err(format!("tesseract failed on {}", image.display()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_images_come_in_page_order_however_they_are_padded() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "page-10.png",
            "page-2.png",
            "page-1.png",
            "paper.pdf",
            "page-x.png",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let names: Vec<String> = page_images(dir.path())
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["page-1.png", "page-2.png", "page-10.png"]);
    }
}
