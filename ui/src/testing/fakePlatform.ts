// An in-memory Platform for UI tests: behaves like the real commands (create
// adds or reopens, list returns newest first) and lets a test play the OS's part
// in drag and drop.

import {
  type DragDropEvent,
  type ModelListing,
  type ModelProfile,
  type ModelProfileSave,
  type ModelSettings,
  type ModelSetup,
  type Platform,
  QuireError,
  type WorkspaceSummary,
} from "../platform";

/** The core's defaults for a new profile (ModelSettings::default). */
export const DEFAULT_SETTINGS: ModelSettings = {
  protocol: "openai",
  base_url: "http://localhost:11434/v1",
  model: "",
  api_key_env: null,
  context_window: 32768,
  max_output_tokens: 4096,
  concurrency: 4,
  connect_timeout_secs: 10,
  read_timeout_secs: 120,
  request_timeout_secs: 900,
  max_retries: 4,
  stream: true,
  stream_tool_turns: true,
};

export class FakePlatform implements Platform {
  workspaces: WorkspaceSummary[] = [];
  notice: string | null = null;
  /** What the folder dialog answers next; null is "cancelled". */
  nextPick: string | null = null;
  /** When set, createWorkspace rejects with it. */
  createError: QuireError | null = null;
  created: string[] = [];
  profiles: ModelProfile[] = [];
  defaultProfile: string | null = null;
  /** A local Ollama's models, as if one were running; empty means none. */
  ollamaModels: string[] = [];
  /** What each endpoint lists, by base URL; a missing URL is unreachable. */
  endpoints = new Map<string, string[]>();
  /** Keys stored, by profile: the fake's secret store. */
  storedKeys = new Map<string, string>();
  saved: ModelProfileSave[] = [];
  private dragHandlers: ((e: DragDropEvent) => void)[] = [];
  private changeHandlers: (() => void)[] = [];
  private clock = Date.parse("2026-11-30T12:00:00Z");

  listWorkspaces() {
    return Promise.resolve({ workspaces: [...this.workspaces], notice: this.notice });
  }

  createWorkspace(folder: string) {
    this.created.push(folder);
    if (this.createError !== null) return Promise.reject(this.createError);
    this.clock += 60_000;
    const now = new Date(this.clock).toISOString();
    const title = folder.split("/").filter(Boolean).pop() ?? folder;
    const existing = this.workspaces.find((w) => w.source === folder);
    const summary: WorkspaceSummary = existing
      ? { ...existing, updatedAt: now }
      : {
          id: `${title}-${this.workspaces.length + 1}`,
          root: `/data/workspaces/${title}`,
          title,
          source: folder,
          question: null,
          status: "new",
          createdAt: now,
          updatedAt: now,
          paperCount: 3,
          duplicateCount: 0,
        };
    this.workspaces = [summary, ...this.workspaces.filter((w) => w.id !== summary.id)];
    return Promise.resolve(summary);
  }

  pickFolder() {
    return Promise.resolve(this.nextPick);
  }

  onDragDrop(handler: (e: DragDropEvent) => void) {
    this.dragHandlers.push(handler);
    return Promise.resolve(() => {
      this.dragHandlers = this.dragHandlers.filter((h) => h !== handler);
    });
  }

  onWorkspacesChanged(handler: () => void) {
    this.changeHandlers.push(handler);
    return Promise.resolve(() => {
      this.changeHandlers = this.changeHandlers.filter((h) => h !== handler);
    });
  }

  /** Play the OS: send a drag event to whoever listens. */
  drag(event: DragDropEvent) {
    for (const handler of this.dragHandlers) handler(event);
  }

  /** Play the shell: announce that the list changed elsewhere. */
  announceChange() {
    for (const handler of this.changeHandlers) handler();
  }

  get listenerCount() {
    return this.dragHandlers.length + this.changeHandlers.length;
  }

  modelSetup(): Promise<ModelSetup> {
    const configured = this.profiles.find((p) => p.name === this.defaultProfile) ?? this.profiles[0];
    const local = this.ollamaModels.at(0);
    const active =
      configured !== undefined
        ? { profile: configured.name, model: configured.settings.model, baseUrl: configured.settings.base_url, detected: false }
        : local !== undefined
          ? { profile: "ollama", model: local, baseUrl: "http://localhost:11434/v1", detected: true }
          : null;
    return Promise.resolve({
      active,
      profiles: this.profiles.map((p) => ({ ...p, settings: { ...p.settings } })),
      defaultProfile: this.defaultProfile,
      settingsPath: "/home/user/.config/quire/models.toml",
      defaults: { ...DEFAULT_SETTINGS },
    });
  }

  saveModelProfile(profile: ModelProfileSave): Promise<ModelSetup> {
    this.saved.push(profile);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(profile.name)) {
      return Promise.reject(new QuireError("model_settings_invalid", "a profile name is 1 to 64 letters, digits, - or _"));
    }
    if (profile.settings.model.trim() === "") {
      return Promise.reject(
        new QuireError("model_settings_invalid", "invalid model settings: model is empty; name the model to use"),
      );
    }
    if (profile.apiKey !== undefined && profile.apiKey.trim() !== "") this.storedKeys.set(profile.name, profile.apiKey);
    const keySource = this.storedKeys.has(profile.name) ? "the OS secret store" : null;
    this.profiles = [
      ...this.profiles.filter((p) => p.name !== profile.name),
      { name: profile.name, settings: { ...profile.settings }, keySource },
    ].sort((a, b) => a.name.localeCompare(b.name));
    if (profile.makeDefault || this.defaultProfile === null) this.defaultProfile = profile.name;
    return this.modelSetup();
  }

  checkModelProfile(name: string): Promise<ModelListing> {
    const profile = this.profiles.find((p) => p.name === name);
    const models = profile === undefined ? undefined : this.endpoints.get(profile.settings.base_url);
    if (profile === undefined || models === undefined) {
      const url = profile?.settings.base_url ?? "?";
      return Promise.reject(new QuireError("unreachable", `cannot reach the model server at ${url}: connection refused`));
    }
    return Promise.resolve({
      profile: name,
      baseUrl: profile.settings.base_url,
      configuredModel: profile.settings.model,
      keySource: profile.keySource,
      models: [...models],
    });
  }
}
