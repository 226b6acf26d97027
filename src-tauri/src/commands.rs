//! The Tauri commands: each forwards to the core handler of the same name. Errors
//! cross the boundary as `{kind, message}`; nothing here can panic.

use quire::commands::models::{self, ModelListing, ModelProfileSaveParams, ModelSetup};
use quire::commands::{
    self as core, AppContext, CommandError, WorkspaceCreateParams, WorkspaceListResponse,
    WorkspaceSummary,
};
use tauri::{AppHandle, Emitter, Runtime, State};

/// Sent to every window after a workspace is created or reopened, with its id.
pub const WORKSPACES_CHANGED: &str = "workspaces-changed";

#[tauri::command]
pub async fn workspace_create<R: Runtime>(
    app: AppHandle<R>,
    ctx: State<'_, AppContext>,
    params: WorkspaceCreateParams,
) -> Result<WorkspaceSummary, CommandError> {
    let summary = core::workspace_create(&ctx, params).await?;
    if let Err(e) = app.emit(WORKSPACES_CHANGED, &summary.id) {
        tracing::warn!(error = %e, "could not notify windows of the new workspace");
    }
    Ok(summary)
}

#[tauri::command]
pub async fn workspace_list(
    ctx: State<'_, AppContext>,
) -> Result<WorkspaceListResponse, CommandError> {
    core::workspace_list(&ctx).await
}

#[tauri::command]
pub async fn model_setup(ctx: State<'_, AppContext>) -> Result<ModelSetup, CommandError> {
    models::model_setup(&ctx).await
}

#[tauri::command]
pub async fn model_profile_save(
    ctx: State<'_, AppContext>,
    params: ModelProfileSaveParams,
) -> Result<ModelSetup, CommandError> {
    models::model_profile_save(&ctx, params).await
}

#[tauri::command]
pub async fn model_profile_check(
    ctx: State<'_, AppContext>,
    profile: Option<String>,
) -> Result<ModelListing, CommandError> {
    models::model_profile_check(&ctx, profile).await
}
