// A run as the status board shows it, folded from its events. Pure: the same
// events give the same view, so the board is tested without a host.

import type { PaperPhase, RunEvent } from "../../platform";

export type RunStatus = "starting" | "extracting" | "reading" | "finished" | "failed" | "cancelled";

/** What one agent task is doing now. */
export interface AgentActivity {
  task: string;
  agent: string;
  step: number;
  /** The latest tool call and how it went, once there is one. */
  tool: string | null;
  ok: boolean;
  summary: string;
  done: string | null;
}

/** Prompt size of each step of one agent, in order. */
export interface PromptSeries {
  agent: string;
  points: { step: number; tokens: number }[];
}

export interface RunView {
  status: RunStatus;
  engine: string | null;
  /** Papers of the run, once it says. */
  total: number;
  phases: Readonly<Record<string, PaperPhase>>;
  /** Papers whose reading failed (not unreadable files): what a retry can fix. */
  readFailures: readonly string[];
  details: Readonly<Record<string, string>>;
  activity: readonly AgentActivity[];
  prompts: readonly PromptSeries[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number | null; modelCalls: number } | null;
  /** The scholarly lookups: how many papers, and how many an index knew once they end. */
  lookups: { papers: number; matched: number | null; notices: string[] } | null;
  /** Batches of reading calls, by shard, as last polled. */
  batches: Readonly<Record<string, BatchShard>>;
  error: { kind: string; message: string } | null;
  /** When the first paper was scored and how many are, for the ETA. */
  firstScoredAt: number | null;
  startedAt: number;
}

/** One batch of reading calls at the provider's Batch API. */
export interface BatchShard {
  /** `submitted`, then the API's own: validating, in_progress, finalizing, completed… */
  status: string;
  completed: number;
  failed: number;
  total: number;
}

/** Points kept per agent: enough for a long run's shape, bounded in memory. */
const MAX_POINTS = 2000;

export function newRun(now: number): RunView {
  return {
    status: "starting",
    engine: null,
    total: 0,
    phases: {},
    readFailures: [],
    details: {},
    activity: [],
    prompts: [],
    usage: null,
    lookups: null,
    batches: {},
    error: null,
    firstScoredAt: null,
    startedAt: now,
  };
}

export function isOver(view: RunView): boolean {
  return view.status === "finished" || view.status === "failed" || view.status === "cancelled";
}

function withPhase(view: RunView, paper: string, phase: PaperPhase, detail?: string): RunView {
  const details = detail === undefined ? view.details : { ...view.details, [paper]: detail };
  return { ...view, phases: { ...view.phases, [paper]: phase }, details };
}

function withActivity(view: RunView, task: string, change: (a: AgentActivity) => AgentActivity, agent: string) {
  const existing = view.activity.find((a) => a.task === task);
  const base: AgentActivity = existing ?? { task, agent, step: 0, tool: null, ok: true, summary: "", done: null };
  const next = change(base);
  const activity = existing === undefined ? [...view.activity, next] : view.activity.map((a) => (a === existing ? next : a));
  return { ...view, activity };
}

export function applyEvent(view: RunView, event: RunEvent, now: number): RunView {
  switch (event.type) {
    case "extractionStarted":
      return { ...view, status: "extracting", total: Math.max(view.total, event.papers) };
    case "extracted":
      return withPhase(view, event.paper, event.status === "ok" ? "queued" : "failed", event.status === "ok" ? undefined : event.status);
    case "runStarted":
      return { ...view, status: "reading", engine: event.engine, total: event.papers };
    case "paperStatus": {
      const phased = withPhase(view, event.paper, event.phase, event.detail);
      const failedBefore = view.readFailures.includes(event.paper);
      const readFailures =
        event.phase === "failed" && !failedBefore
          ? [...view.readFailures, event.paper]
          : event.phase !== "failed" && failedBefore
            ? view.readFailures.filter((p) => p !== event.paper)
            : view.readFailures;
      const next = { ...phased, readFailures };
      return event.phase === "scored" && next.firstScoredAt === null ? { ...next, firstScoredAt: now } : next;
    }
    case "agentStep": {
      const stepped = withActivity(view, event.task, (a) => ({ ...a, step: event.step, done: null }), event.agent);
      const series = view.prompts.find((p) => p.agent === event.agent);
      const point = { step: event.step, tokens: event.promptTokens };
      const prompts =
        series === undefined
          ? [...view.prompts, { agent: event.agent, points: [point] }]
          : view.prompts.map((p) => (p === series ? { ...p, points: [...p.points, point].slice(-MAX_POINTS) } : p));
      return { ...stepped, prompts };
    }
    case "toolCall":
      return withActivity(
        view,
        event.task,
        (a) => ({ ...a, step: event.step, tool: event.tool, ok: event.ok, summary: event.summary }),
        event.agent,
      );
    case "agentDone":
      return withActivity(view, event.task, (a) => ({ ...a, done: event.status }), event.agent);
    case "usage":
      return {
        ...view,
        usage: {
          inputTokens: event.inputTokens,
          outputTokens: event.outputTokens,
          costUsd: event.costUsd,
          modelCalls: event.modelCalls,
        },
      };
    case "lookupsStarted":
      return { ...view, lookups: { papers: event.papers, matched: null, notices: [] } };
    case "lookupsDone":
      return { ...view, lookups: { papers: event.lookedUp, matched: event.matched, notices: event.notices } };
    case "batchProgress": {
      const { shard, status, completed, failed, total } = event;
      return { ...view, batches: { ...view.batches, [shard]: { status, completed, failed, total } } };
    }
    case "finished":
      return { ...view, status: "finished" };
    case "failed":
      return { ...view, status: "failed", error: { kind: event.kind, message: event.message } };
    case "cancelled":
      return { ...view, status: "cancelled" };
  }
}

/** Papers per phase. */
export function phaseCounts(view: RunView): Record<PaperPhase, number> {
  const counts: Record<PaperPhase, number> = { queued: 0, extracting: 0, reading: 0, scored: 0, failed: 0 };
  for (const phase of Object.values(view.phases)) counts[phase] += 1;
  return counts;
}

/** Share of the run's papers that are settled (scored or failed), 0..1. */
export function progressOf(view: RunView): number {
  if (view.total === 0) return isOver(view) ? 1 : 0;
  const c = phaseCounts(view);
  return Math.min(1, (c.scored + c.failed) / view.total);
}

/** Seconds left at the pace since the first paper was scored; null until
 * there is a pace to go by. */
export function etaSeconds(view: RunView, now: number): number | null {
  if (view.firstScoredAt === null || isOver(view)) return null;
  const c = phaseCounts(view);
  const elapsed = (now - view.firstScoredAt) / 1000;
  const settledSince = c.scored - 1;
  if (settledSince < 1 || elapsed <= 0) return null;
  const left = view.total - c.scored - c.failed;
  return Math.max(0, Math.round((left * elapsed) / settledSince));
}
