// The results table's query: filters, sort and the score histogram, over
// paper rows. A researcher's label overrides the engine's score and verdict
// wherever they are shown, filtered or sorted.

import type { PaperRow, Verdict } from "../../platform";

export type SortKey = "score" | "title" | "year" | "verdict" | "status";

export interface TableQuery {
  text: string;
  verdict: Verdict | "any";
  /** scored: has a result; unread: readable, no result yet; unreadable: cannot be read. */
  status: "any" | "scored" | "stale" | "unread" | "unreadable";
  label: "any" | "labelled" | "unlabelled";
  /** disagree: the two independent readings disagree (dual reading). */
  readers: "any" | "disagree";
  minScore: number;
  /** Earliest year shown; null shows all (papers without a year too). */
  fromYear: number | null;
  /** Only papers whose Zotero item carries this tag (a record's full text
   * goes with its record); null shows all. */
  zoteroTag: string | null;
  sort: SortKey;
  descending: boolean;
}

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

/** Statuses whose text can be read. */
const READABLE = new Set(["ok", "damaged", "pending"]);

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

function statusGroup(row: PaperRow): TableQuery["status"] {
  if (row.score !== null) return "scored";
  if (row.stale !== null) return "stale";
  return READABLE.has(row.status) ? "unread" : "unreadable";
}

/** One collator for every comparison: `localeCompare` builds one per call,
 * which makes sorting a thousand titles take a visible moment. */
const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

const VERDICT_RANK: Record<Verdict, number> = { include: 2, maybe: 1, exclude: 0 };

function compare(a: PaperRow, b: PaperRow, key: SortKey): number {
  switch (key) {
    case "score":
      return (scoreOf(a) ?? -1) - (scoreOf(b) ?? -1);
    case "year":
      return (a.year ?? 0) - (b.year ?? 0);
    case "verdict": {
      const va = verdictOf(a);
      const vb = verdictOf(b);
      return (va === null ? -1 : VERDICT_RANK[va]) - (vb === null ? -1 : VERDICT_RANK[vb]);
    }
    case "status":
      return collator.compare(a.status, b.status);
    case "title":
      return collator.compare(titleOf(a), titleOf(b));
  }
}

function matchesText(row: PaperRow, words: string[]): boolean {
  if (words.length === 0) return true;
  const zotero = row.imported?.zotero;
  const haystack = [
    titleOf(row),
    row.authors.join(" "),
    row.file,
    String(row.year ?? ""),
    row.label?.note ?? "",
    ...(zotero?.tags ?? []),
    ...(zotero?.notes ?? []),
  ]
    .join(" ")
    .toLowerCase();
  return words.every((w) => haystack.includes(w));
}

/** The Zotero tags a row carries: its item's, or, for a record's full
 * text, its record's. */
export function zoteroTagsOf(row: PaperRow, byId: ReadonlyMap<string, PaperRow>): readonly string[] {
  const own = row.imported?.zotero?.tags;
  if (own !== undefined) return own;
  const record = row.fullTextOf === null ? undefined : byId.get(row.fullTextOf);
  return record?.imported?.zotero?.tags ?? [];
}

/** Every Zotero tag of the review's items, sorted, for the filter. */
export function zoteroTags(rows: readonly PaperRow[]): string[] {
  const tags = new Set<string>();
  for (const row of rows) for (const tag of row.imported?.zotero?.tags ?? []) tags.add(tag);
  return [...tags].sort((a, b) => collator.compare(a, b));
}

/** The rows the query shows, in its order (ties by title, then id, so the
 * order never jumps). */
export function visibleRows(rows: readonly PaperRow[], q: TableQuery): PaperRow[] {
  const words = q.text.toLowerCase().split(/\s+/).filter(Boolean);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const shown = rows.filter((row) => {
    if (q.zoteroTag !== null && !zoteroTagsOf(row, byId).includes(q.zoteroTag)) return false;
    if (q.verdict !== "any" && verdictOf(row) !== q.verdict) return false;
    if (q.status !== "any" && statusGroup(row) !== q.status) return false;
    if (q.label === "labelled" && row.label === null) return false;
    if (q.label === "unlabelled" && row.label !== null) return false;
    if (q.readers === "disagree" && !row.disagreed) return false;
    if (q.minScore > 0 && (scoreOf(row) ?? -1) < q.minScore) return false;
    if (q.fromYear !== null && (row.year === null || row.year < q.fromYear)) return false;
    return matchesText(row, words);
  });
  const sign = q.descending ? -1 : 1;
  return shown.sort(
    (a, b) => sign * compare(a, b, q.sort) || collator.compare(titleOf(a), titleOf(b)) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** Scored papers per score bin: bin i holds scores in [i, i+1), the last also 10. */
export function histogram(rows: readonly PaperRow[], bins = 10): number[] {
  const counts = new Array<number>(bins).fill(0);
  for (const row of rows) {
    const score = scoreOf(row);
    if (score === null) continue;
    const bin = Math.min(bins - 1, Math.max(0, Math.floor((score / 10) * bins)));
    counts[bin] = (counts[bin] ?? 0) + 1;
  }
  return counts;
}
