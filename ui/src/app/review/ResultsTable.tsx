// Every paper the filters let through in one virtualised list: only the
// rows in view are in the DOM, and only their pages are asked of Quire, so
// a review of ten thousand scrolls and filters smoothly.

import { useEffect, useRef, useState } from "preact/hooks";

import type { PaperRow } from "../../platform";
import { authorsShort } from "./format";
import { type SortKey, type TableQuery, scoreOf, titleOf, verdictOf } from "./table";

export const ROW_HEIGHT = 44;
/** Rows drawn beyond the visible ones, so fast scrolling shows no gaps. */
const OVERSCAN = 8;

export interface ResultsTableProps {
  /** Rows in the list. */
  count: number;
  /** The row at an index, once its page has come. */
  rowAt: (index: number) => PaperRow | undefined;
  /** The list draws these rows (first to last, exclusive). */
  onRange: (first: number, last: number) => void;
  selected: string | null;
  /** Where the selected row is, to keep it in view; -1 when unknown. */
  selectedIndex: number;
  /** The rows drawn are the last query's until this one's come. */
  busy: boolean;
  query: TableQuery;
  onSort: (key: SortKey) => void;
  onSelect: (id: string) => void;
}

const COLUMNS: { key: SortKey; label: string; class: string }[] = [
  { key: "score", label: "Score", class: "col-score" },
  { key: "title", label: "Paper", class: "col-title" },
  { key: "year", label: "Year", class: "col-year" },
  { key: "verdict", label: "Verdict", class: "col-verdict" },
  { key: "status", label: "Status", class: "col-status" },
];

export function ResultsTable({ count, rowAt, onRange, selected, selectedIndex, busy, query, onSort, onSelect }: ResultsTableProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [height, setHeight] = useState(600);

  useEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const measure = () => {
      if (el.clientHeight > 0) setHeight(el.clientHeight);
    };
    measure();
    const observer = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => observer?.disconnect();
  }, []);

  // Keep the selected row in view when the keyboard moves it.
  useEffect(() => {
    const el = scroller.current;
    if (el === null || selectedIndex < 0) return;
    const top = selectedIndex * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, [selected, selectedIndex]);

  const first = Math.max(0, Math.floor(scrollTop / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(count, Math.ceil((scrollTop + height) / ROW_HEIGHT) + OVERSCAN);
  useEffect(() => {
    onRange(first, last);
  }, [first, last, onRange]);
  const slice = Array.from({ length: Math.max(0, last - first) }, (_, k) => rowAt(first + k));
  return (
    <div class="table" role="grid" aria-rowcount={count} aria-busy={busy} aria-label="Papers" data-testid="results-table">
      <div class="table__head" role="row">
        {COLUMNS.map((c) => (
          <button
            key={c.key}
            type="button"
            role="columnheader"
            class={`table__sort ${c.class}`}
            aria-sort={query.sort === c.key ? (query.descending ? "descending" : "ascending") : "none"}
            onClick={() => {
              onSort(c.key);
            }}
          >
            {c.label}
            {query.sort === c.key && <span aria-hidden="true">{query.descending ? " ↓" : " ↑"}</span>}
          </button>
        ))}
      </div>
      <div
        class="table__body"
        ref={scroller}
        onScroll={(e) => {
          setScrollTop(e.currentTarget.scrollTop);
        }}
      >
        {count === 0 ? (
          <p class="table__empty" data-testid="results-empty">
            No paper matches these filters.
          </p>
        ) : (
          <div class="table__canvas" style={{ height: `${count * ROW_HEIGHT}px` }}>
            {slice.map((row, k) => {
              const index = first + k;
              if (row === undefined) {
                // Its page is on its way.
                return (
                  <div
                    key={`pending-${String(index)}`}
                    role="row"
                    aria-rowindex={index + 1}
                    aria-busy="true"
                    class="table__row table__row--pending"
                    style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
                  />
                );
              }
              const score = scoreOf(row);
              const verdict = verdictOf(row);
              return (
                <div
                  key={row.id}
                  role="row"
                  aria-rowindex={index + 1}
                  aria-selected={row.id === selected}
                  class={`table__row${row.id === selected ? " table__row--selected" : ""}`}
                  style={{ transform: `translateY(${index * ROW_HEIGHT}px)` }}
                  data-testid="result-row"
                  data-paper={row.id}
                  onClick={() => {
                    onSelect(row.id);
                  }}
                >
                  <span role="gridcell" class="col-score">
                    {score === null ? "–" : score.toFixed(1)}
                    {row.label?.score != null && <span class="mark" title="Your score">✎</span>}
                  </span>
                  <span role="gridcell" class="col-title">
                    <span class="row__title">{titleOf(row)}</span>
                    <span class="row__authors">
                      {authorsShort(row)}
                      {row.imported?.leftSearch === true && (
                        <span class="row__left" title="A newer export of its search no longer holds it" data-testid="left-search">
                          {" · left the search"}
                        </span>
                      )}
                      {(row.imported?.zotero?.tags ?? []).length > 0 && (
                        <span class="row__tags" title="Tags in Zotero">
                          {" · "}
                          {(row.imported?.zotero?.tags ?? []).join(", ")}
                        </span>
                      )}
                    </span>
                  </span>
                  <span role="gridcell" class="col-year">
                    {row.year ?? ""}
                  </span>
                  <span role="gridcell" class="col-verdict">
                    {verdict !== null && (
                      <span class={`verdict verdict--${verdict}`}>
                        {verdict}
                        {row.label?.verdict != null && " ✎"}
                      </span>
                    )}
                    {row.label === null && row.earlierLabel?.verdict != null && (
                      <span
                        class="stale"
                        data-testid="earlier-label"
                        title="Your label, given under an earlier question: kept, but counted nowhere until you label the paper again"
                      >
                        {" "}
                        your {row.earlierLabel.verdict} (earlier question)
                      </span>
                    )}
                  </span>
                  <span role="gridcell" class="col-status">
                    {row.stale !== null ? (
                      <span class="stale" title={`Stale: ${row.stale}`}>
                        stale
                      </span>
                    ) : row.score !== null ? (
                      "scored"
                    ) : row.status === "ok" ? (
                      "not read"
                    ) : (
                      row.status.replace("_", " ")
                    )}
                  </span>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
