// Small formatting helpers for the list of reviews.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", or the date. */
export function relativeTime(iso: string, now: Date = new Date()): string {
  const then = new Date(iso);
  const elapsed = now.getTime() - then.getTime();
  if (Number.isNaN(elapsed)) return iso;
  if (elapsed < MINUTE) return "just now";
  if (elapsed < HOUR) return `${Math.floor(elapsed / MINUTE)} min ago`;
  if (elapsed < DAY) return `${Math.floor(elapsed / HOUR)} h ago`;
  if (elapsed < 2 * DAY) return "yesterday";
  if (elapsed < 7 * DAY) return `${Math.floor(elapsed / DAY)} days ago`;
  return then.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "26 papers", "26 papers · 2 duplicates". */
export function paperCounts(papers: number, duplicates: number): string {
  const base = plural(papers, "paper");
  return duplicates > 0 ? `${base} · ${plural(duplicates, "duplicate")} skipped` : base;
}

export const STATUS_LABELS: Record<string, string> = {
  new: "Not started",
  running: "Reading",
  done: "Done",
  failed: "Failed",
  cancelled: "Stopped",
  stopped: "Stopped at its cap",
  pilot: "Pilot read",
};
