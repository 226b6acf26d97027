//! Quire's core: literature reviews by an LLM agent whose long-term state lives in
//! files. This crate knows nothing of Tauri; the desktop shell and the `quire` CLI
//! are thin hosts over [`commands`].

pub mod agent;
pub mod blocking;
pub mod commands;
pub mod index;
pub mod llm;
pub mod logging;
pub mod net;
pub mod offline;
pub mod pdf;
pub mod records;
pub mod review;
pub mod review_model;
pub mod scholar;
pub mod screening;
pub mod tools;
pub mod workspace;
pub mod zotero;
