//! PDF ingestion: finding the PDFs of a folder, fingerprinting them, and turning
//! each into per-page text with a status, isolated from the parsers' failures.
//!
//! Flow: [`find_pdfs`] → SHA-256 → cache lookup → extraction in a worker process
//! ([`worker`]) with the engine chain ([`engines`]) → post-processing and a
//! quality check ([`quality`]) → classification ([`ingest`]). Nothing here knows
//! about reviews or models.

pub mod engines;
pub mod ingest;
pub mod layout;
pub mod ligatures;
pub mod metadata;
pub mod ocr;
pub mod quality;
pub mod raw;
pub mod reading_order;
mod scan;
pub mod worker;
pub mod zones;

pub use scan::{FoundPdf, ScanError, find_pdfs, sha256_file};
