//! Declares the app's own commands so capabilities can grant them one by one,
//! and reads the configuration from the repository root.

fn main() {
    let commands = tauri_build::AppManifest::new().commands(&[
        "workspace_create",
        "workspace_list",
        "model_setup",
        "model_profile_save",
        "model_profile_check",
        "review_open",
        "review_prepare",
        "review_estimate",
        "review_start",
        "review_cancel",
        "paper_detail",
        "paper_pdf",
        "paper_label",
        "paper_meta",
        "review_render",
        "review_export",
        "review_validation",
        "review_flow",
        "review_protocol",
        "review_protocol_draft",
        "review_protocol_approve",
        "review_ask",
        "review_ask_cancel",
        "review_ask_estimate",
        "review_asks",
        "review_ask_report",
        "review_ask_export",
        "table_view",
        "table_columns",
        "table_fill",
        "table_estimate",
        "table_fill_cancel",
        "table_correct",
        "ui_ready",
    ]);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(commands))
        .unwrap_or_else(|e| panic!("tauri build script failed: {e:#}"));
}
