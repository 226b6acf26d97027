// What to do with the paths of a drop: the backend decides whether a path is a
// folder, a PDF or nothing useful; this only decides how many we take.

export type DropPlan = { kind: "open"; path: string } | { kind: "refuse"; reason: string };

export function planDrop(paths: readonly string[]): DropPlan {
  const [first, ...rest] = paths;
  if (first === undefined) return { kind: "refuse", reason: "Nothing was dropped. Drop a folder of PDFs." };
  if (rest.length > 0) {
    return {
      kind: "refuse",
      reason: `You dropped ${paths.length} items. Drop one folder (or one PDF) at a time; to review several PDFs together, put them in one folder first.`,
    };
  }
  return { kind: "open", path: first };
}
