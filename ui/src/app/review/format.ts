// Formatting for the review screens.

import type { PaperRow } from "../../platform";
import { plural } from "../format";

/** "12,345". */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** "$0.42", "under $0.01", or a line saying the price is unknown. */
export function cost(usd: number | null): string {
  if (usd === null) return "unknown (no price for this model)";
  if (usd > 0 && usd < 0.01) return "under $0.01";
  return `$${usd.toFixed(2)}`;
}

/** A Batch API status in words (OpenAI's and Anthropic's). */
export function batchStatus(status: string): string {
  const words: Record<string, string> = {
    submitted: "submitted",
    validating: "submitted, being checked",
    in_progress: "running",
    finalizing: "finishing",
    completed: "done",
    expired: "done (some requests ran out of time)",
    failed: "refused by the provider",
    cancelling: "cancelling",
    cancelled: "cancelled",
    canceling: "cancelling",
    ended: "done",
  };
  return words[status] ?? status;
}

/** "r1-0 · running · 3 of 10 answered · 1 to ask again". */
export function batchLine(shard: string, b: { status: string; completed: number; failed: number; total: number }): string {
  return (
    `${shard} · ${batchStatus(b.status)}` +
    (b.total > 0 ? ` · ${count(b.completed)} of ${count(b.total)} answered` : "") +
    (b.failed > 0 ? ` · ${count(b.failed)} to ask again` : "")
  );
}

/** "45 s", "12 min", "2 h 5 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.round(s / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** A file's status for a person. */
export const FILE_STATUS: Record<string, string> = {
  pending: "Not read yet",
  ok: "Readable",
  encrypted: "Needs a password",
  needs_ocr: "No text layer (scanned)",
  damaged: "Damaged, partly readable",
  not_pdf: "Not a PDF",
  too_large: "Too large",
  timeout: "Took too long to read",
};

export function authorsShort(row: PaperRow): string {
  const [first, ...rest] = row.authors;
  if (first === undefined) return "";
  if (rest.length === 0) return first;
  if (rest.length === 1) return `${first} and ${rest[0] ?? ""}`;
  return `${first} et al.`;
}

export function fileName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** "3 readable · 1 cannot be read". */
export function fileSummary(rows: readonly PaperRow[]): string {
  const readable = rows.filter((r) => r.status === "ok" || r.status === "damaged").length;
  const pending = rows.filter((r) => r.status === "pending").length;
  const parts = [`${count(readable)} readable`];
  if (pending > 0) parts.push(`${count(pending)} not read yet`);
  const bad = rows.length - readable - pending;
  if (bad > 0) parts.push(`${plural(bad, "file")} cannot be read`);
  return parts.join(" · ");
}

/** Where a quote is, for a citation: its page, or "title/abstract" in a
 * search record (whose one page is its title and abstract). */
export function place(record: boolean | undefined, page: number): string {
  return record === true ? "title/abstract" : `p. ${String(page)}`;
}
