//! The literature-review workflow: running a review over a workspace (ingest,
//! engine, results, reports) and rendering exports. The review model it
//! shares with the engines lives below them ([`crate::review_model`]).

pub mod ask;
pub mod batches;
pub mod corrections;
mod csv_field;
pub mod dual;
pub mod engine;
pub mod enrich;
mod error;
pub mod estimate;
pub mod exports;
pub mod failures;
pub mod fulltext;
pub mod imports;
pub mod inputs;
pub mod labels;
pub mod md_text;
pub mod outputs;
pub mod paper_text;
pub mod protocol;
pub mod queue;
pub mod reading;
pub mod report;
pub mod run;
mod search_update;
pub mod snowball;
pub mod source;
pub mod status;
pub mod table;
pub mod validation;
pub mod verdicts;
pub mod zotero_push;

pub use error::ReviewError;
pub use status::{Outcome, ReviewStatus};

pub use crate::review_model::{
    ApprovedProtocol, CriterionOutcome, CriterionVerdict, EngineKind, FrontMatter, PaperResult,
    Provenance, Quote, ReviewSpec, Verdict,
};
