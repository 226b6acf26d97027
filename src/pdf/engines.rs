//! The text extraction engines, each behind one function with the same contract:
//! bytes in, one string per page out, or a reason it could not. They run only
//! inside the worker process (see `worker.rs`), because real parsers panic, loop
//! and allocate without bound on hostile files.

use serde::{Deserialize, Serialize};

use super::layout::{self, TextLine};
pub use super::raw::{EngineFailure, InfoDict, RawText};
use super::reading_order;

/// An extraction engine. `version` is part of the text cache key: bump it when an
/// engine or its post-processing changes what it returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// pdf_oxide: the best worst case on real papers; expands ligatures.
    PdfOxide,
    /// pdf-extract: the design card's engine; a second opinion when pdf_oxide's
    /// text fails the quality check.
    PdfExtract,
    /// OCR (pdftoppm + Tesseract) for pages with no usable text layer.
    Tesseract,
}

impl Engine {
    pub const ALL: [Engine; 3] = [Engine::PdfOxide, Engine::PdfExtract, Engine::Tesseract];
    /// The engines that read a PDF's text layer, in the order they are tried.
    pub const TEXT_LAYER: [Engine; 2] = [Engine::PdfOxide, Engine::PdfExtract];

    pub fn name(self) -> &'static str {
        match self {
            Self::PdfOxide => "pdf-oxide",
            Self::PdfExtract => "pdf-extract",
            Self::Tesseract => "tesseract",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Engine library version plus our post-processing revision.
    pub fn version(self) -> &'static str {
        match self {
            Self::PdfOxide => "pdf_oxide-0.3.78+q10",
            Self::PdfExtract => "pdf-extract-0.12.1+q1",
            Self::Tesseract => "tesseract-5+pdftoppm-200dpi+q1",
        }
    }
}

pub fn extract(engine: Engine, bytes: Vec<u8>, max_pages: usize) -> Result<RawText, EngineFailure> {
    match engine {
        Engine::PdfOxide => oxide(bytes, max_pages),
        Engine::PdfExtract => pdf_extract(&bytes, max_pages),
        Engine::Tesseract => super::ocr::read_pages(&bytes, max_pages),
    }
}

fn oxide(bytes: Vec<u8>, max_pages: usize) -> Result<RawText, EngineFailure> {
    use pdf_oxide::document::PdfDocument;
    let damaged = |e: pdf_oxide::error::Error| EngineFailure::Damaged {
        reason: e.to_string(),
    };
    let doc = PdfDocument::from_bytes(bytes).map_err(|e| {
        let text = e.to_string().to_lowercase();
        if text.contains("password") || text.contains("encrypt") {
            EngineFailure::Encrypted
        } else {
            EngineFailure::Damaged {
                reason: e.to_string(),
            }
        }
    })?;
    // pdf_oxide silently yields empty text for a locked file; check it ourselves.
    if doc.is_encrypted() && !doc.authenticate(b"").unwrap_or(false) {
        return Err(EngineFailure::Encrypted);
    }
    let count = doc.page_count().map_err(damaged)?;
    if count > max_pages {
        return Err(EngineFailure::TooManyPages { pages: count });
    }
    let mut raw = RawText {
        info: oxide_info(&doc),
        ..RawText::default()
    };
    // Page one's lines of type for metadata, and page two's in case page
    // one is a repository's cover sheet.
    let mut heads: Vec<Vec<TextLine>> = Vec::new();
    for index in 0..count {
        let page = oxide_page(&doc, index);
        let lines = match page {
            Some(page) => {
                // The head's lines are not cut at gutters: a title or a
                // name set wide across the middle of the page stays whole.
                let head = (index < 2)
                    .then(|| layout::lines_from_spans(page.upright.clone(), page.top, &[]));
                let gutters = layout::gutters(&page.upright);
                let lines = layout::lines_from_spans(page.upright, page.top, &gutters);
                let mut text = reading_order::page_text(&lines, &gutters);
                push_lines(&mut text, &page.sideways);
                raw.pages.push(text);
                head.unwrap_or_default()
            }
            None => {
                raw.pages.push(String::new());
                raw.failed_pages += 1;
                Vec::new()
            }
        };
        if index < 2 {
            heads.push(lines);
        }
    }
    let first = match raw.pages.as_slice() {
        [cover, _, ..] if super::metadata::is_cover_sheet(cover) => 1,
        _ => 0,
    };
    raw.head = heads.into_iter().nth(first).unwrap_or_default();
    raw.head.truncate(layout::MAX_LINES);
    Ok(raw)
}

/// One page's type: its upright spans with the page's top edge, and the text
/// set sideways (an arXiv stamp in the margin, a rotated table), a line per
/// run.
struct PageType {
    upright: Vec<layout::Span>,
    top: f32,
    sideways: Vec<String>,
}

/// A page's type from pdf_oxide's spans as the content stream draws them.
///
/// Not `extract_text`: its post-processing reads every content stream a
/// second time to place single glyphs exactly, and orders the spans with a
/// general-purpose layout analysis; together they were two thirds of the
/// extraction time. Lines and reading order from our own layout (`layout`,
/// `reading_order`) give the same words in about a third of the time.
fn oxide_page(doc: &pdf_oxide::document::PdfDocument, page: usize) -> Option<PageType> {
    use pdf_oxide::document::ReadingOrder;
    // Spans as drawn, less those outside the page (a producer's hidden copy).
    let spans = doc
        .extract_spans_with_reading_order(page, ReadingOrder::TopToBottom)
        .ok()?;
    let mut upright = Vec::with_capacity(spans.len());
    let mut sideways = Vec::new();
    for span in spans {
        if span.rotation_degrees.abs() > 1.0 {
            sideways.push(span.text);
            continue;
        }
        // Some producers scale type with the text matrix and set a tiny font
        // size (0.1 pt); the type's real size shows in how wide it is set.
        let size = if span.font_size >= 2.0 {
            span.font_size
        } else {
            let glyphs = span.text.chars().zip(span.char_widths.iter().copied());
            layout::size_from_advances(glyphs).unwrap_or(span.bbox.height)
        };
        upright.push(layout::Span {
            x: span.bbox.x,
            y: span.bbox.y,
            width: span.bbox.width,
            size,
            bold: span.font_weight.is_bold(),
            text: span.text,
        });
    }
    let top = match doc.get_page_media_box(page) {
        // Some producers write the box with its corners swapped.
        Ok((_, bottom, _, top)) => top.max(bottom),
        // Without a media box, the highest baseline stands in for the top.
        Err(_) => upright.iter().map(|s| s.y + s.size).fold(0.0, f32::max),
    };
    Some(PageType {
        upright,
        top,
        sideways,
    })
}

/// Append sideways runs to a page's text, each on a line of its own.
fn push_lines(text: &mut String, lines: &[String]) {
    for line in lines.iter().map(|l| l.trim()).filter(|l| !l.is_empty()) {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(line);
    }
}

fn oxide_info(doc: &pdf_oxide::document::PdfDocument) -> InfoDict {
    let mut info = info_dict(doc);
    // XMP is optional and often stale; it is only a fallback for the Info fields.
    if let Ok(Some(xmp)) = pdf_oxide::extractors::xmp::XmpExtractor::extract(doc) {
        info.xmp_title = xmp
            .dc_title
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        info.xmp_creators = xmp
            .dc_creator
            .into_iter()
            .map(|c| c.trim().to_owned())
            .filter(|c| !c.is_empty())
            .collect();
    }
    info
}

fn info_dict(doc: &pdf_oxide::document::PdfDocument) -> InfoDict {
    let Some(info_ref) = doc
        .trailer()
        .as_dict()
        .and_then(|d| d.get("Info"))
        .and_then(|o| o.as_reference())
    else {
        return InfoDict::default();
    };
    let Ok(info) = doc.load_object(info_ref) else {
        return InfoDict::default();
    };
    let Some(dict) = info.as_dict() else {
        return InfoDict::default();
    };
    let field = |key: &str| {
        dict.get(key)
            .and_then(|o| o.as_string())
            .map(decode_pdf_string)
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    InfoDict {
        title: field("Title"),
        author: field("Author"),
        subject: field("Subject"),
        keywords: field("Keywords"),
        creation_date: field("CreationDate"),
        ..InfoDict::default()
    }
}

/// A PDF text string: UTF-16BE with a byte-order mark, else PDFDocEncoding (close
/// enough to Latin-1 for metadata).
pub(crate) fn decode_pdf_string(bytes: &[u8]) -> String {
    if let Some(utf16) = bytes.strip_prefix(&[0xFE, 0xFF]) {
        let units: Vec<u16> = utf16
            .chunks_exact(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect();
        return String::from_utf16_lossy(&units);
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    bytes.iter().map(|&b| b as char).collect()
}

fn pdf_extract(bytes: &[u8], max_pages: usize) -> Result<RawText, EngineFailure> {
    let pages = pdf_extract::extract_text_from_mem_by_pages(bytes).map_err(|e| {
        let text = e.to_string();
        if text.to_lowercase().contains("encrypt") || text.to_lowercase().contains("password") {
            EngineFailure::Encrypted
        } else {
            EngineFailure::Damaged { reason: text }
        }
    })?;
    if pages.len() > max_pages {
        return Err(EngineFailure::TooManyPages { pages: pages.len() });
    }
    Ok(RawText {
        pages,
        failed_pages: 0,
        info: InfoDict::default(),
        head: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf16_and_latin1_pdf_strings() {
        assert_eq!(
            decode_pdf_string(&[0xFE, 0xFF, 0x00, 0x41, 0x00, 0xE9]),
            "Aé"
        );
        assert_eq!(decode_pdf_string(b"Plain"), "Plain");
        assert_eq!(decode_pdf_string(&[0x43, 0x61, 0x66, 0xE9]), "Café");
    }

    #[test]
    fn engine_names_round_trip() {
        for engine in Engine::ALL {
            assert_eq!(Engine::parse(engine.name()), Some(engine));
        }
    }
}
