//! The extraction table: columns the researcher defines (or picks from
//! templates), filled for the chosen papers by isolated per-paper calls
//! whose every value cites a quote checked on its page.
//!
//! Files, all Quire's: `table/columns.json`; `table/cells/<paper>.json`, the
//! cells read for a paper by column, each with what it was read for (the
//! column's definition, the model, the prompt version), so adding a column
//! reads only that column and a changed instruction only its own; and
//! `table/corrections.json`, the researcher's values and checks, which no
//! fill ever overwrites.

pub mod cells;
pub mod columns;
mod export;
pub mod fill;
mod number;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use cells::Cell;
pub use columns::{Column, Kind};
pub use export::{csv, markdown};

use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, PaperRecord, Workspace, WorkspaceError, WsPath, layout};

/// A paper's cells by column id.
pub type PaperCells = BTreeMap<String, Cell>;

fn cells_path(paper: &PaperId) -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::TABLE_DIR, "cells", &format!("{}.json", paper.0)])
}

pub fn load_cells(ws: &Workspace, paper: &PaperId) -> Result<PaperCells, WorkspaceError> {
    Ok(ws
        .read_json_if_any(&cells_path(paper)?)?
        .unwrap_or_default())
}

pub fn save_cells(
    ws: &Workspace,
    paper: &PaperId,
    cells: &PaperCells,
) -> Result<(), WorkspaceError> {
    ws.write_json(&cells_path(paper)?, cells)
}

/// The researcher's own value for a cell, and whether they checked it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Correction {
    /// `None`: the extracted value stands, checked.
    pub value: Option<String>,
    pub checked: bool,
    pub at: String,
}

/// `table/corrections.json`: paper id → column id → correction.
pub type Corrections = BTreeMap<String, BTreeMap<String, Correction>>;

fn corrections_path() -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::TABLE_DIR, "corrections.json"])
}

pub fn load_corrections(ws: &Workspace) -> Result<Corrections, WorkspaceError> {
    Ok(ws
        .read_json_if_any(&corrections_path()?)?
        .unwrap_or_default())
}

/// Set the researcher's value (or, with `None`, check the extracted one).
pub fn correct(
    ws: &Workspace,
    paper: &PaperId,
    column: &str,
    value: Option<String>,
) -> Result<(), WorkspaceError> {
    let mut all = load_corrections(ws)?;
    all.entry(paper.0.clone()).or_default().insert(
        column.to_owned(),
        Correction {
            value,
            checked: true,
            at: now_rfc3339(),
        },
    );
    ws.write_json(&corrections_path()?, &all)
}

/// One cell as the table shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShownCell {
    pub value: Option<String>,
    pub page: Option<usize>,
    pub quote: Option<String>,
    pub low_confidence: bool,
    pub reason: Option<String>,
    /// The researcher's value replaces the extracted one.
    pub corrected: bool,
    /// The researcher checked it.
    pub checked: bool,
    /// Not read yet for the column as it is now.
    pub stale: bool,
}

/// One paper's row.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TableRow {
    pub paper: String,
    pub title: String,
    /// A search record: its quotes are in its title and abstract.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub record: bool,
    /// In the columns' order.
    pub cells: Vec<ShownCell>,
}

/// The whole table for some papers.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TableView {
    pub columns: Vec<Column>,
    pub rows: Vec<TableRow>,
    /// The model whose cells are current (the latest fill's); `None` before any.
    pub model: Option<String>,
}

/// A paper as the table lists it.
pub struct TablePaper {
    pub id: PaperId,
    pub title: String,
    /// A search record, read on its title and abstract.
    pub record: bool,
}

impl From<&PaperRecord> for TablePaper {
    fn from(p: &PaperRecord) -> Self {
        Self {
            id: p.id.clone(),
            title: p.title.clone().unwrap_or_else(|| {
                p.file
                    .file_name()
                    .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
            }),
            record: p.is_record(),
        }
    }
}

/// The table for `papers`: each cell its correction over its extraction,
/// marked stale when it was read for another definition.
pub fn view(ws: &Workspace, papers: &[TablePaper]) -> Result<TableView, WorkspaceError> {
    let columns = columns::load(ws)?;
    let corrections = load_corrections(ws)?;
    let mut rows = Vec::new();
    let mut model = None;
    for TablePaper { id, title, record } in papers {
        let read = load_cells(ws, id)?;
        let fixed = corrections.get(&id.0);
        let cells = columns
            .iter()
            .map(|column| {
                let cell = read.get(&column.id);
                if let Some(cell) = cell {
                    model.get_or_insert_with(|| cell.model.clone());
                }
                let correction = fixed.and_then(|f| f.get(&column.id));
                let corrected_value = correction.and_then(|c| c.value.clone());
                // A quote is shown only beside the extracted value it
                // supports: not beside no value, nor the researcher's own.
                let supported = cell.filter(|c| c.value.is_some() && corrected_value.is_none());
                ShownCell {
                    corrected: corrected_value.is_some(),
                    value: corrected_value.or_else(|| cell.and_then(|c| c.value.clone())),
                    page: supported.and_then(|c| c.page),
                    quote: supported.and_then(|c| c.quote.clone()),
                    low_confidence: correction.is_none() && cell.is_none_or(|c| c.low_confidence),
                    reason: cell.and_then(|c| c.reason.clone()),
                    checked: correction.is_some_and(|c| c.checked),
                    stale: cell.is_none_or(|c| c.definition != column.definition_hash()),
                }
            })
            .collect();
        rows.push(TableRow {
            paper: id.0.clone(),
            title: title.clone(),
            record: *record,
            cells,
        });
    }
    Ok(TableView {
        columns,
        rows,
        model,
    })
}
