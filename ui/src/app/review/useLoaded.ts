// What a modal shows once its one request is answered: the value, or the
// error's sentence. An answer that arrives after the modal closed is dropped.

import { useEffect, useState } from "preact/hooks";

import { QuireError } from "../../platform";

export interface Loaded<T> {
  value: T | null;
  error: string | null;
}

/** Run `load` when the component mounts (and when `key` changes). */
export function useLoaded<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<Loaded<T>>({ value: null, error: null });
  useEffect(() => {
    let live = true;
    setState({ value: null, error: null });
    load().then(
      (value) => {
        if (live) setState({ value, error: null });
      },
      (raw: unknown) => {
        if (live) setState({ value: null, error: QuireError.from(raw).message });
      },
    );
    return () => {
      live = false;
    };
    // `load` is a fresh closure on every render; `key` says when it asks for something else.
  }, [key]);
  return state;
}
