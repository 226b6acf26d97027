// The fake platform's review_rows: the table's filters, order and histogram
// over rows in memory, as the core works them out (see review_rows there),
// so the screens can be tested without it.

import type { PaperCounts, PaperRow, RowQuery, RowsPage, Verdict } from "../platform";
import { scoreOf, titleOf, verdictOf } from "../app/review/table";

type Query = Omit<RowQuery, "offset" | "limit">;

/** Statuses whose text can be read. */
const READABLE = new Set(["ok", "damaged", "pending"]);

function statusGroup(row: PaperRow): Query["status"] {
  if (row.score !== null) return "scored";
  if (row.stale !== null) return "stale";
  return READABLE.has(row.status) ? "unread" : "unreadable";
}

/** One collator for every comparison: `localeCompare` builds one per call,
 * which makes sorting a thousand titles take a visible moment. */
const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

const VERDICT_RANK: Record<Verdict, number> = { include: 2, maybe: 1, exclude: 0 };

function compare(a: PaperRow, b: PaperRow, key: Query["sort"]): number {
  switch (key) {
    case "listed":
      return 0;
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
export function visibleRows(rows: readonly PaperRow[], q: Query): PaperRow[] {
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
  if (q.sort === "listed") return shown;
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

/** The review's papers counted, as the core counts them. */
export function countsOf(rows: readonly PaperRow[]): PaperCounts {
  const n = (keep: (r: PaperRow) => boolean) => rows.filter(keep).length;
  return {
    total: rows.length,
    records: n((r) => r.imported !== null),
    recordsWithFullText: n((r) => r.imported !== null && r.fullText !== null),
    zotero: n((r) => r.imported?.zotero != null),
    pending: n((r) => r.status === "pending"),
    readable: n((r) => r.status === "ok"),
    scored: n((r) => r.score !== null),
    withVerdict: n((r) => r.verdict !== null),
    stale: n((r) => r.stale !== null),
    staleReason: rows.find((r) => r.stale !== null)?.stale ?? null,
    disagreed: n((r) => r.disagreed),
    unsettled: n((r) => r.disagreed && r.label === null),
    zoteroTags: zoteroTags(rows),
  };
}

/** The page `query` asks for, over `rows`. */
export function pageOf(rows: readonly PaperRow[], query: RowQuery): RowsPage {
  const shown = visibleRows(rows, query);
  const [b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, b7 = 0, b8 = 0, b9 = 0] = histogram(shown);
  const offset = Math.min(query.offset, shown.length);
  return {
    total: rows.length,
    matched: shown.length,
    offset,
    rows: shown.slice(offset, offset + query.limit),
    histogram: [b0, b1, b2, b3, b4, b5, b6, b7, b8, b9],
    counts: countsOf(rows),
  };
}
