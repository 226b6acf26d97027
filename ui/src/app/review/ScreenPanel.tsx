// Title/abstract screening: one paper at a time, the one the ranking thinks
// most likely to be kept, ordered again by every label. i, m and e label
// include, maybe and exclude (u undoes the last); the curve shows papers kept
// against papers screened, which flattens as the relevant ones run out.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import {
  type Basis,
  type CurvePoint,
  type Platform,
  QuireError,
  type ScreeningView,
  type StoppingView,
  type Verdict,
} from "../../platform";
import { count } from "./format";

export interface ScreenPanelProps {
  platform: Platform;
  workspace: string;
  /** The review's question, if it has one. */
  question: string | null;
  /** A label was given or taken back: the review's rows changed. */
  onLabelled: () => void;
}

/** Papers listed after the one being screened. */
const UP_NEXT = 4;

const BASIS_WORDS: Record<Basis, string> = {
  recordOrder: "in the records' own order: give a question, or label a few, to order them",
  likeness: "by likeness to the question and to what you kept; it learns from your first exclude",
  learned: "by a ranking learned from your labels, again after each",
};

const VERDICT_KEYS: Record<string, Verdict> = { i: "include", m: "maybe", e: "exclude" };

export function ScreenPanel({ platform, workspace, question, onLabelled }: ScreenPanelProps) {
  const [view, setView] = useState<ScreeningView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [draftQuestion, setDraftQuestion] = useState("");
  const [last, setLast] = useState<string | null>(null);
  /** Words searched for, to label a paper the researcher already knows. */
  const [finding, setFinding] = useState<string | null>(null);
  const [draftFind, setDraftFind] = useState("");
  const panel = useRef<HTMLDivElement>(null);

  const load = useCallback(
    async (newQuestion: string | null = null) => {
      try {
        setView(await platform.screeningNext(workspace, UP_NEXT + 1, newQuestion, finding));
        setError(null);
      } catch (raw) {
        setError(QuireError.from(raw).message);
      }
    },
    [platform, workspace, finding],
  );

  useEffect(() => {
    void load();
  }, [load]);

  const current = view?.next[0] ?? null;

  /**
   * Set or clear `paper`'s label, one change at a time, then serve the next.
   * `serve` is the token of the serve that put it first: only a label given
   * with it is a sample for the stopping rule.
   */
  const change = async (paper: string, verdict: Verdict | null, serve: string | null = null) => {
    if (busy) return;
    setBusy(true);
    try {
      await platform.setLabel(workspace, paper, verdict === null ? null : { verdict, score: null, note: null, serve });
      setLast(verdict === null ? null : paper);
      onLabelled();
      await load();
    } catch (raw) {
      setError(QuireError.from(raw).message);
    } finally {
      setBusy(false);
    }
  };

  const label = async (verdict: Verdict) => {
    if (current !== null) await change(current.paper, verdict, view?.serve ?? null);
  };

  const undo = async () => {
    if (last !== null) await change(last, null);
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.metaKey || e.ctrlKey || e.altKey) return;
    const verdict = VERDICT_KEYS[e.key];
    if (verdict !== undefined) {
      e.preventDefault();
      void label(verdict);
    } else if (e.key === "u") {
      e.preventDefault();
      void undo();
    }
  };

  useEffect(() => {
    panel.current?.focus();
  }, [current?.paper]);

  if (view === null) {
    return error === null ? (
      <p class="muted" aria-busy="true">
        Ordering the papers…
      </p>
    ) : (
      <p class="form-error" role="alert">
        {error}
      </p>
    );
  }
  return (
    <section
      class="screen"
      data-testid="screen-panel"
      tabIndex={0}
      ref={panel}
      onKeyDown={onKey}
      aria-label="Screening; i, m and e label include, maybe and exclude; u undoes"
    >
      <div class="screen__head">
        <p data-testid="screen-progress">
          Screened {count(view.screened)} of {count(view.total)} · kept {count(view.kept)} · excluded{" "}
          {count(view.excluded)}
        </p>
        <p class="muted" data-testid="screen-basis">
          Ordered {BASIS_WORDS[view.basis]}.
        </p>
        {view.next.length > 0 && <StoppingLine stopping={view.stopping} />}
      </div>
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {question === null && view.basis === "recordOrder" && (
        <form
          class="screen__question"
          onSubmit={(e) => {
            e.preventDefault();
            if (draftQuestion.trim() !== "") void load(draftQuestion.trim());
          }}
        >
          <label>
            Review question
            <input
              type="text"
              data-testid="screen-question"
              value={draftQuestion}
              onInput={(e) => {
                setDraftQuestion(e.currentTarget.value);
              }}
            />
          </label>
          <button type="submit" class="button button--small" data-testid="screen-question-go">
            Order by it
          </button>
        </form>
      )}
      <details class="screen__find" data-testid="screen-find">
        <summary>Label a paper you already know</summary>
        <form
          class="screen__question"
          onSubmit={(e) => {
            e.preventDefault();
            setFinding(draftFind.trim() === "" ? null : draftFind.trim());
          }}
        >
          <label>
            Words of its title or abstract
            <input
              type="search"
              data-testid="screen-find-words"
              value={draftFind}
              onInput={(e) => {
                setDraftFind(e.currentTarget.value);
              }}
            />
          </label>
          <button type="submit" class="button button--small" data-testid="screen-find-go">
            Find
          </button>
        </form>
        {finding !== null &&
          (view.found.length === 0 ? (
            <p class="muted" data-testid="screen-found-none">
              No paper left to screen holds every one of these words.
            </p>
          ) : (
            <ul class="screen__found" data-testid="screen-found">
              {view.found.map((item) => (
                <li key={item.paper}>
                  <span>
                    {item.title ?? "(no title)"}
                    {item.year === null ? "" : ` (${String(item.year)})`}
                  </span>{" "}
                  <button type="button" class="link-button" data-testid="found-include" disabled={busy} onClick={() => void change(item.paper, "include")}>
                    include
                  </button>{" "}
                  <button type="button" class="link-button" data-testid="found-exclude" disabled={busy} onClick={() => void change(item.paper, "exclude")}>
                    exclude
                  </button>
                </li>
              ))}
            </ul>
          ))}
        <p class="muted">
          A paper labelled here teaches the ranking at once; the stopping rule counts it as found, not as a sample of what is
          left.
        </p>
      </details>
      <div class="screen__body">
        {current === null ? (
          <p data-testid="screen-done">Every paper has a label: nothing is left to screen.</p>
        ) : (
          <article class="screen__card" data-testid="screen-current" data-paper={current.paper}>
            <h2 class="screen__title">{current.title ?? "(no title)"}</h2>
            <p class="muted">
              {[current.authors.slice(0, 3).join(", ") + (current.authors.length > 3 ? " et al." : ""), current.year?.toString() ?? "", current.venue ?? "", current.kind]
                .filter(Boolean)
                .join(" · ")}
            </p>
            <div class="screen__actions" role="group" aria-label="Label">
              <button type="button" class="button" data-testid="screen-include" disabled={busy} onClick={() => void label("include")}>
                Include <kbd>i</kbd>
              </button>
              <button type="button" class="button" data-testid="screen-maybe" disabled={busy} onClick={() => void label("maybe")}>
                Maybe <kbd>m</kbd>
              </button>
              <button type="button" class="button" data-testid="screen-exclude" disabled={busy} onClick={() => void label("exclude")}>
                Exclude <kbd>e</kbd>
              </button>
              <button type="button" class="button button--ghost" data-testid="screen-undo" disabled={busy || last === null} onClick={() => void undo()}>
                Undo <kbd>u</kbd>
              </button>
            </div>
            <p class="screen__abstract" data-testid="screen-abstract">
              {current.abstract ?? "No abstract: screen it on its title."}
            </p>
          </article>
        )}
        <aside class="screen__side">
          <RecallCurve curve={view.curve} total={view.total} />
          {view.next.length > 1 && (
            <>
              <h3 class="subhead">Up next</h3>
              <ol class="screen__next" data-testid="screen-next">
                {view.next.slice(1).map((item) => (
                  <li key={item.paper}>{item.title ?? "(no title)"}</li>
                ))}
              </ol>
            </>
          )}
        </aside>
      </div>
    </section>
  );
}

const percent = (share: number) => `${(share * 100).toFixed(0)}%`;

/** Whether screening may stop, by the criterion on the labels given in the
 * queue's order; the rule and its premise are in the tooltip. */
export function StoppingLine({ stopping }: { stopping: StoppingView }) {
  const why = `By ${stopping.rule}: a test of "fewer than ${percent(stopping.target)} of the relevant papers are found" on the labels given as the queue served them. Papers labelled elsewhere count as found, not as a sample.`;
  if (stopping.p === null) {
    return (
      <p class="screen__stopping" data-testid="screen-stopping" title={why}>
        Label papers as the queue serves them: Quire tells you when {percent(stopping.target)} of the relevant ones are shown found.
      </p>
    );
  }
  const p = stopping.p.toFixed(3);
  if (stopping.met) {
    return (
      <p class="screen__stopping screen__stopping--met" data-testid="screen-stopping" data-met="true" title={why}>
        You may stop: with {percent(stopping.confidence)} confidence, at least {percent(stopping.target)} of the relevant papers are found (p = {p}, from{" "}
        {count(stopping.inOrder)} labels in the queue's order).
      </p>
    );
  }
  return (
    <p class="screen__stopping" data-testid="screen-stopping" data-met="false" title={why}>
      Keep screening: {percent(stopping.target)} recall is not shown yet (p = {p}
      {stopping.recallAtLeast === null ? "" : `; at least ${percent(stopping.recallAtLeast)} shown found`}). {count(stopping.sinceLastKept)} screened since
      the last one kept.
    </p>
  );
}

const WIDTH = 320;
const HEIGHT = 140;
const PAD = 30;

/** Papers kept against papers screened, on the whole review's scale. */
export function RecallCurve({ curve, total }: { curve: readonly CurvePoint[]; total: number }) {
  if (curve.length === 0) {
    return <p class="chart__empty">The curve of papers kept against papers screened starts with your first label.</p>;
  }
  const kept = curve.at(-1)?.kept ?? 0;
  const maxKept = Math.max(kept, 1);
  const x = (screened: number) => PAD + (screened / Math.max(total, 1)) * (WIDTH - PAD - 8);
  const y = (k: number) => HEIGHT - 18 - (k / maxKept) * (HEIGHT - 30);
  const points = [{ screened: 0, kept: 0 }, ...curve];
  return (
    <figure class="chart" data-testid="recall-curve">
      <svg viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`} role="img" aria-label="Papers kept against papers screened">
        <line class="chart__axis" x1={PAD} y1={HEIGHT - 18} x2={WIDTH - 8} y2={HEIGHT - 18} />
        <text class="chart__tick" x={2} y={y(maxKept) + 4}>
          {count(maxKept)}
        </text>
        <text class="chart__tick" x={2} y={HEIGHT - 14}>
          0
        </text>
        <text class="chart__tick" x={WIDTH - 40} y={HEIGHT - 4}>
          {count(total)}
        </text>
        <polyline class="chart__line chart__line--0" points={points.map((p) => `${x(p.screened).toFixed(1)},${y(p.kept).toFixed(1)}`).join(" ")} />
      </svg>
      <figcaption class="chart__legend">
        {count(kept)} kept in the first {count(curve.length)} screened; the curve flattens as the relevant papers run out
      </figcaption>
    </figure>
  );
}
