// Screening validation: a stratified sample the researcher labels blind,
// then what the sample shows of the whole review (the report's own section,
// rendered from Rust), with the cut-offs it supports applied only on request.
// When the sample is too small for a claim, the panel says how many more
// labels and where, and draws them into the queue on request; labels given
// while browsing the results are not a sample and are never asked for here.

import { useCallback, useEffect, useRef, useState } from "preact/hooks";

import {
  type PaperDetail,
  type PaperRow,
  type Platform,
  type Support,
  QuireError,
  type ValidateParams,
  type ValidationView,
  type Verdict,
} from "../../platform";
import { mergeLabel } from "./keys";
import { usePdfViewer } from "./usePdfViewer";
import { authorsShort } from "./format";
import { Markdown } from "./markdown";

export interface ValidationPanelProps {
  platform: Platform;
  workspace: string;
  papers: PaperRow[];
  /** A label was set: the row as it now stands. */
  onRowChange: (row: PaperRow) => void;
  /** Cut-offs were applied or reset: the verdicts shown have changed. */
  onVerdictsChanged: () => void;
}

/** Whether the queue shows the engine's verdict while labelling (off: labelling is blind). */
const REVEAL_KEY = "quire.validation.reveal";

function storedReveal(): boolean {
  try {
    return localStorage.getItem(REVEAL_KEY) === "yes";
  } catch {
    return false;
  }
}

const KEY_VERDICTS: Record<string, Verdict> = { i: "include", m: "maybe", e: "exclude" };

export function ValidationPanel({ platform, workspace, papers, onRowChange, onVerdictsChanged }: ValidationPanelProps) {
  const [view, setView] = useState<ValidationView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [size, setSize] = useState("30");
  const [target, setTarget] = useState("0.95");
  const [reveal, setReveal] = useState(storedReveal);
  const [detail, setDetail] = useState<PaperDetail | null>(null);
  const [openPdf, pdfViewer] = usePdfViewer(platform);
  const queue = useRef<HTMLDivElement>(null);

  const ask = useCallback(
    async (
      params: Omit<ValidateParams, "workspace" | "apply" | "reset" | "extend"> & { apply?: boolean; reset?: boolean; extend?: boolean },
    ) => {
      setBusy(true);
      setError(null);
      try {
        const next = await platform.validation({ workspace, apply: false, reset: false, extend: false, ...params });
        setView(next);
        return next;
      } catch (raw) {
        setError(QuireError.from(raw).describe());
        return null;
      } finally {
        setBusy(false);
      }
    },
    [platform, workspace],
  );

  useEffect(() => {
    void ask({}).then((first) => {
      if (first !== null) setTarget(String(first.assessment.support.target));
    });
  }, [ask]);

  const next = view?.toLabel[0] ?? null;
  const row = next === null ? null : (papers.find((p) => p.id === next.id) ?? null);

  // The paper to label, with its abstract: enough to decide most papers.
  useEffect(() => {
    setDetail(null);
    if (next === null) return;
    let live = true;
    platform.paperDetail(workspace, next.id).then(
      (d) => {
        if (live) setDetail(d);
      },
      () => {
        // The title is shown either way; the abstract is a help, not a need.
      },
    );
    queue.current?.focus({ preventScroll: true });
    return () => {
      live = false;
    };
  }, [platform, workspace, next]);

  const label = async (verdict: Verdict) => {
    if (next === null || row === null || busy) return;
    try {
      // The verdict changes; a note or score the paper's label has stays.
      onRowChange(await platform.setLabel(workspace, next.id, mergeLabel(row, { verdict })));
      await ask({});
    } catch (raw) {
      setError(QuireError.from(raw).message);
    }
  };

  const propose = async () => {
    const n = Number(size);
    const t = Number(target);
    if (!Number.isInteger(n) || n < 1) {
      setError("A sample has a whole number of papers, at least one.");
      return;
    }
    if (!(t > 0.5 && t < 1)) {
      setError("The target recall is above 0.5 and below 1.");
      return;
    }
    await ask({ sample: n, target: t });
  };

  const cutoffs = async (what: "apply" | "reset") => {
    const done = await ask(what === "apply" ? { apply: true } : { reset: true });
    if (done !== null) onVerdictsChanged();
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof HTMLInputElement) return;
    const verdict = KEY_VERDICTS[e.key];
    if (verdict !== undefined) {
      e.preventDefault();
      void label(verdict);
    }
  };

  if (view === null) {
    return error === null ? (
      <p class="muted" aria-busy="true">
        Reading the labels…
      </p>
    ) : (
      <p class="form-error" role="alert">
        {error}
      </p>
    );
  }

  const a = view.assessment;
  const proposed = a.proposed;
  // Offered only when it would change the cut-offs in force.
  const canApply = proposed !== null && (proposed.include !== a.cutoffs.include || proposed.maybe !== a.cutoffs.maybe);
  const labelledInSample = a.sampleSize - view.toLabel.length;
  const sampleForm = (
    <div class="validation__form">
      <label class="field validation__num">
        <span class="field__label">Sample size</span>
        <input
          class="field__input"
          type="number"
          min={1}
          value={size}
          data-testid="sample-size"
          onInput={(e) => {
            setSize(e.currentTarget.value);
          }}
        />
      </label>
      <label class="field validation__num">
        <span class="field__label">Target recall</span>
        <input
          class="field__input"
          type="number"
          min={0.5}
          max={0.99}
          step={0.01}
          value={target}
          data-testid="target-recall"
          onInput={(e) => {
            setTarget(e.currentTarget.value);
          }}
        />
      </label>
      <button type="button" class="button" data-testid="propose-sample" disabled={busy} onClick={() => void propose()}>
        {a.sampleSize === 0 ? "Propose a sample" : "Propose a new sample"}
      </button>
    </div>
  );

  return (
    <section class="validation" data-testid="validation" aria-label="Screening validation">
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="validation__body">
        <div
          class="validation__queue validation__card"
          tabIndex={0}
          ref={queue}
          onKeyDown={onKey}
          data-testid="validation-queue"
          aria-label="Papers to label; i, m and e label"
        >
          <h2 class="panel__title">Label a sample</h2>
          {a.sampleSize === 0 ? (
            <p class="muted">
              Label a sample of papers yourself and Quire estimates, for the whole review, how many relevant
              papers the engine would lose: recall with its interval, and whether your labels support letting it
              exclude papers unread. The sample is drawn at random within score bands, with more papers where the
              verdict is least certain; labels you give while browsing the results do not count here.
            </p>
          ) : next === null ? (
            <SampleDone
              size={a.sampleSize}
              support={a.support}
              busy={busy}
              onExtend={() => {
                void ask({ extend: true });
              }}
            />
          ) : (
            <>
              <p class="muted" data-testid="queue-progress">
                {labelledInSample} of {a.sampleSize} labelled.{" "}
                {reveal ? "The engine's verdict is shown." : "The engine's score and verdict are hidden, so your call is your own."}
              </p>
              <article class="validation__paper" data-testid="queue-paper" data-paper={next.id}>
                <h3>{next.title}</h3>
                {row !== null && (
                  <p class="muted">
                    {authorsShort(row)}
                    {row.year === null ? "" : ` · ${row.year}`}
                  </p>
                )}
                {reveal && row !== null && row.score !== null && (
                  <p data-testid="queue-engine">
                    Engine: {row.verdict} ({row.score.toFixed(1)})
                  </p>
                )}
                {detail?.meta.abstract != null ? (
                  <p class="validation__abstract">{detail.meta.abstract}</p>
                ) : (
                  <p class="muted">No abstract was found; open the PDF to read the paper.</p>
                )}
                <div class="validation__actions">
                  <button type="button" class="button button--primary" data-testid="label-include" disabled={busy} onClick={() => void label("include")}>
                    Include <kbd>i</kbd>
                  </button>
                  <button type="button" class="button" data-testid="label-maybe" disabled={busy} onClick={() => void label("maybe")}>
                    Maybe <kbd>m</kbd>
                  </button>
                  <button type="button" class="button" data-testid="label-exclude" disabled={busy} onClick={() => void label("exclude")}>
                    Exclude <kbd>e</kbd>
                  </button>
                  <button
                    type="button"
                    class="button button--ghost"
                    data-testid="queue-pdf"
                    onClick={() => {
                      openPdf({ workspace, paper: next.id, title: next.title, page: 1, quote: "" });
                    }}
                  >
                    Read the PDF
                  </button>
                </div>
              </article>
            </>
          )}
          {sampleForm}
          <label class="validation__reveal">
            <input
              type="checkbox"
              checked={reveal}
              data-testid="reveal-verdict"
              onChange={(e) => {
                const on = e.currentTarget.checked;
                setReveal(on);
                try {
                  localStorage.setItem(REVEAL_KEY, on ? "yes" : "no");
                } catch {
                  // Not kept across restarts; the choice holds for now.
                }
              }}
            />{" "}
            Show the engine's verdict while labelling
          </label>
        </div>
        <div class="validation__figures validation__card" data-testid="validation-figures">
          <Markdown source={view.markdown} />
          <div class="validation__actions">
            {canApply && (
              <button type="button" class="button button--primary" data-testid="apply-cutoffs" disabled={busy} onClick={() => void cutoffs("apply")}>
                Apply: include from {proposed.include.toFixed(1)}, maybe from {proposed.maybe.toFixed(1)}
              </button>
            )}
            {a.calibrated && (
              <button type="button" class="button" data-testid="reset-cutoffs" disabled={busy} onClick={() => void cutoffs("reset")}>
                Back to the default cut-offs
              </button>
            )}
          </div>
          {canApply && (
            <p class="muted">
              Applying changes the verdicts the results, the report and the exports show; each paper's result keeps
              the engine's own verdict, and you can go back.
            </p>
          )}
        </div>
      </div>
      {pdfViewer}
    </section>
  );
}

/** The sample is labelled: what it supports, and if not, what would. */
function SampleDone({ size, support, busy, onExtend }: { size: number; support: Support; busy: boolean; onExtend: () => void }) {
  const more = support.more.reduce((n, m) => n + m.count, 0);
  const where = support.more.map((m) => `${String(m.count)} scoring ${m.from.toFixed(1)}-${Math.min(m.to, 10).toFixed(1)}`).join(", ");
  return (
    <div data-testid="sample-done">
      <p>All {size} papers of the sample are labelled.</p>
      {support.supported ? (
        <p>They support letting the engine exclude papers unread at {support.target.toFixed(2)} recall.</p>
      ) : support.beyondReach ? (
        <p>
          No number of further labels would support automatic exclusion at these cut-offs: as far as the sample shows,
          the engine loses relevant papers there. Every paper it excludes still needs your eye.
        </p>
      ) : more > 0 ? (
        <>
          <p data-testid="more-labels">
            To support automatic exclusion at {support.target.toFixed(2)} recall, about {more} more labels are needed
            ({where}), if they turn out as the sample&apos;s have so far.
          </p>
          <button type="button" class="button" data-testid="extend-sample" disabled={busy} onClick={onExtend}>
            Add {more} to the sample
          </button>
        </>
      ) : null}
    </div>
  );
}
