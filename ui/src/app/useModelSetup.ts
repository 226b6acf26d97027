// The model settings' state and actions: load the setup, save a profile (and
// its key), then test the connection by listing the endpoint's models.

import { useCallback, useEffect, useState } from "preact/hooks";

import { type ModelListing, type ModelProfileSave, type ModelSetup, type Platform, QuireError } from "../platform";

export interface ModelSetupState {
  setup: ModelSetup | null;
  saving: boolean;
  /** The last connection test: its listing, or the error it met. */
  check: { listing: ModelListing } | { error: string } | null;
  error: string | null;
}

export function useModelSetup(platform: Platform) {
  const [state, setState] = useState<ModelSetupState>({ setup: null, saving: false, check: null, error: null });
  const patch = useCallback((p: Partial<ModelSetupState>) => {
    setState((s) => ({ ...s, ...p }));
  }, []);

  useEffect(() => {
    platform.modelSetup().then(
      (setup) => {
        patch({ setup });
      },
      (raw: unknown) => {
        patch({ error: QuireError.from(raw).message });
      },
    );
  }, [platform, patch]);

  const save = useCallback(
    async (profile: ModelProfileSave) => {
      patch({ saving: true, error: null, check: null });
      try {
        const setup = await platform.saveModelProfile(profile);
        patch({ setup });
      } catch (raw) {
        patch({ saving: false, error: QuireError.from(raw).message });
        return;
      }
      try {
        const listing = await platform.checkModelProfile(profile.name);
        patch({ saving: false, check: { listing } });
      } catch (raw) {
        patch({ saving: false, check: { error: QuireError.from(raw).message } });
      }
    },
    [platform, patch],
  );

  return { state, save };
}
