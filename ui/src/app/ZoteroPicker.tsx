// "Open a Zotero collection…": the collections of every library Zotero holds,
// read from the running Zotero or, with it closed, a private copy of its
// database; one click opens a collection as a review.

import { useState } from "preact/hooks";

import { type Platform, QuireError, type ZoteroCollection, type ZoteroCollections } from "../platform";

type State =
  | { step: "closed" }
  | { step: "loading" }
  | { step: "listed"; listed: ZoteroCollections }
  | { step: "failed"; error: string };

/** Collections grouped by library, in the order Zotero lists libraries. */
export function byLibrary(collections: readonly ZoteroCollection[]): [string, ZoteroCollection[]][] {
  const groups = new Map<string, ZoteroCollection[]>();
  for (const c of collections) {
    const name = c.library.name;
    groups.set(name, [...(groups.get(name) ?? []), c]);
  }
  return [...groups.entries()];
}

export function ZoteroPicker({
  platform,
  busy,
  onOpen,
}: {
  platform: Platform;
  busy: boolean;
  onOpen: (collection: ZoteroCollection) => void;
}) {
  const [state, setState] = useState<State>({ step: "closed" });
  const load = () => {
    setState({ step: "loading" });
    platform.zoteroCollections().then(
      (listed) => {
        setState({ step: "listed", listed });
      },
      (raw: unknown) => {
        setState({ step: "failed", error: QuireError.from(raw).message });
      },
    );
  };

  if (state.step === "closed") {
    return (
      <button type="button" class="button" data-testid="zotero-open" disabled={busy} onClick={load}>
        Open a Zotero collection…
      </button>
    );
  }
  return (
    <section class="panel zotero-picker" data-testid="zotero-picker" aria-labelledby="zotero-title">
      <header class="panel__header">
        <h2 id="zotero-title" class="panel__title">
          Open a Zotero collection
        </h2>
        <button
          type="button"
          class="banner__close"
          aria-label="Close"
          onClick={() => {
            setState({ step: "closed" });
          }}
        >
          ×
        </button>
      </header>
      {state.step === "loading" && <p class="field__hint">Reading Zotero…</p>}
      {state.step === "failed" && (
        <div class="banner banner--error" role="alert" data-testid="zotero-error">
          <span>{state.error}</span>
          <button type="button" class="button" onClick={load}>
            Try again
          </button>
        </div>
      )}
      {state.step === "listed" && (
        <>
          <p class="field__hint" data-testid="zotero-via">
            {state.listed.via === "localApi"
              ? "Read from the running Zotero. Its items become the review's records, their PDFs the full text."
              : "Zotero is closed: read from a private copy of its database (Zotero's own file is never written). Its items become the review's records, their PDFs the full text."}
          </p>
          {state.listed.collections.length === 0 && <p class="field__hint">Zotero holds no collections.</p>}
          {byLibrary(state.listed.collections).map(([library, collections]) => (
            <div key={library} class="zotero-picker__library">
              <h3 class="subhead">{library}</h3>
              <ul class="zotero-picker__list">
                {collections.map((c) => (
                  <li key={c.key}>
                    <button
                      type="button"
                      class="zotero-picker__collection"
                      data-testid={`zotero-collection-${c.key}`}
                      disabled={busy}
                      style={{ paddingLeft: `${0.5 + 1.2 * (c.path.split(" / ").length - 1)}rem` }}
                      onClick={() => {
                        onOpen(c);
                      }}
                    >
                      <span>{c.name}</span>
                      <span class="zotero-picker__count">
                        {c.items} item{c.items === 1 ? "" : "s"}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </>
      )}
    </section>
  );
}
