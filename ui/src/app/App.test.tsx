import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { QuireError } from "../platform";
import { FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto, settle } from "../testing/render";
import { App } from "./App";

let host: HTMLElement;
let platform: FakePlatform;

async function mount() {
  await mountInto(host, <App platform={platform} />);
}

const $ = (selector: string) => host.querySelector(selector);
const items = () => [...host.querySelectorAll("[data-testid=recent-item]")];
const text = () => host.textContent;

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
});

afterEach(() => {
  destroyHost(host);
});

describe("first screen", () => {
  it("shows a designed empty state when there are no reviews", async () => {
    await mount();
    expect($("[data-testid=recent-empty]")?.textContent).toContain("No reviews yet");
    expect($("[data-testid=dropzone]")?.textContent).toContain("Drop a folder of PDFs");
    expect(items()).toHaveLength(0);
  });

  it("lists recent reviews with their counts and status", async () => {
    const created = await platform.createWorkspace("/papers/ml");
    platform.workspaces = [{ ...created, paperCount: 26, duplicateCount: 2, status: "done" }];
    await mount();
    expect(items()).toHaveLength(1);
    expect(items()[0]?.textContent).toContain("ml");
    expect(items()[0]?.textContent).toContain("26 papers · 2 duplicates skipped");
    expect(items()[0]?.textContent).toContain("Done");
  });

  it("opens a dropped folder as a new review listing its files", async () => {
    await mount();
    await act(() => {
      platform.drag({ type: "enter", paths: ["/papers/databases"] });
    });
    expect($("[data-testid=dropzone]")?.classList.contains("dropzone--active")).toBe(true);
    expect(text()).toContain("Release to open");
    await act(() => {
      platform.drag({ type: "drop", paths: ["/papers/databases"] });
    });
    await settle();
    await settle();
    expect(platform.created).toEqual(["/papers/databases"]);
    expect($("[data-testid=review-title]")?.textContent).toBe("databases");
    expect(platform.prepared).toEqual(["/data/workspaces/databases"]);
    expect(host.querySelectorAll("[data-testid=file]")).toHaveLength(3);
    expect($("[data-testid=files]")?.textContent).toContain("Readable · 12 pages");
    await act(() => {
      ($("[data-testid=back]") as HTMLButtonElement).click();
    });
    await settle();
    expect(items()).toHaveLength(1);
    expect(items()[0]?.classList.contains("review--new")).toBe(true);
    expect(items()[0]?.textContent).toContain("/papers/databases");
  });

  it("calms down when a drag leaves without dropping", async () => {
    await mount();
    await act(() => {
      platform.drag({ type: "enter", paths: ["/x"] });
    });
    await act(() => {
      platform.drag({ type: "leave" });
    });
    expect($("[data-testid=dropzone]")?.classList.contains("dropzone--active")).toBe(false);
    expect(platform.created).toEqual([]);
  });

  it("refuses a drop of several items with a clear reason", async () => {
    await mount();
    await act(() => {
      platform.drag({ type: "drop", paths: ["/a.pdf", "/b.pdf"] });
    });
    await settle();
    expect(platform.created).toEqual([]);
    expect($("[role=alert]")?.textContent).toContain("You dropped 2 items");
  });

  it("opens several dropped search exports as one review: the first makes it, the rest are imported", async () => {
    await mount();
    await act(() => {
      platform.drag({ type: "drop", paths: ["/search/pubmed.ris", "/search/embase.ris"] });
    });
    await settle();
    expect(platform.created).toEqual(["/search/pubmed.ris"]);
    expect(platform.imports.map((i) => i.files)).toEqual([["/search/embase.ris"]]);
    expect($("[role=alert]")).toBeNull();
  });

  it("opens the folder chosen in the dialog, and does nothing when cancelled", async () => {
    await mount();
    const button = [...host.querySelectorAll("button")].find((b) => b.textContent === "Open folder…");
    platform.nextPick = null;
    await act(() => {
      button?.click();
    });
    await settle();
    expect(platform.created).toEqual([]);
    platform.nextPick = "/papers/pl";
    await act(() => {
      button?.click();
    });
    await settle();
    expect(platform.created).toEqual(["/papers/pl"]);
    expect($("[data-testid=review-title]")?.textContent).toBe("pl");
  });

  it("shows the command's error message and lets it be dismissed", async () => {
    platform.createError = new QuireError("not_found", "folder_not_found", "/gone does not exist");
    await mount();
    await act(() => {
      platform.drag({ type: "drop", paths: ["/gone"] });
    });
    await settle();
    expect($("[role=alert]")?.textContent).toContain("/gone does not exist");
    await act(() => {
      ($("[aria-label=Dismiss]") as HTMLButtonElement).click();
    });
    expect($("[role=alert]")).toBeNull();
  });

  it("refreshes when the shell announces a change and shows the index notice", async () => {
    await mount();
    await platform.createWorkspace("/elsewhere/made-by-cli");
    platform.notice = "the index is busy; try again";
    await act(() => {
      platform.announceChange();
    });
    await settle();
    expect(items()).toHaveLength(1);
    expect(text()).toContain("the index is busy");
  });

  it("stops listening when unmounted", async () => {
    await mount();
    expect(platform.listenerCount).toBe(2);
    await act(() => {
      render(null, host);
    });
    expect(platform.listenerCount).toBe(0);
  });
});
