import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { DEFAULT_SETTINGS, FakePlatform } from "../testing/fakePlatform";
import { createHost, destroyHost, mountInto, settle } from "../testing/render";
import { App } from "./App";

let host: HTMLElement;
let platform: FakePlatform;

async function mount() {
  await mountInto(host, <App platform={platform} />);
}

const $ = (selector: string) => host.querySelector<HTMLElement>(selector);
const field = (name: string) => host.querySelector<HTMLInputElement>(`[name=${name}]`);
const button = () => $("[data-testid=model-button]");

async function openPanel() {
  await act(() => {
    button()?.click();
  });
  await settle();
}

async function type(name: string, value: string) {
  const input = field(name);
  if (input === null) throw new Error(`no field ${name}`);
  await act(() => {
    input.value = value;
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

async function choose(name: string, value: string) {
  const select = host.querySelector<HTMLSelectElement>(`select[name=${name}]`);
  if (select === null) throw new Error(`no select ${name}`);
  await act(() => {
    select.value = value;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  });
}

async function submit() {
  await act(() => {
    host.querySelector("[data-testid=model-panel] form")?.dispatchEvent(
      new Event("submit", { bubbles: true, cancelable: true }),
    );
  });
  await settle();
  await settle();
}

beforeEach(() => {
  host = createHost();
  platform = new FakePlatform();
});

afterEach(() => {
  destroyHost(host);
});

describe("language model settings", () => {
  it("says plainly when reviews run on the offline engine", async () => {
    await mount();
    expect(button()?.textContent).toBe("Offline engine (no language model)");
  });

  it("names a local Ollama it found, and starts a new profile from it", async () => {
    platform.ollamaModels = ["qwen3:8b"];
    await mount();
    expect(button()?.textContent).toBe("qwen3:8b · Ollama, found on this computer");
    await openPanel();
    expect(field("base_url")?.value).toBe("http://localhost:11434/v1");
    expect(field("model")?.value).toBe("qwen3:8b");
    expect(field("name")?.value).toBe("default");
  });

  it("saves a hosted profile with its key, tests it and never shows the key again", async () => {
    platform.endpoints.set("https://api.openai.com/v1", ["gpt-4o", "gpt-4o-mini"]);
    await mount();
    await openPanel();
    await choose("preset", "openai");
    await type("model", "gpt-4o-mini");
    await type("api_key", "sk-typed-in-the-form");
    await type("context_window", "128000");
    await submit();

    const saved = platform.saved.at(-1);
    expect(saved?.name).toBe("default");
    expect(saved?.apiKey).toBe("sk-typed-in-the-form");
    expect(saved?.makeDefault).toBe(true);
    expect(saved?.settings).toEqual({
      ...DEFAULT_SETTINGS,
      base_url: "https://api.openai.com/v1",
      api_key_env: "OPENAI_API_KEY",
      model: "gpt-4o-mini",
      context_window: 128000,
    });
    expect(button()?.textContent).toBe("gpt-4o-mini · default");
    expect($("[data-testid=model-check]")?.textContent).toContain("Connected to https://api.openai.com/v1: 2 models.");
    expect(field("api_key")?.value).toBe("");
    expect($("[data-testid=key-source]")?.textContent).toContain("Key from the OS secret store.");
    expect(host.textContent).not.toContain("sk-typed-in-the-form");
  });

  it("keeps the stored key when the key field is left empty", async () => {
    platform.profiles = [{ name: "work", settings: { ...DEFAULT_SETTINGS, model: "m" }, keySource: "the OS secret store" }];
    platform.storedKeys.set("work", "sk-already-there");
    platform.defaultProfile = "work";
    platform.endpoints.set(DEFAULT_SETTINGS.base_url, ["m"]);
    await mount();
    await openPanel();
    await type("concurrency", "8");
    await submit();
    expect(platform.saved.at(-1)?.apiKey).toBe("");
    expect(platform.saved.at(-1)?.settings.concurrency).toBe(8);
    expect(platform.storedKeys.get("work")).toBe("sk-already-there");
    expect($("[data-testid=model-check]")?.textContent).toContain("1 model.");
  });

  it("shows why a save was refused and when the server cannot be reached", async () => {
    await mount();
    await openPanel();
    await type("model", " ");
    await submit();
    expect($("[data-testid=model-error]")?.textContent).toContain("model is empty");

    await type("model", "llama3.2");
    await submit();
    expect($("[data-testid=model-error]")).toBeNull();
    expect($("[data-testid=model-check]")?.textContent).toContain(
      "Saved, but the connection test failed: cannot reach the model server at http://localhost:11434/v1",
    );
  });

  it("warns when the configured model is not one the server lists", async () => {
    platform.endpoints.set(DEFAULT_SETTINGS.base_url, ["qwen3:8b", "llama3.2:3b"]);
    await mount();
    await openPanel();
    await type("model", "qwen3:14b");
    await submit();
    expect($("[data-testid=model-check]")?.textContent).toContain("“qwen3:14b” is not among them");
    expect([...host.querySelectorAll("#model-ids option")].map((o) => o.getAttribute("value"))).toEqual([
      "qwen3:8b",
      "llama3.2:3b",
    ]);
  });

  it("saves a pool of servers and says what each one serves", async () => {
    const base = "http://gpu-1:8000/v1";
    platform.endpoints.set(base, ["qwen3-8b"]);
    platform.endpoints.set("http://gpu-2:8000/v1", ["qwen3-8b"]);
    platform.endpoints.set("http://gpu-3:8000/v1", ["llama-3.1-8b"]);
    await mount();
    await openPanel();
    await type("base_url", base);
    await type("model", "qwen3-8b");
    const add = async () => {
      await act(() => {
        $("[data-testid=pool-add]")?.click();
      });
    };
    for (let i = 0; i < 4; i++) await add();
    await type("pool_url_0", "http://gpu-2:8000/v1");
    await type("pool_concurrency_0", "16");
    await type("pool_key_env_0", "GPU2_API_KEY");
    await type("pool_url_1", "http://gpu-3:8000/v1");
    await type("pool_url_2", "http://gpu-4:8000/v1");
    // The fourth row is left empty, then the third removed: neither is saved.
    await act(() => {
      host.querySelector<HTMLButtonElement>("[aria-label='Remove address 4']")?.click();
    });
    await submit();

    expect(platform.saved.at(-1)?.settings.pool).toEqual([
      { base_url: "http://gpu-2:8000/v1", concurrency: 16, api_key_env: "GPU2_API_KEY" },
      { base_url: "http://gpu-3:8000/v1", concurrency: null, api_key_env: null },
    ]);
    const check = $("[data-testid=pool-check]")?.textContent ?? "";
    expect(check).toContain("2 of 3 servers serve this model.");
    expect(check).toContain("http://gpu-2:8000/v1: ready");
    expect(check).toContain("http://gpu-3:8000/v1: left out of reviews: it serves llama-3.1-8b, not qwen3-8b");
    expect(field("pool_concurrency_1")?.placeholder).toBe("4");
  });
});
