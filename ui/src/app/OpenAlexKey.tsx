// OpenAlex's API key in Settings: where it is kept and what is left of today's
// allowance. Since February 2026 OpenAlex gives a cent of requests a day
// without a key and a dollar with a free one; the key is saved by the core (OS
// keyring, else a private file) and never comes back to the window.

import { useEffect, useState } from "preact/hooks";

import { type Allowance, type OpenAlexStatus, type Platform, QuireError } from "../platform";

type State = {
  status: OpenAlexStatus | null;
  draft: string;
  busy: "saving" | "checking" | "removing" | null;
  error: string | null;
};

/** "$0.9990 of $1.00 left today, renews in 3 h 12 min". */
export function allowanceLine(a: Allowance): string {
  // Rounded down, so the line never promises more than is left.
  const digits = a.remainingUsd < 0.1 ? 4 : 2;
  const down = Math.floor(a.remainingUsd * 10 ** digits) / 10 ** digits;
  const left = a.remainingUsd < 0.001 ? "nothing" : `$${down.toFixed(digits)}`;
  const renews =
    a.resetsInSecs === null
      ? ""
      : `, renews in ${Math.floor(a.resetsInSecs / 3600)} h ${Math.floor((a.resetsInSecs % 3600) / 60)} min`;
  return `${left} of $${a.limitUsd.toFixed(2)} left today${renews}`;
}

export function OpenAlexKey({ platform, disabled }: { platform: Platform; disabled: boolean }) {
  const [state, setState] = useState<State>({ status: null, draft: "", busy: null, error: null });
  const patch = (change: Partial<State>) => {
    setState((s) => ({ ...s, ...change }));
  };

  useEffect(() => {
    // Where the key is kept is local; the allowance costs a request, so it
    // waits for the researcher to ask.
    platform.openalexStatus(false).then(
      (status) => {
        patch({ status });
      },
      (raw: unknown) => {
        patch({ error: QuireError.from(raw).message });
      },
    );
  }, [platform]);

  const act = (busy: NonNullable<State["busy"]>, call: () => Promise<OpenAlexStatus>) => {
    patch({ busy, error: null });
    call().then(
      (status) => {
        // A saved key leaves the field: it is never shown again.
        patch(busy === "saving" ? { status, busy: null, draft: "" } : { status, busy: null });
      },
      (raw: unknown) => {
        patch({ busy: null, error: QuireError.from(raw).message });
      },
    );
  };

  const status = state.status;
  const kept = status?.keySource ?? null;
  return (
    <div class="openalex-key" data-testid="openalex-key">
      <label class="field">
        <span class="field__label">OpenAlex API key (free, from openalex.org/settings/api)</span>
        <input
          class="field__input"
          type="password"
          autocomplete="off"
          data-testid="openalex-key-input"
          value={state.draft}
          placeholder={
            status?.fromEnv === true
              ? "set by the environment"
              : kept === null
                ? "paste your key"
                : "paste a new key to replace the saved one"
          }
          disabled={disabled || status?.fromEnv === true}
          onInput={(e) => {
            patch({ draft: e.currentTarget.value });
          }}
        />
      </label>
      {/* Said once known: "No key" before the answer would be a guess. */}
      {status !== null && (
        <p class="field__hint" data-testid="openalex-key-status" role="status">
          {kept === null
            ? "No key: OpenAlex allows a cent of requests a day without one. With a free key it allows a dollar: lookups by DOI cost nothing, a title search a tenth of a cent."
            : `Key kept in ${kept}${status.fromEnv ? " (it wins over a saved key)" : ""}. It is sent to OpenAlex only, never written to a review or a log.`}
          {status.allowance !== null && <> OpenAlex says: {allowanceLine(status.allowance)}.</>}
        </p>
      )}
      {(status?.problem ?? state.error) != null && (
        <div class="banner banner--error" role="alert" data-testid="openalex-key-error">
          {state.error ?? status?.problem}
        </div>
      )}
      <div class="form__actions">
        <button
          type="button"
          class="button button--primary"
          data-testid="openalex-key-save"
          disabled={disabled || state.busy !== null || state.draft.trim() === ""}
          onClick={() => {
            act("saving", () => platform.saveOpenalexKey(state.draft));
          }}
        >
          {state.busy === "saving" ? "Saving and checking…" : "Save key"}
        </button>
        <button
          type="button"
          class="button"
          data-testid="openalex-check"
          disabled={disabled || state.busy !== null}
          onClick={() => {
            act("checking", () => platform.openalexStatus(true));
          }}
        >
          {state.busy === "checking" ? "Asking OpenAlex…" : "Check today's allowance"}
        </button>
        {kept !== null && status?.fromEnv !== true && (
          <button
            type="button"
            class="button"
            data-testid="openalex-key-remove"
            disabled={state.busy !== null}
            onClick={() => {
              act("removing", () => platform.removeOpenalexKey());
            }}
          >
            Remove key
          </button>
        )}
      </div>
    </div>
  );
}
