// An in-memory Platform for UI tests: behaves like the real commands (create
// adds or reopens, list returns newest first) and lets a test play the OS's part
// in drag and drop.

import { type DragDropEvent, type Platform, QuireError, type WorkspaceSummary } from "../platform";

export class FakePlatform implements Platform {
  workspaces: WorkspaceSummary[] = [];
  notice: string | null = null;
  /** What the folder dialog answers next; null is "cancelled". */
  nextPick: string | null = null;
  /** When set, createWorkspace rejects with it. */
  createError: QuireError | null = null;
  created: string[] = [];
  private dragHandlers: ((e: DragDropEvent) => void)[] = [];
  private changeHandlers: (() => void)[] = [];
  private clock = Date.parse("2026-11-30T12:00:00Z");

  listWorkspaces() {
    return Promise.resolve({ workspaces: [...this.workspaces], notice: this.notice });
  }

  createWorkspace(folder: string) {
    this.created.push(folder);
    if (this.createError !== null) return Promise.reject(this.createError);
    this.clock += 60_000;
    const now = new Date(this.clock).toISOString();
    const title = folder.split("/").filter(Boolean).pop() ?? folder;
    const existing = this.workspaces.find((w) => w.source === folder);
    const summary: WorkspaceSummary = existing
      ? { ...existing, updatedAt: now }
      : {
          id: `${title}-${this.workspaces.length + 1}`,
          root: `/data/workspaces/${title}`,
          title,
          source: folder,
          question: null,
          status: "new",
          createdAt: now,
          updatedAt: now,
          paperCount: 3,
          duplicateCount: 0,
        };
    this.workspaces = [summary, ...this.workspaces.filter((w) => w.id !== summary.id)];
    return Promise.resolve(summary);
  }

  pickFolder() {
    return Promise.resolve(this.nextPick);
  }

  onDragDrop(handler: (e: DragDropEvent) => void) {
    this.dragHandlers.push(handler);
    return Promise.resolve(() => {
      this.dragHandlers = this.dragHandlers.filter((h) => h !== handler);
    });
  }

  onWorkspacesChanged(handler: () => void) {
    this.changeHandlers.push(handler);
    return Promise.resolve(() => {
      this.changeHandlers = this.changeHandlers.filter((h) => h !== handler);
    });
  }

  /** Play the OS: send a drag event to whoever listens. */
  drag(event: DragDropEvent) {
    for (const handler of this.dragHandlers) handler(event);
  }

  /** Play the shell: announce that the list changed elsewhere. */
  announceChange() {
    for (const handler of this.changeHandlers) handler();
  }

  get listenerCount() {
    return this.dragHandlers.length + this.changeHandlers.length;
  }
}
