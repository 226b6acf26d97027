import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto } from "../testing/render";
import { App } from "./App";
import { loadPreferences, resolveTheme } from "./preferences";

const storage = (value: string | null) => ({ getItem: () => value });

describe("preferences", () => {
  it("read back what was stored, and fall back on anything else", () => {
    expect(loadPreferences(storage('{"theme":"dark","engine":"offline"}'))).toEqual({ theme: "dark", engine: "offline" });
    expect(loadPreferences(storage('{"theme":"purple"}'))).toEqual({ theme: "system", engine: "agent" });
    expect(loadPreferences(storage("{not json"))).toEqual({ theme: "system", engine: "agent" });
    expect(loadPreferences(storage(null))).toEqual({ theme: "system", engine: "agent" });
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
});
