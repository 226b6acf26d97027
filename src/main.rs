//! The `quire` command line: the headless host of Quire's core.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Some(code) = quire::pdf::worker::run_worker_if_requested() {
        return code;
    }
    cli::run()
}
