// Which papers a question or a fill goes to: those the review keeps, every
// readable paper, or the ones the researcher ticks in a filterable list.

import { useState } from "preact/hooks";

import type { AskScope, PaperRow } from "../../platform";
import { plural } from "../format";

/** Readable papers only: the others have no text to ask or fill from. */
function readable(papers: readonly PaperRow[]): PaperRow[] {
  return papers.filter((p) => p.status === "ok" || p.status === "damaged");
}

/** A scope that names papers must name at least one. */
export function scopeReady(scope: AskScope): boolean {
  return scope.kind !== "papers" || scope.ids.length > 0;
}

export interface ScopePickerProps {
  /** The review has verdicts: "the papers it keeps" is a scope. */
  reviewed: boolean;
  papers: readonly PaperRow[];
  value: AskScope;
  onChange: (scope: AskScope) => void;
  testid: string;
}

export function ScopePicker({ reviewed, papers, value, onChange, testid }: ScopePickerProps) {
  const [filter, setFilter] = useState("");
  const chosen = value.kind === "papers" ? value.ids : [];
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = readable(papers).filter((p) => {
    const text = `${p.title ?? ""} ${p.file} ${p.authors.join(" ")}`.toLowerCase();
    return words.every((w) => text.includes(w));
  });
  const toggle = (id: string, on: boolean) => {
    onChange({ kind: "papers", ids: on ? [...chosen, id] : chosen.filter((c) => c !== id) });
  };

  return (
    <div class="scope">
      <select
        class="field__input"
        aria-label="Which papers"
        data-testid={testid}
        value={value.kind}
        onChange={(e) => {
          const kind = e.currentTarget.value;
          onChange(kind === "papers" ? { kind: "papers", ids: chosen } : kind === "included" ? { kind: "included" } : { kind: "all" });
        }}
      >
        {reviewed && <option value="included">the papers the review keeps</option>}
        <option value="all">all readable papers</option>
        <option value="papers">papers I choose…</option>
      </select>
      {value.kind === "papers" && (
        <div class="scope__picker" data-testid={`${testid}-picker`}>
          <div class="scope__bar">
            <input
              class="field__input"
              type="search"
              aria-label="Find papers to choose"
              placeholder="Filter by title, file or author…"
              value={filter}
              onInput={(e) => {
                setFilter(e.currentTarget.value);
              }}
            />
            <span class="muted" data-testid={`${testid}-chosen`}>
              {plural(chosen.length, "paper")} chosen
            </span>
            <button
              type="button"
              class="link-button"
              onClick={() => {
                onChange({ kind: "papers", ids: [...new Set([...chosen, ...shown.map((p) => p.id)])] });
              }}
            >
              choose all shown
            </button>
            <button
              type="button"
              class="link-button"
              disabled={chosen.length === 0}
              onClick={() => {
                onChange({ kind: "papers", ids: [] });
              }}
            >
              clear
            </button>
          </div>
          <ul class="scope__list">
            {shown.map((p) => (
              <li key={p.id}>
                <label class="pilot__choice">
                  <input
                    type="checkbox"
                    data-testid="pick-paper"
                    checked={chosen.includes(p.id)}
                    onChange={(e) => {
                      toggle(p.id, e.currentTarget.checked);
                    }}
                  />
                  <span>
                    {p.title ?? p.file}
                    {p.year !== null && <small class="muted"> · {p.year}</small>}
                  </span>
                </label>
              </li>
            ))}
            {shown.length === 0 && <li class="muted">No readable paper matches.</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
