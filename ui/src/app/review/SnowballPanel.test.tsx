import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { FakePlatform } from "../../testing/fakePlatform";
import { reviewedToResults } from "../../testing/recentReview";
import { createHost, destroyHost, settle } from "../../testing/render";

let host: HTMLElement;
let platform: FakePlatform;
const ROOT = "/data/workspaces/dbs";

const $ = (selector: string) => host.querySelector(selector);
const all = (selector: string) => [...host.querySelectorAll(selector)];
const text = (testId: string) => $(`[data-testid=${testId}]`)?.textContent ?? "";
const click = async (selector: string) => {
  await act(() => {
    ($(selector) as HTMLElement).click();
  });
  await settle();
  await settle();
};
const toggle = async (input: Element) => {
  await act(() => {
    (input as HTMLInputElement).click();
  });
  await settle();
  await settle();
};

/** The review of ROOT with p1 included, p2 excluded and p3 maybe. */
async function reviewed() {
  await reviewedToResults(host, platform, ROOT);
}

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
});

afterEach(() => {
  destroyHost(host);
});

describe("find more by citations", () => {
  it("shows the plan before any paid call, and counts again as seeds and directions change", async () => {
    await reviewed();
    await click("[data-testid=find-by-citations]");
    const seeds = all("[data-testid=snowball-seed]");
    expect(seeds.length).toBe(1);
    expect(seeds[0]?.textContent).toContain("Wp1: 2 references, cited by 1");
    expect(text("snowball-calls")).toContain("1 for references");
    expect(text("snowball-calls")).toContain("1 for citing works");
    expect(text("snowball-cost")).toContain("Cost: $0.0002 at OpenAlex's prices; $0.9900 of $1.0000 left today");
    expect(text("snowball-downloads")).toContain("Downloads: none until you approve them");
    expect(platform.snowballRuns).toEqual([]);

    const forward = $("[data-testid=snowball-way-forward]");
    if (forward === null) throw new Error("no forward box");
    await toggle(forward);
    expect(text("snowball-calls")).toContain("0 for citing works");
    expect(text("snowball-cost")).toContain("$0.0001");

    // Unticking the only seed leaves nothing to run.
    const only = $("[data-testid=snowball-seed] input");
    if (only === null) throw new Error("no seed box");
    await toggle(only);
    expect(($("[data-testid=snowball-run]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("runs the round, adds its records to the review, and fetches only the approved open copies", async () => {
    await reviewed();
    await click("[data-testid=find-by-citations]");
    await click("[data-testid=snowball-run]");
    expect(platform.snowballRuns).toEqual([{ workspace: ROOT, seeds: ["p1"], directions: ["backward", "forward"] }]);
    expect(text("snowball-outcome")).toContain("Round 1: 4 works found, 3 new to the review");
    expect(text("snowball-outcome")).toContain("2 backward, 1 forward");
    expect(text("snowball-outcome")).toContain("1 with an open-access PDF listed, none downloaded");
    const view = platform.reviews.get(ROOT);
    if (view === undefined) throw new Error("no review");
    expect(view.papers.length).toBe(6);

    // Keep the two backward finds, as the researcher's screening would.
    for (const p of view.papers.filter((p) => p.imported?.citation?.via[0]?.direction === "backward")) {
      p.shownVerdict = "include";
    }
    await click("[data-testid=snowball-list-copies]");
    const offers = all("[data-testid=snowball-offer]");
    expect(offers.length).toBe(2);
    const open = offers.find((o) => o.textContent.includes("Example Repository"));
    const closed = offers.find((o) => o.textContent.includes("No PDF to fetch"));
    if (open === undefined || closed === undefined) throw new Error("offers not as expected");
    expect(open.textContent).toContain("acceptedVersion · licence cc-by · from OpenAlex");
    expect((closed.querySelector("input") as HTMLInputElement).disabled).toBe(true);
    expect(($("[data-testid=snowball-fetch]") as HTMLButtonElement).disabled).toBe(true);
    expect(platform.fetchCalls).toEqual([]);

    const box = open.querySelector("input");
    if (box === null) throw new Error("no approval box");
    await toggle(box);
    await click("[data-testid=snowball-fetch]");
    const paper = (open as HTMLElement).dataset.paper ?? "";
    expect(platform.fetchCalls).toEqual([{ workspace: ROOT, papers: [paper], contact: null }]);
    const fetched = all("[data-testid=snowball-fetched-item]");
    expect(fetched.map((f) => (f as HTMLElement).dataset.retrieved)).toEqual(["true"]);
    expect(fetched[0]?.textContent).toContain("downloaded, now its full text");
    // Listed again: only the record with no open copy is still waiting.
    expect(all("[data-testid=snowball-offer]").length).toBe(1);
  });
});
