// The paper itself, at the page a quote cites, with the quote highlighted.
// pdf.js renders the page to a canvas and lays its text over it; the bytes
// come through the platform (a command scoped to the review's own papers),
// never from a file URL. pdf.js is loaded on first use, so it costs nothing
// at start-up.

import { useEffect, useRef, useState } from "preact/hooks";

import { type PaperDetail, type Platform, QuireError } from "../../platform";
import { Modal } from "./Modal";
import { RecordText } from "./RecordText";
import { itemsCovering } from "./quoteMatch";

export interface PdfTarget {
  workspace: string;
  paper: string;
  title: string;
  page: number;
  /** The passage to mark on `page`; empty to open the page unmarked. */
  quote: string;
}

type PdfJs = typeof import("pdfjs-dist");
type PdfDocument = Awaited<ReturnType<PdfJs["getDocument"]>["promise"]>;

let pdfjs: Promise<PdfJs> | null = null;

/** pdf.js with its worker served from the app's own origin. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= Promise.all([import("pdfjs-dist"), import("pdfjs-dist/build/pdf.worker.min.mjs?url")]).then(
    ([lib, worker]) => {
      lib.GlobalWorkerOptions.workerSrc = worker.default;
      return lib;
    },
  );
  return pdfjs;
}

/** Widest a page is drawn, in CSS pixels. */
const MAX_WIDTH = 900;

export function PdfViewer({ platform, target, onClose }: { platform: Platform; target: PdfTarget; onClose: () => void }) {
  const [doc, setDoc] = useState<PdfDocument | null>(null);
  const [page, setPage] = useState(target.page);
  const [error, setError] = useState<string | null>(null);
  const [found, setFound] = useState<boolean | null>(null);
  // A search record has no PDF: its title and abstract are shown instead.
  const [record, setRecord] = useState<PaperDetail | null>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const layer = useRef<HTMLDivElement>(null);
  const sheet = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const state = { live: true };
    const live = () => state.live;
    let task: ReturnType<PdfJs["getDocument"]> | null = null;
    Promise.all([loadPdfJs(), platform.paperPdf(target.workspace, target.paper)])
      .then(async ([lib, bytes]) => {
        if (!live()) return;
        task = lib.getDocument({ data: new Uint8Array(bytes) });
        const opened = await task.promise;
        if (live()) setDoc(opened);
      })
      .catch(async (raw: unknown) => {
        const failure = QuireError.from(raw);
        if (failure.code === "no_pdf") {
          try {
            const detail = await platform.paperDetail(target.workspace, target.paper);
            if (live()) setRecord(detail);
            return;
          } catch (detailRaw) {
            if (live()) setError(`This paper cannot be shown: ${QuireError.from(detailRaw).message}`);
            return;
          }
        }
        if (live()) setError(`This PDF cannot be shown: ${failure.message}`);
      });
    return () => {
      state.live = false;
      void task?.destroy();
    };
  }, [platform, target.workspace, target.paper]);

  useEffect(() => {
    if (doc === null || canvas.current === null || layer.current === null || sheet.current === null) return;
    const [cv, tl, box] = [canvas.current, layer.current, sheet.current];
    const run = { cancelled: false };
    const cancelled = () => run.cancelled;
    const number = Math.min(Math.max(1, page), doc.numPages);
    void (async () => {
      try {
        const lib = await loadPdfJs();
        const pdfPage = await doc.getPage(number);
        const base = pdfPage.getViewport({ scale: 1 });
        // Fit the page to the scrolling area (the sheet itself is as wide as its canvas).
        const room = (box.parentElement?.clientWidth ?? MAX_WIDTH) - 32;
        const scale = Math.min(MAX_WIDTH, room > 200 ? room : MAX_WIDTH) / base.width;
        const viewport = pdfPage.getViewport({ scale });
        const ratio = window.devicePixelRatio || 1;
        cv.width = Math.floor(viewport.width * ratio);
        cv.height = Math.floor(viewport.height * ratio);
        cv.style.width = `${Math.floor(viewport.width)}px`;
        cv.style.height = `${Math.floor(viewport.height)}px`;
        box.style.setProperty("--total-scale-factor", String(scale));
        box.style.setProperty("--scale-round-x", "1px");
        box.style.setProperty("--scale-round-y", "1px");
        await pdfPage.render({ canvas: cv, viewport, transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0] })
          .promise;
        if (cancelled()) return;
        tl.replaceChildren();
        const text = new lib.TextLayer({ textContentSource: pdfPage.streamTextContent(), container: tl, viewport });
        await text.render();
        if (cancelled()) return;
        // An empty quote opens the paper at a page without marking anything.
        if (number === target.page && target.quote !== "") {
          const marked = itemsCovering(text.textContentItemsStr, target.quote);
          for (const i of marked) text.textDivs[i]?.classList.add("pdf__mark");
          setFound(marked.length > 0);
          const first = text.textDivs[marked[0] ?? -1];
          const scroller = box.parentElement;
          if (first !== undefined && scroller !== null) {
            const offset = first.getBoundingClientRect().top - box.getBoundingClientRect().top;
            scroller.scrollTop = Math.max(0, offset - scroller.clientHeight / 3);
          }
        }
      } catch (raw) {
        if (!cancelled()) setError(`Page ${number} cannot be shown: ${QuireError.from(raw).message}`);
      }
    })();
    return () => {
      run.cancelled = true;
    };
  }, [doc, page, target.page, target.quote]);

  if (record !== null) {
    return (
      <Modal title={target.title} testId="pdf-viewer" closeTestId="pdf-close" onClose={onClose}>
        <div class="overlay__scroll">
          <RecordText detail={record} quote={target.quote} />
        </div>
      </Modal>
    );
  }
  const pages = doc?.numPages ?? 0;
  const go = (to: number) => {
    if (pages > 0) setPage(Math.min(pages, Math.max(1, to)));
  };
  return (
    <Modal
      title={target.title}
      testId="pdf-viewer"
      closeTestId="pdf-close"
      onClose={onClose}
      onKey={(key) => {
        if (key === "ArrowRight" || key === "PageDown") go(page + 1);
        else if (key === "ArrowLeft" || key === "PageUp") go(page - 1);
        else return false;
        return true;
      }}
      actions={
        <>
          <button type="button" class="button button--small" aria-label="Previous page" disabled={page <= 1} onClick={() => { go(page - 1); }}>
            ‹
          </button>
          <span class="pdf__page" data-testid="pdf-page" aria-live="polite">
            Page {page}
            {pages > 0 && ` of ${pages}`}
          </span>
          <button type="button" class="button button--small" aria-label="Next page" disabled={pages === 0 || page >= pages} onClick={() => { go(page + 1); }}>
            ›
          </button>
        </>
      }
    >
      {found === false && page === target.page && (
        <p class="notice pdf__notice" data-testid="pdf-not-found">
          The quote could not be located exactly on this page; it may run onto the next one.
        </p>
      )}
      {error !== null && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <div class="overlay__scroll">
        {doc === null && error === null && <p class="muted pdf__loading">Opening the PDF…</p>}
        <div class="pdf__sheet" ref={sheet}>
          <canvas ref={canvas} class="pdf__canvas" aria-label={`Page ${page} of the paper`} />
          <div ref={layer} class="textLayer" data-testid="pdf-text" />
        </div>
      </div>
    </Modal>
  );
}
