// The shapes that cross the IPC boundary, generated from quire::commands into
// ./generated/ipc.ts, under the names the UI uses; and the Platform the UI talks to.

import type {
  DuplicateGroup,
  FullTextSummary,
  AskParams,
  AskRecord,
  AskScope,
  Column,
  ColumnsParams,
  CorrectParams,
  FillOutcome,
  FillParams,
  FillProgress,
  TableView,
  ErrorKind,
  LabelParams,
  MetaSetParams,
  ModelListing,
  ModelProfileSaveParams,
  ModelSetup,
  OpenAlexStatus,
  ProfileView,
  ZoteroCollections,
  ZoteroKeyStatus,
  ZoteroOpened,
  ZoteroPushSummary,
  ZoteroLocalAccess,
  CopyOffer,
  Direction,
  FetchOutcome,
  SnowballPlan,
  SnowballRound,
  ProtocolParams,
  ProtocolView,
  ValidateParams,
  ValidationView,
  WorkspaceListResponse,
  WorkspaceRow,
} from "./generated/ipc";

import type {
  Estimate,
  ExportFormat,
  ExportWritten,
  Flow,
  ImportProgress,
  ImportSummary,
  ScreeningView,
  PaperDetail,
  PaperRow,
  ReviewLaunch,
  ReviewView,
  RowQuery,
  RowsPage,
  AskProgress,
  RunEvent,
  WorkEstimate,
} from "./review";

export type {
  ActiveModel,
  Allowance,
  ErrorKind,
  ModelListing,
  ModelSettings,
  ModelSetup,
  OpenAlexStatus,
  ZoteroCollection,
  ZoteroCollections,
  ZoteroKeyStatus,
  ZoteroOpened,
  ZoteroPushSummary,
  ZoteroLocalAccess,
  CopyOffer,
  Direction,
  FetchOutcome,
  OpenCopy,
  SnowballPlan,
  SnowballRound,
  SnowballSeed,
} from "./generated/ipc";

/** A workspace as the recent-reviews list shows it. */
export type WorkspaceSummary = WorkspaceRow;
export type WorkspaceList = WorkspaceListResponse;

/** File name endings of the search exports Quire imports as records (as
 * `quire::records::EXPORT_EXTENSIONS`; the content still decides the format). */
export const RECORD_EXTENSIONS = ["ris", "nbib", "txt", "bib", "csv", "tsv", "medline", "ciw"] as const;

/** Whether a path is named as a search export rather than a PDF or a folder. */
export function isRecordExport(path: string): boolean {
  const dot = path.lastIndexOf(".");
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  if (dot <= slash + 1) return false;
  const ext = path.slice(dot + 1).toLowerCase();
  return (RECORD_EXTENSIONS as readonly string[]).includes(ext);
}

/** A drag over the window, as the OS reports it. */
export type DragDropEvent =
  | { type: "enter"; paths: string[] }
  | { type: "over" }
  | { type: "drop"; paths: string[] }
  | { type: "leave" };

/** Everything the UI needs from the host. The only implementation that talks to
 * Tauri is ./tauri.ts; tests use a fake. */
export interface Platform {
  listWorkspaces(): Promise<WorkspaceList>;
  /** Create (or reopen) the workspace for a folder or a single PDF. */
  createWorkspace(folder: string): Promise<WorkspaceSummary>;
  /** Ask the user for a folder; null when they cancel. */
  pickFolder(): Promise<string | null>;
  /** Ask the user for search exports (RIS, PubMed, BibTeX, CSV); empty when they cancel. */
  pickRecordFiles(): Promise<string[]>;
  /** Import search records into a review, saying where it is to `onProgress` (records taken in,
   * then saving); the summary names files it could not read. With `replaces`, the one file is a
   * newer run of the search exported earlier to that file: its records are matched to the
   * earlier ones, which keep their labels, and those no longer in it are marked as having left. */
  importRecords(
    workspace: string,
    files: string[],
    onProgress?: (progress: ImportProgress) => void,
    replaces?: string | null,
  ): Promise<ImportSummary>;
  /** Set a paper aside as a copy of `of` (null puts it back); the review's duplicate groups then. */
  setAside(workspace: string, paper: string, of: string | null): Promise<DuplicateGroup[]>;
  /** Attach a folder of PDFs as the records' full text (each matched by DOI, else title). */
  attachFullText(workspace: string, folder: string): Promise<FullTextSummary>;
  /**
   * Where screening stands and the next `count` papers, ordered by every label
   * so far; `question` becomes the review's when it has none (or has not run).
   */
  /** Where screening stands and the next `count` papers; with `find`, also the unlabelled papers holding those words. */
  screeningNext(workspace: string, count: number, question: string | null, find?: string | null): Promise<ScreeningView>;
  onDragDrop(handler: (event: DragDropEvent) => void): Promise<() => void>;
  /** Another part of the app changed the workspace list. */
  onWorkspacesChanged(handler: () => void): Promise<() => void>;
  /** The model profiles and the model reviews would use now. */
  modelSetup(): Promise<ModelSetup>;
  /** Add or replace a profile (and store its key); returns the new setup. */
  saveModelProfile(profile: ModelProfileSave): Promise<ModelSetup>;
  /** Reach a saved profile's endpoint and list its models. */
  checkModelProfile(profile: string): Promise<ModelListing>;
  /** Where OpenAlex's key is kept; with `check`, today's allowance (one free request). */
  openalexStatus(check: boolean): Promise<OpenAlexStatus>;
  /** Save OpenAlex's key (it never comes back), then check it. */
  saveOpenalexKey(key: string): Promise<OpenAlexStatus>;
  /** Remove the saved OpenAlex key. */
  removeOpenalexKey(): Promise<OpenAlexStatus>;
  /** Every collection Zotero holds: from the running Zotero, else a private copy of its database. */
  zoteroCollections(): Promise<ZoteroCollections>;
  /** Read a collection (by key) and open it as a review: its items the records, their PDFs the full text. */
  openZoteroCollection(collection: string): Promise<ZoteroOpened>;
  /** Where the Zotero Web API key is kept (it never comes back). */
  zoteroKeyStatus(): Promise<ZoteroKeyStatus>;
  saveZoteroKey(key: string): Promise<ZoteroKeyStatus>;
  removeZoteroKey(): Promise<ZoteroKeyStatus>;
  /** Write the review's verdicts to its Zotero items (tags and one note each); only what differs is written. */
  pushToZotero(workspace: string): Promise<ZoteroPushSummary>;
  /** Ask the running Zotero (10 or later) to let Quire write to it; Zotero shows a dialog and this waits for it. */
  authorizeZotero(): Promise<ZoteroLocalAccess>;
  /** Citation searching's plan for the next round: the seeds (null: the included papers not yet followed) as
   * OpenAlex knows them, the calls and their cost against today's allowance. Only free lookups are made. */
  snowballPlan(workspace: string, seeds: string[] | null, directions: Direction[]): Promise<SnowballPlan>;
  /** Run the round: its new works join the review as records to screen. */
  snowballRun(workspace: string, seeds: string[] | null, directions: Direction[]): Promise<SnowballRound>;
  /** The kept records found by citation searching that lack full text, each with its open copy or why none. */
  snowballCopies(workspace: string, contact: string | null): Promise<CopyOffer[]>;
  /** Fetch the approved records' open copies; each PDF becomes its record's full text. */
  snowballFetch(workspace: string, papers: string[], contact: string | null): Promise<FetchOutcome[]>;

  /** A review's state, its papers counted and the first page of rows (the rest come from `reviewRows`). */
  openReview(workspace: string): Promise<ReviewView>;
  /** Build a review's rows ahead of its open, so the open finds them ready. */
  warmReview(workspace: string): Promise<void>;
  /** A page of the review's rows under the table's filters and order, with the papers counted. */
  reviewRows(workspace: string, query: RowQuery): Promise<RowsPage>;
  /** Extract what is not extracted yet, so each file's status is known; no model is called. */
  prepareReview(workspace: string): Promise<ReviewView>;
  estimateReview(launch: ReviewLaunch): Promise<Estimate>;
  /** Where the review's protocol stands for a question and its criteria. */
  protocol(params: ProtocolParams): Promise<ProtocolView>;
  /** Have the model draft the protocol; the draft waits for approval. */
  draftProtocol(params: ProtocolParams): Promise<ProtocolView>;
  /** Approve `params.text` as the protocol every paper is read by. */
  approveProtocol(params: ProtocolParams): Promise<ProtocolView>;
  /** Start a run; it goes on in the background and reports through `onEvent`. */
  startReview(launch: ReviewLaunch, onEvent: (event: RunEvent) => void): Promise<void>;
  /** Ask the run to stop (it keeps its work and resumes); false when none runs. */
  cancelReview(workspace: string): Promise<boolean>;
  paperDetail(workspace: string, paper: string): Promise<PaperDetail>;
  /** The paper's PDF, for the built-in viewer. */
  paperPdf(workspace: string, paper: string): Promise<ArrayBuffer>;
  /** Set a label, or clear it with `null`; returns the paper's row as the review now shows it. */
  setLabel(workspace: string, paper: string, label: LabelChange | null): Promise<PaperRow>;
  /**
   * Correct a paper's metadata by hand (kept apart from extraction, which never
   * overwrites it), or take every correction away with `null`; returns the
   * paper's detail as it now reads.
   */
  correctPaper(workspace: string, paper: string, change: MetaChange | null): Promise<PaperDetail>;
  /** The review rendered in a format from its files as they stand. */
  renderReview(workspace: string, format: ExportFormat): Promise<string>;
  /** The first screen is painted (the host logs its start-up time). */
  uiReady(): Promise<void>;
  /**
   * Screening validation: propose a sample (`sample`), set the target recall,
   * apply or reset the calibrated cut-offs; returns what the labels show now.
   */
  validation(params: ValidateParams): Promise<ValidationView>;
  /**
   * Ask a question across the review's papers: an answer whose claims cite
   * verified quotes, or, with no model, the best passages.
   */
  askPapers(params: AskParams, onProgress: (progress: AskProgress) => void): Promise<AskRecord>;
  /** Stop the question being answered; false when none is. */
  cancelAsk(workspace: string): Promise<boolean>;
  /** What answering the question would read and spend, before anything is. */
  estimateAsk(params: AskParams): Promise<WorkEstimate>;
  /** The questions asked of the review, newest first. */
  askHistory(workspace: string): Promise<AskRecord[]>;
  /** Put a question and its answer in the review's report, or take it out. */
  askInReport(workspace: string, id: string, include: boolean): Promise<AskRecord>;
  /** Ask where to save a question's answer as Markdown and write it; null when cancelled. */
  exportAsk(workspace: string, id: string, suggestedName: string): Promise<ExportWritten | null>;
  /** The extraction table for the papers of `scope`. */
  table(workspace: string, scope: AskScope): Promise<TableView>;
  /** Add, remove or copy the table's columns; returns them as they now are. */
  tableColumns(params: ColumnsParams): Promise<Column[]>;
  /** Read every cell not current for its column as it is now. */
  fillTable(params: FillParams, onProgress: (progress: FillProgress) => void): Promise<FillOutcome>;
  /** What filling the table would read and spend, before anything is. */
  estimateFill(params: FillParams): Promise<WorkEstimate>;
  /** Stop the table's fill (the cells read so far are kept); false when none runs. */
  cancelFill(workspace: string): Promise<boolean>;
  /** The researcher's value for a cell, or, with no value, the extracted one checked. */
  correctCell(params: CorrectParams): Promise<void>;
  /** The review's PRISMA 2020 flow counts, as its report states them. */
  reviewFlow(workspace: string): Promise<Flow>;
  /** Ask where to save and write the export; null when the user cancels. */
  exportReview(workspace: string, format: ExportFormat, suggestedName: string): Promise<ExportWritten | null>;
}

/** What a keypress changes of a label. */
export type LabelChange = Omit<LabelParams, "workspace" | "paper">;

/** The metadata fields a correction sets; those left out keep their value. */
export type MetaChange = Omit<MetaSetParams, "workspace" | "paper">;

/** Every error kind, so a kind added in Rust fails the type check here until it is handled. */
const ERROR_KINDS: Record<ErrorKind, true> = {
  invalid_input: true,
  not_found: true,
  busy: true,
  model_setup: true,
  model_server: true,
  storage: true,
  cancelled: true,
  internal: true,
};

function isErrorKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && Object.prototype.hasOwnProperty.call(ERROR_KINDS, value);
}

/** What the researcher can do about an error of `kind`; every kind is answered. */
export function errorAdvice(kind: ErrorKind): string | null {
  switch (kind) {
    case "invalid_input":
    case "not_found":
    case "cancelled":
      return null;
    case "busy":
      return "Try again when the other run is done.";
    case "model_setup":
      return "Check the model settings.";
    case "model_server":
      return "Check that the model server is running and reachable, then try again.";
    case "storage":
      return "Check the disk has room and the folder can be written, then try again.";
    case "internal":
      return "This is a fault in Quire; the log has the details.";
    default: {
      const unhandled: never = kind;
      return unhandled;
    }
  }
}

/** An error from a command: its kind, a stable code and a sentence for a person. */
export class QuireError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;

  constructor(kind: ErrorKind, code: string, message: string) {
    super(message);
    this.name = "QuireError";
    this.kind = kind;
    this.code = code;
  }

  /** The sentence, with what to do about it when there is something to do. */
  describe(): string {
    const advice = errorAdvice(this.kind);
    return advice === null ? this.message : `${this.message}. ${advice}`;
  }

  /** Whatever a command rejected with, as a QuireError. */
  static from(raw: unknown): QuireError {
    if (raw instanceof QuireError) return raw;
    if (typeof raw === "object" && raw !== null && "kind" in raw && "message" in raw) {
      const { kind, message } = raw;
      const code = "code" in raw && typeof raw.code === "string" ? raw.code : "error";
      if (typeof message === "string") return new QuireError(isErrorKind(kind) ? kind : "internal", code, message);
    }
    if (raw instanceof Error) return new QuireError("internal", "internal_error", raw.message);
    return new QuireError("internal", "internal_error", typeof raw === "string" ? raw : "Something went wrong.");
  }
}

/** A saved profile as the settings screen shows it: its settings and where its key comes from. */
export type ModelProfile = ProfileView;

/** What saving a profile sends. */
export type ModelProfileSave = ModelProfileSaveParams;
