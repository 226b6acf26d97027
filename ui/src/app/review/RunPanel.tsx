// The live run: overall progress and ETA, a board of every paper's phase,
// what each agent is doing, its prompt sizes, tokens and cost so far.

import type { PaperPhase, PaperRow } from "../../platform";
import { TokenChart } from "./TokenChart";
import { batchLine, cost, count, duration } from "./format";
import { type RunView, etaSeconds, isOver, phaseCounts, progressOf } from "./runView";
import { titleOf } from "./table";

export interface RunPanelProps {
  run: RunView;
  papers: readonly PaperRow[];
  now: number;
  onCancel: () => void;
  onResume: () => void;
  onShowResults: () => void;
}

const PHASE_LABELS: Record<PaperPhase, string> = {
  queued: "Queued",
  extracting: "Extracting",
  reading: "Reading",
  scored: "Scored",
  failed: "Failed",
};

const STATUS_LINES: Record<RunView["status"], string> = {
  starting: "Starting…",
  extracting: "Extracting text from the PDFs…",
  reading: "Reading the papers…",
  finished: "Finished.",
  failed: "The run stopped with an error.",
  cancelled: "Cancelled. The work done so far is kept; resume to go on.",
};

function phaseOf(run: RunView, paper: PaperRow): PaperPhase {
  const live = run.phases[paper.id];
  if (live !== undefined) return live;
  if (paper.score !== null) return "scored";
  return paper.status === "ok" || paper.status === "damaged" || paper.status === "pending" ? "queued" : "failed";
}

export function RunPanel({ run, papers, now, onCancel, onResume, onShowResults }: RunPanelProps) {
  const counts = phaseCounts(run);
  const progress = progressOf(run);
  const eta = etaSeconds(run, now);
  const over = isOver(run);
  const working = run.activity.filter((a) => a.done === null);
  return (
    <section class="run" data-testid="run" aria-labelledby="run-title">
      <div class="run__head">
        <div>
          <h2 id="run-title" class="section-title" data-testid="run-status">
            {STATUS_LINES[run.status]}
          </h2>
          <p class="run__counts" data-testid="run-counts">
            {count(counts.scored)} of {count(run.total || papers.length)} scored
            {counts.failed > 0 && ` · ${count(counts.failed)} failed`}
            {counts.reading > 0 && ` · ${count(counts.reading)} reading`}
            {eta !== null && ` · about ${duration(eta)} left`}
            {` · ${duration((now - run.startedAt) / 1000)} elapsed`}
          </p>
        </div>
        <div class="run__actions">
          {!over && (
            <button type="button" class="button" data-testid="cancel" onClick={onCancel}>
              Cancel
            </button>
          )}
          {over && run.status === "finished" && run.readFailures.length > 0 && (
            <button type="button" class="button" data-testid="retry-failed" onClick={onResume}>
              Retry the {run.readFailures.length} failed
            </button>
          )}
          {over && run.status !== "finished" && (
            <button type="button" class="button button--primary" data-testid="resume" onClick={onResume}>
              Resume
            </button>
          )}
          {over && (
            <button type="button" class="button button--primary" data-testid="show-results" onClick={onShowResults}>
              See results
            </button>
          )}
        </div>
      </div>
      <div
        class="progress"
        role="progressbar"
        aria-label="Papers settled"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(progress * 100)}
      >
        <div class="progress__bar" style={{ width: `${(progress * 100).toFixed(1)}%` }} />
      </div>
      {run.error !== null && (
        <p class="form-error" role="alert" data-testid="run-error">
          {run.error.message}
        </p>
      )}
      <div class="run__grid">
        <div class="run__side">
          <h3 class="subhead">Agents</h3>
          {run.activity.length === 0 ? (
            <p class="muted">{run.engine === "offline" ? "The offline engine uses no agents." : "No agent has started yet."}</p>
          ) : (
            <ul class="activity" data-testid="activity" aria-live="polite">
              {(working.length > 0 ? working : run.activity.slice(-3)).map((a) => (
                <li key={a.task} class="activity__item">
                  <strong>{a.agent}</strong> step {a.step}
                  {a.done !== null ? ` · ${a.done}` : a.tool !== null ? ` · ${a.tool}` : " · thinking"}
                  {a.summary !== "" && <span class={`activity__summary${a.ok ? "" : " activity__summary--bad"}`}>{a.summary}</span>}
                </li>
              ))}
            </ul>
          )}
          <h3 class="subhead">Prompt tokens per step</h3>
          <TokenChart series={run.prompts} />
          {Object.keys(run.batches).length > 0 && (
            <>
              <h3 class="subhead">Batches</h3>
              <ul class="activity" data-testid="batches">
                {Object.entries(run.batches).map(([shard, b]) => (
                  <li key={shard} class="activity__item">
                    {batchLine(shard, b)}
                  </li>
                ))}
              </ul>
            </>
          )}
          {run.lookups !== null && (
            <p class="run__usage" data-testid="lookups">
              {run.lookups.matched === null
                ? `Looking ${count(run.lookups.papers)} papers up in Crossref, arXiv and OpenAlex…`
                : `Records: ${count(run.lookups.matched)} of ${count(run.lookups.papers)} papers found in Crossref, arXiv or OpenAlex`}
            </p>
          )}
          {run.lookups?.notices.map((notice) => (
            <div key={notice} class="banner banner--warn" role="status" data-testid="lookups-notice">
              {notice}
            </div>
          ))}
          {run.usage !== null && (
            <p class="run__usage" data-testid="usage">
              {count(run.usage.inputTokens)} tokens in, {count(run.usage.outputTokens)} out · {count(run.usage.modelCalls)}{" "}
              model calls · {cost(run.usage.costUsd)}
            </p>
          )}
        </div>
        <ul class="board" data-testid="board" aria-label="Papers">
          {papers.map((p) => {
            const phase = phaseOf(run, p);
            const detail = run.details[p.id] ?? (phase === "failed" ? (p.reason ?? p.status) : null);
            return (
              <li key={p.id} class={`board__paper board__paper--${phase}`} data-testid="board-paper" data-phase={phase}>
                <span class="board__title">{titleOf(p)}</span>
                <span class="board__phase">
                  {PHASE_LABELS[phase]}
                  {detail !== null && ` · ${detail}`}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
    </section>
  );
}
