// The review's Markdown report as the export would write it now (labels
// included), shown through the safe renderer in ./markdown.tsx.

import { useEffect, useState } from "preact/hooks";

import { type Platform, QuireError } from "../../platform";
import { Modal } from "./Modal";
import { Markdown } from "./markdown";

export function ReportPreview({ platform, workspace, onClose }: { platform: Platform; workspace: string; onClose: () => void }) {
  const [source, setSource] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
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
    <Modal title="Report preview" testId="report-preview" closeTestId="preview-close" onClose={onClose}>
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
    </Modal>
  );
}
