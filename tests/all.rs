//! Integration tests of Quire's core, as one test binary (faster to link).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr
)]

mod suite;
