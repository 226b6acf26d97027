// The extraction table: columns the researcher defines or picks from
// templates, filled from every paper the review keeps, each value with the
// quote that supports it; a page link opens the paper there with the quote
// marked. Cells are sortable and filterable; the researcher corrects a value
// or checks it, and no fill overwrites that.

import { useEffect, useState } from "preact/hooks";

import {
  type AskScope,
  type ColumnKind,
  type FillParams,
  type FillProgress,
  type PaperRow,
  type Platform,
  QuireError,
  type ShownCell,
  type TableView,
  type WorkspaceSummary,
} from "../../platform";
import { usePdfViewer } from "./usePdfViewer";
import { plural } from "../format";
import { BatchChoice, BatchList, type BatchStates, withBatch } from "./Batches";
import { count, place } from "./format";
import { ScopePicker, scopeReady } from "./ScopePicker";
import { type CapsText, NO_CAPS, SpendControls, capsParams, useEstimate } from "./Spend";

const TEMPLATES = ["study-design", "dataset", "sample-size", "method", "metric-and-result", "limitations"];

/** A column type from the form's fields. */
function kindOf(type: string, extra: string): ColumnKind | null {
  switch (type) {
    case "number":
      return { kind: "number", unit: extra.trim() };
    case "yes_no":
      return { kind: "yes_no" };
    case "one_of": {
      const options = extra.split("|").map((o) => o.trim()).filter(Boolean);
      return options.length >= 2 ? { kind: "one_of", options } : null;
    }
    case "list":
      return { kind: "list" };
    default:
      return { kind: "text" };
  }
}

/** Where a fill is, from its progress events. */
interface Filling {
  papers: number;
  current: number;
  read: number;
  failed: number;
  /** A fill run as a batch: its batches by shard. */
  batches: BatchStates;
}

const NO_FILL: Filling = { papers: 0, current: 0, read: 0, failed: 0, batches: {} };

function advanceFill(state: Filling, p: FillProgress): Filling {
  switch (p.type) {
    case "started":
      return { ...NO_FILL, papers: p.papers };
    case "current":
      return { ...state, current: state.current + 1 };
    case "read":
      return { ...state, read: state.read + 1, failed: state.failed + (p.failed ? 1 : 0) };
    case "batch":
      return { ...state, batches: withBatch(state.batches, p) };
  }
}

/** "Filling: 12 of 80 papers done (30 were current, 1 failed)…". */
function fillingLine(f: Filling): string {
  if (f.papers === 0) return "Looking at the papers…";
  const notes = [f.current > 0 ? `${count(f.current)} were current` : "", f.failed > 0 ? `${count(f.failed)} failed` : ""].filter(Boolean);
  const done = f.current + f.read;
  return `Filling: ${count(done)} of ${plural(f.papers, "paper")} done${notes.length > 0 ? ` (${notes.join(", ")})` : ""}…`;
}

/** Sort key of a cell: numbers as numbers, the rest as text, empty last. */
function sortKey(cell: ShownCell | undefined): number | string | null {
  const v = cell?.value ?? null;
  if (v === null) return null;
  const n = Number.parseFloat(v);
  return Number.isFinite(n) && /^\s*-?\d/.test(v) ? n : v.toLowerCase();
}

export interface TablePanelProps {
  platform: Platform;
  workspace: string;
  /** The review has verdicts: "the papers it keeps" is a scope. */
  reviewed: boolean;
  /** The review's papers, to choose from. */
  papers: readonly PaperRow[];
}

export function TablePanel({ platform, workspace, reviewed, papers }: TablePanelProps) {
  const [scope, setScope] = useState<AskScope>(reviewed ? { kind: "included" } : { kind: "all" });
  const [caps, setCaps] = useState<CapsText>(NO_CAPS);
  const estimating = useEstimate();
  const [table, setTable] = useState<TableView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [instruction, setInstruction] = useState("");
  const [type, setType] = useState("text");
  const [extra, setExtra] = useState("");
  const [filter, setFilter] = useState("");
  const [onlyUnsure, setOnlyUnsure] = useState(false);
  const [sort, setSort] = useState<{ column: number; descending: boolean } | null>(null);
  const [editing, setEditing] = useState<{ paper: string; column: string; value: string } | null>(null);
  const [filling, setFilling] = useState<Filling>(NO_FILL);
  const [batch, setBatch] = useState(false);
  const [otherReviews, setOtherReviews] = useState<WorkspaceSummary[]>([]);
  const [openPdf, pdfViewer] = usePdfViewer(platform);

  // Columns are reusable: any other review's can be copied in.
  useEffect(() => {
    platform.listWorkspaces().then(
      (list) => {
        setOtherReviews(list.workspaces.filter((w) => w.root !== workspace));
      },
      () => {
        setOtherReviews([]);
      },
    );
  }, [platform, workspace]);

  const load = () =>
    platform.table(workspace, scope).then(setTable, (raw: unknown) => {
      setError(QuireError.from(raw).describe());
    });

  useEffect(() => {
    void load();
    // An estimate is for the papers and columns it was made for.
    estimating.clear();
    // `load` closes over the workspace and the scope only.
  }, [platform, workspace, scope]);

  const fillParams = (): FillParams => ({ workspace, scope, ...capsParams(caps), batch });

  const act = async (work: () => Promise<unknown>) => {
    setError(null);
    try {
      await work();
      // Columns or cells changed: what a fill would read changed with them.
      estimating.clear();
      await load();
    } catch (raw) {
      setError(QuireError.from(raw).describe());
    }
  };

  const addColumn = () =>
    act(async () => {
      const kind = kindOf(type, extra);
      if (kind === null) throw new QuireError("invalid_input", "bad_column", "a one-of column needs at least two options, separated by |");
      await platform.tableColumns({ workspace, add: { id: "", name, instruction, kind } });
      setName("");
      setInstruction("");
      setExtra("");
    });

  const estimateCost = async () => {
    setError(null);
    const e = await estimating.run(() => platform.estimateFill(fillParams()));
    if (e !== null) setError(e.describe());
  };

  const fill = async () => {
    setBusy(true);
    setOutcome(null);
    estimating.clear();
    setFilling(NO_FILL);
    await act(async () => {
      const o = await platform.fillTable(fillParams(), (p) => {
        setFilling((state) => advanceFill(state, p));
      });
      setOutcome(
        `${plural(o.papers, "paper")}: ${count(o.read)} read now, ${plural(o.cellsFilled, "cell")} filled, ${count(o.lowConfidence)} of them unsure` +
          (o.failed.length > 0 ? `; ${count(o.failed.length)} papers could not be read` : "") +
          (o.stopped === null ? "" : `; stopped early (${o.stopped}), filling again resumes`) +
          (o.failure === null ? "" : `. Nothing could be filled: ${o.failure}`),
      );
    });
    setBusy(false);
  };

  const columns = table?.columns ?? [];
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  let rows = (table?.rows ?? []).filter(
    (r) =>
      (!onlyUnsure || r.cells.some((c) => c.lowConfidence && c.value !== null)) &&
      words.every((w) => [r.title, ...r.cells.map((c) => c.value ?? "")].join(" ").toLowerCase().includes(w)),
  );
  if (sort !== null) {
    const sign = sort.descending ? -1 : 1;
    rows = [...rows].sort((a, b) => {
      const [x, y] = [sortKey(a.cells[sort.column]), sortKey(b.cells[sort.column])];
      if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
      return (x < y ? -1 : x > y ? 1 : 0) * sign;
    });
  }

  return (
    <section class="table-screen" data-testid="table" aria-label="Extraction table">
      <div class="table-screen__columns">
        <h2 class="section-title">
          Columns <span class="section-title__note">what to extract from each paper</span>
        </h2>
        <ul class="chips" data-testid="table-columns">
          {columns.map((c) => (
            <li key={c.id} class="chip" title={c.instruction}>
              {c.name}
              <button type="button" class="chip__remove" aria-label={`Remove ${c.name}`} onClick={() => void act(() => platform.tableColumns({ workspace, remove: c.id }))}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <form
          class="table-screen__add"
          onSubmit={(e) => {
            e.preventDefault();
            void addColumn();
          }}
        >
          <input class="field__input" data-testid="column-name" aria-label="Column name" placeholder="Name" value={name} onInput={(e) => { setName(e.currentTarget.value); }} />
          <input
            class="field__input table-screen__instruction"
            data-testid="column-instruction"
            aria-label="What to extract"
            placeholder="What to extract, e.g. the recovery time they measure"
            value={instruction}
            onInput={(e) => { setInstruction(e.currentTarget.value); }}
          />
          <select class="field__input" aria-label="Type" data-testid="column-type" value={type} onChange={(e) => { setType(e.currentTarget.value); }}>
            <option value="text">text</option>
            <option value="number">number</option>
            <option value="yes_no">yes / no</option>
            <option value="one_of">one of</option>
            <option value="list">list</option>
          </select>
          {(type === "number" || type === "one_of") && (
            <input
              class="field__input"
              aria-label={type === "number" ? "Unit" : "Options, separated by |"}
              placeholder={type === "number" ? "unit" : "a | b | c"}
              value={extra}
              onInput={(e) => { setExtra(e.currentTarget.value); }}
            />
          )}
          <button type="submit" class="button" data-testid="column-add" disabled={name.trim() === "" || instruction.trim() === ""}>
            Add column
          </button>
          <select
            class="field__input"
            aria-label="Add a template"
            data-testid="column-template"
            value=""
            onChange={(e) => {
              const template = e.currentTarget.value;
              if (template !== "") void act(() => platform.tableColumns({ workspace, template }));
            }}
          >
            <option value="">Add a template…</option>
            {TEMPLATES.map((t) => (
              <option key={t} value={t}>
                {t.replace(/-/g, " ")}
              </option>
            ))}
          </select>
          {otherReviews.length > 0 && (
            <select
              class="field__input"
              aria-label="Copy the columns of another review"
              data-testid="columns-from"
              value=""
              onChange={(e) => {
                const from = e.currentTarget.value;
                if (from !== "") void act(() => platform.tableColumns({ workspace, from }));
              }}
            >
              <option value="">Copy columns from…</option>
              {otherReviews.map((r) => (
                <option key={r.root} value={r.root}>
                  {r.title}
                </option>
              ))}
            </select>
          )}
        </form>
      </div>
      <div class="table-screen__toolbar">
        <input class="field__input" type="search" aria-label="Filter the table" placeholder="Filter by title or value…" value={filter} onInput={(e) => { setFilter(e.currentTarget.value); }} />
        <label class="pilot__choice">
          <input type="checkbox" data-testid="only-unsure" checked={onlyUnsure} onChange={(e) => { setOnlyUnsure(e.currentTarget.checked); }} />
          <span>only rows with unsure values</span>
        </label>
        <ScopePicker reviewed={reviewed} papers={papers} value={scope} onChange={setScope} testid="table-scope" />
        <BatchChoice checked={batch} busy={busy} onChange={setBatch} testid="table-batch" />
        <button type="button" class="button button--primary" data-testid="table-fill" disabled={busy || columns.length === 0 || !scopeReady(scope)} onClick={() => void fill()}>
          {busy ? "Reading the papers…" : "Fill the table"}
        </button>
        {busy && (
          <button type="button" class="button" data-testid="table-cancel" onClick={() => void platform.cancelFill(workspace)}>
            Cancel
          </button>
        )}
        <button
          type="button"
          class="button"
          disabled={columns.length === 0}
          onClick={() =>
            void act(async () => {
              const written = await platform.exportReview(workspace, "table", "extraction-table");
              if (written !== null) setOutcome(`Saved ${written.path}`);
            })
          }
        >
          Export CSV
        </button>
      </div>
      <SpendControls
        caps={caps}
        onCaps={setCaps}
        estimating={estimating}
        onEstimate={() => void estimateCost()}
        batch={batch}
        disabled={busy || columns.length === 0 || !scopeReady(scope)}
      />
      {busy && (
        <p class="muted" role="status" data-testid="table-progress">
          {fillingLine(filling)}
        </p>
      )}
      <BatchList batches={filling.batches} testid="table-batches" />
      {outcome !== null && (
        <p class="muted" role="status" data-testid="table-outcome">
          {outcome}
        </p>
      )}
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {columns.length === 0 ? (
        <p class="muted">No columns yet: add one, or pick a template, then fill the table.</p>
      ) : (
        <div class="table-screen__scroll">
          <table class="extraction" data-testid="extraction">
            <thead>
              <tr>
                <th>Paper</th>
                {columns.map((c, i) => (
                  <th key={c.id} aria-sort={sort?.column === i ? (sort.descending ? "descending" : "ascending") : "none"}>
                    <button
                      type="button"
                      class="link-button"
                      onClick={() => {
                        setSort((s) => (s?.column === i ? { column: i, descending: !s.descending } : { column: i, descending: false }));
                      }}
                    >
                      {c.name}
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.paper} data-testid="table-row">
                  <th scope="row">{row.title}</th>
                  {row.cells.map((cell, i) => {
                    const column = columns[i];
                    if (column === undefined) return null;
                    const here = editing?.paper === row.paper && editing.column === column.id;
                    return (
                      <td key={column.id} class={cell.lowConfidence && cell.value !== null ? "cell cell--unsure" : "cell"} title={cell.reason ?? undefined} data-testid="table-cell">
                        {here ? (
                          <form
                            onSubmit={(e) => {
                              e.preventDefault();
                              const value = editing.value;
                              setEditing(null);
                              void act(() => platform.correctCell({ workspace, paper: row.paper, column: column.id, value }));
                            }}
                          >
                            <input
                              class="field__input"
                              aria-label={`Your value for ${column.name}`}
                              data-testid="cell-input"
                              value={editing.value}
                              onInput={(e) => {
                                setEditing({ ...editing, value: e.currentTarget.value });
                              }}
                            />
                          </form>
                        ) : (
                          <>
                            <span class="cell__value">{cell.value ?? "—"}</span>
                            {cell.corrected && <span class="cell__mark"> (yours)</span>}
                            {cell.page !== null && cell.quote !== null && (
                              <button
                                type="button"
                                class="link-button cell__page"
                                data-testid="cell-page"
                                title={`“${cell.quote}”`}
                                onClick={() => {
                                  openPdf({ workspace, paper: row.paper, title: row.title, page: cell.page ?? 1, quote: cell.quote ?? "" });
                                }}
                              >
                                {place(row.record, cell.page)}
                              </button>
                            )}
                            <span class="cell__actions">
                              <button type="button" class="link-button" aria-label={`Correct ${column.name}`} onClick={() => { setEditing({ paper: row.paper, column: column.id, value: cell.value ?? "" }); }}>
                                edit
                              </button>
                              {!cell.checked && cell.value !== null && (
                                <button
                                  type="button"
                                  class="link-button"
                                  data-testid="cell-check"
                                  aria-label={`Mark ${column.name} checked`}
                                  onClick={() => void act(() => platform.correctCell({ workspace, paper: row.paper, column: column.id }))}
                                >
                                  check
                                </button>
                              )}
                              {cell.checked && <span title="Checked by you">✓</span>}
                            </span>
                          </>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pdfViewer}
    </section>
  );
}
