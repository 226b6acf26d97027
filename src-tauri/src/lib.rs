//! Quire's desktop shell: a window around the web UI, and Tauri commands that are
//! three-line wrappers over `quire::commands`. All behaviour lives in the core;
//! this crate only wires it to Tauri (state, plugins, events).

mod commands;

use std::process::ExitCode;

use quire::commands::{AppContext, AppPaths};
use tauri::Runtime;

/// Set up a builder with Quire's plugins, state and commands. The real app and
/// the in-process tests (on Tauri's mock runtime) both start here.
pub fn configure<R: Runtime>(builder: tauri::Builder<R>, ctx: AppContext) -> tauri::Builder<R> {
    builder
        .plugin(tauri_plugin_dialog::init())
        .manage(ctx)
        .manage(commands::Startup::now())
        .invoke_handler(tauri::generate_handler![
            commands::workspace_create,
            commands::workspace_list,
            commands::model_setup,
            commands::model_profile_save,
            commands::model_profile_check,
            commands::review_open,
            commands::review_prepare,
            commands::review_estimate,
            commands::review_start,
            commands::review_cancel,
            commands::paper_detail,
            commands::paper_pdf,
            commands::paper_label,
            commands::review_render,
            commands::review_export,
            commands::ui_ready
        ])
}

/// Start the desktop app; returns when its window is closed.
pub fn run() -> ExitCode {
    quire::logging::init("info");
    let paths = match AppPaths::from_env() {
        Ok(paths) => paths,
        Err(e) => {
            tracing::error!(error = %e, "cannot start");
            return ExitCode::FAILURE;
        }
    };
    let app = configure(tauri::Builder::default(), AppContext::new(paths))
        // Reads src-tauri/tauri.conf.json, a symlink to the root file, so the paths
        // in it resolve from src-tauri as the Tauri CLI expects.
        .run(tauri::generate_context!());
    match app {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "the desktop app failed");
            ExitCode::FAILURE
        }
    }
}
