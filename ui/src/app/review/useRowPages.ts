// The results table's rows, a page at a time. Quire filters, sorts and
// counts every paper (see review_rows in the core) and sends the pages the
// table draws, so a review of ten thousand papers opens with its first
// hundred rows and the window never holds the rest.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import { type PaperCounts, type PaperRow, type Platform, QuireError, type RowsPage } from "../../platform";
import { DEFAULT_QUERY, type TableQuery } from "./table";

/** Rows asked for at a time: a few screens' worth. */
export const PAGE = 100;

export interface RowPages {
  /** Papers the filters let through. */
  matched: number;
  /** Their scores in ten bins. */
  histogram: readonly number[];
  /** Every paper counted, as of the latest page. */
  counts: PaperCounts;
  /** The row at `index` in the query's order; undefined until its page comes. */
  rowAt: (index: number) => PaperRow | undefined;
  /** Where the row with `id` is among the rows at hand, or -1. */
  indexOf: (id: string) => number;
  /** The table draws rows `first` to `last` (exclusive): their pages are asked for. */
  want: (first: number, last: number) => void;
  /** A row the app just changed (a label): shown at once, and the pages asked
   * again, since the change can move it or take it out of the filters. */
  replace: (row: PaperRow) => void;
  /** The rows shown are another query's, this one's on their way. */
  busy: boolean;
  error: string | null;
}

interface Loaded {
  /** The query (and revision) the pages are of. */
  key: string;
  matched: number;
  histogram: readonly number[];
  counts: PaperCounts;
  pages: Map<number, PaperRow[]>;
}

function keyOf(opening: number, revision: number, query: TableQuery): string {
  return `${String(opening)}:${String(revision)}:${JSON.stringify(query)}`;
}

function seeded(opening: number, first: RowsPage): Loaded {
  return {
    key: keyOf(opening, 0, DEFAULT_QUERY),
    matched: first.matched,
    histogram: first.histogram,
    counts: first.counts,
    pages: new Map([[0, first.rows]]),
  };
}

export function useRowPages(platform: Platform, root: string, query: TableQuery, first: RowsPage): RowPages {
  // Each opening of the review (a new first page: a run ended, labels
  // from elsewhere) starts over from its first page.
  const opening = useRef({ first, count: 0 });
  if (opening.current.first !== first) opening.current = { first, count: opening.current.count + 1 };
  const openingCount = opening.current.count;
  const [revision, setRevision] = useState(0);
  const key = keyOf(openingCount, revision, query);
  // What is at hand: the last query's pages stay shown until the new
  // query's first page comes, so typing a filter does not blank the table.
  const [kept, setKept] = useState<Loaded>(() => seeded(0, first));
  const base = keyOf(openingCount, 0, DEFAULT_QUERY);
  // The pages of this query; else, for the opening's own order, its first
  // page; else the last query's, shown until this one's come.
  const loaded =
    kept.key === key || (key !== base && kept.key.startsWith(`${String(openingCount)}:`)) ? kept : seeded(openingCount, first);
  /** Pages on their way, so none is asked twice at once. */
  const asked = useRef(new Set<string>());
  const current = useRef(key);
  current.current = key;
  const [error, setError] = useState<string | null>(null);

  const fetchPage = useCallback(
    (page: number, forKey: string) => {
      const id = `${forKey}#${String(page)}`;
      if (asked.current.has(id)) return;
      asked.current.add(id);
      platform
        .reviewRows(root, { ...query, offset: page * PAGE, limit: PAGE })
        .then((got) => {
          asked.current.delete(id);
          if (current.current !== forKey) return;
          setError(null);
          setKept((l) => {
            const pages = l.key === forKey ? new Map(l.pages) : new Map<number, PaperRow[]>();
            pages.set(page, got.rows);
            return { key: forKey, matched: got.matched, histogram: got.histogram, counts: got.counts, pages };
          });
        })
        .catch((raw: unknown) => {
          asked.current.delete(id);
          if (current.current === forKey) setError(QuireError.from(raw).message);
        });
    },
    [platform, root, query],
  );

  // A new query (or revision) asks for its first page at once; the table
  // asks for the rest as it scrolls. The opening's first page is at hand.
  useEffect(() => {
    if (key !== base) fetchPage(0, key);
  }, [key]);

  const fresh = loaded.key === key;
  const want = useCallback(
    (from: number, to: number) => {
      for (let page = Math.floor(from / PAGE); page * PAGE < Math.max(to, from + 1); page++) {
        if (!fresh || !loaded.pages.has(page)) fetchPage(page, key);
      }
    },
    [fresh, loaded, fetchPage, key],
  );

  const rowAt = (index: number) => loaded.pages.get(Math.floor(index / PAGE))?.[index % PAGE];
  const indexOf = (id: string) => {
    for (const [page, rows] of loaded.pages) {
      const at = rows.findIndex((r) => r.id === id);
      if (at >= 0) return page * PAGE + at;
    }
    return -1;
  };
  const replace = (row: PaperRow) => {
    // What is shown takes the row, and stays shown until the pages come again.
    setKept({
      ...loaded,
      pages: new Map([...loaded.pages].map(([page, rows]) => [page, rows.map((r) => (r.id === row.id ? row : r))])),
    });
    setRevision((r) => r + 1);
  };
  return { matched: loaded.matched, histogram: loaded.histogram, counts: loaded.counts, rowAt, indexOf, want, replace, busy: !fresh, error };
}
