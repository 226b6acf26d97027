// Every row of the review, in its own order, for the panels that list or
// choose among all papers (the run board, the files before a run, the
// scope of a question, validation). The results table pages instead (see
// ./useRowPages.ts); these are asked for only when such a panel is shown.

import { useEffect, useState } from "preact/hooks";

import { type PaperRow, type Platform, QuireError, type ReviewView } from "../../platform";
import { DEFAULT_QUERY } from "./table";

export interface AllRows {
  rows: PaperRow[] | null;
  error: string | null;
  /** A row the app just changed (a label). */
  replace: (row: PaperRow) => void;
}

/** The rows of `view`'s review while `needed`; asked again each time the review is opened again. */
export function useAllRows(platform: Platform, view: ReviewView | null, needed: boolean): AllRows {
  const [rows, setRows] = useState<PaperRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!needed || view === null) return;
    let live = true;
    platform
      .reviewRows(view.root, { ...DEFAULT_QUERY, sort: "listed", offset: 0, limit: Number.MAX_SAFE_INTEGER })
      .then((page) => {
        if (live) {
          setRows(page.rows);
          setError(null);
        }
      })
      .catch((raw: unknown) => {
        if (live) setError(QuireError.from(raw).message);
      });
    return () => {
      live = false;
    };
  }, [platform, view, needed]);
  const replace = (row: PaperRow) => {
    setRows((all) => (all === null ? all : all.map((r) => (r.id === row.id ? row : r))));
  };
  return { rows, error, replace };
}
