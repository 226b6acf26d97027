import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto } from "../testing/render";
import { App } from "./App";
import { loadPreferences, resolveTheme } from "./preferences";

const storage = (value: string | null) => ({ getItem: () => value });

describe("preferences", () => {
  it("read back what was stored, and fall back on anything else", () => {
    const fallback = { theme: "system", engine: "agent", lookups: true, contact: "" };
    expect(
      loadPreferences(storage('{"theme":"dark","engine":"offline","lookups":false,"contact":" me@example.org "}')),
    ).toEqual({ theme: "dark", engine: "offline", lookups: false, contact: "me@example.org" });
    expect(loadPreferences(storage('{"theme":"purple","lookups":"no"}'))).toEqual(fallback);
    expect(loadPreferences(storage("{not json"))).toEqual(fallback);
    expect(loadPreferences(storage(null))).toEqual(fallback);
  });

  it("follow the system unless a theme is chosen", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
  });
});

describe("the settings panel", () => {
  let host: HTMLElement;
  beforeEach(() => {
    host = createHost();
    window.localStorage.clear();
  });
  afterEach(() => {
    destroyHost(host);
  });

  it("switches the theme at once and keeps the choice", async () => {
    await mountInto(host, <App platform={new FakePlatform()} />);
    expect(document.documentElement.dataset.theme).toBe("light");
    await act(() => {
      (host.querySelector("[data-testid=settings-button]") as HTMLButtonElement).click();
    });
    await act(() => {
      (host.querySelector("[data-testid=theme-dark]") as HTMLInputElement).click();
    });
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(loadPreferences(window.localStorage).theme).toBe("dark");
  });

  it("keeps a contact address and turns the lookups off", async () => {
    await mountInto(host, <App platform={new FakePlatform()} />);
    await act(() => {
      (host.querySelector("[data-testid=settings-button]") as HTMLButtonElement).click();
    });
    const lookups = host.querySelector("[data-testid=lookups]") as HTMLInputElement;
    expect(lookups.checked).toBe(true);
    expect(host.querySelector("[data-testid=lookups-hint]")?.textContent).toContain("DOI, arXiv id or title");
    const contact = host.querySelector("[data-testid=contact]") as HTMLInputElement;
    await act(() => {
      contact.value = "me@example.org";
      contact.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await act(() => {
      lookups.click();
    });
    expect(contact.disabled).toBe(true);
    expect(loadPreferences(window.localStorage)).toMatchObject({ lookups: false, contact: "me@example.org" });
  });
});
