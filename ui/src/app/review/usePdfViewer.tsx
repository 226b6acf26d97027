// The built-in PDF viewer as a panel opens it: a function that opens a paper
// at a page (a quote marked), and the viewer to render while it is open.

import type { ComponentChild } from "preact";
import { useState } from "preact/hooks";

import type { Platform } from "../../platform";
import { type PdfTarget, PdfViewer } from "./PdfViewer";

export function usePdfViewer(platform: Platform): [(target: PdfTarget) => void, ComponentChild] {
  const [viewing, setViewing] = useState<PdfTarget | null>(null);
  const viewer =
    viewing === null ? null : (
      <PdfViewer
        platform={platform}
        target={viewing}
        onClose={() => {
          setViewing(null);
        }}
      />
    );
  return [setViewing, viewer];
}
