// The runs this window started, by workspace, kept above the screens so a run
// goes on (and its board stays current) while the researcher looks elsewhere.

import { useCallback, useState } from "preact/hooks";

import { type Platform, QuireError, type ReviewLaunch } from "../../platform";
import { type RunView, applyEvent, newRun } from "./runView";

export interface Runs {
  byWorkspace: Readonly<Record<string, RunView>>;
  /** Start a run; rejects with the command's error when it cannot start. */
  start(launch: ReviewLaunch): Promise<void>;
  cancel(workspace: string): Promise<void>;
}

export function useRuns(platform: Platform, now: () => number = Date.now): Runs {
  const [byWorkspace, setRuns] = useState<Record<string, RunView>>({});

  const start = useCallback(
    async (launch: ReviewLaunch) => {
      const root = launch.workspace;
      // The first event of this run replaces whatever an earlier run left.
      const first = { pending: true };
      const startFresh = () => {
        first.pending = false;
        return newRun(now());
      };
      try {
        await platform.startReview(launch, (event) => {
          const base = first.pending ? startFresh() : null;
          setRuns((runs) => ({ ...runs, [root]: applyEvent(base ?? runs[root] ?? newRun(now()), event, now()) }));
        });
      } catch (raw) {
        throw QuireError.from(raw);
      }
      if (first.pending) {
        const run = startFresh();
        setRuns((runs) => ({ ...runs, [root]: run }));
      }
    },
    [platform, now],
  );

  const cancel = useCallback(
    async (workspace: string) => {
      await platform.cancelReview(workspace);
    },
    [platform],
  );

  return { byWorkspace, start, cancel };
}
