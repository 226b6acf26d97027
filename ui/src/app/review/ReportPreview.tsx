// The review's Markdown report as the export would write it now (labels
// included), shown through the safe renderer in ./markdown.tsx.

import { useEffect, useRef, useState } from "preact/hooks";

import { type Platform, QuireError } from "../../platform";
import { Markdown } from "./markdown";

export function ReportPreview({ platform, workspace, onClose }: { platform: Platform; workspace: string; onClose: () => void }) {
  const [source, setSource] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const dialog = useRef<HTMLDivElement>(null);

  useEffect(() => {
    dialog.current?.focus();
    let live = true;
    platform.renderReview(workspace, "markdown").then(
      (md) => {
        if (live) setSource(md);
      },
      (raw: unknown) => {
        if (live) setError(QuireError.from(raw).message);
      },
    );
    return () => {
      live = false;
    };
  }, [platform, workspace]);

  return (
    <div class="overlay" role="presentation">
      <div
        class="overlay__dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="preview-title"
        tabIndex={-1}
        ref={dialog}
        data-testid="report-preview"
        onKeyDown={(e) => {
          e.stopPropagation();
          if (e.key === "Escape") onClose();
        }}
      >
        <header class="overlay__bar">
          <h2 id="preview-title" class="overlay__title">
            Report preview
          </h2>
          <button type="button" class="button button--small" data-testid="preview-close" onClick={onClose}>
            Close
          </button>
        </header>
        <div class="overlay__scroll report-preview">
          {error !== null ? (
            <p class="form-error" role="alert">
              {error}
            </p>
          ) : source === null ? (
            <p class="muted">Rendering the report…</p>
          ) : (
            <Markdown source={source} />
          )}
        </div>
      </div>
    </div>
  );
}
