// Window settings: the theme, the engine a new review starts with, and the
// scholarly lookups (on by default, saying exactly what they send; OpenAlex's
// key and allowance). Model
// profiles (and each one's concurrency) are in the model panel.

import type { Platform } from "../platform";
import { OpenAlexKey } from "./OpenAlexKey";
import type { Preferences, ThemeChoice } from "./preferences";
import { ZoteroKey } from "./ZoteroKey";

const THEMES: { value: ThemeChoice; label: string }[] = [
  { value: "system", label: "Follow the system" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

export function SettingsPanel({
  platform,
  prefs,
  onChange,
  onClose,
}: {
  platform: Platform;
  prefs: Preferences;
  onChange: (change: Partial<Preferences>) => void;
  onClose: () => void;
}) {
  return (
    <section
      class="panel settings"
      data-testid="settings-panel"
      aria-labelledby="settings-title"
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
      }}
    >
      <header class="panel__header">
        <h2 id="settings-title" class="panel__title">
          Settings
        </h2>
        <button type="button" class="banner__close" aria-label="Close settings" onClick={onClose}>
          ×
        </button>
      </header>
      <fieldset class="settings__group">
        <legend class="field__label">Theme</legend>
        {THEMES.map((t) => (
          <label key={t.value} class="check">
            <input
              type="radio"
              name="theme"
              value={t.value}
              data-testid={`theme-${t.value}`}
              checked={prefs.theme === t.value}
              onChange={() => {
                onChange({ theme: t.value });
              }}
            />
            {t.label}
          </label>
        ))}
      </fieldset>
      <fieldset class="settings__group">
        <legend class="field__label">A new review starts with</legend>
        <label class="check">
          <input
            type="radio"
            name="default-engine"
            checked={prefs.engine === "agent"}
            onChange={() => {
              onChange({ engine: "agent" });
            }}
          />
          The agent (when a model is set up)
        </label>
        <label class="check">
          <input
            type="radio"
            name="default-engine"
            checked={prefs.engine === "offline"}
            onChange={() => {
              onChange({ engine: "offline" });
            }}
          />
          The offline engine
        </label>
      </fieldset>
      <fieldset class="settings__group">
        <legend class="field__label">Paper records</legend>
        <label class="check">
          <input
            type="checkbox"
            data-testid="lookups"
            checked={prefs.lookups}
            aria-describedby="lookups-hint"
            onChange={(e) => {
              onChange({ lookups: e.currentTarget.checked });
            }}
          />
          Look papers up in Crossref, arXiv and OpenAlex
        </label>
        <p id="lookups-hint" class="field__hint" data-testid="lookups-hint">
          Sends each paper's DOI, arXiv id or title, nothing else, to fill in exact titles, authors, years and venues.
          Answers are kept in Quire's data folder; without a network, reviews use what the PDFs say.
        </p>
        <label class="field">
          <span class="field__label">Contact email sent with the lookups (optional)</span>
          <input
            class="field__input"
            type="email"
            data-testid="contact"
            value={prefs.contact}
            placeholder="you@university.edu"
            disabled={!prefs.lookups}
            onInput={(e) => {
              onChange({ contact: e.currentTarget.value.trim() });
            }}
          />
        </label>
        <OpenAlexKey platform={platform} disabled={!prefs.lookups} />
      </fieldset>
      <ZoteroKey platform={platform} />
      <p class="field__hint">How many model calls run at once is set per model profile, in the model panel.</p>
    </section>
  );
}
