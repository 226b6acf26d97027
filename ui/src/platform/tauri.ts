// The Tauri implementation of Platform: the one file that imports @tauri-apps/*.

import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open } from "@tauri-apps/plugin-dialog";

import {
  type ModelListing,
  type ModelSetup,
  type Platform,
  QuireError,
  type WorkspaceList,
  type WorkspaceSummary,
} from "./types";

/** Emitted by the shell after a workspace is created or reopened. */
const WORKSPACES_CHANGED = "workspaces-changed";

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  try {
    return await invoke<T>(command, args);
  } catch (raw) {
    throw QuireError.from(raw);
  }
}

export const tauriPlatform: Platform = {
  listWorkspaces: () => call<WorkspaceList>("workspace_list"),

  createWorkspace: (folder) => call<WorkspaceSummary>("workspace_create", { params: { folder } }),

  async pickFolder() {
    const chosen = await open({ directory: true, multiple: false, title: "Choose a folder of PDFs" });
    return typeof chosen === "string" ? chosen : null;
  },

  onDragDrop(handler) {
    return getCurrentWebview().onDragDropEvent(({ payload }) => {
      switch (payload.type) {
        case "enter":
          handler({ type: "enter", paths: payload.paths });
          break;
        case "over":
          handler({ type: "over" });
          break;
        case "drop":
          handler({ type: "drop", paths: payload.paths });
          break;
        case "leave":
          handler({ type: "leave" });
          break;
      }
    });
  },

  modelSetup: () => call<ModelSetup>("model_setup"),

  saveModelProfile: (params) => call<ModelSetup>("model_profile_save", { params }),

  checkModelProfile: (profile) => call<ModelListing>("model_profile_check", { profile }),

  onWorkspacesChanged(handler) {
    return listen(WORKSPACES_CHANGED, () => {
      handler();
    });
  },
};
