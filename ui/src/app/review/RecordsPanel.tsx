// Search records in a review: what an import did (each file's records, what
// to know of how each was read, the files that could not be read and why) and the review's possible
// duplicates, which Quire shows and never merges: the researcher decides.

import type {
  DuplicateGroup,
  FileImport,
  FullTextSummary,
  ImportProgress,
  ImportSummary,
  SearchExport,
  ZoteroPushSummary,
} from "../../platform";
import { Modal } from "./Modal";

export interface ImportOutcomeProps {
  summary: ImportSummary;
  onClose: () => void;
}

/** An import under way: records taken in of all the files hold, then the
 * saving of them as one change. */
export function ImportUnderway({ progress }: { progress: ImportProgress }) {
  const share = progress.total > 0 ? progress.done / progress.total : 0;
  const said = progress.saving
    ? `Saving ${String(progress.total)} records…`
    : progress.total > 0
      ? `Importing records: ${String(progress.done)} of ${String(progress.total)}`
      : "Reading the files…";
  return (
    <div class="banner banner--info" role="status" data-testid="import-underway">
      <div class="import-underway">
        <p>{said}</p>
        <div
          class="progress"
          role="progressbar"
          aria-label="Records imported"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(share * 100)}
        >
          <div class="progress__bar" style={{ width: `${(share * 100).toFixed(1)}%` }} />
        </div>
      </div>
    </div>
  );
}

/** The last part of a path, as a person names the file. */
function nameOf(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

/** Asked when one export is added to a review that holds others: is it a
 * newer run of one of those searches (its records then matched to the
 * earlier ones, which keep their labels), or a search of its own? */
export function NewerRunChoice({
  file,
  searches,
  onChoose,
  onClose,
}: {
  file: string;
  searches: readonly SearchExport[];
  onChoose: (replaces: string | null) => void;
  onClose: () => void;
}) {
  return (
    <Modal title={`Add ${nameOf(file)}`} testId="newer-run" closeTestId="newer-run-close" onClose={onClose}>
      <div class="newer-run">
        <p>
          Is it a newer run of a search already in this review? Its records are then matched to the earlier export’s
          (by accession number, PMID, DOI, else title, year and first author): they keep their labels, those whose title
          or abstract changed are read again, and those it no longer holds are marked as having left the search.
        </p>
        <ul class="newer-run__searches">
          {searches.map((s) => (
            <li key={s.file}>
              <button
                type="button"
                class="button"
                data-testid="newer-run-of"
                title={s.file}
                onClick={() => {
                  onChoose(s.file);
                }}
              >
                A newer run of {nameOf(s.file)}
              </button>{" "}
              <span class="muted">
                {s.format}, {s.records} {s.records === 1 ? "record" : "records"}
                {s.left > 0 && ` (${String(s.left)} left the search)`}
              </span>
            </li>
          ))}
        </ul>
        <button
          type="button"
          class="button button--primary"
          data-testid="newer-run-none"
          onClick={() => {
            onChoose(null);
          }}
        >
          A search of its own
        </button>
      </div>
    </Modal>
  );
}

/** What a newer run of a search did to the earlier one's records. */
function UpdateLines({ line }: { line: FileImport }) {
  if (line.replaces === null && line.updated === 0 && line.left.length === 0) return null;
  return (
    <ul class="import-files__notices" data-testid="import-update">
      {line.replaces !== null && <li>A newer run of the search in {nameOf(line.replaces)}.</li>}
      {line.updated > 0 && (
        <li>
          {line.updated} {line.updated === 1 ? "record" : "records"} changed since the earlier export, labels kept
          {line.reread > 0 && `; ${String(line.reread)} whose title or abstract changed will be read again`}.
        </li>
      )}
      {line.left.length > 0 && (
        <li>
          {line.left.length} {line.left.length === 1 ? "record" : "records"} left the search (kept, marked so):{" "}
          {line.left.map((l) => `“${l.title ?? l.paper}”`).join(", ")}
        </li>
      )}
    </ul>
  );
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
              <UpdateLines line={f} />
              {f.notices.length > 0 && (
                <ul class="import-files__notices" data-testid="import-notices">
                  {f.notices.map((n) => (
                    <li key={n}>{n}</li>
                  ))}
                </ul>
              )}
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

/** The outcome of *Write to Zotero*: what was written, what Zotero already
 * held, and what was not written, with why. */
export function ZoteroPushOutcome({ summary, onClose }: { summary: ZoteroPushSummary; onClose: () => void }) {
  const plural = (n: number, one: string, many: string) => `${String(n)} ${n === 1 ? one : many}`;
  return (
    <div class="banner banner--info" role="status" data-testid="zotero-push-outcome">
      <div>
        <p>
          Zotero: {plural(summary.items, "item", "items")}. {summary.tagged} tagged,{" "}
          {plural(summary.notesCreated, "note", "notes")} created, {summary.notesUpdated} updated,{" "}
          {summary.unchanged} already as Quire would write {summary.unchanged === 1 ? "it" : "them"} (
          {plural(summary.requests, "request", "requests")}).
          {summary.conflictsResolved > 0 &&
            ` ${plural(summary.conflictsResolved, "item was", "items were")} changed in Zotero meanwhile: read again, your edits kept.`}
        </p>
        {summary.failed.length > 0 && (
          <ul class="import-files">
            {summary.failed.map((f) => (
              <li key={f} data-testid="zotero-push-failed">
                Not written: {f}
              </li>
            ))}
          </ul>
        )}
        {summary.theirScreenTagsKept.length > 0 && (
          <ul class="import-files">
            {summary.theirScreenTagsKept.map((f) => (
              <li key={f} data-testid="zotero-push-kept">
                Your tag kept: {f}
              </li>
            ))}
          </ul>
        )}
      </div>
      <button type="button" class="banner__close" onClick={onClose} aria-label="Dismiss">
        ×
      </button>
    </div>
  );
}

export interface DuplicatesProps {
  groups: readonly DuplicateGroup[];
  /** Set `paper` aside as a copy of `of`, or (null) put it back. */
  onSetAside: (paper: string, of: string | null) => void;
}

/** The review's groups of papers found to be one work, with why. Each copy
 * can be set aside (removed before screening, counted as a duplicate) or
 * put back; nothing is merged without the researcher. */
export function Duplicates({ groups, onSetAside }: DuplicatesProps) {
  if (groups.length === 0) return null;
  const open = groups.filter((g) => g.members.filter((m) => !m.setAside).length > 1).length;
  return (
    <details class="duplicates" data-testid="duplicates">
      <summary>
        {groups.length} {groups.length === 1 ? "group" : "groups"} of possible duplicates
        {open < groups.length ? ` (${String(groups.length - open)} settled)` : ""}: kept apart until you set a copy
        aside
      </summary>
      <ul>
        {groups.map((g) => {
          const kept = g.members.find((m) => !m.setAside);
          return (
            <li key={g.members.map((m) => m.paper).join(",")} data-testid="duplicate-group">
              <span class="muted">{g.why}:</span>
              <ul>
                {g.members.map((m) => (
                  <li key={m.paper} data-testid="duplicate-member" data-set-aside={m.setAside ? "true" : "false"}>
                    <span class={m.setAside ? "duplicates__aside" : ""}>
                      {m.title ?? "(no title)"}
                      {m.year === null ? "" : ` (${String(m.year)})`}
                    </span>{" "}
                    <span class="muted">· {m.kind}</span>{" "}
                    {m.setAside ? (
                      <>
                        <span class="muted">· set aside as a duplicate</span>{" "}
                        <button type="button" class="link-button" data-testid="duplicate-put-back" onClick={() => { onSetAside(m.paper, null); }}>
                          put back
                        </button>
                      </>
                    ) : (
                      kept !== undefined &&
                      kept.paper !== m.paper && (
                        <button
                          type="button"
                          class="link-button"
                          data-testid="duplicate-set-aside"
                          title="Remove it before screening as a copy of the first paper of the group; PRISMA counts it as a duplicate"
                          onClick={() => {
                            onSetAside(m.paper, kept.paper);
                          }}
                        >
                          set aside as a copy
                        </button>
                      )
                    )}
                  </li>
                ))}
              </ul>
            </li>
          );
        })}
      </ul>
    </details>
  );
}
