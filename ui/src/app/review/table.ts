// The results table's query (its filters and order) and what a row shows.
// Quire filters, sorts and counts the rows and sends the page in view (see
// review_rows in the core); a researcher's label overrides the engine's
// score and verdict wherever they are shown.

import type { PaperRow, RowQuery, Verdict } from "../../platform";

/** The orders the table's headers offer. */
export type SortKey = Exclude<RowQuery["sort"], "listed">;

/** The filters and order, without the page. */
export type TableQuery = Omit<RowQuery, "offset" | "limit" | "sort"> & { sort: SortKey };

export const DEFAULT_QUERY: TableQuery = {
  text: "",
  verdict: "any",
  status: "any",
  label: "any",
  readers: "any",
  minScore: 0,
  fromYear: null,
  zoteroTag: null,
  sort: "score",
  descending: true,
};

/** The score the review shows (the researcher's over the engine's), as Quire gives it. */
export function scoreOf(row: PaperRow): number | null {
  return row.shownScore;
}

/** The verdict the review shows (the researcher's over the engine's), as Quire gives it. */
export function verdictOf(row: PaperRow): Verdict | null {
  return row.shownVerdict;
}

export function titleOf(row: PaperRow): string {
  const title = row.title?.trim();
  if (title !== undefined && title !== "") return title;
  return row.file.split(/[\\/]/).pop() ?? row.file;
}
