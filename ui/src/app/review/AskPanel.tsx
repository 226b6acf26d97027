// Ask the papers: a question answered across the review's papers, each claim
// citing [n], a quote checked on its page; a citation opens the paper at that
// page with the quote marked. With no model the result is the best passages,
// labelled as such. Every question asked is kept and listed.

import type { ComponentChild } from "preact";
import { useEffect, useState } from "preact/hooks";

import {
  type AskParams,
  type AskProgress,
  type AskRecord,
  type AskScope,
  type AskSource,
  type PaperRow,
  type Platform,
  QuireError,
} from "../../platform";
import { usePdfViewer } from "./usePdfViewer";
import { plural } from "../format";
import { BatchChoice, BatchList, type BatchStates, withBatch } from "./Batches";
import { count, place } from "./format";
import { inline } from "./markdown";
import { ScopePicker, scopeReady } from "./ScopePicker";
import { type CapsText, NO_CAPS, SpendControls, capsParams, useEstimate } from "./Spend";

export interface AskPanelProps {
  platform: Platform;
  workspace: string;
  /** The review has verdicts: "the papers it keeps" is a scope. */
  reviewed: boolean;
  /** The review's papers, to choose from. */
  papers: readonly PaperRow[];
}

/** Where a question is, from its progress events. */
interface Asking {
  papers: number;
  cached: number;
  read: number;
  answered: number;
  composing: number | null;
  /** A question asked as a batch: its batches by shard. */
  batches: BatchStates;
}

const NOT_STARTED: Asking = { papers: 0, cached: 0, read: 0, answered: 0, composing: null, batches: {} };

function advance(state: Asking, p: AskProgress): Asking {
  switch (p.type) {
    case "reading":
      return { ...NOT_STARTED, papers: p.papers, cached: p.cached };
    case "read":
      return { ...state, read: state.read + 1, answered: state.answered + (p.answers ? 1 : 0) };
    case "composing":
      return { ...state, composing: p.sources };
    case "batch":
      return { ...state, batches: withBatch(state.batches, p) };
  }
}

/** "Reading 9 papers (3 answered before): 5 read, 2 answer so far", then composing. */
function askingLine(a: Asking): string {
  if (a.composing !== null) return `Composing the answer from ${plural(a.composing, "verified claim")}…`;
  if (a.papers === 0) return "Choosing the papers to read…";
  const before = a.cached > 0 ? ` (${count(a.cached)} answered before)` : "";
  const open = a.papers - a.cached;
  return `Reading ${plural(a.papers, "paper")}${before}: ${count(a.read)} of ${count(open)} read, ${count(a.answered)} answer so far…`;
}

/** A source as a line: its paper and page (opening it there), then the quote. */
function SourceLine({ source, onOpen, testid }: { source: AskSource; onOpen: (s: AskSource) => void; testid?: string }) {
  return (
    <>
      <button
        type="button"
        class="link-button"
        data-testid={testid}
        onClick={() => {
          onOpen(source);
        }}
      >
        <em>{source.title}</em>, {place(source.record, source.page)}
      </button>
      : “{source.quote}”
    </>
  );
}

/** What the history says of a question beside it. */
function historyNote(r: AskRecord): string {
  if (r.status === "stopped") return "stopped by a cap, not answered";
  if (r.status === "cancelled") return "cancelled, not answered";
  if (r.status === "failed") return "failed, not answered";
  if (r.stale != null) return "stale: the review changed";
  if (r.mode === "passages") return "passages";
  return `${count(r.coverage.contributed)} of ${count(r.coverage.read)} papers`;
}

/** A paragraph of the answer, its `[n]` citations as buttons. */
function Cited({ text, sources, onOpen }: { text: string; sources: AskSource[]; onOpen: (s: AskSource) => void }) {
  const parts: ComponentChild[] = [];
  let last = 0;
  let key = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const source = sources.find((s) => s.n === Number(m[1]));
    if (source === undefined) continue;
    if (m.index > last) parts.push(...inline(text.slice(last, m.index)));
    parts.push(
      <button
        key={`c${key++}`}
        type="button"
        class="citation"
        data-testid="citation"
        title={`${source.title}, ${place(source.record, source.page)}: “${source.quote}”`}
        onClick={() => {
          onOpen(source);
        }}
      >
        [{source.n}]
      </button>,
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(...inline(text.slice(last)));
  return <p>{parts}</p>;
}

export function AskPanel({ platform, workspace, reviewed, papers }: AskPanelProps) {
  const [question, setQuestion] = useState("");
  const [scope, setScope] = useState<AskScope>(reviewed ? { kind: "included" } : { kind: "all" });
  const [readAll, setReadAll] = useState(false);
  const [batch, setBatch] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<AskRecord | null>(null);
  const [history, setHistory] = useState<AskRecord[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const [caps, setCaps] = useState<CapsText>(NO_CAPS);
  const estimating = useEstimate();
  const [noModel, setNoModel] = useState(false);
  const [asking, setAsking] = useState<Asking>(NOT_STARTED);
  const [openPdf, pdfViewer] = usePdfViewer(platform);

  const refresh = () =>
    platform.askHistory(workspace).then(
      (records) => {
        setHistory(records);
        return records;
      },
      (raw: unknown) => {
        setError(QuireError.from(raw).describe());
        return [];
      },
    );

  useEffect(() => {
    void refresh().then((records) => {
      setShown((current) => current ?? records[0] ?? null);
    });
    // `refresh` closes over the workspace only.
  }, [platform, workspace]);

  // An estimate is for the question, papers and reading it was made for.
  useEffect(() => {
    estimating.clear();
  }, [question, scope, readAll]);

  const params = (): AskParams => ({ workspace, question, scope, readAll, offline: false, ...capsParams(caps), batch });
  const ready = question.trim() !== "" && scopeReady(scope);

  const estimateCost = async () => {
    setError(null);
    const e = await estimating.run(() => platform.estimateAsk(params()));
    // No model is no cost: asking then gives the best passages.
    setNoModel(e?.kind === "model_setup");
    if (e !== null && e.kind !== "model_setup") setError(e.describe());
  };

  const ask = async () => {
    setBusy(true);
    setError(null);
    setAsking(NOT_STARTED);
    // What it would read is being read: the estimate is spent.
    estimating.clear();
    try {
      const record = await platform.askPapers(params(), (p) => {
        setAsking((state) => advance(state, p));
      });
      setShown(record);
      await refresh();
    } catch (raw) {
      setError(QuireError.from(raw).describe());
    } finally {
      setBusy(false);
    }
  };

  const open = (s: AskSource) => {
    openPdf({ workspace, paper: s.paper, title: s.title, page: s.page, quote: s.quote });
  };

  return (
    <section class="ask" data-testid="ask" aria-label="Ask the papers">
      <div class="ask__main">
        <form
          class="ask__form"
          onSubmit={(e) => {
            e.preventDefault();
            void ask();
          }}
        >
          <label class="field">
            <span class="field__label">Ask the papers</span>
            <textarea
              class="field__input"
              data-testid="ask-question"
              rows={2}
              value={question}
              placeholder="Which of these papers measure recovery time, and how?"
              onInput={(e) => {
                setQuestion(e.currentTarget.value);
              }}
            />
          </label>
          <div class="ask__options">
            <ScopePicker reviewed={reviewed} papers={papers} value={scope} onChange={setScope} testid="ask-scope" />
            <label class="pilot__choice">
              <input
                type="checkbox"
                data-testid="ask-read-all"
                checked={readAll}
                onChange={(e) => {
                  setReadAll(e.currentTarget.checked);
                }}
              />
              <span>read every one, not only the best matches</span>
            </label>
            <BatchChoice checked={batch} busy={busy} onChange={setBatch} testid="ask-batch" />
            {busy && (
              <button type="button" class="button" data-testid="ask-cancel" onClick={() => void platform.cancelAsk(workspace)}>
                Cancel
              </button>
            )}
            <button type="submit" class="button button--primary" data-testid="ask-submit" disabled={busy || !ready}>
              {busy ? "Reading the papers…" : "Ask"}
            </button>
          </div>
          <SpendControls
            caps={caps}
            onCaps={setCaps}
            estimating={estimating}
            onEstimate={() => void estimateCost()}
        batch={batch}
            disabled={busy || !ready}
          />
          {busy && (
            <p class="muted" role="status" data-testid="ask-progress">
              {askingLine(asking)}
            </p>
          )}
          <BatchList batches={asking.batches} testid="ask-batches" />
          {noModel && (
            <p class="muted" data-testid="spend-no-model">
              No model is set up: asking gives the best-matching passages, at no cost.
            </p>
          )}
        </form>
        {error !== null && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        {shown !== null && (
          <AskResult
            record={shown}
            onOpen={open}
            actions={
              shown.status === "done" && (
              <div class="ask__actions">
                <button
                  type="button"
                  class="button button--small"
                  data-testid="ask-to-report"
                  onClick={() =>
                    void platform.askInReport(workspace, shown.id, !shown.inReport).then(
                      (record) => {
                        setShown(record);
                        void refresh();
                      },
                      (raw: unknown) => {
                        setError(QuireError.from(raw).describe());
                      },
                    )
                  }
                >
                  {shown.inReport ? "In the report ✓ (take out)" : "Add to the report"}
                </button>
                <button
                  type="button"
                  class="button button--small"
                  data-testid="ask-export"
                  onClick={() =>
                    void platform.exportAsk(workspace, shown.id, "answer").then(
                      (written) => {
                        if (written !== null) setSaved(`Saved ${written.path}`);
                      },
                      (raw: unknown) => {
                        setError(QuireError.from(raw).describe());
                      },
                    )
                  }
                >
                  Export Markdown
                </button>
                {saved !== null && <span class="muted">{saved}</span>}
              </div>
              )
            }
          />
        )}
      </div>
      <aside class="ask__history" aria-label="Questions asked">
        <h2 class="section-title">Asked</h2>
        {history.length === 0 ? (
          <p class="muted">No question yet.</p>
        ) : (
          <ul data-testid="ask-history">
            {history.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  class={`link-button${shown?.id === r.id ? " ask__current" : ""}`}
                  onClick={() => {
                    setShown(r);
                  }}
                >
                  {r.question}
                </button>
                <small class="muted">{historyNote(r)}</small>
              </li>
            ))}
          </ul>
        )}
      </aside>
      {pdfViewer}
    </section>
  );
}

function AskResult({ record, onOpen, actions }: { record: AskRecord; onOpen: (s: AskSource) => void; actions: ComponentChild }) {
  const c = record.coverage;
  return (
    <article class="ask__result" data-testid="ask-result">
      <h2 class="ask__question">{record.question}</h2>
      {record.status !== "done" && (
        <p class="notice" role="status">
          {record.status === "stopped"
            ? `Stopped before it was answered: ${record.stopped ?? "a cap"}. Asking again resumes.`
            : record.status === "cancelled"
              ? "Cancelled before it was answered. Asking again resumes with the papers already read."
              : record.status === "failed"
                ? `Not answered: ${record.stopped ?? "every paper read failed"}.`
                : "Still being answered."}
        </p>
      )}
      {record.stale != null && (
        <p class="notice" role="status" data-testid="ask-stale">
          Stale: {record.stale}.
        </p>
      )}
      {record.mode === "passages" ? (
        <>
          <p class="ask__label" data-testid="ask-mode">
            Passages, not an answer: no language model was used. These are the sentences that best match the question&apos;s words.
          </p>
          <ul class="ask__passages">
            {record.sources.map((s) => (
              <li key={s.n}>
                <SourceLine source={s} onOpen={onOpen} testid="citation" />
              </li>
            ))}
          </ul>
        </>
      ) : (
        <div class="ask__answer" data-testid="ask-answer">
          {record.answer
            .split(/\n\n+/)
            .filter((p) => p.trim() !== "")
            .map((p, i) => (
              <Cited key={i} text={p} sources={record.sources} onOpen={onOpen} />
            ))}
        </div>
      )}
      {record.mode === "answer" && record.sources.length > 0 && (
        <details class="ask__sources">
          <summary>Sources: {count(record.sources.length)} quotes, each checked on its page</summary>
          <ol>
            {record.sources.map((s) => (
              <li key={s.n} value={s.n}>
                <SourceLine source={s} onOpen={onOpen} />
              </li>
            ))}
          </ol>
        </details>
      )}
      <p class="muted" data-testid="ask-coverage">
        {plural(c.considered, "paper")} considered, {count(c.read)} {record.mode === "answer" ? "read" : "searched"},{" "}
        {count(c.contributed)} contributed
        {c.quotesDropped > 0 && ` · ${count(c.quotesDropped)} quotes not on their page dropped`}
        {c.unsupported > 0 && ` · ${count(c.unsupported)} sentences cite no source`}
        {c.failed.length > 0 && ` · ${count(c.failed.length)} papers could not be read`}
        {record.model !== null && ` · ${record.model}`}
      </p>
      {actions}
    </article>
  );
}
