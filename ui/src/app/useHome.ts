// The first screen's state and actions, kept apart from its markup so the flow
// (drop or choose -> create -> refresh -> highlight) is tested on its own.

import { useCallback, useEffect, useState } from "preact/hooks";

import { type Platform, QuireError, type WorkspaceSummary, type ZoteroCollection } from "../platform";
import { planDrop } from "./drop";

export interface HomeState {
  /** null while the first load is in flight. */
  workspaces: WorkspaceSummary[] | null;
  notice: string | null;
  dragging: boolean;
  /** What is being opened right now, for the busy state. */
  opening: string | null;
  error: string | null;
  /** The workspace just created or reopened, to highlight it. */
  lastOpenedId: string | null;
}

const INITIAL: HomeState = {
  workspaces: null,
  notice: null,
  dragging: false,
  opening: null,
  error: null,
  lastOpenedId: null,
};

/** `onOpened` gets the root of each workspace created or reopened by a drop or the dialog. */
export function useHome(platform: Platform, onOpened: (root: string) => void = () => undefined) {
  const [state, setState] = useState<HomeState>(INITIAL);
  const patch = useCallback((p: Partial<HomeState>) => {
    setState((s) => ({ ...s, ...p }));
  }, []);

  const reload = useCallback(async () => {
    try {
      const list = await platform.listWorkspaces();
      patch({ workspaces: list.workspaces, notice: list.notice });
      // The review listed first is the one most likely opened next: its rows
      // are built now, so opening it finds them ready.
      const first = list.workspaces[0];
      if (first !== undefined) platform.warmReview(first.root).catch(() => undefined);
    } catch (raw) {
      patch({ workspaces: [], error: QuireError.from(raw).message });
    }
  }, [platform, patch]);

  const openPath = useCallback(
    async (path: string, alsoImport: readonly string[] = []) => {
      patch({ opening: path, error: null });
      try {
        const summary = await platform.createWorkspace(path);
        if (alsoImport.length > 0) {
          const imported = await platform.importRecords(summary.root, [...alsoImport]);
          const failed = imported.files.filter((f) => f.error !== null);
          if (failed.length > 0) patch({ error: failed.map((f) => `${f.file}: ${f.error ?? ""}`).join("\n") });
        }
        patch({ lastOpenedId: summary.id });
        await reload();
        onOpened(summary.root);
      } catch (raw) {
        patch({ error: QuireError.from(raw).message });
      } finally {
        patch({ opening: null });
      }
    },
    [platform, patch, reload, onOpened],
  );

  const openDropped = useCallback(
    async (paths: readonly string[]) => {
      const plan = planDrop(paths);
      if (plan.kind === "refuse") {
        patch({ error: plan.reason });
        return;
      }
      await openPath(plan.path, plan.alsoImport);
    },
    [openPath, patch],
  );

  const chooseFolder = useCallback(async () => {
    try {
      const folder = await platform.pickFolder();
      if (folder !== null) await openPath(folder);
    } catch (raw) {
      patch({ error: QuireError.from(raw).message });
    }
  }, [platform, openPath, patch]);

  /** Open a Zotero collection as a review (read now, so it is up to date). */
  const openZotero = useCallback(
    async (collection: ZoteroCollection) => {
      patch({ opening: `Zotero: ${collection.library.name} / ${collection.path}`, error: null });
      try {
        const opened = await platform.openZoteroCollection(collection.key);
        patch({ lastOpenedId: opened.workspace.id });
        await reload();
        onOpened(opened.workspace.root);
      } catch (raw) {
        patch({ error: QuireError.from(raw).message });
      } finally {
        patch({ opening: null });
      }
    },
    [platform, patch, reload, onOpened],
  );

  useEffect(() => {
    let disposed = false;
    const unsubscribers: (() => void)[] = [];
    const keep = (unlisten: () => void) => {
      if (disposed) unlisten();
      else unsubscribers.push(unlisten);
    };
    void reload();
    platform
      .onDragDrop((event) => {
        switch (event.type) {
          case "enter":
          case "over":
            patch({ dragging: true });
            break;
          case "leave":
            patch({ dragging: false });
            break;
          case "drop":
            patch({ dragging: false });
            void openDropped(event.paths);
            break;
        }
      })
      .then(keep, (raw: unknown) => {
        patch({ error: `Drag and drop is unavailable: ${QuireError.from(raw).message}` });
      });
    platform
      .onWorkspacesChanged(() => void reload())
      .then(keep, () => {
        // Without live updates the list still refreshes after our own actions.
      });
    return () => {
      disposed = true;
      for (const unlisten of unsubscribers) unlisten();
    };
  }, [platform, reload, openDropped, patch]);

  return {
    state,
    reload,
    chooseFolder,
    openZotero,
    dismissError: () => {
      patch({ error: null });
    },
  };
}
