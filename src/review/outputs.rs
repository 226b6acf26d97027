//! A review's outputs rebuilt from its files at any time: the report and the
//! exports (BibTeX, CSV, RIS) from `task.json`, the papers, their results, the
//! researcher's labels and the writer's synthesis. A run writes them when it
//! ends; the app renders them again on export, so a label given after the run
//! is in the file the researcher saves.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dual::{Agreement, DualFile};
use super::failures::PaperFailure;
use super::labels::{self, Label};
use super::protocol::{InForce, ProtocolFile};
use super::report::{self, ReportData};
use super::validation::{Assessment, ValidationFile, assess};
use super::verdicts::{Verdicts, result_of};
use super::{EngineKind, PaperResult, ReviewError, ReviewSpec, Verdict, exports};
use crate::workspace::records::now_rfc3339;
use crate::workspace::{PaperId, PaperRecord, TaskMeta, Workspace, WorkspaceError, WsPath, layout};

/// The formats a review can be exported in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ExportFormat {
    Markdown,
    Bibtex,
    Csv,
    Ris,
    /// The PRISMA 2020 flow counts as CSV.
    Prisma,
    /// The extraction table as CSV (value, page, quote per column).
    Table,
}

impl ExportFormat {
    pub const ALL: [Self; 6] = [
        Self::Markdown,
        Self::Bibtex,
        Self::Csv,
        Self::Ris,
        Self::Prisma,
        Self::Table,
    ];

    /// The file the run writes this format to, in the workspace.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Markdown => layout::REPORT_FILE,
            Self::Bibtex => "report.bib",
            Self::Csv => "report.csv",
            Self::Ris => "report.ris",
            Self::Prisma => "prisma-flow.csv",
            Self::Table => "table.csv",
        }
    }
}

/// Everything the outputs are made from, read from a workspace.
pub struct ReviewFiles {
    pub task: TaskMeta,
    pub spec: ReviewSpec,
    pub papers: Vec<PaperRecord>,
    pub results: BTreeMap<PaperId, PaperResult>,
    /// The researcher's labels that count now.
    pub labels: BTreeMap<PaperId, Label>,
    /// The researcher's labels given under an earlier question.
    pub earlier_labels: BTreeMap<PaperId, Label>,
    /// Why readable papers with no result could not be scored.
    pub failures: BTreeMap<PaperId, PaperFailure>,
    /// The steps the model could not drive in the latest run.
    pub undriven: Vec<String>,
    pub synthesis: Option<String>,
    /// The model the results came from, when an agent read them.
    pub model: Option<String>,
    pub validation: ValidationFile,
    /// The approved protocol for the review's question, if any.
    pub protocol: Option<InForce>,
    /// The dual reading the results were reconciled under, and how the two
    /// readings agreed.
    pub dual: Option<(DualFile, Agreement)>,
    /// The extraction table for the papers the review keeps, when it has
    /// columns.
    pub table: Option<super::table::TableView>,
    /// The questions the researcher put in the report, oldest first.
    pub asks: Vec<super::ask::AskRecord>,
    /// Papers whose reading is stale (made under earlier inputs), with why:
    /// not in `results`.
    pub stale: BTreeMap<PaperId, String>,
    /// The screening queue's ranking and the labels it learned from, when
    /// the researcher screened in it.
    pub screening: Option<super::queue::RankingFile>,
    /// Works citation searching found that the review already had.
    pub citation_duplicates: usize,
    /// Why kept records' open copies could not be fetched, by paper id.
    pub not_retrieved: BTreeMap<String, String>,
}

impl ReviewFiles {
    /// Read a workspace's review as it stands. `engine` is the engine of the
    /// latest run (results say which engine made them; this decides the method
    /// section).
    pub fn read(ws: &Workspace, engine: EngineKind) -> Result<Self, ReviewError> {
        let task = ws.task()?;
        let papers = super::corrections::corrected(ws)?;
        let mut results = BTreeMap::new();
        for p in &papers {
            if let Some(result) = result_of(ws, &p.id)? {
                results.insert(p.id.clone(), result);
            }
        }
        let spec = ReviewSpec {
            question: task.question.clone().unwrap_or_default(),
            criteria: task.criteria.clone(),
            engine,
            protocol: None,
        };
        let undriven = ws
            .runs()?
            .last()
            .map(|run| run.undriven.clone())
            .unwrap_or_default();
        Self::assemble(ws, spec, results, None, undriven)
    }

    /// The outputs of a run that just ended: its results, model and undriven
    /// steps as the engine returned them, the rest read from the workspace.
    pub fn assemble(
        ws: &Workspace,
        spec: ReviewSpec,
        mut results: BTreeMap<PaperId, PaperResult>,
        model: Option<String>,
        undriven: Vec<String>,
    ) -> Result<Self, ReviewError> {
        let papers = super::corrections::corrected(ws)?;
        let protocol = ProtocolFile::load(ws)?.in_force(&spec);
        // The verdicts the review shows (the engine's own stays in
        // result.json); a dual reading only counts for an agent review.
        let mut verdicts = Verdicts::load(ws)?;
        if spec.engine != EngineKind::Agent {
            verdicts.dual = None;
        }
        let stale = verdicts.take_stale(ws, &papers, &mut results)?;
        let model = model.or_else(|| results.values().find_map(|r| r.provenance.model.clone()));
        let dual = verdicts.show_all(ws, &mut results)?;
        let validation = verdicts.validation;
        let table = table_of(ws, &papers, &results)?;
        let (labels, earlier_labels) = labels_parted(ws, &papers)?;
        let mut asks: Vec<_> = super::ask::history(ws)?
            .into_iter()
            .filter(|a| a.in_report)
            .collect();
        asks.reverse();
        Ok(Self {
            task: ws.task()?,
            screening: super::queue::load_ranking(ws)?,
            citation_duplicates: super::snowball::rounds(ws)?
                .iter()
                .map(|r| r.duplicates.len())
                .sum(),
            not_retrieved: super::snowball::copies::retrievals(ws)?
                .into_iter()
                .filter_map(|(paper, r)| Some((paper, r.reason.filter(|_| !r.retrieved)?)))
                .collect(),
            labels,
            earlier_labels,
            failures: super::failures::of_unscored(ws, &papers, &results)?,
            synthesis: synthesis_of(ws, spec.engine),
            validation,
            protocol,
            dual,
            table,
            asks,
            stale,
            undriven,
            spec,
            papers,
            results,
            model,
        })
    }

    /// Write every output format into the workspace, dated `date`.
    pub fn write_all(&self, ws: &Workspace, date: &str) -> Result<(), ReviewError> {
        let data = self.data(date);
        for format in ExportFormat::ALL {
            // A review with no extraction table writes none.
            if format == ExportFormat::Table && self.table.is_none() {
                continue;
            }
            let body = render(&data, format);
            ws.write(&WsPath::parse(format.file_name())?, body.as_bytes())?;
        }
        Ok(())
    }

    /// The PRISMA 2020 flow, as the report states it.
    pub fn flow(&self) -> report::prisma::Flow {
        self.data("").flow()
    }

    /// The flow counts, as the report states them.
    pub fn counts(&self) -> report::Counts {
        self.data("").counts()
    }

    /// Render one output, dated now.
    pub fn render(&self, format: ExportFormat) -> String {
        let date = now_rfc3339();
        render(&self.data(&date), format)
    }

    /// What the researcher's labels say of the engine, and the report's
    /// section that says it.
    pub fn validation(&self) -> (Assessment, String) {
        let date = now_rfc3339();
        let data = self.data(&date);
        let assessment = assess(&self.results, &self.labels, &self.validation);
        let markdown = report::validation::validation_markdown(&assessment, &data);
        (assessment, markdown)
    }

    fn data<'a>(&'a self, date: &'a str) -> ReportData<'a> {
        ReportData {
            task: &self.task,
            spec: &self.spec,
            papers: &self.papers,
            results: &self.results,
            date,
            model: self.model.as_deref(),
            synthesis: self.synthesis.as_deref(),
            labels: &self.labels,
            earlier_labels: &self.earlier_labels,
            failures: &self.failures,
            undriven: &self.undriven,
            validation: &self.validation,
            protocol: self.protocol.as_ref(),
            table: self.table.as_ref(),
            asks: &self.asks,
            stale: &self.stale,
            screening: self.screening.as_ref(),
            citation_duplicates: self.citation_duplicates,
            not_retrieved: &self.not_retrieved,
            dual: self
                .dual
                .as_ref()
                .map(|(file, agreement)| (file, agreement)),
        }
    }
}

/// One output of a review.
pub fn render(data: &ReportData<'_>, format: ExportFormat) -> String {
    match format {
        ExportFormat::Markdown => report::render(data),
        ExportFormat::Bibtex => exports::bibtex(data),
        ExportFormat::Csv => exports::csv(data),
        ExportFormat::Ris => exports::ris(data),
        ExportFormat::Prisma => report::prisma::flow_csv(data),
        ExportFormat::Table => data.table.map(super::table::csv).unwrap_or_default(),
    }
}

/// The extraction table for the papers the review keeps (include or maybe,
/// the researcher's label first), or every readable paper before any verdict;
/// `None` without columns.
fn table_of(
    ws: &Workspace,
    papers: &[PaperRecord],
    results: &BTreeMap<PaperId, PaperResult>,
) -> Result<Option<super::table::TableView>, ReviewError> {
    if super::table::columns::load(ws)?.is_empty() {
        return Ok(None);
    }
    let labels = labels_of(ws, papers)?;
    let reviewed = !results.is_empty();
    let kept: Vec<super::table::TablePaper> = papers
        .iter()
        .filter(|p| p.status.is_readable())
        .filter(|p| {
            let verdict = labels
                .get(&p.id)
                .and_then(|l| l.verdict)
                .or_else(|| results.get(&p.id).map(|r| r.verdict));
            !reviewed || verdict.is_some_and(|v| v != Verdict::Exclude)
        })
        .map(super::table::TablePaper::from)
        .collect();
    Ok(Some(super::table::view(ws, &kept)?))
}

/// The researcher's labels of `papers` that count now.
pub fn labels_of(
    ws: &Workspace,
    papers: &[PaperRecord],
) -> Result<BTreeMap<PaperId, Label>, WorkspaceError> {
    Ok(labels_parted(ws, papers)?.0)
}

/// Labels by paper.
type LabelsOf = BTreeMap<PaperId, Label>;

/// The researcher's labels of `papers`, parted into those that count now
/// and those given under an earlier question ([`labels::Current`]).
pub fn labels_parted(
    ws: &Workspace,
    papers: &[PaperRecord],
) -> Result<(LabelsOf, LabelsOf), WorkspaceError> {
    let current = labels::Current::of(ws)?;
    let (mut now, mut earlier) = (BTreeMap::new(), BTreeMap::new());
    for p in papers {
        let (counts, before) = current.split(labels::load(ws, &p.id)?);
        if let Some(label) = counts {
            now.insert(p.id.clone(), label);
        }
        if let Some(label) = before {
            earlier.insert(p.id.clone(), label);
        }
    }
    Ok((now, earlier))
}

/// The writer agent's synthesis, for agent reviews that have one.
pub fn synthesis_of(ws: &Workspace, engine: EngineKind) -> Option<String> {
    if engine != EngineKind::Agent {
        return None;
    }
    let path = WsPath::parse(layout::SYNTHESIS_FILE).ok()?;
    ws.read_string(&path).ok()
}
