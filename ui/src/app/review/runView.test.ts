import { describe, expect, it } from "vitest";

import type { RunEvent } from "../../platform";
import { applyEvent, etaSeconds, isOver, newRun, phaseCounts, progressOf } from "./runView";

function fold(events: RunEvent[], start = 0, step = 1000) {
  return events.reduce((view, e, i) => applyEvent(view, e, start + (i + 1) * step), newRun(start));
}

describe("a run folded from its events", () => {
  it("follows each paper from extraction to its score", () => {
    const view = fold([
      { type: "extractionStarted", papers: 3, toExtract: 3 },
      { type: "paperStatus", paper: "a", phase: "extracting" },
      { type: "extracted", paper: "a", status: "ok", fromCache: false },
      { type: "extracted", paper: "b", status: "ok", fromCache: true },
      { type: "extracted", paper: "c", status: "encrypted", fromCache: false },
      { type: "runStarted", runId: "r1", engine: "agent", papers: 3 },
      { type: "paperStatus", paper: "a", phase: "reading" },
      { type: "paperStatus", paper: "a", phase: "scored", detail: "7/10 include" },
    ]);
    expect(view.status).toBe("reading");
    expect(view.total).toBe(3);
    expect(phaseCounts(view)).toEqual({ queued: 1, extracting: 0, reading: 0, scored: 1, failed: 1 });
    expect(view.details).toEqual({ c: "encrypted", a: "7/10 include" });
    expect(progressOf(view)).toBeCloseTo(2 / 3);
    expect(isOver(view)).toBe(false);
  });

  it("follows each batch of reading calls as it is polled", () => {
    const view = fold([
      { type: "runStarted", runId: "r1", engine: "agent", papers: 40 },
      { type: "batchProgress", shard: "r1-0", status: "submitted", completed: 0, failed: 0, total: 0 },
      { type: "batchProgress", shard: "r1-1", status: "submitted", completed: 0, failed: 0, total: 0 },
      { type: "batchProgress", shard: "r1-0", status: "in_progress", completed: 12, failed: 1, total: 30 },
      { type: "batchProgress", shard: "r1-1", status: "completed", completed: 10, failed: 0, total: 10 },
    ]);
    expect(view.batches).toEqual({
      "r1-0": { status: "in_progress", completed: 12, failed: 1, total: 30 },
      "r1-1": { status: "completed", completed: 10, failed: 0, total: 10 },
    });
    expect(view.status).toBe("reading");
  });

  it("follows the scholarly lookups beside the engine", () => {
    const started = fold([
      { type: "runStarted", runId: "r1", engine: "offline", papers: 5 },
      { type: "lookupsStarted", papers: 4 },
    ]);
    expect(started.lookups).toEqual({ papers: 4, matched: null, notices: [] });
    const spent = "OpenAlex's daily allowance for your API key is spent.";
    const done = applyEvent(started, { type: "lookupsDone", lookedUp: 3, matched: 2, notices: [spent] }, 9000);
    expect(done.lookups).toEqual({ papers: 3, matched: 2, notices: [spent] });
    expect(done.status).toBe("reading");
  });

  it("keeps each agent's prompt size per step and what it is doing", () => {
    const view = fold([
      { type: "agentStep", task: "t1", agent: "planner", step: 1, promptTokens: 2000, stableTokens: 1200, consolidation: false },
      { type: "toolCall", task: "t1", agent: "planner", step: 1, tool: "reviewer", ok: true, summary: "delegated" },
      { type: "agentStep", task: "t2", agent: "reviewer", step: 1, promptTokens: 2500, stableTokens: 1500, consolidation: false },
      { type: "agentStep", task: "t2", agent: "reviewer", step: 2, promptTokens: 2600, stableTokens: 1500, consolidation: false },
      { type: "toolCall", task: "t2", agent: "reviewer", step: 2, tool: "read_papers", ok: false, summary: "bad ids" },
      { type: "agentDone", task: "t1", agent: "planner", status: "finished" },
      { type: "usage", inputTokens: 7100, outputTokens: 300, costUsd: null, modelCalls: 3 },
    ]);
    expect(view.prompts).toEqual([
      { agent: "planner", points: [{ step: 1, tokens: 2000 }] },
      {
        agent: "reviewer",
        points: [
          { step: 1, tokens: 2500 },
          { step: 2, tokens: 2600 },
        ],
      },
    ]);
    expect(view.activity.map((a) => [a.agent, a.step, a.tool, a.ok, a.done])).toEqual([
      ["planner", 1, "reviewer", true, "finished"],
      ["reviewer", 2, "read_papers", false, null],
    ]);
    expect(view.usage?.inputTokens).toBe(7100);
  });

  it("tells failed readings, which a retry can fix, from unreadable files", () => {
    const view = fold([
      { type: "extracted", paper: "locked", status: "encrypted", fromCache: false },
      { type: "paperStatus", paper: "a", phase: "failed", detail: "the model's answer was not JSON" },
      { type: "paperStatus", paper: "b", phase: "failed" },
      { type: "paperStatus", paper: "b", phase: "scored" },
    ]);
    expect(view.readFailures).toEqual(["a"]);
    expect(phaseCounts(view).failed).toBe(2);
  });

  it("ends finished, failed with the reason, or cancelled", () => {
    expect(fold([{ type: "finished", coveredByAgent: 1, coveredBySweep: 0 }]).status).toBe("finished");
    const failed = fold([{ type: "failed", kind: "budget_exhausted", message: "the token cap of 1000 is reached" }]);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toContain("token cap");
    expect(isOver(fold([{ type: "cancelled" }]))).toBe(true);
  });

  it("estimates the time left from the pace since the first score", () => {
    const events: RunEvent[] = [{ type: "runStarted", runId: "r", engine: "agent", papers: 10 }];
    for (const id of ["a", "b", "c"]) events.push({ type: "paperStatus", paper: id, phase: "scored" });
    // Scores at t = 2 s, 3 s and 4 s: one paper a second, seven left.
    const view = fold(events);
    expect(etaSeconds(view, 4000)).toBe(7);
    expect(etaSeconds(fold(events.slice(0, 2)), 5000)).toBeNull();
  });
});
