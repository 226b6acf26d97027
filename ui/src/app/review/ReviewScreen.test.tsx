import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { QuireError } from "../../platform";
import { DEFAULT_SETTINGS, FakePlatform, newReview } from "../../testing/fakePlatform";
import { openRecentReview, reviewedToResults } from "../../testing/recentReview";
import { createHost, destroyHost, settle } from "../../testing/render";

let host: HTMLElement;
let platform: FakePlatform;
const ROOT = "/data/workspaces/dbs";

const $ = (selector: string) => host.querySelector(selector);
const all = (selector: string) => [...host.querySelectorAll(selector)];
const click = async (selector: string) => {
  await act(() => {
    ($(selector) as HTMLElement).click();
  });
  await settle();
};
const type = async (selector: string, value: string) => {
  await act(() => {
    const el = $(selector) as HTMLTextAreaElement;
    el.value = value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
  });
};
/** Pick `value` in the select at `selector`, as a person would. */
const choose = async (selector: string, value: string) => {
  await act(() => {
    const el = $(selector) as HTMLSelectElement;
    el.value = value;
    el.dispatchEvent(new Event("change", { bubbles: true }));
  });
  await settle();
};
const press = async (key: string) => {
  await act(() => {
    $("[data-testid=results-keys]")?.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
  });
  await settle();
};

/** The app on the review of ROOT, opened from the recent list. */
async function openReview() {
  await openRecentReview(host, platform, ROOT);
}

async function runToResults() {
  await reviewedToResults(host, platform, ROOT);
}

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
});

afterEach(() => {
  destroyHost(host);
});

describe("a new review", () => {
  it("offers only the offline engine, and says how to add a model, when none is configured", async () => {
    await openReview();
    expect(($("[data-testid=engine-agent]") as HTMLInputElement).disabled).toBe(true);
    expect(($("[data-testid=engine-offline]") as HTMLInputElement).checked).toBe(true);
    expect($("[data-testid=no-model-hint]")?.textContent).toContain("add a model");
    expect(($("[data-testid=start]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("estimates an agent review before starting it", async () => {
    platform.ollamaModels = ["qwen3:8b"];
    await openReview();
    expect(($("[data-testid=engine-agent]") as HTMLInputElement).checked).toBe(true);
    await type("[data-testid=question]", "Which indexes help?");
    const estimate = all("button").find((b) => b.textContent === "Estimate cost") as HTMLButtonElement;
    await act(() => {
      estimate.click();
    });
    await settle();
    expect($("[data-testid=estimate]")?.textContent).toContain("3 of 3");
    expect($("[data-testid=estimate]")?.textContent).toContain("$0.03");
    // The bound for a model that needs every retry is shown beside it.
    expect($("[data-testid=estimate]")?.textContent).toContain("at most $0.15");
    expect($("[data-testid=estimate-batch]")?.textContent).toBe("As a batch$0.02, the readings answered within 24 hours a round (re-asks take one more)");
    expect(platform.launches).toEqual([]);
  });

  it("starts an agent review only once the researcher approves the protocol, and can pilot it first", async () => {
    platform.ollamaModels = ["qwen3:8b"];
    await openReview();
    await type("[data-testid=question]", "Which indexes help?");
    await type("[data-testid=criteria]", "Reports an experiment");
    await vi.waitFor(() => {
      expect($("[data-testid=protocol-draft]")).not.toBeNull();
    });
    expect($("[data-testid=protocol-status]")?.textContent).toContain("No protocol yet");
    expect(($("[data-testid=start]") as HTMLButtonElement).disabled).toBe(true);

    await click("[data-testid=protocol-draft]");
    const text = $("[data-testid=protocol-text]") as HTMLTextAreaElement;
    expect(text.value).toContain("Which indexes help?");
    expect(text.readOnly).toBe(false);
    expect($("[data-testid=protocol-status]")?.textContent).toContain("Draft (drafted by fake-model), not approved yet");
    expect(($("[data-testid=start]") as HTMLButtonElement).disabled).toBe(true);

    // The researcher's edit is what gets approved, and the app says whose text it is.
    await type("[data-testid=protocol-text]", `${text.value}\n- Benchmarks on synthetic data only: 5 at most.`);
    await click("[data-testid=protocol-approve]");
    const approved = platform.protocols.get(ROOT)?.at(-1);
    expect(approved).toMatchObject({ event: "approved", origin: "researcher", criteria: ["Reports an experiment"] });
    expect(approved?.text).toContain("synthetic data only");
    expect($("[data-testid=protocol-status]")?.textContent).toContain(`Approved 2026-12-03 · version ${approved?.hash} · your text`);
    expect(($("[data-testid=protocol-text]") as HTMLTextAreaElement).readOnly).toBe(true);

    await click("[data-testid=pilot]");
    await type("[data-testid=pilot-size]", "2");
    expect($("[data-testid=start]")?.textContent).toBe("Run pilot on 2 papers");
    // A batch says where the papers go before it is chosen.
    const hint = $("[data-testid=batch-hint]")?.textContent.replace(/\s+/g, " ");
    expect(hint).toContain("OpenAI keeps it as files under its terms for stored files");
    expect(hint).toContain("Anthropic with the batch for up to 29 days");
    await click("[data-testid=batch]");
    await click("[data-testid=start]");
    expect(platform.launches[0]).toMatchObject({ engine: "agent", question: "Which indexes help?", pilot: 2, batch: true });
  });

  it("reads each paper twice when asked, priced per policy, by the profile chosen", async () => {
    platform.profiles = [
      { name: "main", settings: { ...DEFAULT_SETTINGS, model: "big-model" }, keySource: null },
      { name: "other", settings: { ...DEFAULT_SETTINGS, model: "small-model" }, keySource: null },
    ];
    platform.defaultProfile = "main";
    await openReview();
    await type("[data-testid=question]", "Which indexes help?");
    await vi.waitFor(() => {
      expect($("[data-testid=protocol-draft]")).not.toBeNull();
    });
    await click("[data-testid=protocol-draft]");
    await click("[data-testid=protocol-approve]");
    await choose("[data-testid=dual]", "tie-breaker");
    await vi.waitFor(() => {
      expect(all("[data-testid=second-profile] option").map((o) => o.textContent)).toContain("profile other");
    });
    // The profile that reads first is not offered as the second.
    expect(all("[data-testid=second-profile] option").map((o) => o.textContent)).not.toContain("profile main");
    await choose("[data-testid=second-profile]", "other");
    const estimate = all("button").find((b) => b.textContent === "Estimate cost") as HTMLButtonElement;
    await act(() => {
      estimate.click();
    });
    await settle();
    expect($("[data-testid=estimate-agree-to-exclude]")?.textContent).toContain("6 reader calls");
    expect($("[data-testid=estimate-tie-breaker]")?.textContent).toContain("7 reader calls");
    expect($("[data-testid=estimate-tie-breaker]")?.className).toBe("estimate__chosen");
    await click("[data-testid=start]");
    expect(platform.launches[0]).toMatchObject({ engine: "agent", dual: "tie-breaker", secondProfile: "other", profile: "main" });
  });

  it("says a changed question needs its own protocol", async () => {
    platform.ollamaModels = ["qwen3:8b"];
    await openReview();
    await type("[data-testid=question]", "Which indexes help?");
    await vi.waitFor(() => {
      expect($("[data-testid=protocol-draft]")).not.toBeNull();
    });
    await click("[data-testid=protocol-draft]");
    await click("[data-testid=protocol-approve]");
    expect($("[data-testid=protocol-status]")?.textContent).toContain("drafted by fake-model");
    expect(($("[data-testid=start]") as HTMLButtonElement).disabled).toBe(false);
    await type("[data-testid=question]", "Which joins help?");
    await vi.waitFor(() => {
      expect($("[data-testid=protocol-status]")?.textContent).toContain("No protocol yet");
    });
    expect(($("[data-testid=start]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("shows why a run could not start", async () => {
    platform.startError = new QuireError("model_server", "unreachable", "cannot reach the model server at http://x: refused");
    await openReview();
    await type("[data-testid=question]", "q");
    await click("[data-testid=start]");
    expect($("[role=alert]")?.textContent).toContain("cannot reach the model server");
    // The error's kind says what to do about it.
    expect($("[role=alert]")?.textContent).toContain("Check that the model server is running");
    expect($("[data-testid=setup]")).not.toBeNull();
  });
});

describe("asking the papers", () => {
  it("asks as a batch when chosen, saying where the papers go and showing each batch", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    await click("[data-testid=to-ask]");
    await vi.waitFor(() => {
      expect($("[data-testid=ask]")).not.toBeNull();
    });
    await type("[data-testid=ask-question]", "How fast do they recover?");
    expect($("[data-testid=ask-batch-hint]")).toBeNull();
    await click("[data-testid=ask-batch]");
    expect($("[data-testid=ask-batch-hint]")?.textContent).toContain("Anthropic with the batch for up to 29 days");
    // Priced as a batch too, before anything is spent.
    await click("[data-testid=spend-estimate]");
    await settle();
    expect($("[data-testid=spend-batch]")?.textContent).toBe("As a batch: $0.03, answered within 24 hours a round (re-asks take one more)");
    await click("[data-testid=ask-submit]");
    await settle();
    expect(platform.askCalls[0]).toMatchObject({ question: "How fast do they recover?", batch: true });
    expect($("[data-testid=ask-batches]")?.textContent).toBe("r1-0 · done · 3 of 3 answered");
    expect($("[data-testid=ask-answer]")?.textContent).toContain("measures recovery in 3 seconds [1]");
  });

  it("answers with citations that open the paper at the quoted page, and keeps the question", async () => {
    await runToResults();
    // A model is there when the question is asked.
    platform.ollamaModels = ["qwen3:8b"];
    await click("[data-testid=to-ask]");
    await vi.waitFor(() => {
      expect($("[data-testid=ask]")).not.toBeNull();
    });
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await click("[data-testid=ask-submit]");
    expect(platform.askCalls[0]).toMatchObject({ workspace: ROOT, question: "How fast do they recover?", scope: { kind: "included" }, readAll: false });
    expect($("[data-testid=ask-answer]")?.textContent).toContain("measures recovery in 3 seconds [1]");
    expect($("[data-testid=ask-coverage]")?.textContent).toContain("3 papers considered, 3 read, 2 contributed");
    const citations = all("[data-testid=ask-answer] [data-testid=citation]");
    expect(citations.map((c) => c.textContent)).toEqual(["[1]", "[2]"]);
    await act(() => {
      (citations[1] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pdf-viewer]")).not.toBeNull();
    expect($("[data-testid=ask-history]")?.textContent).toContain("How fast do they recover?");
    // Into the review's report on request, and out again.
    await act(() => {
      ($("[data-testid=pdf-viewer] .modal__close, [data-testid=pdf-viewer] button[aria-label=Close]") as HTMLElement | null)?.click();
    });
    await click("[data-testid=ask-to-report]");
    expect(platform.asks.get(ROOT)?.[0]?.inReport).toBe(true);
    expect($("[data-testid=ask-to-report]")?.textContent).toBe("In the report ✓ (take out)");
    platform.nextSavePath = "/home/r/answer.md";
    await click("[data-testid=ask-export]");
    expect(platform.exported.at(-1)).toEqual({ format: "markdown", path: "/home/r/answer.md" });
  });

  it("estimates before asking, and a token cap stops the question before any paper is read", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    await click("[data-testid=to-ask]");
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await click("[data-testid=spend-estimate]");
    expect($("[data-testid=spend-line]")?.textContent).toBe(
      "3 papers to read · 4 model calls · about 45,000 tokens in and 1,500 out · $0.06",
    );
    // Changing the question makes the estimate stale: it goes.
    await type("[data-testid=ask-question]", "How fast do they recover from a crash?");
    expect($("[data-testid=spend-line]")).toBeNull();

    await type("[data-testid=cap-tokens]", "20000");
    await click("[data-testid=spend-estimate]");
    await click("[data-testid=ask-submit]");
    expect($("[data-testid=spend-line]")).toBeNull();
    expect(platform.askCalls.at(-1)).toMatchObject({ maxTokens: 20000, maxCostUsd: null });
    expect($("[data-testid=ask-result] [role=status]")?.textContent).toBe(
      "Stopped before it was answered: the token cap of 20000 would be crossed. Asking again resumes.",
    );
    expect($("[data-testid=ask-answer]")?.textContent).toBe("");
    expect($("[data-testid=ask-history]")?.textContent).toContain("stopped by a cap, not answered");
    // Nothing to put in the report or export until it is answered.
    expect($("[data-testid=ask-to-report]")).toBeNull();

    // No cap: answered, and asked again it has nothing new to read.
    await type("[data-testid=cap-tokens]", "");
    await click("[data-testid=ask-submit]");
    expect($("[data-testid=ask-answer]")?.textContent).toContain("[1]");
    await click("[data-testid=spend-estimate]");
    expect($("[data-testid=spend-line]")?.textContent).toBe("Nothing new to read: all 3 papers were read before.");
  });

  it("shows how far a question has got while the papers are read, and cancels it", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    let release = () => {};
    platform.askGate = new Promise((resolve) => {
      release = resolve;
    });
    await click("[data-testid=to-ask]");
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await click("[data-testid=ask-submit]");
    expect($("[data-testid=ask-progress]")?.textContent).toBe("Composing the answer from 2 verified claims…");
    expect($("[data-testid=ask-submit]")?.hasAttribute("disabled")).toBe(true);
    expect($("[data-testid=ask-cancel]")).not.toBeNull();
    await act(() => {
      release();
    });
    await settle();
    expect($("[data-testid=ask-progress]")).toBeNull();
    expect($("[data-testid=ask-cancel]")).toBeNull();
    expect($("[data-testid=ask-answer]")?.textContent).toContain("[2]");
  });

  it("asks only the papers the researcher chooses, and fills the table for them alone", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    await click("[data-testid=to-ask]");
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await choose("[data-testid=ask-scope]", "papers");
    expect(all("[data-testid=pick-paper]")).toHaveLength(3);
    // None chosen yet: nothing to ask.
    expect($("[data-testid=ask-submit]")?.hasAttribute("disabled")).toBe(true);
    await type("[aria-label='Find papers to choose']", "beta");
    expect(all("[data-testid=pick-paper]")).toHaveLength(1);
    await click("[data-testid=pick-paper]");
    expect($("[data-testid=ask-scope-chosen]")?.textContent).toBe("1 paper chosen");
    await click("[data-testid=ask-submit]");
    expect(platform.askCalls.at(-1)?.scope).toEqual({ kind: "papers", ids: ["p2"] });
    expect($("[data-testid=ask-coverage]")?.textContent).toContain("1 paper considered, 1 read");

    await click("[data-testid=to-table]");
    await vi.waitFor(() => {
      expect($("[data-testid=table]")).not.toBeNull();
    });
    await choose("[data-testid=column-template]", "dataset");
    await choose("[data-testid=table-scope]", "papers");
    expect($("[data-testid=table-fill]")?.hasAttribute("disabled")).toBe(true);
    await click("[data-testid=pick-paper]");
    await click("[data-testid=table-fill]");
    expect(platform.fills.at(-1)?.scope).toEqual({ kind: "papers", ids: ["p1"] });
    expect($("[data-testid=table-outcome]")?.textContent).toBe("1 paper: 1 read now, 1 cell filled, 0 of them unsure");
    expect(all("[data-testid=table-row]")).toHaveLength(1);
  });

  it("says asking with no model costs nothing", async () => {
    await runToResults();
    await click("[data-testid=to-ask]");
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await click("[data-testid=spend-estimate]");
    expect($("[data-testid=spend-no-model]")?.textContent).toContain("best-matching passages, at no cost");
    expect($("[role=alert]")).toBeNull();
  });

  it("gives passages, labelled as such, with no model", async () => {
    await runToResults();
    await click("[data-testid=to-ask]");
    await type("[data-testid=ask-question]", "How fast do they recover?");
    await click("[data-testid=ask-submit]");
    expect($("[data-testid=ask-mode]")?.textContent).toContain("Passages, not an answer");
    expect($("[data-testid=ask-answer]")).toBeNull();
    expect(all("[data-testid=citation]")).toHaveLength(2);
  });
});

describe("the extraction table", () => {
  it("shows how far a fill has got, with Cancel, until it is done", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    platform.tableCols.set(ROOT, [{ id: "dataset", name: "Dataset", instruction: "The dataset.", kind: { kind: "text" } }]);
    let release = () => {};
    platform.fillGate = new Promise((resolve) => {
      release = resolve;
    });
    await click("[data-testid=to-table]");
    await vi.waitFor(() => {
      expect($("[data-testid=table-fill]")).not.toBeNull();
    });
    await click("[data-testid=table-fill]");
    expect($("[data-testid=table-progress]")?.textContent).toBe("Filling: 3 of 3 papers done…");
    expect($("[data-testid=table-cancel]")).not.toBeNull();
    await act(() => {
      release();
    });
    await settle();
    expect($("[data-testid=table-progress]")).toBeNull();
    expect($("[data-testid=table-cancel]")).toBeNull();
    expect($("[data-testid=table-outcome]")?.textContent).toBe("3 papers: 3 read now, 3 cells filled, 1 of them unsure");

    // Filled again, every paper is current.
    platform.fillGate = new Promise((resolve) => {
      release = resolve;
    });
    await click("[data-testid=table-fill]");
    expect($("[data-testid=table-progress]")?.textContent).toBe("Filling: 3 of 3 papers done (3 were current)…");
    await act(() => {
      release();
    });
    await settle();
  });

  it("fills as a batch when asked, saying where the papers go and showing each batch", async () => {
    await runToResults();
    platform.ollamaModels = ["qwen3:8b"];
    platform.tableCols.set(ROOT, [{ id: "dataset", name: "Dataset", instruction: "The dataset.", kind: { kind: "text" } }]);
    await click("[data-testid=to-table]");
    await vi.waitFor(() => {
      expect($("[data-testid=table-fill]")).not.toBeNull();
    });
    expect($("[data-testid=table-batch-hint]")).toBeNull();
    await click("[data-testid=table-batch]");
    const hint = $("[data-testid=table-batch-hint]")?.textContent ?? "";
    expect(hint).toContain("OpenAI keeps it as files under its terms for stored files");
    expect(hint).toContain("Anthropic with the batch for up to 29 days");
    await click("[data-testid=table-fill]");
    await settle();
    expect(platform.fills.at(-1)).toMatchObject({ workspace: ROOT, batch: true });
    expect($("[data-testid=table-batches]")?.textContent).toBe("r1-0 · done · 3 of 3 answered");
    expect($("[data-testid=table-outcome]")?.textContent).toBe("3 papers: 3 read now, 3 cells filled, 1 of them unsure");
  });

  it("copies another review's columns, and says when it has none", async () => {
    await runToResults();
    const other = "/data/workspaces/ml";
    const [dbs] = platform.workspaces;
    if (dbs === undefined) throw new Error("the review under test is listed");
    platform.workspaces.push({ ...dbs, id: "ml", root: other, title: "ml papers", source: "/papers/ml" });
    platform.tableCols.set(other, [{ id: "dataset", name: "Dataset", instruction: "The dataset.", kind: { kind: "text" } }]);
    await click("[data-testid=to-table]");
    await vi.waitFor(() => {
      expect($("[data-testid=columns-from]")).not.toBeNull();
    });
    const choices = all("[data-testid=columns-from] option").map((o) => o.textContent);
    expect(choices).toEqual(["Copy columns from…", "ml papers"]);
    await choose("[data-testid=columns-from]", other);
    expect(platform.tableCols.get(ROOT)?.map((c) => c.id)).toEqual(["dataset"]);
    expect($("[data-testid=table-columns]")?.textContent).toContain("Dataset");

    platform.tableCols.set(other, []);
    await choose("[data-testid=columns-from]", other);
    expect($("[data-testid=table] [role=alert]")?.textContent).toContain("has no table columns to copy");
  });

  it("fills the columns defined, opens a value's quote, and keeps the researcher's correction", async () => {
    await runToResults();
    await click("[data-testid=to-table]");
    await vi.waitFor(() => {
      expect($("[data-testid=table]")).not.toBeNull();
    });
    await choose("[data-testid=column-template]", "dataset");
    await type("[data-testid=column-name]", "Recovery time");
    await type("[data-testid=column-instruction]", "The recovery time they measure.");
    await choose("[data-testid=column-type]", "number");
    await type("[aria-label=Unit]", "s");
    await click("[data-testid=column-add]");
    expect(platform.tableCols.get(ROOT)?.map((c) => [c.id, c.kind])).toEqual([
      ["dataset", { kind: "text" }],
      ["recovery-time", { kind: "number", unit: "s" }],
    ]);
    platform.ollamaModels = ["qwen3:8b"];
    await click("[data-testid=spend-estimate]");
    expect($("[data-testid=spend-line]")?.textContent).toBe(
      "3 papers to read · 4 model calls · about 45,000 tokens in and 1,500 out · $0.06",
    );
    // A cap of 0 or a typo is refused with its reason, never "no limit".
    const fills = platform.fills.length;
    for (const bad of ["0", "10k"]) {
      await type("[data-testid=cap-tokens]", bad);
      await click("[data-testid=table-fill]");
      expect($("[role=alert]")?.textContent).toContain(`the token cap "${bad}" is not a positive number`);
      expect(platform.fills).toHaveLength(fills);
    }
    // A cap the fill would pass stops it before any paper is read.
    await type("[data-testid=cap-tokens]", "1000");
    await click("[data-testid=table-fill]");
    expect(platform.fills.at(-1)).toMatchObject({ scope: { kind: "included" }, maxTokens: 1000, maxCostUsd: null });
    expect($("[data-testid=table-outcome]")?.textContent).toBe(
      "3 papers: 0 read now, 0 cells filled, 0 of them unsure; stopped early (the token cap of 1000 would be crossed), filling again resumes",
    );
    expect($("[data-testid=spend-line]")).toBeNull();
    await type("[data-testid=cap-tokens]", "");
    await click("[data-testid=table-fill]");
    expect($("[data-testid=table-outcome]")?.textContent).toBe("3 papers: 3 read now, 6 cells filled, 2 of them unsure");
    await click("[data-testid=spend-estimate]");
    expect($("[data-testid=spend-line]")?.textContent).toBe("Nothing new to read: all 3 papers were read before.");
    expect(all("[data-testid=table-row]")).toHaveLength(3);
    await click("[data-testid=only-unsure]");
    expect(all("[data-testid=table-row]")).toHaveLength(1);
    await click("[data-testid=only-unsure]");

    // A value's page opens the paper there, the quote marked.
    await act(() => {
      (all("[data-testid=cell-page]")[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pdf-viewer]")).not.toBeNull();
    await act(() => {
      ($("[data-testid=pdf-viewer] button[aria-label=Close], [data-testid=pdf-viewer] .modal__close") as HTMLElement | null)?.click();
    });

    // The researcher's value replaces the extracted one, marked as theirs.
    const edit = all("button").find((b) => b.getAttribute("aria-label") === "Correct Recovery time") as HTMLButtonElement;
    await act(() => {
      edit.click();
    });
    await type("[data-testid=cell-input]", "42 s");
    await act(() => {
      ($("[data-testid=cell-input]") as HTMLInputElement).form?.requestSubmit();
    });
    await settle();
    const first = all("[data-testid=table-row]")[0]?.textContent ?? "";
    expect(first).toContain("42 s (yours)");
    expect(platform.tableCells.get(ROOT)?.get("p1")?.get("recovery-time")).toMatchObject({ value: "42 s", corrected: true, checked: true });
  });
});

describe("a dual-read review", () => {
  it("queues the papers whose readings disagree and shows both readings", async () => {
    await openReview();
    await type("[data-testid=question]", "q");
    await click("[data-testid=start]");
    await act(() => {
      platform.runEvent(ROOT, { type: "runStarted", runId: "r1", engine: "agent", papers: 3 });
      platform.finishDualRun(ROOT, "flag", { p1: 8, p2: 2, p3: 7 }, { p1: 9, p2: 1, p3: 2 });
    });
    await settle();
    await settle();
    const filter = $("[data-testid=filter-disagree]");
    expect(filter?.textContent).toBe("Readers disagree: 1 · 1 to settle");
    await click("[data-testid=filter-disagree]");
    const rows = all("[data-testid=result-row]");
    expect(rows).toHaveLength(1);
    expect(rows[0]?.textContent).toContain("maybe");
    await click("[data-testid=result-row]");
    await vi.waitFor(() => {
      expect($("[data-testid=pane-readings]")).not.toBeNull();
    });
    const readings = $("[data-testid=pane-readings]")?.textContent ?? "";
    expect(readings).toContain("The readings disagree · a disagreement is left to you, as maybe");
    expect(readings).toContain("First reading");
    expect(readings).toContain("Second reading (second-model): exclude 2.0");
    // Settling it from the keyboard takes it out of the count to settle.
    await press("i");
    expect($("[data-testid=filter-disagree]")?.textContent).toBe("Readers disagree: 1 · all settled");
    await click("[data-testid=filter-disagree]");
    expect(all("[data-testid=result-row]")).toHaveLength(3);
  });
});

describe("a running review", () => {
  it("shows each paper's phase, the agents' steps and prompt sizes, and cancels", async () => {
    await openReview();
    await type("[data-testid=question]", "How are query plans optimised?");
    await type("[data-testid=criteria]", "Reports an experiment\n\n");
    // On by default, and the form says what the lookups send.
    expect($("[data-testid=lookups-line]")?.textContent).toContain("DOI, arXiv id or title is sent, nothing else");
    await click("[data-testid=start]");
    expect(platform.launches[0]).toMatchObject({
      workspace: ROOT,
      question: "How are query plans optimised?",
      criteria: ["Reports an experiment"],
      engine: "offline",
      lookups: { enabled: true, contact: null },
    });
    await act(() => {
      platform.runEvent(ROOT, { type: "runStarted", runId: "r1", engine: "agent", papers: 3 });
      platform.runEvent(ROOT, { type: "paperStatus", paper: "p1", phase: "reading" });
      platform.runEvent(ROOT, { type: "paperStatus", paper: "p2", phase: "scored", detail: "7/10 include" });
      platform.runEvent(ROOT, {
        type: "agentStep",
        task: "t1",
        agent: "reviewer",
        step: 4,
        promptTokens: 2800,
        stableTokens: 1500,
        consolidation: false,
      });
      platform.runEvent(ROOT, { type: "toolCall", task: "t1", agent: "reviewer", step: 4, tool: "read_papers", ok: true, summary: "2 read" });
    });
    expect($("[data-testid=run-counts]")?.textContent).toContain("1 of 3 scored");
    const phases = all("[data-testid=board-paper]").map((p) => p.getAttribute("data-phase"));
    expect(phases).toEqual(["reading", "scored", "queued"]);
    expect($("[data-testid=activity]")?.textContent).toContain("reviewer step 4 · read_papers");
    expect($("[data-testid=token-chart]")?.textContent).toContain("reviewer: 1 steps, latest 2,800");
    await click("[data-testid=cancel]");
    expect(platform.cancelled).toEqual([ROOT]);
    await act(() => {
      platform.runEvent(ROOT, { type: "cancelled" });
    });
    await settle();
    expect($("[data-testid=run-status]")?.textContent).toContain("Cancelled");
    await click("[data-testid=resume]");
    expect(platform.launches).toHaveLength(2);
    expect(platform.launches[1]?.question).toBe("How are query plans optimised?");
  });

  it("offers to retry the papers whose reading failed", async () => {
    await openReview();
    await type("[data-testid=question]", "q");
    await click("[data-testid=start]");
    await act(() => {
      platform.runEvent(ROOT, { type: "runStarted", runId: "r1", engine: "agent", papers: 3 });
      platform.runEvent(ROOT, { type: "paperStatus", paper: "p2", phase: "failed", detail: "the model's answer was not JSON" });
    });
    platform.finishRun(ROOT, { p1: 8, p3: 5 });
    await settle();
    await click("[data-testid=retry-failed]");
    expect(platform.launches).toHaveLength(2);
    expect(platform.launches[1]?.question).toBe("q");
  });

  it("goes on while the researcher is on another screen", async () => {
    await openReview();
    await type("[data-testid=question]", "q");
    await click("[data-testid=start]");
    await click("[data-testid=back]");
    platform.runEvent(ROOT, { type: "runStarted", runId: "r1", engine: "offline", papers: 3 });
    platform.runEvent(ROOT, { type: "paperStatus", paper: "p1", phase: "scored" });
    await settle();
    await click("[data-testid=recent-open]");
    expect($("[data-testid=run-counts]")?.textContent).toContain("1 of 3 scored");
  });
});

describe("a review that did not finish", () => {
  it("says how far a cancelled review got when reopened, and resumes it with its question and settings", async () => {
    const review = newReview(ROOT, "dbs", "/papers/dbs");
    review.state = "cancelled";
    review.question = "How are query plans optimised?";
    review.engine = "offline";
    review.papers = review.papers.map((p, i) => (i === 0 ? { ...p, status: "ok", score: 7, verdict: "include" } : p));
    await openReview();
    platform.reviews.set(ROOT, review);
    await click("[data-testid=back]");
    await click("[data-testid=recent-open]");
    const banner = $("[data-testid=interrupted]")?.textContent ?? "";
    expect(banner).toContain("This review was cancelled: 1 of 3 papers are scored");
    await click("[data-testid=resume-interrupted]");
    expect(platform.launches).toHaveLength(1);
    expect(platform.launches[0]).toMatchObject({
      question: "How are query plans optimised?",
      engine: "offline",
      // The researcher's lookup setting holds on a resume, as on a start.
      lookups: { enabled: true, contact: null },
    });
  });
});

describe("a review whose inputs changed", () => {
  it("shows every stale paper as stale, counts none of them, and reads them again", async () => {
    await runToResults();
    platform.makeStale(ROOT, "made before the question changed");
    await click("[data-testid=back]");
    await click("[data-testid=recent-open]");
    const banner = $("[data-testid=stale]")?.textContent ?? "";
    expect(banner).toContain("3 papers were read under earlier inputs (made before the question changed)");
    expect($("[data-testid=results-count]")?.textContent).toContain("0 scored");
    const rows = all("[data-testid=result-row]");
    expect(rows.map((r) => r.querySelector(".col-status")?.textContent)).toEqual(["stale", "stale", "stale"]);
    expect(rows.every((r) => r.querySelector(".verdict") === null)).toBe(true);
    expect($("[data-testid=earlier-label]")).toBeNull();
    await act(() => {
      (rows[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-stale]")?.textContent).toContain("Stale: made before the question changed");
    expect($("[data-testid=pane-score]")).toBeNull();
    await click("[data-testid=read-stale]");
    expect(platform.launches.at(-1)).toMatchObject({ question: "How are query plans optimised?", engine: "offline" });
  });
});

describe("a label given under an earlier question", () => {
  it("is shown as such, and is no verdict", async () => {
    await runToResults();
    const view = platform.reviews.get(ROOT);
    if (view === undefined) throw new Error("no review");
    view.papers = view.papers.map((p, i) =>
      i === 0 ? { ...p, label: null, earlierLabel: { verdict: "include", score: null, note: null, at: "2026-12-01T10:00:00.000Z" } } : p,
    );
    await click("[data-testid=back]");
    await click("[data-testid=recent-open]");
    const marks = all("[data-testid=earlier-label]");
    expect(marks).toHaveLength(1);
    expect(marks[0]?.textContent).toContain("your include (earlier question)");
    expect(marks[0]?.getAttribute("title")).toContain("counted nowhere");
  });
});

describe("a paper excluded by a criterion", () => {
  it("says which criterion excluded it and opens the passage that fails it", async () => {
    await runToResults();
    const on = platform.results.get("p1");
    if (on === undefined) throw new Error("p1 has a result");
    platform.results.set("p1", {
      ...on,
      verdict: "exclude",
      excludedBy: "Does not study leader election",
      criteria: [
        {
          criterion: "Does not study leader election",
          outcome: "not_met",
          note: "It studies leader election.",
          evidence: { text: "We describe the leader election protocol.", page: 3 },
        },
      ],
    });
    await act(() => {
      (all("[data-testid=result-row]")[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=excluded-by]")?.textContent).toContain("Excluded by a criterion, whatever its relevance score: Does not study leader election");
    expect($("[data-testid=pane-score]")?.textContent).toBe("8.0");
    await click("[data-testid=criterion-quote]");
    expect($("[data-testid=pdf-viewer]")).not.toBeNull();
    expect($("[data-testid=pdf-page]")?.textContent).toContain("Page 3");
  });
});

describe("a reading to check", () => {
  it("shows what to check before trusting it, and a summary sentence no page retells without a page", async () => {
    await runToResults();
    const on = platform.results.get("p1");
    if (on === undefined) throw new Error("p1 has a result");
    platform.results.set("p1", {
      ...on,
      summary: [{ text: "It claims more than any page says.", page: 0 }, ...on.summary],
      doubts: ["page 2 of the paper addresses the model reading it (\"ignore previous instructions\")"],
    });
    await act(() => {
      (all("[data-testid=result-row]")[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-doubts]")?.textContent).toContain("Check before trusting");
    expect($("[data-testid=pane-doubts]")?.textContent).toContain("addresses the model reading it");
    const summary = $("[data-testid=pane-summary]")?.textContent ?? "";
    expect(summary).toContain("It claims more than any page says.");
    expect(summary).not.toContain("p. 0");
  });

  it("shows no such block for a reading with nothing to check", async () => {
    await runToResults();
    await act(() => {
      (all("[data-testid=result-row]")[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-doubts]")).toBeNull();
  });
});

describe("a review of thousands of papers", () => {
  /** ROOT holding `n` read papers, p0 scored highest down to p(n-1), opened from the recent list. */
  async function openLarge(n: number) {
    await openReview();
    const review = platform.reviews.get(ROOT);
    if (review === undefined) throw new Error("the review is there");
    const template = review.papers[0];
    if (template === undefined) throw new Error("a paper to copy");
    review.state = "done";
    review.question = "q";
    review.papers = Array.from({ length: n }, (_, i) => {
      const score = 10 - i / (n / 10);
      return { ...template, id: `p${String(i)}`, title: `Paper ${String(i)}`, status: "ok", pages: 9, score, verdict: score >= 6.5 ? "include" : score >= 4 ? "maybe" : "exclude" };
    });
    await click("[data-testid=back]");
    await click("[data-testid=recent-open]");
    await settle();
  }

  it("opens with its first page, draws only the rows in view, and asks for the rest as it scrolls", async () => {
    await openLarge(250);
    expect(platform.warmed).toContain(ROOT);
    expect($("[data-testid=results-count]")?.textContent).toContain("250 of 250 papers shown · 250 scored");
    const drawn = all("[data-testid=result-row]");
    expect(drawn.length).toBeGreaterThan(0);
    expect(drawn.length).toBeLessThan(40);
    expect(drawn[0]?.getAttribute("data-paper")).toBe("p0");
    // The first page came with the open: the table asked for nothing more
    // (the setup panel shown before the run listed every file).
    const tableQueries = () => platform.rowQueries.filter((q) => q.sort !== "listed");
    expect(tableQueries()).toEqual([]);

    await act(() => {
      const body = $(".table__body") as HTMLElement;
      body.scrollTop = 150 * 44;
      body.dispatchEvent(new Event("scroll"));
    });
    await settle();
    await settle();
    expect(tableQueries().map((q) => [q.offset, q.limit])).toContainEqual([100, 100]);
    const row151 = all("[data-testid=result-row]").find((r) => r.getAttribute("aria-rowindex") === "151");
    expect(row151?.getAttribute("data-paper")).toBe("p150");
    // Pages not asked for are never fetched: nothing past the second.
    expect(tableQueries().every((q) => q.offset < 200)).toBe(true);
  });

  it("lists a new review's first 200 files, every unreadable one among them, until asked for all", async () => {
    await openReview();
    const review = platform.reviews.get(ROOT);
    const template = review?.papers[0];
    if (review === undefined || template === undefined) throw new Error("the review is there");
    review.papers = Array.from({ length: 250 }, (_, i) => ({
      ...template,
      id: `f${String(i)}`,
      file: `/papers/f${String(i)}.pdf`,
      status: i === 240 ? "encrypted" : "ok",
      reason: i === 240 ? "needs a password" : null,
      pages: 3,
    }));
    await click("[data-testid=back]");
    await click("[data-testid=recent-open]");
    await settle();
    const files = () => all("[data-testid=file]");
    expect(files()).toHaveLength(200);
    expect(files().some((f) => f.textContent.includes("needs a password"))).toBe(true);
    expect($(".files__note")?.textContent).toContain("200 of 250 listed.");
    await click("[data-testid=files-all]");
    expect(files()).toHaveLength(250);
    expect($("[data-testid=files-all]")).toBeNull();
  });

  it("filters in Quire: the query goes with the page asked, and the count is of every match", async () => {
    await openLarge(250);
    await type("[data-testid=filter-text]", "paper 12");
    await settle();
    await settle();
    const asked = platform.rowQueries.at(-1);
    expect(asked?.text).toBe("paper 12");
    expect(asked?.offset).toBe(0);
    // Every word somewhere: Paper 12, 112, 120 to 129 and 212, best first.
    expect($("[data-testid=results-count]")?.textContent).toContain("13 of 250 papers shown");
    expect(all("[data-testid=result-row]").map((r) => r.getAttribute("data-paper"))).toEqual([
      "p12",
      "p112",
      ...Array.from({ length: 10 }, (_, i) => `p${String(120 + i)}`),
      "p212",
    ]);
  });

  it("shows a label on its row at once and asks the pages again, since a label can move a row", async () => {
    await openLarge(250);
    await click("[data-testid=result-row]");
    expect($("[data-testid=result-row][aria-selected=true]")?.getAttribute("data-paper")).toBe("p0");
    await press("e");
    await settle();
    // Excluded by the researcher, p0 keeps its engine score (shown first)
    // but its verdict is the label's, and the pages were asked again.
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p0", label: { verdict: "exclude", score: null, note: null } });
    expect(platform.rowQueries.length).toBeGreaterThan(0);
    const first = all("[data-testid=result-row]")[0];
    expect(first?.textContent).toContain("exclude ✎");
  });
});

describe("the results", () => {
  it("lists every paper best first with a histogram, and opens one's detail", async () => {
    await runToResults();
    const rows = all("[data-testid=result-row]");
    expect(rows.map((r) => r.getAttribute("data-paper"))).toEqual(["p1", "p3", "p2"]);
    expect($("[data-testid=results-count]")?.textContent).toContain("3 of 3 papers shown · 3 scored");
    await act(() => {
      (rows[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-score]")?.textContent).toBe("8.0");
    expect($("[data-testid=pane-summary]")?.textContent).toContain("p. 4");
    expect($("[data-testid=quotes]")?.textContent).toContain("We evaluate on two data sets.");
  });

  it("says why a paper the model could not read has no score", async () => {
    await openReview();
    await type("[data-testid=question]", "q");
    await click("[data-testid=start]");
    platform.runEvent(ROOT, { type: "runStarted", runId: "r1", engine: "agent", papers: 3 });
    platform.finishRun(ROOT, { p1: 8, p3: 5 }, { p2: "the model's answer could not stand as a result after 2 asks" });
    await settle();
    await settle();
    const row = all("[data-testid=result-row]").find((r) => r.getAttribute("data-paper") === "p2");
    expect(row).toBeDefined();
    await act(() => {
      (row as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-failure]")?.textContent).toBe(
      "Could not be scored by tiny-270m: the model's answer could not stand as a result after 2 asks",
    );
    expect($("[data-testid=pane-score]")).toBeNull();
  });

  it("shows where a paper's record came from, its venue, DOI and abstract", async () => {
    platform.metas.set("p1", {
      authors: [{ given: "Leslie", family: "Lamport" }],
      year: 2001,
      doi: "10.1145/568425.568433",
      arxiv: null,
      venue: "ACM SIGACT News",
      abstract: "The Paxos algorithm, when presented in plain English, is very simple.",
      sources: { title: "crossref", authors: "crossref", year: "crossref", venue: "crossref", abstract: "pdf" },
    });
    await runToResults();
    await act(() => {
      (all("[data-testid=result-row]")[0] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-sources]")?.textContent).toBe(
      "Title, authors, year and venue from Crossref · Abstract from the PDF",
    );
    expect($(".pane__facts")?.textContent).toContain("ACM SIGACT News · DOI 10.1145/568425.568433");
    expect($("[data-testid=pane-abstract]")?.textContent).toContain("plain English");
    // A record read from the PDF alone needs no line.
    platform.metas.set("p3", { authors: [], year: null, doi: null, arxiv: null, sources: { title: "pdf" } });
    await act(() => {
      (all("[data-testid=result-row]")[1] as HTMLElement).click();
    });
    await settle();
    expect($("[data-testid=pane-sources]")).toBeNull();
  });

  it("corrects a paper's details from the pane, and the table shows them", async () => {
    await runToResults();
    await act(() => {
      (all("[data-testid=result-row]")[0] as HTMLElement).click();
    });
    await settle();
    await click("[data-testid=meta-edit]");
    const input = async (selector: string, value: string) => {
      await act(() => {
        const el = $(selector) as HTMLInputElement;
        el.value = value;
        el.dispatchEvent(new Event("input", { bubbles: true }));
      });
    };
    await input("[data-testid=meta-year]", "soon");
    await click("[data-testid=meta-save]");
    expect($("[data-testid=meta-editor]")?.textContent).toContain("soon is not a year.");
    expect(platform.metaCalls).toHaveLength(0);
    await input("[data-testid=meta-title]", "Paxos Made Simple");
    await input("[data-testid=meta-authors]", "Leslie Lamport\n\n");
    await input("[data-testid=meta-year]", "2001");
    await click("[data-testid=meta-save]");
    expect(platform.metaCalls[0]).toEqual({
      paper: "p1",
      change: { title: "Paxos Made Simple", authors: ["Leslie Lamport"], year: 2001 },
    });
    expect($("[data-testid=meta-editor]")).toBeNull();
    expect($("[data-testid=pane-title]")?.textContent).toBe("Paxos Made Simple");
    expect($("[data-testid=pane-sources]")?.textContent).toBe("Title, authors and year from your correction");
    expect($("[data-testid=result-row][data-paper=p1]")?.textContent).toContain("Paxos Made Simple");
    await click("[data-testid=meta-edit]");
    await click("[data-testid=meta-restore]");
    expect(platform.metaCalls[1]).toEqual({ paper: "p1", change: null });
    expect($("[data-testid=pane-title]")?.textContent).not.toBe("Paxos Made Simple");
  });

  it("labels from the keyboard, overrides a score, and undoes", async () => {
    await runToResults();
    await press("j");
    await press("e");
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p1", label: { verdict: "exclude", score: null, note: null } });
    expect($("[data-testid=pane-label]")?.textContent).toContain("exclude");
    await press("j");
    await press("9");
    // p3 now scores 9 by the researcher's hand and moves to the top.
    expect(all("[data-testid=result-row]").map((r) => r.getAttribute("data-paper"))).toEqual(["p3", "p1", "p2"]);
    await press("u");
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p3", label: null });
    await press("u");
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p1", label: null });
    await press("u");
    expect($("[data-testid=results-message]")?.textContent).toBe("Nothing to undo.");
  });

  it("filters by text and verdict and says when nothing matches", async () => {
    await runToResults();
    await type("[data-testid=filter-text]", "gamma");
    expect(all("[data-testid=result-row]").map((r) => r.getAttribute("data-paper"))).toEqual(["p3"]);
    await choose("[data-testid=filter-verdict]", "include");
    expect($("[data-testid=results-empty]")?.textContent).toContain("No paper matches");
  });

  it("exports through the save dialog, and does nothing when it is cancelled", async () => {
    await runToResults();
    platform.nextSavePath = null;
    await click("[data-testid=export-markdown]");
    expect(platform.exported).toEqual([]);
    platform.nextSavePath = "/home/user/review.md";
    await click("[data-testid=export-markdown]");
    expect(platform.exported).toEqual([{ format: "markdown", path: "/home/user/review.md" }]);
    expect($("[data-testid=results-message]")?.textContent).toBe("Saved /home/user/review.md");
  });
});

describe("screening validation", () => {
  beforeEach(() => {
    // Blind labelling is the default; a test that turns the reveal on must not leak it.
    localStorage.removeItem("quire.validation.reveal");
  });

  const pressIn = async (selector: string, key: string) => {
    await act(() => {
      $(selector)?.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    });
    await settle();
  };

  it("proposes a sample, hides the engine's verdict while labelling, and applies the cut-offs only on request", async () => {
    await runToResults();
    await click("[data-testid=to-validation]");
    expect($("[data-testid=validation-figures]")?.textContent).toContain("uncalibrated");
    expect($("[data-testid=apply-cutoffs]")).toBeNull();

    await type("[data-testid=sample-size]", "2");
    await click("[data-testid=propose-sample]");
    expect(platform.validationCalls.at(-1)).toMatchObject({ workspace: ROOT, sample: 2, target: 0.95 });
    expect($("[data-testid=queue-progress]")?.textContent).toContain("0 of 2 labelled");
    // Blind: the paper, not the engine's call on it.
    expect($("[data-testid=queue-paper]")?.getAttribute("data-paper")).toBe("p1");
    expect($("[data-testid=queue-engine]")).toBeNull();

    // Keys label the paper on top of the queue, and the next one comes up.
    await pressIn("[data-testid=validation-queue]", "i");
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p1", label: { verdict: "include", score: null, note: null } });
    expect($("[data-testid=queue-paper]")?.getAttribute("data-paper")).toBe("p2");
    await click("[data-testid=label-maybe]");
    expect($("[data-testid=sample-done]")?.textContent).toContain("All 2 papers of the sample are labelled");
    // Not supported yet: how many more and where, drawn into the queue on
    // request (never "label more papers from the results").
    expect($("[data-testid=sample-done]")?.textContent).not.toContain("from the results");
    expect($("[data-testid=more-labels]")?.textContent).toContain("about 1 more labels are needed (1 scoring 0.0-2.0)");
    await click("[data-testid=extend-sample]");
    expect(platform.validationCalls.at(-1)).toMatchObject({ extend: true });
    expect($("[data-testid=queue-progress]")?.textContent).toContain("2 of 3 labelled");
    await click("[data-testid=label-include]");
    expect($("[data-testid=sample-done]")?.textContent).toContain("All 3 papers of the sample are labelled");
    expect($("[data-testid=validation-figures]")?.textContent).toContain("From the validation sample: 3 labels, 3 of them relevant");

    // The labels support lower cut-offs; nothing changes until they are applied.
    const verdictOf = (id: string) => platform.reviews.get(ROOT)?.papers.find((p) => p.id === id)?.verdict;
    expect(verdictOf("p2")).toBe("exclude");
    expect($("[data-testid=apply-cutoffs]")?.textContent).toContain("maybe from 3.0");
    await click("[data-testid=apply-cutoffs]");
    expect(platform.validationCalls.at(-1)).toMatchObject({ apply: true });
    expect(verdictOf("p2")).toBe("maybe");
    await click("[data-testid=to-results]");
    const row = all("[data-testid=result-row]").find((r) => r.getAttribute("data-paper") === "p2");
    expect(row?.textContent).toContain("maybe");

    // And back.
    await click("[data-testid=to-validation]");
    await click("[data-testid=reset-cutoffs]");
    expect(verdictOf("p2")).toBe("exclude");
  });

  it("shows the engine's verdict while labelling when the researcher asks to", async () => {
    await runToResults();
    await click("[data-testid=to-validation]");
    await click("[data-testid=reveal-verdict]");
    await type("[data-testid=sample-size]", "2");
    await click("[data-testid=propose-sample]");
    expect($("[data-testid=queue-engine]")?.textContent).toContain("Engine: include (8.0)");
  });

  it("refuses a sample of no papers with its reason, asking nothing", async () => {
    await runToResults();
    await click("[data-testid=to-validation]");
    const calls = platform.validationCalls.length;
    await type("[data-testid=sample-size]", "0");
    await click("[data-testid=propose-sample]");
    expect($("[role=alert]")?.textContent).toContain("at least one");
    expect(platform.validationCalls).toHaveLength(calls);
  });
});

describe("the PRISMA flow", () => {
  it("draws the review's flow with the researcher's exclusions apart from the engine's", async () => {
    await runToResults();
    // p2 (3.0) is the engine's exclusion; the researcher excludes p3 (5.0) too.
    await platform.setLabel(ROOT, "p3", { verdict: "exclude" });
    await click("[data-testid=show-flow]");
    const box = (id: string) => $(`[data-testid=prisma-${id}]`)?.textContent ?? "";
    expect(box("identified")).toContain("n = 3");
    expect(box("screened")).toContain("n = 3");
    expect(box("excluded")).toContain("n = 2");
    expect(box("excluded")).toContain("By automation (the engine, unchecked): 1");
    expect(box("excluded")).toContain("By the researcher: 1");
    expect(box("included")).toContain("n = 1");
    await click("[data-testid=prisma-close]");
    expect($("[data-testid=prisma-flow]")).toBeNull();
  });

  it("offers the flow's counts as an export", async () => {
    await runToResults();
    platform.nextSavePath = "/home/r/flow.csv";
    await click("[data-testid=export-prisma]");
    expect(platform.exported.at(-1)).toEqual({ format: "prisma", path: "/home/r/flow.csv" });
  });
});

describe("search records", () => {
  it("says under a file what to know of how it was read", async () => {
    await openReview();
    platform.nextRecordFiles = ["/search/cut-short.ris"];
    await click("[data-testid=add-records]");
    expect($("[data-testid=import-file]")?.textContent).toContain("2 records (RIS), 2 new");
    expect(all("[data-testid=import-notices] li").map((e) => e.textContent)).toEqual([
      "the file ends inside record 2 (line 9), before its closing ER  - line",
    ]);
  });

  it("asks whether an added export is a newer run of a search, and shows what changed and what left", async () => {
    await openReview();
    platform.nextRecordFiles = ["/search/pubmed.ris"];
    await click("[data-testid=add-records]");
    // The first export is a search of its own: nothing to ask.
    expect($("[data-testid=newer-run]")).toBeNull();
    await click("[data-testid=import-outcome] .banner__close");

    platform.nextRecordFiles = ["/search/pubmed-2027.ris"];
    await click("[data-testid=add-records]");
    expect($("[data-testid=newer-run]")?.textContent).toContain("Add pubmed-2027.ris");
    expect(all("[data-testid=newer-run-of]").map((e) => e.textContent)).toEqual(["A newer run of pubmed.ris"]);
    expect($("[data-testid=newer-run]")?.textContent).toContain("RIS, 2 records");
    expect(platform.imports).toHaveLength(1);
    await click("[data-testid=newer-run-of]");
    expect($("[data-testid=newer-run]")).toBeNull();
    expect(platform.imports[1]).toEqual({ workspace: ROOT, files: ["/search/pubmed-2027.ris"], replaces: "/search/pubmed.ris" });
    const update = $("[data-testid=import-update]")?.textContent ?? "";
    expect(update).toContain("A newer run of the search in pubmed.ris.");
    expect(update).toContain("1 record changed since the earlier export, labels kept; 1 whose title or abstract changed will be read again.");
    expect(update).toContain("1 record left the search (kept, marked so): “Record 2 of /search/pubmed.ris”");

    // Asked again, the researcher can say it is a search of its own.
    platform.nextRecordFiles = ["/search/embase.ris"];
    await click("[data-testid=add-records]");
    expect(all("[data-testid=newer-run-of]").map((e) => e.textContent)).toEqual(["A newer run of pubmed-2027.ris"]);
    expect($("[data-testid=newer-run]")?.textContent).toContain("(1 left the search)");
    await click("[data-testid=newer-run-none]");
    expect(platform.imports[2]).toEqual({ workspace: ROOT, files: ["/search/embase.ris"], replaces: null });
  });

  it("shows an import under way with its records counted, until it is done", async () => {
    await openReview();
    let release = () => {};
    platform.holdImport = new Promise<void>((resolve) => {
      release = resolve;
    });
    platform.nextRecordFiles = ["/search/pubmed.ris"];
    await click("[data-testid=add-records]");
    expect($("[data-testid=import-underway]")?.textContent).toContain("Importing records: 0 of 2");
    expect($("[data-testid=import-underway] [role=progressbar]")?.getAttribute("aria-valuenow")).toBe("0");
    expect($("[data-testid=import-outcome]")).toBeNull();
    await act(() => {
      release();
    });
    await settle();
    expect($("[data-testid=import-underway]")).toBeNull();
    expect($("[data-testid=import-outcome]")?.textContent).toContain("2 new records added");
  });

  it("imports the exports chosen, says what each gave and which could not be read, and shows duplicates", async () => {
    await openReview();
    expect($("[data-testid=duplicates]")).toBeNull();
    platform.nextRecordFiles = ["/search/pubmed.ris", "/search/notes.docx"];
    await click("[data-testid=add-records]");
    expect(platform.imports).toEqual([{ workspace: ROOT, files: ["/search/pubmed.ris", "/search/notes.docx"], replaces: null }]);
    const outcome = $("[data-testid=import-outcome]")?.textContent ?? "";
    expect(outcome).toContain("2 new records added");
    expect(all("[data-testid=import-file]").map((e) => e.textContent)).toEqual(["/search/pubmed.ris: 2 records (RIS), 2 new"]);
    expect($("[data-testid=import-file-failed]")?.textContent).toContain("not a search export");
    // The review is read again: its records count beside its files.
    expect($(".review-screen__title .muted")?.textContent).toContain("3 files · 2 records");
    const groups = all("[data-testid=duplicate-group]");
    expect(groups).toHaveLength(1);
    expect(groups[0]?.textContent).toContain("the same DOI");
    expect(groups[0]?.textContent).toContain("RIS record");

    // A copy set aside is marked, and can be put back.
    await click("[data-testid=duplicate-set-aside]");
    expect(platform.setAsideCalls).toEqual([{ workspace: ROOT, paper: "r5", of: "p1" }]);
    expect($("[data-testid=duplicates] summary")?.textContent).toContain("(1 settled)");
    expect(all("[data-testid=duplicate-member]").map((m) => (m as HTMLElement).dataset.setAside)).toEqual(["false", "true"]);
    await click("[data-testid=duplicate-put-back]");
    expect(platform.setAsideCalls.at(-1)).toEqual({ workspace: ROOT, paper: "r5", of: null });
    expect($("[data-testid=duplicate-set-aside]")).not.toBeNull();
  });

  it("attaches a folder of PDFs as the records' full text and says which matched", async () => {
    await openReview();
    // Only a review with records offers it.
    expect($("[data-testid=attach-full-text]")).toBeNull();
    platform.nextRecordFiles = ["/search/pubmed.ris"];
    await click("[data-testid=add-records]");
    platform.nextPick = "/pdfs";
    await click("[data-testid=attach-full-text]");
    expect(platform.fullTextCalls).toEqual([{ workspace: ROOT, folder: "/pdfs" }]);
    const outcome = $("[data-testid=full-text-outcome]")?.textContent ?? "";
    expect(outcome).toContain("3 PDFs in /pdfs: 2 matched to records; 2 of the review's 2 records have full text now.");
    expect(all("[data-testid=full-text-attached]").map((e) => e.textContent)).toEqual([
      "r4.pdf: the full text of “Record 1 of /search/pubmed.ris” (by title)",
      "r5.pdf: the full text of “Record 2 of /search/pubmed.ris” (by title)",
    ]);
    expect($("[data-testid=full-text-unmatched]")?.textContent).toContain("no record (no DOI on its first page");
    expect($(".review-screen__title .muted")?.textContent).toContain("6 files · 2 records · 2 with full text");
    const files = all("[data-testid=file] .file__status").map((e) => e.textContent);
    expect(files).toContain("Readable · RIS record, title and abstract (full text attached)");
    expect(files.filter((f) => f.endsWith("· a record's full text"))).toHaveLength(2);
    // A cancelled dialog asks nothing.
    platform.nextPick = null;
    await click("[data-testid=attach-full-text]");
    expect(platform.fullTextCalls).toHaveLength(1);
  });

  it("asks nothing of the backend when the dialog is cancelled", async () => {
    await openReview();
    platform.nextRecordFiles = [];
    await click("[data-testid=add-records]");
    expect(platform.imports).toEqual([]);
    expect($("[data-testid=import-outcome]")).toBeNull();
  });
});

describe("screening", () => {
  const keyIn = async (key: string) => {
    await act(() => {
      $("[data-testid=screen-panel]")?.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
    });
    await settle();
  };

  it("serves one paper at a time, labels it by key, serves the next the core orders, and undoes", async () => {
    await openReview();
    await click("[data-testid=to-screen]");
    expect($("[data-testid=screen-progress]")?.textContent).toContain("Screened 0 of 3");
    expect($("[data-testid=screen-basis]")?.textContent).toContain("records' own order");
    expect($("[data-testid=screen-abstract]")?.textContent).toBe("The abstract of p1.");
    expect(all("[data-testid=screen-next] li")).toHaveLength(2);
    expect($("[data-testid=screen-stopping]")?.textContent).toContain("Label papers as the queue serves them");

    await keyIn("i");
    expect($("[data-testid=screen-stopping]")?.textContent).toBe(
      "Keep screening: 95% recall is not shown yet (p = 0.500; at least 60% shown found). 0 screened since the last one kept.",
    );
    // Labelled as the queue served it: with the serve's token.
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p1", label: { verdict: "include", score: null, note: null, serve: "serve-1" } });
    expect($("[data-testid=screen-abstract]")?.textContent).toBe("The abstract of p2.");
    expect($("[data-testid=screen-progress]")?.textContent).toContain("Screened 1 of 3 · kept 1");
    await click("[data-testid=screen-exclude]");
    expect($("[data-testid=screen-basis]")?.textContent).toContain("learned from your labels");
    expect($("[data-testid=recall-curve]")?.textContent).toContain("1 kept in the first 2 screened");
    const stopping = $("[data-testid=screen-stopping]") as HTMLElement | null;
    expect(stopping?.dataset.met).toBe("true");
    expect(stopping?.textContent).toBe(
      "You may stop: with 95% confidence, at least 95% of the relevant papers are found (p = 0.010, from 2 labels in the queue's order).",
    );
    expect(stopping?.title).toContain("the fake rule");

    await keyIn("u");
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p2", label: null });
    expect($("[data-testid=screen-progress]")?.textContent).toContain("Screened 1 of 3");
  });

  it("asks for a question when the review has none, and orders by it", async () => {
    await openReview();
    await click("[data-testid=to-screen]");
    await type("[data-testid=screen-question]", "Which drugs treat ADHD?");
    await act(() => {
      ($("[data-testid=screen-question]") as HTMLInputElement).form?.requestSubmit();
    });
    await settle();
    expect(platform.screeningCalls.at(-1)?.question).toBe("Which drugs treat ADHD?");
    expect($("[data-testid=screen-basis]")?.textContent).toContain("likeness to the question");
    expect($("[data-testid=screen-question]")).toBeNull();
  });

  it("finds a paper the researcher knows by its words and labels it from there", async () => {
    await openReview();
    await click("[data-testid=to-screen]");
    await type("[data-testid=screen-find-words]", "beta");
    await act(() => {
      ($("[data-testid=screen-find-words]") as HTMLInputElement).form?.requestSubmit();
    });
    await settle();
    expect(platform.screeningCalls.at(-1)?.find).toBe("beta");
    expect(all("[data-testid=screen-found] li")).toHaveLength(1);
    await click("[data-testid=found-include]");
    // Picked by hand: no serve's token, so no sample for the stopping rule.
    expect(platform.labelCalls.at(-1)).toEqual({ paper: "p2", label: { verdict: "include", score: null, note: null, serve: null } });
    // Labelled, it is found no more.
    expect($("[data-testid=screen-found-none]")).not.toBeNull();
    expect($("[data-testid=screen-progress]")?.textContent).toContain("Screened 1 of 3 · kept 1");
  });

  it("says when every paper has a label", async () => {
    await openReview();
    await click("[data-testid=to-screen]");
    for (let i = 0; i < 3; i++) await click("[data-testid=screen-maybe]");
    expect($("[data-testid=screen-done]")).not.toBeNull();
    expect($("[data-testid=screen-progress]")?.textContent).toContain("Screened 3 of 3 · kept 3");
  });
});
