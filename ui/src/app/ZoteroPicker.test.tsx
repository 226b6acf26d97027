import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { QuireError, type ZoteroCollection } from "../platform";
import { FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto, settle } from "../testing/render";
import { App } from "./App";
import { byLibrary } from "./ZoteroPicker";

let host: HTMLElement;
let platform: FakePlatform;

const $ = (id: string) => host.querySelector<HTMLElement>(`[data-testid=${id}]`);

async function click(id: string) {
  const el = $(id);
  if (el === null) throw new Error(`no ${id}`);
  await act(() => {
    el.click();
  });
  await settle();
  await settle();
}

function collection(library: string, path: string, key: string, items: number): ZoteroCollection {
  const mine = library === "My Library";
  return {
    library: { kind: mine ? "user" : "group", id: mine ? 0 : 4711, name: library },
    key,
    name: path.split(" / ").pop() ?? path,
    path,
    items,
  };
}

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
  platform.zotero = {
    via: "localApi",
    collections: [
      collection("My Library", "Thesis", "THESIS01", 0),
      collection("My Library", "Thesis / Chapter 2", "CHAP0002", 3),
      collection("Lab", "Reading", "READ0004", 1),
    ],
  };
});

afterEach(() => {
  destroyHost(host);
});

describe("Open a Zotero collection", () => {
  it("lists the collections by library and opens one as a review", async () => {
    await mountInto(host, <App platform={platform} />);
    await click("zotero-open");
    expect($("zotero-via")?.textContent).toContain("Read from the running Zotero");
    const chapter = $("zotero-collection-CHAP0002");
    expect(chapter?.textContent).toContain("Chapter 2");
    expect(chapter?.textContent).toContain("3 items");
    expect(host.querySelector(".zotero-picker")?.textContent).toContain("Lab");

    await click("zotero-collection-CHAP0002");
    expect(platform.created).toEqual(["/data/zotero/user-CHAP0002/collection.zotero.json"]);
    // The review screen is open on the collection's review.
    expect($("dropzone")).toBeNull();

    // Write to Zotero: without a key it says where to get one; with one it
    // says what was written.
    await click("write-to-zotero");
    expect(host.querySelector("[role=alert]")?.textContent).toContain("zotero.org/settings/keys");
    platform.zoteroKey = "zkey";
    await click("write-to-zotero");
    expect(platform.pushes).toHaveLength(1);
    expect($("zotero-push-outcome")?.textContent).toContain("Zotero: 3 items. 3 tagged, 3 notes created, 0 updated");
    expect($("zotero-push-kept")).toBeNull();

    // An item carrying the researcher's own screening tag: the outcome says
    // theirs was kept and Quire's label not written beside it.
    platform.nextPush = {
      ...platform.nextPush,
      tagged: 2,
      theirScreenTagsKept: ["Calvin: Zotero holds screen:exclude, not written by Quire, so Quire's label (screen:include) was not written beside it"],
    };
    await click("write-to-zotero");
    expect($("zotero-push-kept")?.textContent).toContain("Your tag kept: Calvin: Zotero holds screen:exclude");
  });

  it("keeps the Zotero key in Settings without showing it", async () => {
    await mountInto(host, <App platform={platform} />);
    await click("settings-button");
    expect($("zotero-key-status")?.textContent).toContain("No key");
    const input = host.querySelector<HTMLInputElement>("[data-testid=zotero-key-input]");
    await act(() => {
      if (input === null) throw new Error("no key field");
      input.value = "zkey-123";
      input.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await click("zotero-key-save");
    expect(platform.zoteroKey).toBe("zkey-123");
    expect($("zotero-key-status")?.textContent).toContain("Key kept in the OS secret store");
    expect(host.querySelector<HTMLInputElement>("[data-testid=zotero-key-input]")?.value).toBe("");
    expect(host.textContent).not.toContain("zkey-123");
    await click("zotero-key-remove");
    expect(platform.zoteroKey).toBeNull();
  });

  it("asks the running Zotero for write access and says what its dialog granted", async () => {
    await mountInto(host, <App platform={platform} />);
    await click("settings-button");
    await click("zotero-authorize");
    expect(platform.zoteroAuthorizations).toBe(1);
    expect($("zotero-authorize-outcome")?.textContent).toContain("Quire may write to this Zotero library (database db-42)");
    expect($("zotero-authorize-outcome")?.textContent).toContain("kept in the OS secret store");

    platform.zoteroConsent = "once";
    await click("zotero-authorize");
    expect($("zotero-authorize-outcome")?.textContent).toContain("ask again and choose Always Allow");

    platform.zoteroConsent = null;
    await click("zotero-authorize");
    expect($("zotero-authorize-error")?.textContent).toContain("Zotero 10 or later");
  });

  it("says what Zotero answered and offers to try again", async () => {
    platform.zoteroError = new QuireError(
      "invalid_input",
      "zotero_local_api_off",
      'Zotero is running but does not let other applications read it (403): in Zotero, tick Settings → Advanced → "Allow other applications on this computer to communicate with Zotero", then try again',
    );
    await mountInto(host, <App platform={platform} />);
    await click("zotero-open");
    expect($("zotero-error")?.textContent).toContain("Allow other applications");
    platform.zoteroError = null;
    platform.zotero = { via: "database", collections: [] };
    const retry = host.querySelector<HTMLButtonElement>("[data-testid=zotero-error] button");
    await act(() => {
      retry?.click();
    });
    await settle();
    expect($("zotero-via")?.textContent).toContain("Zotero is closed");
    expect(host.querySelector(".zotero-picker")?.textContent).toContain("Zotero holds no collections.");
  });

  it("groups collections by their library", () => {
    const groups = byLibrary(platform.zotero.collections);
    expect(groups.map(([name, cs]) => `${name}: ${cs.map((c) => c.key).join(",")}`)).toEqual([
      "My Library: THESIS01,CHAP0002",
      "Lab: READ0004",
    ]);
  });
});
