//! The literature-review workflow: the shared review model, running a review
//! over a workspace (ingest, engine, results, reports), and rendering exports.

pub mod agentic;
pub mod corrections;
pub mod enrich;
mod error;
pub mod estimate;
pub mod exports;
pub mod failures;
pub mod labels;
mod model;
pub mod outputs;
pub mod paper_text;
pub mod reading;
pub mod report;
pub mod run;
pub mod source;

pub use error::ReviewError;

pub use model::{
    CriterionOutcome, CriterionVerdict, EngineKind, FrontMatter, PaperResult, Provenance, Quote,
    ReviewSpec, Verdict,
};
