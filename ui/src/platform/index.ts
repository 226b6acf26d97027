export { tauriPlatform } from "./tauri";
export { QuireError } from "./types";
export type { DragDropEvent, Platform, WorkspaceList, WorkspaceSummary } from "./types";
