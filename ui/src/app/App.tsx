import type { Platform } from "../platform";
import logo from "../../../icons/quire.svg";
import { DropZone } from "./DropZone";
import { RecentReviews } from "./RecentReviews";
import { useHome } from "./useHome";

export function App({ platform }: { platform: Platform }) {
  const { state, chooseFolder, dismissError } = useHome(platform);
  return (
    <div class="app">
      <header class="topbar">
        <img class="topbar__logo" src={logo} alt="" width={28} height={28} />
        <span class="topbar__name">Quire</span>
        <span class="topbar__tagline">Literature reviews, read paper by paper</span>
      </header>
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
        <RecentReviews workspaces={state.workspaces} notice={state.notice} highlightId={state.lastOpenedId} />
      </main>
    </div>
  );
}
