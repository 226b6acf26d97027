//! Quire's desktop shell: a window around the web UI, and Tauri commands that are
//! three-line wrappers over `quire::commands`. All behaviour lives in the core;
//! this crate only wires it to Tauri (state, plugins, events).

mod commands;
mod heap;

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
            commands::openalex_status,
            commands::openalex_key_save,
            commands::openalex_key_remove,
            commands::zotero_collections,
            commands::zotero_open,
            commands::zotero_key_status,
            commands::zotero_key_save,
            commands::zotero_key_remove,
            commands::zotero_push,
            commands::zotero_authorize,
            commands::snowball_plan,
            commands::snowball_run,
            commands::snowball_copies,
            commands::snowball_fetch,
            commands::review_open,
            commands::review_rows,
            commands::review_warm,
            commands::review_prepare,
            commands::review_estimate,
            commands::review_start,
            commands::review_cancel,
            commands::paper_detail,
            commands::paper_pdf,
            commands::paper_label,
            commands::paper_meta,
            commands::records_import,
            commands::records_attach,
            commands::paper_set_aside,
            commands::screening_next,
            commands::review_render,
            commands::review_export,
            commands::review_validation,
            commands::review_flow,
            commands::review_protocol,
            commands::review_protocol_draft,
            commands::review_protocol_approve,
            commands::review_ask,
            commands::review_ask_cancel,
            commands::review_ask_estimate,
            commands::review_asks,
            commands::review_ask_report,
            commands::review_ask_export,
            commands::table_view,
            commands::table_columns,
            commands::table_fill,
            commands::table_estimate,
            commands::table_fill_cancel,
            commands::table_correct,
            commands::ui_ready
        ])
}

/// Start the desktop app; returns when its window is closed.
pub fn run() -> ExitCode {
    heap::fewer_arenas();
    #[cfg(target_os = "linux")]
    composite_only_with_a_gpu();
    quire::logging::init("info");
    let paths = match AppPaths::from_env() {
        Ok(paths) => paths,
        Err(e) => {
            tracing::error!(error = %e, "cannot start");
            return ExitCode::FAILURE;
        }
    };
    let ctx = AppContext::new(paths);
    let app = configure(tauri::Builder::default(), ctx.clone())
        .setup(|_app| {
            #[cfg(unix)]
            tauri::async_runtime::spawn(quit_on_signal(_app.handle().clone()));
            #[cfg(target_os = "linux")]
            if let Some(window) = tauri::Manager::get_webview_window(_app, "main") {
                lighten_webview(&window);
            }
            Ok(())
        })
        // Reads src-tauri/tauri.conf.json, a symlink to the root file, so the paths
        // in it resolve from src-tauri as the Tauri CLI expects.
        .build(tauri::generate_context!());
    match app {
        Ok(app) => {
            app.run(move |_, event| {
                if let tauri::RunEvent::Exit = event {
                    stop_runs_before_exit(&ctx);
                }
            });
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!(error = %e, "the desktop app failed");
            ExitCode::FAILURE
        }
    }
}

/// Quitting mid-review cancels the review, which writes its state, so it
/// reopens as cancelled with its work kept; the process then ends at once
/// instead of waiting on the run's tasks.
fn stop_runs_before_exit(ctx: &AppContext) {
    let left = ctx.stop_runs(EXIT_GRACE);
    if left > 0 {
        tracing::warn!(runs = left, "quit before every review had stopped");
    }
}

/// SIGTERM (a logout, `kill`, a service manager) and SIGINT quit the way
/// closing the window does, so running reviews are stopped cleanly.
#[cfg(unix)]
async fn quit_on_signal<R: Runtime>(app: tauri::AppHandle<R>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        tracing::warn!("cannot listen for quit signals");
        return;
    };
    tokio::select! {
        _ = term.recv() => tracing::info!("SIGTERM: quitting"),
        _ = int.recv() => tracing::info!("SIGINT: quitting"),
    }
    app.exit(0);
}

/// The window shows one local page and loads nothing else, so WebKit's
/// memory caches for browsing (decoded resources, the back-forward page
/// cache) only hold memory: the document-viewer cache model turns them off.
#[cfg(target_os = "linux")]
fn lighten_webview(window: &tauri::WebviewWindow) {
    use webkit2gtk::{CacheModel, SettingsExt, WebContextExt, WebViewExt};
    let done = window.with_webview(|webview| {
        let view = webview.inner();
        if let Some(context) = view.context() {
            context.set_cache_model(CacheModel::DocumentViewer);
        }
        if let Some(settings) = WebViewExt::settings(&view) {
            settings.set_enable_page_cache(false);
        }
    });
    if let Err(e) = done {
        tracing::warn!(error = %e, "cannot tune the webview's caches");
    }
}

/// Without a GPU, WebKit's accelerated compositing runs on Mesa's software
/// rasteriser: it costs the web process about 80 MB of buffers to draw what
/// WebKit's plain software path draws as well, so it is turned off there.
/// With a GPU, or when the user has chosen either way, WebKit keeps it.
///
/// It has to be decided before the web process starts (a policy changed on a
/// live page makes WebKit replace the page's process), hence WebKit's own
/// environment switch, which its processes inherit.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)] // set_var: sound while the process has one thread
fn composite_only_with_a_gpu() {
    const SWITCH: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if std::env::var_os(SWITCH).is_some() || has_gpu_render_node() {
        return;
    }
    // SAFETY: called first thing in `run`, before any thread is started.
    unsafe { std::env::set_var(SWITCH, "1") };
}

/// Whether the kernel offers a GPU render node (`/dev/dri/renderD*`); without
/// one, OpenGL can only be Mesa's software rasteriser.
#[cfg(target_os = "linux")]
fn has_gpu_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .filter_map(Result::ok)
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// How long quitting waits for running reviews to write their state.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
