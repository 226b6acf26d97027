// Keyboard review of the results table: what a key does, given the paper
// under the cursor. j/k move, i/m/e label include/maybe/exclude, 0-9 set the
// score (0 is 10), u undoes the last label.

import type { LabelChange, PaperRow, Verdict } from "../../platform";

export type KeyAction =
  | { type: "move"; by: number }
  | { type: "label"; label: LabelChange }
  | { type: "undo" }
  | { type: "open" };

const VERDICT_KEYS: Record<string, Verdict> = { i: "include", m: "maybe", e: "exclude" };

/** The label a paper gets when `change` is applied to what it has. */
export function mergeLabel(row: PaperRow, change: LabelChange): LabelChange {
  return {
    verdict: change.verdict !== undefined ? change.verdict : (row.label?.verdict ?? null),
    score: change.score !== undefined ? change.score : (row.label?.score ?? null),
    note: change.note !== undefined ? change.note : (row.label?.note ?? null),
  };
}

/** What `key` means in the table; null when it means nothing there. */
export function actionFor(key: string, row: PaperRow | null): KeyAction | null {
  switch (key) {
    case "j":
    case "ArrowDown":
      return { type: "move", by: 1 };
    case "k":
    case "ArrowUp":
      return { type: "move", by: -1 };
    case "u":
      return { type: "undo" };
    case "Enter":
      return row === null ? null : { type: "open" };
  }
  if (row === null) return null;
  const verdict = VERDICT_KEYS[key];
  if (verdict !== undefined) return { type: "label", label: mergeLabel(row, { verdict }) };
  if (/^[0-9]$/.test(key)) {
    const score = key === "0" ? 10 : Number(key);
    return { type: "label", label: mergeLabel(row, { score }) };
  }
  return null;
}
