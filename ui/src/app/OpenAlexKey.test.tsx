import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto, settle } from "../testing/render";
import { App } from "./App";
import { allowanceLine } from "./OpenAlexKey";

let host: HTMLElement;
let platform: FakePlatform;

const $ = (id: string) => host.querySelector<HTMLElement>(`[data-testid=${id}]`);
const text = (id: string) => $(id)?.textContent ?? "";

async function click(id: string) {
  const el = $(id);
  if (el === null) throw new Error(`no ${id}`);
  await act(() => {
    el.click();
  });
  await settle();
  await settle();
}

async function openSettings() {
  await mountInto(host, <App platform={platform} />);
  await click("settings-button");
}

async function typeKey(value: string) {
  const input = host.querySelector<HTMLInputElement>("[data-testid=openalex-key-input]");
  if (input === null) throw new Error("no key field");
  await act(() => {
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
});

afterEach(() => {
  destroyHost(host);
});

describe("OpenAlex's key in Settings", () => {
  it("says what no key allows without asking OpenAlex, then saves a key it never shows again", async () => {
    await openSettings();
    expect(text("openalex-key-status")).toContain("a cent of requests a day");
    expect(platform.openalexChecks).toBe(0);
    expect((host.querySelector("[data-testid=openalex-key-save]") as HTMLButtonElement).disabled).toBe(true);

    await typeKey("oa-key-123");
    await click("openalex-key-save");
    expect(platform.openalexKey).toBe("oa-key-123");
    expect(platform.openalexChecks).toBe(1);
    expect(text("openalex-key-status")).toContain("Key kept in the OS secret store");
    expect(text("openalex-key-status")).toContain("$0.99 of $1.00 left today, renews in 3 h 12 min");
    const input = host.querySelector<HTMLInputElement>("[data-testid=openalex-key-input]");
    expect(input?.value).toBe("");
    expect(input?.type).toBe("password");
    expect(host.textContent).not.toContain("oa-key-123");

    await click("openalex-key-remove");
    expect(platform.openalexKey).toBeNull();
    expect(text("openalex-key-status")).toContain("No key");
  });

  it("shows a refused key and an unreachable OpenAlex as errors, and a key with spaces is refused before saving", async () => {
    platform.openalexValidKey = "the-right-key";
    await openSettings();
    await typeKey("a wrong key");
    await click("openalex-key-save");
    expect(text("openalex-key-error")).toContain("one word with no spaces");
    expect(platform.openalexKey).toBeNull();

    await typeKey("the-wrong-key");
    await click("openalex-key-save");
    expect(text("openalex-key-error")).toContain("refused the API key");

    platform.openalexOnline = false;
    await click("openalex-check");
    expect(text("openalex-key-error")).toContain("cannot be reached");
  });

  it("turns off with the lookups", async () => {
    await openSettings();
    const lookups = host.querySelector<HTMLInputElement>("[data-testid=lookups]");
    await act(() => {
      lookups?.click();
    });
    await settle();
    expect((host.querySelector("[data-testid=openalex-check]") as HTMLButtonElement).disabled).toBe(true);
  });

  it("words the allowance as OpenAlex tells it", () => {
    expect(allowanceLine({ remainingUsd: 0.0004, limitUsd: 1, resetsInSecs: null })).toBe("nothing of $1.00 left today");
    expect(allowanceLine({ remainingUsd: 0.0731, limitUsd: 1, resetsInSecs: 60 })).toBe(
      "$0.0731 of $1.00 left today, renews in 0 h 1 min",
    );
  });
});
