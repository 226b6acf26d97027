//! `papers/<id>/text.txt`: a paper's extracted text with page markers, so the
//! agent's grep finds a line and the line's page is the marker above it; and
//! `papers/<id>/zones.json` beside it, the zones of its lines (title block,
//! abstract, body, references, page furniture) for whoever reads the folder.
//! The zones are found again from the text whenever it is read
//! ([`PaperText`]): the text is the one record, the file its summary.

use crate::pdf::zones::Zones;
use crate::workspace::{Batch, PaperId, Workspace, WorkspaceError, WsPath, layout};

const MARKER_PREFIX: &str = "=== page ";
const MARKER_SUFFIX: &str = " ===";

/// Where on a paper a quote is, for a citation: its page, or "title/abstract"
/// in a search record (whose one page is its title and abstract).
pub fn place(record: bool, page: usize) -> String {
    if record {
        "title/abstract".to_owned()
    } else {
        format!("p. {page}")
    }
}

pub fn text_path(id: &PaperId) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::PAPERS_DIR, &id.0, "text.txt"])
}

pub fn render(pages: &[String]) -> String {
    let mut out = String::new();
    for (index, page) in pages.iter().enumerate() {
        out.push_str(&format!("{MARKER_PREFIX}{}{MARKER_SUFFIX}\n", index + 1));
        out.push_str(page.trim_end());
        out.push('\n');
    }
    out
}

pub fn parse(text: &str) -> Vec<String> {
    let mut pages: Vec<String> = Vec::new();
    for line in text.lines() {
        let is_marker = line
            .strip_prefix(MARKER_PREFIX)
            .and_then(|rest| rest.strip_suffix(MARKER_SUFFIX))
            .is_some_and(|n| n.parse::<usize>().is_ok());
        if is_marker {
            pages.push(String::new());
        } else if let Some(page) = pages.last_mut() {
            if !page.is_empty() {
                page.push('\n');
            }
            page.push_str(line);
        }
    }
    pages
}

pub fn zones_path(id: &PaperId) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::PAPERS_DIR, &id.0, "zones.json"])
}

pub fn save(ws: &Workspace, id: &PaperId, pages: &[String]) -> Result<(), WorkspaceError> {
    ws.write(&text_path(id)?, render(pages).as_bytes())?;
    ws.write_json(&zones_path(id)?, &zones_of(pages))
}

/// A search record's one page (its title and abstract), staged in `batch`
/// (many records written as one change). No `zones.json` beside it: a
/// record has no page furniture or references to tell apart, its zones
/// are found again in microseconds whenever it is read, and an import of
/// 10,000 records would spend a third of its time creating those files.
pub fn stage_record(batch: &mut Batch<'_>, id: &PaperId, text: &str) -> Result<(), WorkspaceError> {
    batch.write(&text_path(id)?, render(&[text.to_owned()]).as_bytes())
}

fn zones_of(pages: &[String]) -> serde_json::Value {
    serde_json::json!({ "spans": Zones::of(pages).spans() })
}

/// A paper's text as printed, and what of it is read for its content.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PaperText {
    /// The pages as printed: what quotes are shown against.
    pub printed: Vec<String>,
    /// The abstract, body and appendices, page for page: what summaries,
    /// key points, evidence and passages come from and are checked against.
    pub content: Vec<String>,
    /// The pages as the model's reader gets them: the zones named, page
    /// furniture and references left out.
    pub for_reader: Vec<String>,
}

impl PaperText {
    pub fn of(printed: Vec<String>) -> Self {
        let zones = Zones::of(&printed);
        Self {
            content: zones.content(&printed),
            for_reader: zones.for_reader(&printed),
            printed,
        }
    }
}

/// The paper's text with its zones, or `None` when there is no text file.
pub fn load_text(ws: &Workspace, id: &PaperId) -> Result<Option<PaperText>, WorkspaceError> {
    Ok(load(ws, id)?.map(PaperText::of))
}

/// The pages on disk, or `None` when there is no text file.
pub fn load(ws: &Workspace, id: &PaperId) -> Result<Option<Vec<String>>, WorkspaceError> {
    match ws.read_string(&text_path(id)?) {
        Ok(text) => Ok(Some(parse(&text))),
        Err(WorkspaceError::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_round_trip_including_empty_ones() {
        let pages = vec!["first\npage".to_owned(), String::new(), "third".to_owned()];
        assert_eq!(parse(&render(&pages)), pages);
    }
}
