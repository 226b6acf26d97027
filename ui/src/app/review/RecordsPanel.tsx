// Search records in a review: what an import did (each file's records, the
// files that could not be read and why) and the review's possible
// duplicates, which Quire shows and never merges: the researcher decides.

import type { DuplicateGroup, FullTextSummary, ImportSummary } from "../../platform";

export interface ImportOutcomeProps {
  summary: ImportSummary;
  onClose: () => void;
}

/** The outcome of *Add records…*, file by file. */
export function ImportOutcome({ summary, onClose }: ImportOutcomeProps) {
  const failed = summary.files.filter((f) => f.error !== null);
  return (
    <div class={`banner ${failed.length > 0 ? "banner--error" : "banner--info"}`} role="status" data-testid="import-outcome">
      <div>
        <p>
          {summary.added} new {summary.added === 1 ? "record" : "records"} added;{" "}
          {summary.papers.length} in these files in all.
        </p>
        <ul class="import-files">
          {summary.files.map((f) => (
            <li key={f.file} data-testid={f.error === null ? "import-file" : "import-file-failed"}>
              <span class="import-files__name">{f.file}</span>:{" "}
              {f.error === null ? `${String(f.records)} records (${f.format ?? "?"}), ${String(f.added)} new` : `not imported: ${f.error}`}
            </li>
          ))}
        </ul>
      </div>
      <button type="button" class="banner__close" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

/** The outcome of *Attach PDFs…*: which PDFs became which records' full
 * text, and which matched none, with why. */
export function FullTextOutcome({ summary, onClose }: { summary: FullTextSummary; onClose: () => void }) {
  return (
    <div class="banner banner--info" role="status" data-testid="full-text-outcome">
      <div>
        <p>
          {summary.pdfs} {summary.pdfs === 1 ? "PDF" : "PDFs"} in {summary.folder}: {summary.attached.length} matched to
          records; {summary.withFullText} of the review's {summary.records} records have full text now.
        </p>
        <ul class="import-files">
          {summary.attached.map((a) => (
            <li key={a.pdf} data-testid="full-text-attached">
              <span class="import-files__name">{a.file}</span>: the full text of “{a.recordTitle ?? a.record}” (by {a.by})
            </li>
          ))}
          {summary.unmatched.map((u) => (
            <li key={u.pdf} data-testid="full-text-unmatched">
              <span class="import-files__name">{u.file}</span>: no record ({u.why}); it joins the review as a paper
            </li>
          ))}
        </ul>
      </div>
      <button type="button" class="banner__close" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

/** The review's groups of papers found to be one work, with why. */
export function Duplicates({ groups }: { groups: readonly DuplicateGroup[] }) {
  if (groups.length === 0) return null;
  return (
    <details class="duplicates" data-testid="duplicates">
      <summary>
        {groups.length} {groups.length === 1 ? "group" : "groups"} of possible duplicates: kept apart, label the
        copies you do not want as exclude
      </summary>
      <ul>
        {groups.map((g) => (
          <li key={g.members.map((m) => m.paper).join(",")} data-testid="duplicate-group">
            <span class="muted">{g.why}:</span>
            <ul>
              {g.members.map((m) => (
                <li key={m.paper}>
                  {m.title ?? "(no title)"}
                  {m.year === null ? "" : ` (${String(m.year)})`} <span class="muted">· {m.kind}</span>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </details>
  );
}
