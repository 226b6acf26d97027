//! The literature-review workflow: the shared review model, running a review
//! over a workspace (ingest, engine, results, reports), and rendering exports.

pub mod exports;
mod model;
pub mod paper_text;
pub mod report;
pub mod run;

pub use model::{
    CriterionOutcome, CriterionVerdict, EngineKind, PaperResult, Provenance, Quote, ReviewSpec,
    Verdict,
};
