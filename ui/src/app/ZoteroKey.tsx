// Zotero in Settings: what *Write to Zotero* writes with. With Zotero 10 or
// later running, one approval in Zotero's own dialog lets Quire write
// locally; otherwise a Web API key with write access to the library
// (zotero.org/settings/keys). The core keeps either (OS keyring, else a
// private file) and neither comes back to the window.

import { useEffect, useState } from "preact/hooks";

import { type Platform, QuireError, type ZoteroKeyStatus, type ZoteroLocalAccess } from "../platform";

/** Ask the running Zotero for write access: its dialog decides. */
function LocalWrites({ platform }: { platform: Platform }) {
  const [asking, setAsking] = useState(false);
  const [access, setAccess] = useState<ZoteroLocalAccess | null>(null);
  const [error, setError] = useState<string | null>(null);
  const ask = () => {
    setAsking(true);
    setError(null);
    setAccess(null);
    platform.authorizeZotero().then(
      (granted) => {
        setAccess(granted);
        setAsking(false);
      },
      (raw: unknown) => {
        setError(QuireError.from(raw).message);
        setAsking(false);
      },
    );
  };
  return (
    <div class="field">
      <span class="field__label">Zotero 10 or later, running: write without a key</span>
      <div class="form__actions form__actions--start">
        <button type="button" class="button" data-testid="zotero-authorize" disabled={asking} onClick={ask}>
          {asking ? "Answer the dialog in Zotero…" : "Allow Quire to write to Zotero"}
        </button>
      </div>
      {access !== null && (
        <p class="field__hint" data-testid="zotero-authorize-outcome">
          {access.keySource === null
            ? "Zotero allowed one write only, and writing a review is many: ask again and choose Always Allow."
            : `Quire may write to this Zotero library (database ${access.serverId}); the permission is kept in ${access.keySource}.`}
        </p>
      )}
      {error !== null && (
        <div class="banner banner--error" role="alert" data-testid="zotero-authorize-error">
          {error}
        </div>
      )}
    </div>
  );
}

export function ZoteroKey({ platform }: { platform: Platform }) {
  const [status, setStatus] = useState<ZoteroKeyStatus | null>(null);
  const [draft, setDraft] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    platform.zoteroKeyStatus().then(setStatus, (raw: unknown) => {
      setError(QuireError.from(raw).message);
    });
  }, [platform]);

  const act = (call: () => Promise<ZoteroKeyStatus>, clearDraft: boolean) => {
    setBusy(true);
    setError(null);
    call().then(
      (s) => {
        setStatus(s);
        if (clearDraft) setDraft("");
        setBusy(false);
      },
      (raw: unknown) => {
        setError(QuireError.from(raw).message);
        setBusy(false);
      },
    );
  };

  const kept = status?.keySource ?? null;
  return (
    <fieldset class="settings__group" data-testid="zotero-key">
      <legend class="field__label">Zotero</legend>
      <LocalWrites platform={platform} />
      <label class="field">
        <span class="field__label">Zotero API key, for Write to Zotero (zotero.org/settings/keys, with write access)</span>
        <input
          class="field__input"
          type="password"
          autocomplete="off"
          data-testid="zotero-key-input"
          value={draft}
          disabled={status?.fromEnv === true}
          placeholder={
            status?.fromEnv === true
              ? "set by the environment"
              : kept === null
                ? "paste your key"
                : "paste a new key to replace the saved one"
          }
          onInput={(e) => {
            setDraft(e.currentTarget.value);
          }}
        />
      </label>
      {/* Said once known: "No key" before the answer would be a guess. */}
      {status !== null && (
        <p class="field__hint" data-testid="zotero-key-status">
          {kept === null
            ? "No key: reviews of Zotero collections are read without one; writing their verdicts back needs one."
            : `Key kept in ${kept}. It is sent to Zotero only, never written to a review or a log.`}
        </p>
      )}
      {error !== null && (
        <div class="banner banner--error" role="alert" data-testid="zotero-key-error">
          {error}
        </div>
      )}
      <div class="form__actions form__actions--start">
        <button
          type="button"
          class="button button--primary"
          data-testid="zotero-key-save"
          disabled={busy || draft.trim() === ""}
          onClick={() => {
            act(() => platform.saveZoteroKey(draft), true);
          }}
        >
          Save key
        </button>
        {kept !== null && status?.fromEnv !== true && (
          <button
            type="button"
            class="button"
            data-testid="zotero-key-remove"
            disabled={busy}
            onClick={() => {
              act(() => platform.removeZoteroKey(), false);
            }}
          >
            Remove key
          </button>
        )}
      </div>
    </fieldset>
  );
}
