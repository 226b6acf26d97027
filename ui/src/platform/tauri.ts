// The Tauri implementation of Platform: the one file that imports @tauri-apps/*.

import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { getCurrentWebview } from "@tauri-apps/api/webview";
import { open, save } from "@tauri-apps/plugin-dialog";

import type {
  AskRecord,
  Column,
  FillOutcome,
  TableView,
  Estimate,
  ExportFormat,
  ExportWritten,
  DuplicateGroup,
  Flow,
  FullTextSummary,
  ImportProgress,
  ImportSummary,
  PaperDetail,
  ScreeningView,
  PaperRow,
  ProtocolView,
  ReviewView,
  RowsPage,
  RunEvent,
  ValidationView,
  WorkEstimate,
  AskProgress,
  FillProgress,
} from "./review";
import {
  type ModelListing,
  type OpenAlexStatus,
  type ZoteroCollections,
  type ZoteroKeyStatus,
  type ZoteroOpened,
  type ZoteroPushSummary,
  type ZoteroLocalAccess,
  type CopyOffer,
  type FetchOutcome,
  type SnowballPlan,
  type SnowballRound,
  type ModelSetup,
  type Platform,
  QuireError,
  RECORD_EXTENSIONS,
  type WorkspaceList,
  type WorkspaceSummary,
} from "./types";

/** The save dialog's file type for each export format. */
const EXPORT_FILTERS: Record<ExportFormat, { name: string; extensions: string[] }> = {
  markdown: { name: "Markdown", extensions: ["md"] },
  bibtex: { name: "BibTeX", extensions: ["bib"] },
  csv: { name: "CSV", extensions: ["csv"] },
  ris: { name: "RIS", extensions: ["ris"] },
  prisma: { name: "PRISMA flow counts (CSV)", extensions: ["csv"] },
  table: { name: "Extraction table (CSV)", extensions: ["csv"] },
};

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

  async pickRecordFiles() {
    const chosen = await open({
      multiple: true,
      directory: false,
      title: "Choose search exports",
      filters: [{ name: "Search exports (RIS, PubMed, BibTeX, CSV)", extensions: [...RECORD_EXTENSIONS] }],
    });
    if (chosen === null) return [];
    return Array.isArray(chosen) ? chosen : [chosen];
  },

  importRecords(workspace, files, onProgress, replaces = null) {
    const onProgressChannel = new Channel<ImportProgress>();
    if (onProgress !== undefined) onProgressChannel.onmessage = onProgress;
    return call<ImportSummary>("records_import", { params: { workspace, files, replaces }, onProgress: onProgressChannel });
  },

  setAside: (workspace, paper, of) => call<DuplicateGroup[]>("paper_set_aside", { params: { workspace, paper, of } }),

  attachFullText: (workspace, folder) => call<FullTextSummary>("records_attach", { params: { workspace, folder } }),

  screeningNext: (workspace, count, question, find = null) =>
    call<ScreeningView>("screening_next", { params: { workspace, count, question, find } }),

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

  openalexStatus: (check) => call<OpenAlexStatus>("openalex_status", { check }),

  saveOpenalexKey: (key) => call<OpenAlexStatus>("openalex_key_save", { params: { key } }),

  removeOpenalexKey: () => call<OpenAlexStatus>("openalex_key_remove"),

  zoteroCollections: () => call<ZoteroCollections>("zotero_collections"),

  openZoteroCollection: (collection) => call<ZoteroOpened>("zotero_open", { params: { collection } }),

  zoteroKeyStatus: () => call<ZoteroKeyStatus>("zotero_key_status"),

  saveZoteroKey: (key) => call<ZoteroKeyStatus>("zotero_key_save", { params: { key } }),

  removeZoteroKey: () => call<ZoteroKeyStatus>("zotero_key_remove"),

  pushToZotero: (workspace) => call<ZoteroPushSummary>("zotero_push", { params: { workspace } }),
  authorizeZotero: () => call<ZoteroLocalAccess>("zotero_authorize"),
  snowballPlan: (workspace, seeds, directions) => call<SnowballPlan>("snowball_plan", { params: { workspace, seeds, directions } }),
  snowballRun: (workspace, seeds, directions) => call<SnowballRound>("snowball_run", { params: { workspace, seeds, directions } }),
  snowballCopies: (workspace, contact) => call<CopyOffer[]>("snowball_copies", { params: { workspace, contact } }),
  snowballFetch: (workspace, papers, contact) => call<FetchOutcome[]>("snowball_fetch", { params: { workspace, papers, contact } }),

  openReview: (workspace) => call<ReviewView>("review_open", { workspace }),
  warmReview: (workspace) => call<undefined>("review_warm", { workspace }),
  reviewRows: (workspace, query) => call<RowsPage>("review_rows", { workspace, query }),

  prepareReview: (workspace) => call<ReviewView>("review_prepare", { workspace }),

  estimateReview: (params) => call<Estimate>("review_estimate", { params }),
  protocol: (params) => call<ProtocolView>("review_protocol", { params }),
  draftProtocol: (params) => call<ProtocolView>("review_protocol_draft", { params }),
  approveProtocol: (params) => call<ProtocolView>("review_protocol_approve", { params }),

  startReview(params, onEvent) {
    const onEventChannel = new Channel<RunEvent>();
    onEventChannel.onmessage = onEvent;
    return call<undefined>("review_start", { params, onEvent: onEventChannel });
  },

  cancelReview: (workspace) => call<boolean>("review_cancel", { workspace }),

  paperDetail: (workspace, paper) => call<PaperDetail>("paper_detail", { workspace, paper }),

  paperPdf: (workspace, paper) => call<ArrayBuffer>("paper_pdf", { workspace, paper }),

  setLabel: (workspace, paper, label) =>
    call<PaperRow>("paper_label", {
      params: label === null ? { workspace, paper, clear: true } : { workspace, paper, ...label },
    }),

  correctPaper: (workspace, paper, change) =>
    call<PaperDetail>("paper_meta", {
      params: change === null ? { workspace, paper, clear: true } : { workspace, paper, ...change },
    }),

  uiReady: () => call<undefined>("ui_ready"),

  renderReview: (workspace, format) => call<string>("review_render", { workspace, format }),

  validation: (params) => call<ValidationView>("review_validation", { params }),

  reviewFlow: (workspace) => call<Flow>("review_flow", { workspace }),
  askPapers(params, onProgress) {
    const onProgressChannel = new Channel<AskProgress>();
    onProgressChannel.onmessage = onProgress;
    return call<AskRecord>("review_ask", { params, onProgress: onProgressChannel });
  },
  cancelAsk: (workspace) => call<boolean>("review_ask_cancel", { workspace }),
  estimateAsk: (params) => call<WorkEstimate>("review_ask_estimate", { params }),
  askHistory: (workspace) => call<AskRecord[]>("review_asks", { workspace }),
  askInReport: (workspace, id, include) => call<AskRecord>("review_ask_report", { workspace, id, include }),
  async exportAsk(workspace, id, suggestedName) {
    const dest = await save({
      title: "Export the answer as Markdown",
      defaultPath: `${suggestedName}.md`,
      filters: [{ name: "Markdown", extensions: ["md"] }],
    });
    if (dest === null) return null;
    return call<ExportWritten>("review_ask_export", { workspace, id, dest });
  },
  table: (workspace, scope) => call<TableView>("table_view", { workspace, scope }),
  tableColumns: (params) => call<Column[]>("table_columns", { params }),
  fillTable(params, onProgress) {
    const onProgressChannel = new Channel<FillProgress>();
    onProgressChannel.onmessage = onProgress;
    return call<FillOutcome>("table_fill", { params, onProgress: onProgressChannel });
  },
  estimateFill: (params) => call<WorkEstimate>("table_estimate", { params }),
  cancelFill: (workspace) => call<boolean>("table_fill_cancel", { workspace }),
  correctCell: (params) => call<null>("table_correct", { params }).then(() => undefined),

  async exportReview(workspace, format, suggestedName) {
    const filter = EXPORT_FILTERS[format];
    const dest = await save({
      title: `Export the review as ${filter.name}`,
      defaultPath: `${suggestedName}.${filter.extensions[0] ?? "txt"}`,
      filters: [filter],
    });
    if (dest === null) return null;
    return call<ExportWritten>("review_export", { workspace, format, dest });
  },

  onWorkspacesChanged(handler) {
    return listen(WORKSPACES_CHANGED, () => {
      handler();
    });
  },
};
