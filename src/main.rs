//! The `quire` command line: the headless host of Quire's core.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run()
}
