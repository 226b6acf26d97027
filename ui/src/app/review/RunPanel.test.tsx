import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { RunEvent } from "../../platform";
import { createHost, destroyHost, mountInto } from "../../testing/render";
import { RunPanel } from "./RunPanel";
import { applyEvent, newRun } from "./runView";

let host: HTMLElement;

beforeEach(() => {
  host = createHost();
});

afterEach(() => {
  destroyHost(host);
});

const noop = () => undefined;

describe("the run panel's batches", () => {
  it("says each provider's batch states in the same words", async () => {
    const events: RunEvent[] = [
      { type: "runStarted", runId: "r1", engine: "agent", papers: 30 },
      // OpenAI's states.
      { type: "batchProgress", shard: "r1-0", status: "completed", completed: 10, failed: 0, total: 10 },
      { type: "batchProgress", shard: "r1-1", status: "in_progress", completed: 3, failed: 1, total: 10 },
      // Anthropic's.
      { type: "batchProgress", shard: "r1-2", status: "ended", completed: 9, failed: 1, total: 10 },
      { type: "batchProgress", shard: "r1-3", status: "canceling", completed: 0, failed: 0, total: 10 },
    ];
    const run = events.reduce((view, e, i) => applyEvent(view, e, (i + 1) * 1000), newRun(0));
    await mountInto(host, <RunPanel run={run} papers={[]} now={10_000} onCancel={noop} onResume={noop} onShowResults={noop} />);
    const items = [...host.querySelectorAll("[data-testid=batches] li")].map((li) => li.textContent);
    expect(items).toEqual([
      "r1-0 · done · 10 of 10 answered",
      "r1-1 · running · 3 of 10 answered · 1 to ask again",
      "r1-2 · done · 9 of 10 answered · 1 to ask again",
      "r1-3 · cancelling · 0 of 10 answered",
    ]);
  });
});
