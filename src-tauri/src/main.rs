//! Quire's desktop app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    // PDFs are extracted in worker processes started from this same binary.
    if let Some(code) = quire::pdf::worker::run_worker_if_requested() {
        return code;
    }
    quire_desktop::run()
}
