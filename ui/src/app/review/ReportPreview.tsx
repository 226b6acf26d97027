// The review's Markdown report as the export would write it now (labels
// included), shown through the safe renderer in ./markdown.tsx.

import type { Platform } from "../../platform";
import { Modal } from "./Modal";
import { Markdown } from "./markdown";
import { useLoaded } from "./useLoaded";

export function ReportPreview({ platform, workspace, onClose }: { platform: Platform; workspace: string; onClose: () => void }) {
  const { value: source, error } = useLoaded(() => platform.renderReview(workspace, "markdown"), workspace);

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
