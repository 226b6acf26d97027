import { useCallback, useState } from "preact/hooks";

import type { Platform } from "../platform";
import logo from "../../../icons/quire.svg";
import { DropZone } from "./DropZone";
import { ModelPanel, activeLabel } from "./ModelPanel";
import { RecentReviews } from "./RecentReviews";
import { SettingsPanel } from "./SettingsPanel";
import { ZoteroPicker } from "./ZoteroPicker";
import { usePreferences } from "./preferences";
import { ReviewScreen } from "./review/ReviewScreen";
import { useRuns } from "./review/useRuns";
import { useHome } from "./useHome";
import { useModelSetup } from "./useModelSetup";

type Route = { screen: "home" } | { screen: "review"; root: string };

export function App({ platform }: { platform: Platform }) {
  const [route, setRoute] = useState<Route>({ screen: "home" });
  const openReview = useCallback((root: string) => {
    setRoute({ screen: "review", root });
  }, []);
  const { state, reload, chooseFolder, openZotero, dismissError } = useHome(platform, openReview);
  const models = useModelSetup(platform);
  const runs = useRuns(platform);
  const [modelOpen, setModelOpen] = useState(false);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const { prefs, update } = usePreferences();
  return (
    <div class="app">
      <header class="topbar">
        <img class="topbar__logo" src={logo} alt="" width={28} height={28} />
        <span class="topbar__name">Quire</span>
        <span class="topbar__tagline">Literature reviews, read paper by paper</span>
        <button
          type="button"
          class="topbar__model"
          data-testid="model-button"
          aria-expanded={modelOpen}
          onClick={() => {
            setModelOpen(!modelOpen);
          }}
        >
          {activeLabel(models.state.setup)}
        </button>
        <button
          type="button"
          class="topbar__settings"
          data-testid="settings-button"
          aria-expanded={settingsOpen}
          aria-label="Settings"
          title="Settings"
          onClick={() => {
            setSettingsOpen(!settingsOpen);
          }}
        >
          ⚙
        </button>
      </header>
      {settingsOpen && (
        <SettingsPanel
          platform={platform}
          prefs={prefs}
          onChange={update}
          onClose={() => {
            setSettingsOpen(false);
          }}
        />
      )}
      {modelOpen && (
        <ModelPanel
          state={models.state}
          onSave={(profile) => void models.save(profile)}
          onClose={() => {
            setModelOpen(false);
          }}
        />
      )}
      {route.screen === "review" ? (
        <ReviewScreen
          key={route.root}
          platform={platform}
          root={route.root}
          runs={runs}
          model={models.state.setup?.active ?? null}
          defaultEngine={prefs.engine}
          lookups={{ enabled: prefs.lookups, contact: prefs.contact === "" ? null : prefs.contact }}
          onBack={() => {
            setRoute({ screen: "home" });
            void reload(); // runs may have changed the reviews' status
          }}
        />
      ) : (
        <main class="home">
          {state.error !== null && (
            <div class="banner banner--error" role="alert">
              <span>{state.error}</span>
              <button type="button" class="banner__close" onClick={dismissError} aria-label="Dismiss">
                ×
              </button>
            </div>
          )}
          <DropZone dragging={state.dragging} opening={state.opening} onChoose={() => void chooseFolder()} />
          <ZoteroPicker platform={platform} busy={state.opening !== null} onOpen={(c) => void openZotero(c)} />
          <RecentReviews
            workspaces={state.workspaces}
            notice={state.notice}
            highlightId={state.lastOpenedId}
            onOpen={openReview}
          />
        </main>
      )}
    </div>
  );
}
