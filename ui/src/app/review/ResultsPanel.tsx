// The results: filters, the score histogram, the virtualised table (its
// rows a page at a time from Quire, see ./useRowPages.ts), the detail pane
// and exports, with keyboard review (see ./keys.ts). Labels are written
// through the platform at once; u undoes them one by one.

import { useEffect, useRef, useState } from "preact/hooks";

import { type ExportFormat, type Label, type PaperRow, type Platform, QuireError, type ReviewView } from "../../platform";
import { Histogram } from "./Histogram";
import { PaperPane } from "./PaperPane";
import { usePdfViewer } from "./usePdfViewer";
import { PrismaFlow } from "./PrismaFlow";
import { ReportPreview } from "./ReportPreview";
import { ResultsTable } from "./ResultsTable";
import { count } from "./format";
import { actionFor } from "./keys";
import { DEFAULT_QUERY, type SortKey, type TableQuery } from "./table";
import { useRowPages } from "./useRowPages";

export interface ResultsPanelProps {
  platform: Platform;
  view: ReviewView;
  /** A row's label changed (the screen keeps the rows). */
  onRowChange: (row: PaperRow) => void;
}

const EXPORTS: { format: ExportFormat; label: string }[] = [
  { format: "markdown", label: "Markdown" },
  { format: "bibtex", label: "BibTeX" },
  { format: "csv", label: "CSV" },
  { format: "ris", label: "RIS" },
  { format: "prisma", label: "PRISMA counts" },
];

/** Keys typed into a form control are the control's, not the table's. */
function typedIntoControl(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

export function ResultsPanel({ platform, view, onRowChange }: ResultsPanelProps) {
  const [openPdf, pdfViewer] = usePdfViewer(platform);
  const [previewing, setPreviewing] = useState(false);
  const [showingFlow, setShowingFlow] = useState(false);
  const keys = useRef<HTMLDivElement>(null);
  // The table takes the keyboard as soon as the results open: j/k work at once.
  useEffect(() => {
    keys.current?.focus({ preventScroll: true });
  }, []);
  const [query, setQuery] = useState<TableQuery>(DEFAULT_QUERY);
  // The selected paper, and where it was in the list when it was chosen.
  const [selected, setSelectedAt] = useState<{ id: string; index: number } | null>(null);
  const [undo, setUndo] = useState<{ paper: string; previous: Label | null }[]>([]);
  const [message, setMessage] = useState<{ text: string; error: boolean } | null>(null);
  const rows = useRowPages(platform, view.root, query, view.firstRows);
  const { counts } = rows;
  const patch = (p: Partial<TableQuery>) => {
    setQuery((q) => ({ ...q, ...p }));
  };
  // A label or a new filter can move the selected row: find it again among
  // the rows at hand.
  const found = selected === null ? -1 : rows.indexOf(selected.id);
  const selectedIndex = found >= 0 ? found : (selected?.index ?? -1);
  const current = selectedIndex < 0 ? null : (rows.rowAt(selectedIndex) ?? null);
  const select = (id: string) => {
    setSelectedAt({ id, index: rows.indexOf(id) });
  };

  const writeLabel = async (paper: string, previous: Label | null, label: Parameters<Platform["setLabel"]>[2], remember: boolean) => {
    try {
      const saved = await platform.setLabel(view.root, paper, label);
      if (remember) setUndo((u) => [...u, { paper, previous }]);
      rows.replace(saved);
      onRowChange(saved);
      setMessage(null);
    } catch (raw) {
      setMessage({ text: QuireError.from(raw).message, error: true });
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if (typedIntoControl(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    const action = actionFor(e.key, current);
    if (action === null) return;
    e.preventDefault();
    switch (action.type) {
      case "move": {
        const index = Math.min(rows.matched - 1, Math.max(0, selectedIndex < 0 ? 0 : selectedIndex + action.by));
        const next = rows.rowAt(index);
        if (next !== undefined) setSelectedAt({ id: next.id, index });
        else rows.want(index, index + 1);
        break;
      }
      case "label":
        if (current !== null) void writeLabel(current.id, current.label, action.label, true);
        break;
      case "undo": {
        const last = undo.at(-1);
        if (last === undefined) {
          setMessage({ text: "Nothing to undo.", error: false });
          break;
        }
        setUndo((u) => u.slice(0, -1));
        setSelectedAt({ id: last.paper, index: rows.indexOf(last.paper) });
        void writeLabel(last.paper, null, last.previous, false);
        break;
      }
      case "open":
        break;
    }
  };

  const exportAs = async (format: ExportFormat) => {
    try {
      const written = await platform.exportReview(view.root, format, view.title);
      if (written !== null) setMessage({ text: `Saved ${written.path}`, error: false });
    } catch (raw) {
      setMessage({ text: QuireError.from(raw).message, error: true });
    }
  };

  const sortBy = (key: SortKey) => {
    setQuery((q) => (q.sort === key ? { ...q, descending: !q.descending } : { ...q, sort: key, descending: key !== "title" }));
  };

  const tags = counts.zoteroTags;
  return (
    <section class="results" data-testid="results" onKeyDown={onKey} aria-label="Results">
      <div class="results__toolbar">
        <input
          class="field__input results__search"
          type="search"
          data-testid="filter-text"
          aria-label="Filter papers by title, author, year or file"
          placeholder="Filter by title, author, year…"
          value={query.text}
          onInput={(e) => {
            patch({ text: e.currentTarget.value });
          }}
        />
        <select
          class="field__input"
          aria-label="Verdict"
          data-testid="filter-verdict"
          value={query.verdict}
          onChange={(e) => {
            patch({ verdict: e.currentTarget.value as TableQuery["verdict"] });
          }}
        >
          <option value="any">Any verdict</option>
          <option value="include">Include</option>
          <option value="maybe">Maybe</option>
          <option value="exclude">Exclude</option>
        </select>
        <select
          class="field__input"
          aria-label="Status"
          value={query.status}
          onChange={(e) => {
            patch({ status: e.currentTarget.value as TableQuery["status"] });
          }}
        >
          <option value="any">Any status</option>
          <option value="scored">Scored</option>
          <option value="stale">Stale: read under earlier inputs</option>
          <option value="unread">Not read yet</option>
          <option value="unreadable">Cannot be read</option>
        </select>
        <select
          class="field__input"
          aria-label="Label"
          value={query.label}
          onChange={(e) => {
            patch({ label: e.currentTarget.value as TableQuery["label"] });
          }}
        >
          <option value="any">Labelled or not</option>
          <option value="labelled">Labelled by me</option>
          <option value="unlabelled">Not labelled</option>
        </select>
        {tags.length > 0 && (
          <select
            class="field__input"
            aria-label="Zotero tag"
            data-testid="filter-zotero-tag"
            value={query.zoteroTag ?? ""}
            onChange={(e) => {
              patch({ zoteroTag: e.currentTarget.value === "" ? null : e.currentTarget.value });
            }}
          >
            <option value="">Any Zotero tag</option>
            {tags.map((tag) => (
              <option key={tag} value={tag}>
                Zotero: {tag}
              </option>
            ))}
          </select>
        )}
        <label class="results__num">
          <span>Score ≥</span>
          <input
            class="field__input"
            type="number"
            min={0}
            max={10}
            step={0.5}
            value={query.minScore}
            onInput={(e) => {
              patch({ minScore: Number(e.currentTarget.value) || 0 });
            }}
          />
        </label>
        <label class="results__num">
          <span>From year</span>
          <input
            class="field__input"
            type="number"
            min={1900}
            max={2100}
            placeholder="any"
            value={query.fromYear ?? ""}
            onInput={(e) => {
              const year = Number(e.currentTarget.value);
              patch({ fromYear: e.currentTarget.value === "" || !Number.isFinite(year) ? null : year });
            }}
          />
        </label>
      </div>
      <div class="results__summary">
        <p data-testid="results-count">
          {count(rows.matched)} of {count(counts.total)} papers shown · {count(counts.scored)} scored
        </p>
        {counts.disagreed > 0 && (
          <button
            type="button"
            class={`button button--small results__disagree${query.readers === "disagree" ? " button--primary" : ""}`}
            data-testid="filter-disagree"
            aria-pressed={query.readers === "disagree"}
            title="The papers whose two independent readings disagree: a queue to settle with i, m or e"
            onClick={() => {
              patch({ readers: query.readers === "disagree" ? "any" : "disagree" });
            }}
          >
            Readers disagree: {count(counts.disagreed)} · {counts.unsettled === 0 ? "all settled" : `${count(counts.unsettled)} to settle`}
          </button>
        )}
        <div class="results__exports" role="group" aria-label="Export">
          <button
            type="button"
            class="button button--small"
            data-testid="preview-report"
            onClick={() => {
              setPreviewing(true);
            }}
          >
            Preview report
          </button>
          <button
            type="button"
            class="button button--small"
            data-testid="show-flow"
            onClick={() => {
              setShowingFlow(true);
            }}
          >
            PRISMA flow
          </button>
          <span class="muted">Export</span>
          {EXPORTS.map((x) => (
            <button key={x.format} type="button" class="button button--small" data-testid={`export-${x.format}`} onClick={() => void exportAs(x.format)}>
              {x.label}
            </button>
          ))}
        </div>
      </div>
      {rows.error !== null && (
        <p class="form-error" role="alert" data-testid="results-rows-error">
          {rows.error}
        </p>
      )}
      {message !== null && (
        <p class={message.error ? "form-error" : "notice"} role={message.error ? "alert" : "status"} data-testid="results-message">
          {message.text}
        </p>
      )}
      <div class="results__body">
        <div class="results__left" tabIndex={0} ref={keys} data-testid="results-keys" aria-label="Papers; j and k move, i, m and e label, u undoes">
          <Histogram bins={rows.histogram} />
          <ResultsTable
            count={rows.matched}
            rowAt={rows.rowAt}
            onRange={rows.want}
            selected={selected?.id ?? null}
            selectedIndex={selectedIndex}
            busy={rows.busy}
            query={query}
            onSort={sortBy}
            onSelect={select}
          />
        </div>
        <PaperPane
          platform={platform}
          workspace={view.root}
          paper={selected?.id ?? null}
          revision={JSON.stringify(current?.label ?? null)}
          onOpenQuote={(paper, title, page, quote) => {
            openPdf({ workspace: view.root, paper, title, page, quote });
          }}
          onRowChange={(row) => {
            rows.replace(row);
            onRowChange(row);
          }}
          onSelectPaper={select}
        />
      </div>
      {showingFlow && (
        <PrismaFlow
          platform={platform}
          workspace={view.root}
          onClose={() => {
            setShowingFlow(false);
          }}
        />
      )}
      {previewing && (
        <ReportPreview
          platform={platform}
          workspace={view.root}
          onClose={() => {
            setPreviewing(false);
          }}
        />
      )}
      {pdfViewer}
    </section>
  );
}
