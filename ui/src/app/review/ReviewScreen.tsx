// One review: the new-review form, the live run, or the results, whichever
// fits where the review stands, with a way to each of the others.

import { useCallback, useEffect, useState } from "preact/hooks";

import {
  type ActiveModel,
  type EngineKind,
  type FullTextSummary,
  type ZoteroPushSummary,
  type ImportProgress,
  type ImportSummary,
  type LookupChoice,
  type PaperCounts,
  type PaperRow,
  type Platform,
  QuireError,
  type ReviewLaunch,
  type ReviewView,
} from "../../platform";
import { STATUS_LABELS } from "../format";
import { AskPanel } from "./AskPanel";
import { Duplicates, FullTextOutcome, ImportOutcome, ImportUnderway, NewerRunChoice, ZoteroPushOutcome } from "./RecordsPanel";
import { ResultsPanel } from "./ResultsPanel";
import { ScreenPanel } from "./ScreenPanel";
import { RunPanel } from "./RunPanel";
import { SetupPanel } from "./SetupPanel";
import { useAllRows } from "./useAllRows";
import { SnowballPanel } from "./SnowballPanel";
import { TablePanel } from "./TablePanel";
import { ValidationPanel } from "./ValidationPanel";
import { count } from "./format";
import { isOver } from "./runView";
import type { Runs } from "./useRuns";

export interface ReviewScreenProps {
  platform: Platform;
  root: string;
  runs: Runs;
  model: ActiveModel | null;
  /** The engine a new review offers first. */
  defaultEngine: EngineKind;
  /** The scholarly lookups a new review makes. */
  lookups: LookupChoice;
  onBack: () => void;
}

type Panel = "auto" | "setup" | "run" | "results" | "validation" | "ask" | "table" | "screen";

/** How often the screen re-reads a run it did not start (after a reload). */
const POLL_MS = 2000;

const STATE_LABELS: Record<string, string> = { ...STATUS_LABELS, interrupted: "Interrupted" };

export function ReviewScreen({ platform, root, runs, model, defaultEngine, lookups, onBack }: ReviewScreenProps) {
  const [view, setView] = useState<ReviewView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [panel, setPanel] = useState<Panel>("auto");
  const [now, setNow] = useState(Date.now());
  const [preparing, setPreparing] = useState(false);
  const [imported, setImported] = useState<ImportSummary | null>(null);
  const [importing, setImporting] = useState<ImportProgress | null>(null);
  /** One export picked, waiting to be told whether it is a newer run of a search. */
  const [choosingRun, setChoosingRun] = useState<string | null>(null);
  const [attached, setAttached] = useState<FullTextSummary | null>(null);
  const [pushed, setPushed] = useState<ZoteroPushSummary | null>(null);
  const [pushing, setPushing] = useState(false);
  const [snowballing, setSnowballing] = useState(false);
  const run = runs.byWorkspace[root];
  const running = run !== undefined && !isOver(run);

  const load = useCallback(async () => {
    try {
      const opened = await platform.openReview(root);
      setView(opened);
      if (opened.state === "new" && opened.firstRows.counts.pending > 0) {
        setPreparing(true);
        setView(await platform.prepareReview(root));
      }
    } catch (raw) {
      setError(QuireError.from(raw).message);
    } finally {
      setPreparing(false);
    }
  }, [platform, root]);

  useEffect(() => {
    void load();
  }, [load]);

  // Results are re-read when a run ends, so the table shows what it wrote.
  // A clean finish goes to the results; one with failed readings stays on the
  // board, which offers to retry them.
  const runStatus = run?.status;
  const failedReads = run?.readFailures.length ?? 0;
  useEffect(() => {
    if (runStatus === "finished" || runStatus === "failed" || runStatus === "cancelled") void load();
    if (runStatus === "finished" && failedReads === 0) setPanel("results");
  }, [runStatus, failedReads, load]);

  // A clock for the elapsed time and ETA while a run goes on; a run started
  // before the window was reloaded is followed by reading its files.
  const orphan = !running && view?.state === "running";
  useEffect(() => {
    if (!running && !orphan) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (orphan) void load();
    }, running ? 1000 : POLL_MS);
    return () => {
      clearInterval(timer);
    };
  }, [running, orphan, load]);

  const start = async (launch: ReviewLaunch) => {
    await runs.start(launch);
    setPanel("run");
    // The run records these in its files in a moment; show them now.
    setView((v) =>
      v === null ? v : { ...v, question: launch.question.trim(), criteria: launch.criteria, engine: launch.engine },
    );
  };

  const resume = () => {
    if (view === null) return;
    setError(null);
    const engine = view.engine ?? (model === null ? "offline" : "agent");
    runs
      .start({
        workspace: root,
        question: view.question ?? "",
        criteria: view.criteria,
        engine,
        profile: engine === "agent" ? (model?.profile ?? null) : null,
        lookups,
        // A resumed run reads as the run it resumes: a dual-read review
        // stays dual-read.
        dual: engine === "agent" ? view.dual : null,
        secondProfile: engine === "agent" ? view.secondProfile : null,
        // Batches a run left open are taken up by the next run whatever it asks.
        batch: false,
      })
      .then(
        () => {
          setPanel("run");
        },
        (raw: unknown) => {
          setError(QuireError.from(raw).describe());
        },
      );
  };

  const cancel = () => {
    runs.cancel(root).catch((raw: unknown) => {
      setError(QuireError.from(raw).message);
    });
  };

  const importFiles = async (files: string[], replaces: string | null) => {
    setError(null);
    try {
      setImporting({ done: 0, total: 0, saving: false });
      setImported(await platform.importRecords(root, files, setImporting, replaces));
      await load();
    } catch (raw) {
      setError(QuireError.from(raw).message);
    } finally {
      setImporting(null);
    }
  };

  // The searches one newly picked export could be a newer run of (the
  // same file again is matched against itself without asking).
  const earlierSearches = (file: string) => view?.searches.filter((s) => s.file !== file) ?? [];

  const addRecords = async () => {
    setError(null);
    try {
      const files = await platform.pickRecordFiles();
      const [only] = files;
      if (only === undefined) return;
      if (files.length === 1 && earlierSearches(only).length > 0) {
        setChoosingRun(only);
        return;
      }
      await importFiles(files, null);
    } catch (raw) {
      setError(QuireError.from(raw).message);
    }
  };

  const setAside = async (paper: string, of: string | null) => {
    setError(null);
    try {
      await platform.setAside(root, paper, of);
      await load();
    } catch (raw) {
      setError(QuireError.from(raw).message);
    }
  };

  const attachFullText = async () => {
    setError(null);
    try {
      const folder = await platform.pickFolder();
      if (folder === null) return;
      setAttached(await platform.attachFullText(root, folder));
      await load();
    } catch (raw) {
      setError(QuireError.from(raw).message);
    }
  };

  const writeToZotero = async () => {
    setError(null);
    setPushing(true);
    try {
      setPushed(await platform.pushToZotero(root));
    } catch (raw) {
      setError(QuireError.from(raw).message);
    } finally {
      setPushing(false);
    }
  };

  const shown: Panel | null =
    view === null
      ? null
      : panel !== "auto"
        ? panel
        : running || (run !== undefined && run.status !== "finished")
          ? "run"
          : view.state === "new"
            ? "setup"
            : "results";
  // The results page their rows; the other panels list every paper.
  const all = useAllRows(platform, view, shown !== null && shown !== "results" && shown !== "screen");
  const replaceRow = (row: PaperRow) => {
    all.replace(row);
  };

  let body;
  if (view === null) {
    body =
      error === null ? (
        <p class="muted" aria-busy="true" data-testid="review-loading">
          Opening the review and reading its files…
        </p>
      ) : null;
  } else if (all.error !== null && shown !== "results" && shown !== "screen") {
    body = (
      <p class="form-error" role="alert">
        {all.error}
      </p>
    );
  } else {
    // The panels do not wait for every row: their forms work at once, and
    // their lists fill in when the rows come.
    const papers = all.rows ?? [];
    const reviewed = view.firstRows.counts.withVerdict > 0;
    if (shown === "run" && run !== undefined) {
      body = (
        <RunPanel
          run={run}
          papers={papers}
          now={now}
          onCancel={cancel}
          onResume={resume}
          onShowResults={() => {
            setPanel("results");
          }}
        />
      );
    } else if (shown === "setup" || (shown === "run" && run === undefined)) {
      body = (
        <SetupPanel
          platform={platform}
          view={view}
          papers={all.rows}
          model={model}
          defaultEngine={defaultEngine}
          lookups={lookups}
          onStart={start}
          preparing={preparing}
        />
      );
    } else if (shown === "screen") {
      body = <ScreenPanel platform={platform} workspace={root} question={view.question} onLabelled={() => void load()} />;
    } else if (shown === "ask") {
      body = <AskPanel platform={platform} workspace={root} reviewed={reviewed} papers={papers} />;
    } else if (shown === "table") {
      body = <TablePanel platform={platform} workspace={root} reviewed={reviewed} papers={papers} />;
    } else if (shown === "validation") {
      body = (
        <ValidationPanel
          platform={platform}
          workspace={root}
          papers={papers}
          onRowChange={replaceRow}
          onVerdictsChanged={() => void load()}
        />
      );
    } else {
      body = (
        <ResultsPanel
          platform={platform}
          view={view}
          onRowChange={replaceRow}
        />
      );
    }
  }

  // A run that did not finish: cut off (quit, crash), cancelled, or going on in
  // another window's process. Each says where it stands and offers the way on.
  const interrupted =
    view !== null &&
    !running &&
    (view.state === "interrupted" ||
      view.state === "cancelled" ||
      view.state === "stopped" ||
      (view.state === "running" && run === undefined));
  const counts = view?.firstRows.counts ?? null;
  const scoredCount = counts?.scored ?? 0;
  const staleCount = counts?.stale ?? 0;
  return (
    <main class="review-screen" data-testid="review-screen">
      <div class="review-screen__head">
        <button type="button" class="button button--ghost" data-testid="back" onClick={onBack}>
          ← All reviews
        </button>
        <div class="review-screen__title">
          {view === null ? <h1>Review</h1> : <h1 data-testid="review-title">{view.title}</h1>}
          {view !== null && (
            <p class="muted">
              {view.question ?? "No question yet"} · {papersLine(view.firstRows.counts)}
            </p>
          )}
        </div>
        {view !== null && (
          <div class="review-screen__nav" role="group" aria-label="Review views">
            <span class={`badge badge--${running ? "running" : view.state}`} data-testid="review-state">
              {running ? STATE_LABELS.running : (STATE_LABELS[view.state] ?? view.state)}
            </span>
            {view.state !== "new" && !running && (
              <button type="button" class="button button--small" data-testid="new-run" onClick={() => { setPanel("setup"); }}>
                Edit and run again
              </button>
            )}
            {!running && view.firstRows.counts.readable > 0 && (
              <button
                type="button"
                class="button button--small"
                data-testid="to-screen"
                title="Screen titles and abstracts one at a time, the most likely relevant first, ordered again by every label"
                onClick={() => {
                  setPanel("screen");
                }}
              >
                Screen
              </button>
            )}
            {!running && (
              <button
                type="button"
                class="button button--small"
                data-testid="add-records"
                title="Import a database search's export (RIS, PubMed, BibTeX, CSV): each record is screened on its title and abstract"
                onClick={() => void addRecords()}
              >
                Add records…
              </button>
            )}
            {!running && view.firstRows.counts.records > 0 && (
              <button
                type="button"
                class="button button--small"
                data-testid="attach-full-text"
                title="Choose a folder of PDFs: each is matched to its record by the DOI on its first page, else its title"
                onClick={() => void attachFullText()}
              >
                Attach PDFs…
              </button>
            )}
            {!running && view.firstRows.counts.zotero > 0 && (
              <button
                type="button"
                class="button button--small"
                data-testid="write-to-zotero"
                disabled={pushing}
                title="Write each item's verdict to Zotero: quire: tags for the engine, screen: tags for your labels, and one note with the summary and the quotes linked to their pages. Your own tags and notes are never touched."
                onClick={() => void writeToZotero()}
              >
                {pushing ? "Writing to Zotero…" : "Write to Zotero"}
              </button>
            )}
            {!running && view.state !== "new" && (
              <button
                type="button"
                class="button button--small"
                data-testid="find-by-citations"
                title="Citation searching: the works your included papers cite and the works citing them, from OpenAlex, with the calls and their cost shown first"
                onClick={() => {
                  setSnowballing(true);
                }}
              >
                Find more by citations
              </button>
            )}
            {run !== undefined && (
              <button type="button" class="button button--small" data-testid="to-run" onClick={() => { setPanel("run"); }}>
                {running ? "Run" : "Last run"}
              </button>
            )}
            {view.state !== "new" && (
              <button type="button" class="button button--small" data-testid="to-results" onClick={() => { setPanel("results"); }}>
                Results
              </button>
            )}
            {view.state !== "new" && (
              <button
                type="button"
                class="button button--small"
                data-testid="to-ask"
                onClick={() => {
                  setPanel("ask");
                }}
              >
                Ask
              </button>
            )}
            {view.state !== "new" && (
              <button
                type="button"
                class="button button--small"
                data-testid="to-table"
                onClick={() => {
                  setPanel("table");
                }}
              >
                Table
              </button>
            )}
            {scoredCount > 0 && !running && (
              <button
                type="button"
                class="button button--small"
                data-testid="to-validation"
                onClick={() => {
                  setPanel("validation");
                }}
              >
                Validation
              </button>
            )}
          </div>
        )}
      </div>
      {error !== null && (
        <div class="banner banner--error" role="alert">
          <span>{error}</span>
          <button type="button" class="banner__close" onClick={() => { setError(null); }} aria-label="Dismiss">
            ×
          </button>
        </div>
      )}
      {choosingRun !== null && (
        <NewerRunChoice
          file={choosingRun}
          searches={earlierSearches(choosingRun)}
          onChoose={(replaces) => {
            setChoosingRun(null);
            void importFiles([choosingRun], replaces);
          }}
          onClose={() => {
            setChoosingRun(null);
          }}
        />
      )}
      {importing !== null && <ImportUnderway progress={importing} />}
      {imported !== null && (
        <ImportOutcome
          summary={imported}
          onClose={() => {
            setImported(null);
          }}
        />
      )}
      {snowballing && (
        <SnowballPanel
          platform={platform}
          root={root}
          contact={lookups.contact ?? null}
          onChanged={() => void load()}
          onClose={() => {
            setSnowballing(false);
          }}
        />
      )}
      {pushed !== null && (
        <ZoteroPushOutcome
          summary={pushed}
          onClose={() => {
            setPushed(null);
          }}
        />
      )}
      {attached !== null && (
        <FullTextOutcome
          summary={attached}
          onClose={() => {
            setAttached(null);
          }}
        />
      )}
      {view !== null && <Duplicates groups={view.duplicateGroups} onSetAside={(paper, of) => void setAside(paper, of)} />}
      {interrupted && (
        <div class="banner" role="status" data-testid="interrupted">
          <span>
            {view.state === "running"
              ? "A run of this review is going on in the background."
              : `${view.state === "cancelled" ? "This review was cancelled" : "This review stopped before it finished"}: ${count(scoredCount)} of ${count(view.firstRows.counts.total)} papers are scored. Resuming keeps that work${staleCount === 0 ? "" : ` and reads again the ${count(staleCount)} read under earlier inputs`}.`}
          </span>
          {view.state === "running" ? (
            <button type="button" class="button button--small" onClick={cancel}>
              Cancel it
            </button>
          ) : (
            <button type="button" class="button button--small button--primary" data-testid="resume-interrupted" onClick={resume}>
              Resume
            </button>
          )}
        </div>
      )}
      {!interrupted && !running && staleCount > 0 && (
        <div class="banner" role="status" data-testid="stale">
          <span>
            {count(staleCount)} {staleCount === 1 ? "paper was" : "papers were"} read under earlier inputs (
            {counts?.staleReason}). They count nowhere (results, report, exports) until they are read again.
          </span>
          <button type="button" class="button button--small button--primary" data-testid="read-stale" onClick={resume}>
            Read them again
          </button>
        </div>
      )}
      {view !== null && view.state === "pilot" && !running && (
        <div class="banner" role="status" data-testid="pilot-done">
          <span>
            A pilot read {count(scoredCount)} of {count(view.firstRows.counts.total)} papers by the approved protocol. Check how they
            were judged; if the protocol needs changing, edit it under Edit and run again (the papers are then read again by
            the new text). Reading the rest keeps the pilot&apos;s work.
          </span>
          <button type="button" class="button button--small button--primary" data-testid="run-rest" onClick={resume}>
            Run the rest
          </button>
        </div>
      )}
      {preparing && (
        <p class="notice" role="status" aria-busy="true" data-testid="preparing">
          Reading the files to check which can be reviewed…
        </p>
      )}
      {body}
    </main>
  );
}

/** "12 files", "327 records", or "12 files · 327 records · 10 with full text". */
function papersLine(counts: PaperCounts): string {
  const records = counts.records;
  const files = counts.total - records;
  const withFullText = counts.recordsWithFullText;
  const parts = [
    files > 0 || records === 0 ? `${count(files)} files` : "",
    records > 0 ? `${count(records)} ${records === 1 ? "record" : "records"}` : "",
    withFullText > 0 ? `${count(withFullText)} with full text` : "",
  ];
  return parts.filter(Boolean).join(" · ");
}
