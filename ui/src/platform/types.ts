// The shapes that cross the IPC boundary, mirroring quire::commands (camelCase).

export interface WorkspaceSummary {
  id: string;
  root: string;
  title: string;
  source: string | null;
  question: string | null;
  status: "new" | "running" | "done" | "failed" | "cancelled";
  createdAt: string;
  updatedAt: string;
  paperCount: number;
  duplicateCount: number;
}

export interface WorkspaceList {
  workspaces: WorkspaceSummary[];
  /** Set when the index could not be used and the list was read from the folders. */
  notice: string | null;
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
  onDragDrop(handler: (event: DragDropEvent) => void): Promise<() => void>;
  /** Another part of the app changed the workspace list. */
  onWorkspacesChanged(handler: () => void): Promise<() => void>;
}

/** An error from a command: a stable kind and a sentence for a person. */
export class QuireError extends Error {
  readonly kind: string;

  constructor(kind: string, message: string) {
    super(message);
    this.name = "QuireError";
    this.kind = kind;
  }

  /** Whatever a command rejected with, as a QuireError. */
  static from(raw: unknown): QuireError {
    if (raw instanceof QuireError) return raw;
    if (typeof raw === "object" && raw !== null && "kind" in raw && "message" in raw) {
      const { kind, message } = raw;
      if (typeof kind === "string" && typeof message === "string") return new QuireError(kind, message);
    }
    if (raw instanceof Error) return new QuireError("internal_error", raw.message);
    return new QuireError("internal_error", typeof raw === "string" ? raw : "Something went wrong.");
  }
}
