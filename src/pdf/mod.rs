//! PDF ingestion. For now: finding the PDFs of a folder and fingerprinting them, so
//! a workspace knows its papers and identical files are listed once.

mod scan;

pub use scan::{FoundPdf, ScanError, find_pdfs, sha256_file};
