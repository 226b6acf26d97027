// The language-model settings: pick or name a profile, start from a server
// preset, set the address, model, key and limits, then save and test. The key
// field is write-only: the app never gets a stored key back, only where it is.

import { useState } from "preact/hooks";

import type { ModelProfileSave, ModelSettings, ModelSetup } from "../platform";
import { PRESETS, presetFor } from "./modelPresets";
import { PoolCheck, PoolFields } from "./ModelPool";
import type { ModelSetupState } from "./useModelSetup";

const NEW_PROFILE = "";

/** What the panel edits: a profile's name and settings, plus a new key. */
interface Draft {
  name: string;
  settings: ModelSettings;
  apiKey: string;
  makeDefault: boolean;
}

function draftFor(setup: ModelSetup, profile: string | null): Draft {
  const existing = setup.profiles.find((p) => p.name === profile);
  if (existing !== undefined) {
    return { name: existing.name, settings: { ...existing.settings }, apiKey: "", makeDefault: true };
  }
  const ollama = PRESETS.find((p) => p.id === "ollama")?.settings ?? {};
  const found = setup.active?.detected === true ? setup.active : null;
  const detected = found !== null ? { ...ollama, base_url: found.baseUrl, model: found.model } : {};
  const name = setup.profiles.length === 0 ? "default" : "";
  return { name, settings: { ...setup.defaults, ...detected }, apiKey: "", makeDefault: true };
}

/** A whole-number setting; input that is not a number at or above `min` is ignored. */
function NumberField(props: {
  label: string;
  name: string;
  min: number;
  value: number;
  onChange: (value: number) => void;
}) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input
        name={props.name}
        type="number"
        min={props.min}
        value={props.value}
        onInput={(e) => {
          const n = Number.parseInt(e.currentTarget.value, 10);
          if (Number.isFinite(n) && n >= props.min) props.onChange(n);
        }}
      />
    </label>
  );
}

export function activeLabel(setup: ModelSetup | null): string {
  if (setup === null) return "Model…";
  const active = setup.active;
  if (active === null) return "Offline engine (no language model)";
  return active.detected ? `${active.model} · Ollama, found on this computer` : `${active.model} · ${active.profile}`;
}

export function ModelPanel({
  state,
  onSave,
  onClose,
}: {
  state: ModelSetupState;
  onSave: (profile: ModelProfileSave) => void;
  onClose: () => void;
}) {
  const setup = state.setup;
  const [draft, setDraft] = useState<Draft | null>(null);
  if (setup === null) {
    return (
      <section class="panel" role="dialog" aria-label="Language model">
        <p class="panel__loading">{state.error ?? "Loading…"}</p>
      </section>
    );
  }
  const current = draft ?? draftFor(setup, setup.defaultProfile ?? setup.profiles[0]?.name ?? null);
  const set = (p: Partial<ModelSettings>) => {
    setDraft({ ...current, settings: { ...current.settings, ...p } });
  };
  const stored = setup.profiles.find((p) => p.name === current.name)?.keySource ?? null;
  const preset = presetFor(current.settings);
  const listing = state.check !== null && "listing" in state.check ? state.check.listing : null;

  return (
    <section class="panel" role="dialog" aria-label="Language model" data-testid="model-panel">
      <header class="panel__header">
        <h2 class="panel__title">Language model</h2>
        <button type="button" class="banner__close" onClick={onClose} aria-label="Close">
          ×
        </button>
      </header>
      <p class="panel__status" data-testid="model-active">
        Reviews use: <strong>{activeLabel(setup)}</strong>
      </p>
      <form
        class="form"
        onSubmit={(e) => {
          e.preventDefault();
          // A server row left empty is no server.
          const pool = current.settings.pool.filter((m) => m.base_url.trim() !== "");
          onSave({
            name: current.name.trim(),
            settings: { ...current.settings, pool },
            apiKey: current.apiKey,
            makeDefault: current.makeDefault,
          });
          setDraft({ ...current, apiKey: "" });
        }}
      >
        <label class="field">
          <span>Profile</span>
          <select
            value={setup.profiles.some((p) => p.name === current.name) ? current.name : NEW_PROFILE}
            onChange={(e) => {
              setDraft(draftFor(setup, e.currentTarget.value === NEW_PROFILE ? null : e.currentTarget.value));
            }}
          >
            {setup.profiles.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
              </option>
            ))}
            <option value={NEW_PROFILE}>New profile…</option>
          </select>
        </label>
        {!setup.profiles.some((p) => p.name === current.name) && (
          <label class="field">
            <span>Profile name</span>
            <input
              name="name"
              required
              pattern="[A-Za-z0-9_\-]{1,64}"
              value={current.name}
              onInput={(e) => {
                setDraft({ ...current, name: e.currentTarget.value });
              }}
            />
          </label>
        )}
        <label class="field">
          <span>Server</span>
          <select
            name="preset"
            value={preset?.id ?? "custom"}
            onChange={(e) => {
              const chosen = PRESETS.find((p) => p.id === e.currentTarget.value);
              if (chosen !== undefined) set(chosen.settings);
            }}
          >
            {PRESETS.map((p) => (
              <option key={p.id} value={p.id}>
                {p.label}
              </option>
            ))}
            <option value="custom">Other OpenAI- or Anthropic-compatible server</option>
          </select>
        </label>
        <label class="field">
          <span>Protocol</span>
          <select
            name="protocol"
            value={current.settings.protocol}
            onChange={(e) => {
              set({ protocol: e.currentTarget.value === "anthropic" ? "anthropic" : "openai" });
            }}
          >
            <option value="openai">OpenAI-compatible chat completions</option>
            <option value="anthropic">Anthropic messages</option>
          </select>
        </label>
        <label class="field">
          <span>Address</span>
          <input
            name="base_url"
            type="url"
            required
            value={current.settings.base_url}
            onInput={(e) => {
              set({ base_url: e.currentTarget.value });
            }}
          />
        </label>
        <label class="field">
          <span>Model</span>
          <input
            name="model"
            required
            list="model-ids"
            placeholder={listing === null ? "e.g. qwen3:8b, gpt-4o-mini" : "choose from the list"}
            value={current.settings.model}
            onInput={(e) => {
              set({ model: e.currentTarget.value });
            }}
          />
          <datalist id="model-ids">
            {listing?.models.map((m) => (
              <option key={m} value={m} />
            ))}
          </datalist>
        </label>
        <label class="field">
          <span>API key</span>
          <input
            name="api_key"
            type="password"
            autocomplete="off"
            placeholder={stored === null ? "none needed for local servers" : "leave empty to keep the stored key"}
            value={current.apiKey}
            onInput={(e) => {
              setDraft({ ...current, apiKey: e.currentTarget.value });
            }}
          />
          <small class="field__hint" data-testid="key-source">
            {stored === null ? "No key stored." : `Key from ${stored}.`} Keys go to the system keyring (or a private
            file), never into reviews or logs.
          </small>
        </label>
        <div class="field-row">
          <NumberField
            label="Context window (tokens)"
            name="context_window"
            min={1024}
            value={current.settings.context_window}
            onChange={(context_window) => {
              set({ context_window });
            }}
          />
          <NumberField
            label="Longest answer (tokens)"
            name="max_output_tokens"
            min={1}
            value={current.settings.max_output_tokens}
            onChange={(max_output_tokens) => {
              set({ max_output_tokens });
            }}
          />
          <NumberField
            label="Requests at once"
            name="concurrency"
            min={1}
            value={current.settings.concurrency}
            onChange={(concurrency) => {
              set({ concurrency });
            }}
          />
        </div>
        <PoolFields
          pool={current.settings.pool}
          concurrency={current.settings.concurrency}
          cooldownSecs={current.settings.pool_cooldown_secs}
          onChange={(pool) => {
            set({ pool });
          }}
        />
        <label class="check">
          <input
            type="checkbox"
            name="make_default"
            checked={current.makeDefault}
            onChange={(e) => {
              setDraft({ ...current, makeDefault: e.currentTarget.checked });
            }}
          />
          Use this profile for reviews
        </label>
        {state.error !== null && (
          <div class="banner banner--error" role="alert" data-testid="model-error">
            {state.error}
          </div>
        )}
        {state.check !== null && "error" in state.check && (
          <div class="banner banner--error" role="alert" data-testid="model-check">
            Saved, but the connection test failed: {state.check.error}
          </div>
        )}
        {listing !== null && (
          <div class="banner banner--ok" role="status" data-testid="model-check">
            Connected to {listing.baseUrl}: {listing.models.length} model{listing.models.length === 1 ? "" : "s"}.
            {!listing.models.includes(listing.configuredModel) && listing.models.length > 0 && (
              <> “{listing.configuredModel}” is not among them; pick one from the Model list.</>
            )}
          </div>
        )}
        {listing !== null && <PoolCheck checks={listing.endpoints} />}
        <div class="form__actions">
          <span class="form__path">Saved in {setup.settingsPath}</span>
          <button type="submit" class="button button--primary" disabled={state.saving}>
            {state.saving ? "Testing…" : "Save and test"}
          </button>
        </div>
      </form>
    </section>
  );
}
