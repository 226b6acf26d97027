// Correcting a paper's title, authors, year and DOI by hand. The correction is
// kept apart from what extraction read, so no later run undoes it; "Use what
// was read" takes every correction away.

import { useState } from "preact/hooks";

import { type MetaChange, type PaperRow } from "../../platform";

export interface MetaEditorProps {
  row: PaperRow;
  /** Save the change, or take every correction away with null. */
  onSave: (change: MetaChange | null) => Promise<void>;
  onClose: () => void;
}

export function MetaEditor({ row, onSave, onClose }: MetaEditorProps) {
  const [title, setTitle] = useState(row.title ?? "");
  const [authors, setAuthors] = useState(row.authors.join("\n"));
  const [year, setYear] = useState(row.year?.toString() ?? "");
  const [doi, setDoi] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  const change = (): MetaChange | string => {
    const out: MetaChange = {};
    if (title.trim() === "" && row.title !== null) return "The title cannot be empty.";
    if (title.trim() !== (row.title ?? "")) out.title = title.trim();
    const names = authors
      .split("\n")
      .map((a) => a.trim())
      .filter((a) => a !== "");
    if (names.join("\n") !== row.authors.join("\n")) out.authors = names;
    if (year.trim() !== (row.year?.toString() ?? "")) {
      const parsed = Number(year.trim());
      if (!Number.isInteger(parsed) || parsed < 1000 || parsed > 2100) return `${year} is not a year.`;
      out.year = parsed;
    }
    if (doi.trim() !== "") out.doi = doi.trim();
    return out;
  };

  const save = async (value: MetaChange | null) => {
    setSaving(true);
    setError(null);
    try {
      await onSave(value);
      onClose();
    } catch (raw) {
      setError(raw instanceof Error ? raw.message : String(raw));
    } finally {
      setSaving(false);
    }
  };

  const submit = (e: Event) => {
    e.preventDefault();
    const value = change();
    if (typeof value === "string") {
      setError(value);
      return;
    }
    if (Object.keys(value).length === 0) {
      onClose();
      return;
    }
    void save(value);
  };

  return (
    <form class="meta-editor" data-testid="meta-editor" onSubmit={submit} aria-label="Correct this paper's details">
      <label class="field">
        <span>Title</span>
        <input data-testid="meta-title" value={title} onInput={(e) => { setTitle(e.currentTarget.value); }} />
      </label>
      <label class="field">
        <span>Authors, one per line</span>
        <textarea class="field__input" data-testid="meta-authors" rows={3} value={authors} onInput={(e) => { setAuthors(e.currentTarget.value); }} />
      </label>
      <div class="meta-editor__row">
        <label class="field">
          <span>Year</span>
          <input data-testid="meta-year" inputMode="numeric" value={year} onInput={(e) => { setYear(e.currentTarget.value); }} />
        </label>
        <label class="field">
          <span>DOI</span>
          <input data-testid="meta-doi" placeholder="10.1145/…" value={doi} onInput={(e) => { setDoi(e.currentTarget.value); }} />
        </label>
      </div>
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="meta-editor__actions">
        <button type="submit" class="button button--small button--primary" data-testid="meta-save" disabled={saving}>
          Save
        </button>
        <button type="button" class="button button--small" onClick={onClose} disabled={saving}>
          Cancel
        </button>
        <button type="button" class="button button--small button--ghost" data-testid="meta-restore" disabled={saving} onClick={() => void save(null)}>
          Use what was read from the PDF
        </button>
      </div>
    </form>
  );
}
