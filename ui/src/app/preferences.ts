// The researcher's preferences that live in the window, not in the core:
// the theme (light, dark, or the system's), the engine a new review starts
// with, and whether reviews look papers up in the scholarly indexes (and the
// contact address sent with those requests). Kept in the webview's local
// storage.

import { useCallback, useEffect, useState } from "preact/hooks";

import type { EngineKind } from "../platform";

export type ThemeChoice = "system" | "light" | "dark";

export interface Preferences {
  theme: ThemeChoice;
  /** The engine a new review offers first (the agent needs a model). */
  engine: EngineKind;
  /** Look papers up in Crossref, arXiv and OpenAlex (identifiers and titles are sent). */
  lookups: boolean;
  /** An email address sent with the lookups; empty for none. */
  contact: string;
}

export const DEFAULT_PREFERENCES: Preferences = { theme: "system", engine: "agent", lookups: true, contact: "" };

const KEY = "quire.preferences";

/** Preferences from storage; anything unreadable falls back to the default. */
export function loadPreferences(storage: Pick<Storage, "getItem">): Preferences {
  try {
    const raw: unknown = JSON.parse(storage.getItem(KEY) ?? "{}");
    const stored = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    const theme = stored.theme === "light" || stored.theme === "dark" ? stored.theme : "system";
    const engine = stored.engine === "offline" ? "offline" : "agent";
    const lookups = stored.lookups !== false;
    const contact = typeof stored.contact === "string" ? stored.contact.trim() : "";
    return { theme, engine, lookups, contact };
  } catch {
    return DEFAULT_PREFERENCES;
  }
}

/** The theme drawn now for a choice, given whether the system is dark. */
export function resolveTheme(choice: ThemeChoice, systemDark: boolean): "light" | "dark" {
  return choice === "system" ? (systemDark ? "dark" : "light") : choice;
}

export function usePreferences(storage: Storage = window.localStorage) {
  const [prefs, setPrefs] = useState<Preferences>(() => loadPreferences(storage));

  // The theme follows the system live while the choice is "system".
  useEffect(() => {
    const query = typeof window.matchMedia === "function" ? window.matchMedia("(prefers-color-scheme: dark)") : null;
    const apply = () => {
      document.documentElement.dataset.theme = resolveTheme(prefs.theme, query?.matches ?? false);
    };
    apply();
    query?.addEventListener("change", apply);
    return () => {
      query?.removeEventListener("change", apply);
    };
  }, [prefs.theme]);

  const update = useCallback(
    (change: Partial<Preferences>) => {
      setPrefs((p) => {
        const next = { ...p, ...change };
        try {
          storage.setItem(KEY, JSON.stringify(next));
        } catch {
          // A full or disabled storage keeps the choice for this session only.
        }
        return next;
      });
    },
    [storage],
  );

  return { prefs, update };
}
