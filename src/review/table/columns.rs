//! The extraction table's columns: what the researcher wants from every
//! paper, each with an instruction and a type, kept in the workspace
//! (`table/columns.json`) and copied between reviews. Templates cover what
//! reviews extract most.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::workspace::{Workspace, WorkspaceError, WsPath, layout};

/// What a cell holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ColumnKind"))]
pub enum Kind {
    Text,
    /// A number, in this unit ("participants", "ms", "%").
    Number {
        unit: String,
    },
    YesNo,
    /// One of these options.
    OneOf {
        options: Vec<String>,
    },
    /// A list of short items.
    List,
}

impl Kind {
    /// How the reader is told to give the value.
    pub fn instruction(&self) -> String {
        match self {
            Self::Text => "a short phrase or sentence".into(),
            Self::Number { unit } => format!("a number, in {unit}"),
            Self::YesNo => "\"yes\" or \"no\"".into(),
            Self::OneOf { options } => format!("exactly one of: {}", options.join(", ")),
            Self::List => "a list of short items, separated by \"; \"".into(),
        }
    }

    /// Parse `text`, `number:UNIT`, `yes-no`, `one-of:A|B|C` or `list`.
    pub fn parse(spec: &str) -> Option<Self> {
        let (head, rest) = spec.split_once(':').unwrap_or((spec, ""));
        match head.trim() {
            "text" => Some(Self::Text),
            "number" => Some(Self::Number {
                unit: rest.trim().to_owned(),
            }),
            "yes-no" => Some(Self::YesNo),
            "one-of" => {
                let options: Vec<String> = rest
                    .split('|')
                    .map(|o| o.trim().to_owned())
                    .filter(|o| !o.is_empty())
                    .collect();
                (options.len() >= 2).then_some(Self::OneOf { options })
            }
            "list" => Some(Self::List),
            _ => None,
        }
    }
}

/// One column.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Column {
    /// A slug of the name, unique in the table.
    pub id: String,
    pub name: String,
    /// What to extract, for the reader.
    pub instruction: String,
    pub kind: Kind,
}

impl Column {
    pub fn new(name: &str, instruction: &str, kind: Kind) -> Self {
        Self {
            id: slug(name),
            name: name.trim().to_owned(),
            instruction: instruction.trim().to_owned(),
            kind,
        }
    }

    /// What a cell of this column depends on besides the paper and model:
    /// a changed instruction or type reads the column again.
    pub fn definition_hash(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.instruction.as_bytes());
        hasher.update(b"\0");
        hasher.update(
            serde_json::to_string(&self.kind)
                .unwrap_or_default()
                .as_bytes(),
        );
        hex::encode(&hasher.finalize()[..8])
    }
}

fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.trim().to_lowercase().chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    // A name of punctuation alone still needs an id.
    if out.is_empty() {
        "column".to_owned()
    } else {
        out.to_owned()
    }
}

/// The templates the researcher can pick from.
pub fn templates() -> Vec<Column> {
    vec![
        Column::new(
            "Study design",
            "The study's design: experiment, benchmark, case study, survey, simulation, proof, or other.",
            Kind::OneOf {
                options: [
                    "experiment",
                    "benchmark",
                    "case study",
                    "survey",
                    "simulation",
                    "proof",
                    "other",
                ]
                .map(String::from)
                .to_vec(),
            },
        ),
        Column::new(
            "Dataset",
            "The datasets or workloads the paper evaluates on, by name.",
            Kind::List,
        ),
        Column::new(
            "Sample size",
            "How many subjects, systems, runs or items the evaluation covers.",
            Kind::Number {
                unit: "items".into(),
            },
        ),
        Column::new(
            "Method",
            "The method or system the paper proposes or studies, in a phrase.",
            Kind::Text,
        ),
        Column::new(
            "Metric and result",
            "The main metric and the headline result, with its number.",
            Kind::Text,
        ),
        Column::new(
            "Limitations",
            "The limitations the authors state themselves.",
            Kind::Text,
        ),
    ]
}

fn columns_path() -> Result<WsPath, WorkspaceError> {
    WsPath::from_parts([layout::TABLE_DIR, "columns.json"])
}

/// The table's columns, in order.
pub fn load(ws: &Workspace) -> Result<Vec<Column>, WorkspaceError> {
    Ok(ws.read_json_if_any(&columns_path()?)?.unwrap_or_default())
}

pub fn save(ws: &Workspace, columns: &[Column]) -> Result<(), WorkspaceError> {
    ws.write_json(&columns_path()?, &columns)
}

/// Add `column`, replacing one of the same id.
/// Add a column, or redefine the one of the same name. A different name
/// whose slug is taken ("Metric & result", "Metric / result") gets the slug
/// with a number, so no column is replaced by another.
pub fn add(columns: &mut Vec<Column>, mut column: Column) {
    if let Some(existing) = columns.iter_mut().find(|c| c.name == column.name) {
        column.id = existing.id.clone();
        *existing = column;
        return;
    }
    let base = column.id.clone();
    let mut n = 2;
    while columns.iter().any(|c| c.id == column.id) {
        column.id = format!("{base}-{n}");
        n += 1;
    }
    columns.push(column);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_ids_never_collide_or_come_out_empty() {
        let mut columns = Vec::new();
        add(
            &mut columns,
            Column::new("Metric & result", "a", Kind::Text),
        );
        add(
            &mut columns,
            Column::new("Metric / result", "b", Kind::Text),
        );
        add(&mut columns, Column::new("%%%", "c", Kind::Text));
        add(&mut columns, Column::new("—", "d", Kind::Text));
        let ids: Vec<&str> = columns.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            ["metric-result", "metric-result-2", "column", "column-2"]
        );
        // The same name again redefines its column.
        add(
            &mut columns,
            Column::new("Metric / result", "b2", Kind::Text),
        );
        assert_eq!(columns.len(), 4);
        assert_eq!(columns[1].instruction, "b2");
    }

    #[test]
    fn types_parse_from_their_short_forms() {
        assert_eq!(Kind::parse("text"), Some(Kind::Text));
        assert_eq!(
            Kind::parse("number: ms"),
            Some(Kind::Number { unit: "ms".into() })
        );
        assert_eq!(
            Kind::parse("one-of:yes|partly|no"),
            Some(Kind::OneOf {
                options: vec!["yes".into(), "partly".into(), "no".into()]
            })
        );
        assert_eq!(Kind::parse("one-of:only"), None);
        assert_eq!(Kind::parse("date"), None);
    }

    #[test]
    fn a_columns_id_is_its_names_slug_and_its_definition_decides_its_hash() {
        let a = Column::new("Metric & result", "The main metric.", Kind::Text);
        assert_eq!(a.id, "metric-result");
        let b = Column::new(
            "Metric & result",
            "The main metric, with units.",
            Kind::Text,
        );
        assert_ne!(a.definition_hash(), b.definition_hash());
        let renamed = Column::new("Headline", "The main metric.", Kind::Text);
        assert_eq!(
            a.definition_hash(),
            renamed.definition_hash(),
            "a name alone changes nothing read"
        );
        let mut columns = vec![a.clone()];
        add(&mut columns, b.clone());
        assert_eq!(columns, vec![b]);
        assert_eq!(templates().len(), 6);
    }
}
