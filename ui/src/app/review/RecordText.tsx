// A search record's one "page": its title and abstract, with a quote marked.
// What the viewer shows when a cited paper has no PDF (a record imported
// from a database search), so a citation opens the words it quotes either way.

import type { PaperDetail } from "../../platform";

/** Where `quote` is in `text`, ignoring case and runs of spaces; null when it is not there. */
export function findQuote(text: string, quote: string): [number, number] | null {
  const words = quote.trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return null;
  const escaped = words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const match = new RegExp(escaped.join("\\s+"), "i").exec(text);
  return match === null ? null : [match.index, match.index + match[0].length];
}

export function RecordText({ detail, quote }: { detail: PaperDetail; quote: string }) {
  const title = detail.paper.title ?? "";
  const abstractText = detail.meta.abstract ?? "";
  const text = abstractText === "" ? title : `${title}\n\n${abstractText}`;
  const at = findQuote(text, quote);
  const from = detail.paper.imported;
  return (
    <div class="record-text" data-testid="record-text">
      <p class="muted">
        {from === null ? "This paper has no PDF." : `${from.format} record ${String(from.position)}: title and abstract only, no PDF.`}
      </p>
      {quote !== "" && at === null && (
        <p class="notice" data-testid="record-not-found">
          The quote could not be located exactly in the title and abstract.
        </p>
      )}
      <p class="record-text__body">
        {at === null ? (
          text
        ) : (
          <>
            {text.slice(0, at[0])}
            <mark class="pdf__mark" data-testid="record-mark">
              {text.slice(at[0], at[1])}
            </mark>
            {text.slice(at[1])}
          </>
        )}
      </p>
    </div>
  );
}
