export { tauriPlatform } from "./tauri";
export { QuireError, RECORD_EXTENSIONS, isRecordExport } from "./types";
export type {
  ActiveModel,
  DragDropEvent,
  ModelListing,
  ModelProfile,
  ModelProfileSave,
  ModelSettings,
  ModelSetup,
  OpenAlexStatus,
  Allowance,
  ZoteroCollection,
  ZoteroCollections,
  ZoteroKeyStatus,
  ZoteroOpened,
  ZoteroPushSummary,
  Platform,
  WorkspaceList,
  WorkspaceSummary,
  LabelChange,
  MetaChange,
} from "./types";
export type * from "./review";
