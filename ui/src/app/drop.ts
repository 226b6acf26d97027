// What to do with the paths of a drop: the backend decides whether a path is a
// folder, a PDF, a search export or nothing useful; this only decides how many
// we take. Several search exports make one review: the first opens it, the
// rest are imported into it.

import { isRecordExport } from "../platform";

export type DropPlan =
  | { kind: "open"; path: string; alsoImport: string[] }
  | { kind: "refuse"; reason: string };

export function planDrop(paths: readonly string[]): DropPlan {
  const [first, ...rest] = paths;
  if (first === undefined) return { kind: "refuse", reason: "Nothing was dropped. Drop a folder of PDFs or a search export." };
  if (rest.length === 0) return { kind: "open", path: first, alsoImport: [] };
  if (paths.every(isRecordExport)) return { kind: "open", path: first, alsoImport: rest };
  return {
    kind: "refuse",
    reason: `You dropped ${paths.length} items. Drop one folder (or one PDF) at a time, or search exports (.ris, .nbib, .bib, .csv) together; to review several PDFs together, put them in one folder first.`,
  };
}
