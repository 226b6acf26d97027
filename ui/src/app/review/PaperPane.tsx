// One paper in full: bibliographic facts, the engine's summary, key points,
// score and rationale, per-criterion verdicts and evidence quotes with pages,
// and the researcher's label. Everything from the paper or the model is
// rendered as text.

import { useEffect, useState } from "preact/hooks";

import {
  type DualPolicy,
  type MetaChange,
  type Origin,
  type PaperDetail,
  type PaperMeta,
  type PaperRow,
  type Platform,
  QuireError,
  type ZoteroItem,
} from "../../platform";
import { MetaEditor } from "./MetaEditor";
import { FILE_STATUS, fileName } from "./format";
import { titleOf } from "./table";

export interface PaperPaneProps {
  platform: Platform;
  workspace: string;
  paper: string | null;
  /** Changes when the paper's label does, to fetch it again. */
  revision: string;
  /** Opens the paper at a quote's page. */
  onOpenQuote: (paper: string, title: string, page: number, quote: string) => void;
  /** The paper's details were corrected; the table shows the new row. */
  onRowChange: (row: PaperRow) => void;
  /** Shows another paper of the review (a record's full text, or its record). */
  onSelectPaper: (paper: string) => void;
}

const OUTCOME: Record<string, string> = { met: "Met", not_met: "Not met", unclear: "Unclear" };

const POLICY_WORDS: Record<DualPolicy, string> = {
  "agree-to-exclude": "excluded only when both readings exclude it",
  "tie-breaker": "a third reading decides a disagreement",
  flag: "a disagreement is left to you, as maybe",
};

/** The paper's independent readings side by side, under the review's policy. */
function Readings({ detail }: { detail: PaperDetail }) {
  const readings = [
    { name: "First reading", result: detail.firstReading },
    { name: "Second reading", result: detail.secondReading },
    { name: "Third reading", result: detail.thirdReading },
  ];
  return (
    <div class={`pane__readings${detail.paper.disagreed ? " pane__readings--disagree" : ""}`} data-testid="pane-readings">
      <p>
        {detail.paper.disagreed ? "The readings disagree" : "The readings agree"}
        {detail.policy !== null && ` · ${POLICY_WORDS[detail.policy]}`}
      </p>
      <ul>
        {readings.map(({ name, result }) =>
          result === null ? null : (
            <li key={name}>
              <strong>{name}</strong> ({result.provenance.model ?? "model"}):{" "}
              <span class={`verdict verdict--${result.verdict}`}>{result.verdict}</span> {result.score.toFixed(1)} —{" "}
              {result.rationale}
            </li>
          ),
        )}
      </ul>
    </div>
  );
}

/** A search record's full text (a PDF attached to it), or the record a PDF
 * is the full text of; nothing for a PDF of no record. */
function FullTextLine({ row, onSelectPaper }: { row: PaperRow; onSelectPaper: (paper: string) => void }) {
  const link = (paper: string, words: string) => (
    <button
      type="button"
      class="link-button"
      data-testid="full-text-link"
      onClick={() => {
        onSelectPaper(paper);
      }}
    >
      {words}
    </button>
  );
  if (row.imported !== null) {
    return (
      <p class="pane__full-text" data-testid="full-text">
        {row.fullText === null ? (
          <span class="muted">No full text attached: attach a folder of PDFs to match them to the records.</span>
        ) : (
          <>Full text attached · {link(row.fullText, "show the PDF's reading")}</>
        )}
      </p>
    );
  }
  if (row.fullTextOf === null) return null;
  return (
    <p class="pane__full-text" data-testid="full-text">
      The full text of a search record · {link(row.fullTextOf, "show the record")}
    </p>
  );
}

export function PaperPane({ platform, workspace, paper, revision, onOpenQuote, onRowChange, onSelectPaper }: PaperPaneProps) {
  const [detail, setDetail] = useState<PaperDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);

  useEffect(() => {
    setEditing(false);
  }, [paper]);

  const correct = async (change: MetaChange | null) => {
    if (paper === null) return;
    const updated = await platform.correctPaper(workspace, paper, change);
    setDetail(updated);
    onRowChange(updated.paper);
  };

  useEffect(() => {
    if (paper === null) return;
    let live = true;
    setError(null);
    platform.paperDetail(workspace, paper).then(
      (d) => {
        if (live) setDetail(d);
      },
      (raw: unknown) => {
        if (live) setError(QuireError.from(raw).message);
      },
    );
    return () => {
      live = false;
    };
  }, [platform, workspace, paper, revision]);

  if (paper === null) {
    return (
      <aside class="pane pane--empty" data-testid="paper-pane">
        <p>Choose a paper to see its summary, score and evidence.</p>
        <p class="muted">Keys: j/k move · i/m/e include/maybe/exclude · 1–9, 0 score · u undo</p>
      </aside>
    );
  }
  if (error !== null) {
    return (
      <aside class="pane" data-testid="paper-pane">
        <p class="form-error" role="alert">
          {error}
        </p>
      </aside>
    );
  }
  if (detail === null || detail.paper.id !== paper) {
    return (
      <aside class="pane pane--loading" data-testid="paper-pane" aria-busy="true">
        <p class="muted">Loading…</p>
      </aside>
    );
  }
  const { paper: row, meta, result } = detail;
  const facts = [
    row.authors.join(", "),
    row.year?.toString() ?? "",
    meta.venue ?? "",
    meta.doi === null ? "" : `DOI ${meta.doi}`,
    row.imported === null
      ? fileName(row.file)
      : row.imported.zotero !== undefined && row.imported.zotero !== null
        ? `Zotero item ${row.imported.zotero.key} (version ${String(row.imported.zotero.version)})`
        : `${row.imported.format} record ${String(row.imported.position)} of ${fileName(row.file)}, title and abstract only`,
    // Quotes from a scan may carry recognition errors; say so.
    row.ocr ? "read by OCR" : "",
  ].filter(Boolean);
  return (
    <aside class="pane" data-testid="paper-pane" aria-labelledby="pane-title">
      <h2 id="pane-title" class="pane__title" data-testid="pane-title">
        {titleOf(row)}
      </h2>
      <p class="pane__facts">
        {facts.join(" · ")}{" "}
        {!editing && (
          <button type="button" class="link-button" data-testid="meta-edit" onClick={() => { setEditing(true); }}>
            Correct details
          </button>
        )}
      </p>
      {sourcesLine(meta) !== "" && (
        <p class="pane__sources muted" data-testid="pane-sources">
          {sourcesLine(meta)}
        </p>
      )}
      <FullTextLine row={row} onSelectPaper={onSelectPaper} />
      {editing && <MetaEditor row={row} onSave={correct} onClose={() => { setEditing(false); }} />}
      {row.label !== null && (
        <p class="pane__label" data-testid="pane-label">
          Your label:{" "}
          {[row.label.verdict, row.label.score === null ? null : `score ${row.label.score}/10`].filter(Boolean).join(" · ")}
        </p>
      )}
      {result === null && row.stale !== null && detail.staleReading !== null && (
        <p class="pane__stale" data-testid="pane-stale">
          Stale: {row.stale}. Its old reading ({detail.staleReading.score.toFixed(1)}, {detail.staleReading.verdict}
          {detail.staleReading.provenance.model === null ? "" : `, by ${detail.staleReading.provenance.model}`}) counts
          nowhere until the paper is read again.
        </p>
      )}
      {result === null && row.failure !== null ? (
        <p class="pane__failure" data-testid="pane-failure">
          Could not be scored{row.failure.model === null ? "" : ` by ${row.failure.model}`}: {row.failure.reason}
        </p>
      ) : result === null && row.stale !== null ? null : result === null ? (
        <p class="muted">
          {row.status === "ok" || row.status === "damaged"
            ? "Not reviewed yet."
            : `${FILE_STATUS[row.status] ?? row.status}${row.reason === null ? "" : `: ${row.reason}`}`}
        </p>
      ) : (
        <>
          <div class="pane__score">
            <span class={`score score--${result.verdict}`} data-testid="pane-score">
              {result.score.toFixed(1)}
            </span>
            <span class={`verdict verdict--${result.verdict}`}>{result.verdict}</span>
            <span class="muted">{result.provenance.model ?? result.provenance.engine}</span>
          </div>
          <p class="pane__rationale">{result.rationale}</p>
          {detail.secondReading !== null && <Readings detail={detail} />}
          {result.doubts !== undefined && result.doubts.length > 0 && (
            <div class="pane__doubts" role="note" data-testid="pane-doubts">
              <h3 class="subhead">Check before trusting</h3>
              <ul>
                {result.doubts.map((d, i) => (
                  <li key={i}>{d}</li>
                ))}
              </ul>
            </div>
          )}
          <h3 class="subhead">Summary</h3>
          <p class="pane__summary" data-testid="pane-summary">
            {result.summary.map((s, i) => (
              <span key={i}>
                {s.text} {s.page > 0 && <span class="page-ref">p. {s.page}</span>}{" "}
              </span>
            ))}
          </p>
          {result.keyPoints.length > 0 && (
            <>
              <h3 class="subhead">Key points</h3>
              <ul class="pane__points">
                {result.keyPoints.map((k, i) => (
                  <li key={i}>{k}</li>
                ))}
              </ul>
            </>
          )}
          {result.excludedBy != null && (
            <p class="pane__excluded" data-testid="excluded-by">
              Excluded by a criterion, whatever its relevance score: <strong>{result.excludedBy}</strong>
            </p>
          )}
          {result.criteria.length > 0 && (
            <>
              <h3 class="subhead">Criteria</h3>
              <ul class="criteria">
                {result.criteria.map((c, i) => (
                  <li key={i} class={`criteria__item criteria__item--${c.outcome}`}>
                    <strong>{OUTCOME[c.outcome] ?? c.outcome}</strong> {c.criterion}
                    {c.note !== "" && <span class="muted"> — {c.note}</span>}
                    {c.evidence !== null && (
                      <button
                        type="button"
                        class="quote"
                        data-testid="criterion-quote"
                        title={`Open the paper at page ${String(c.evidence.page)}`}
                        onClick={() => {
                          if (c.evidence !== null) onOpenQuote(row.id, titleOf(row), c.evidence.page, c.evidence.text);
                        }}
                      >
                        <span class="quote__text">“{c.evidence.text}”</span>
                        <span class="page-ref">p. {c.evidence.page}</span>
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
          {result.evidence.length > 0 && (
            <>
              <h3 class="subhead">Evidence</h3>
              <ul class="quotes" data-testid="quotes">
                {result.evidence.map((q, i) => (
                  <li key={i}>
                    {row.imported !== null ? (
                      <blockquote class="quote" data-testid="quote">
                        <span class="quote__text">“{q.text}”</span>
                        <span class="page-ref">title/abstract</span>
                      </blockquote>
                    ) : (
                    <button
                      type="button"
                      class="quote"
                      data-testid="quote"
                      title={`Open the paper at page ${q.page}`}
                      onClick={() => {
                        onOpenQuote(row.id, titleOf(row), q.page, q.text);
                      }}
                    >
                      <span class="quote__text">“{q.text}”</span>
                      <span class="page-ref">p. {q.page}</span>
                    </button>
                    )}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
      {row.imported !== null && (
        <>
          <h3 class="subhead">Abstract</h3>
          <p class="pane__abstract" data-testid="pane-abstract">
            {meta.abstract ?? "The record has no abstract: it is screened on its title alone."}
          </p>
        </>
      )}
      {row.imported?.zotero != null && <ZoteroFacts item={row.imported.zotero} />}
      {row.imported === null && meta.abstract !== undefined && meta.abstract !== null && (
        <details class="pane__abstract" data-testid="pane-abstract">
          <summary class="subhead">Abstract</summary>
          <p>{meta.abstract}</p>
        </details>
      )}
    </aside>
  );
}

/** What the researcher keeps on the item in Zotero: its tags, notes, and a PDF Zotero lists but this computer lacks. */
function ZoteroFacts({ item }: { item: ZoteroItem }) {
  const tags = item.tags ?? [];
  const notes = item.notes ?? [];
  const missing = item.missingPdfs ?? [];
  if (tags.length === 0 && notes.length === 0 && missing.length === 0) return null;
  return (
    <div class="pane__zotero" data-testid="pane-zotero">
      <h3 class="subhead">In Zotero</h3>
      {tags.length > 0 && (
        <ul class="tags" aria-label="Zotero tags">
          {tags.map((tag) => (
            <li key={tag} class="tag">
              {tag}
            </li>
          ))}
        </ul>
      )}
      {notes.map((note, n) => (
        <p key={n} class="pane__note">
          {note}
        </p>
      ))}
      {missing.map((why) => (
        <p key={why} class="field__hint">
          No full text: {why}
        </p>
      ))}
    </div>
  );
}

const ORIGIN_LABELS: Record<Origin, string> = {
  pdf: "the PDF",
  reader: "the model's reading of page one",
  crossref: "Crossref",
  arxiv: "arXiv",
  openalex: "OpenAlex",
  corrected: "your correction",
  record: "the search export",
  zotero: "Zotero",
};

/** "Title, authors and year from Crossref · abstract from the PDF": where the record came from. */
export function sourcesLine(meta: PaperMeta): string {
  const sources = meta.sources ?? {};
  const byOrigin = new Map<Origin, string[]>();
  for (const field of ["title", "authors", "year", "venue", "doi", "arxiv", "abstract"] as const) {
    const origin = sources[field];
    if (origin === undefined) continue;
    byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), field === "doi" ? "DOI" : field === "arxiv" ? "arXiv id" : field]);
  }
  // Only worth a line when something did not come from the PDF.
  if ([...byOrigin.keys()].every((o) => o === "pdf")) return "";
  const parts = [...byOrigin.entries()].map(([origin, fields]) => {
    const last = fields[fields.length - 1] ?? "";
    const list = fields.length === 1 ? last : `${fields.slice(0, -1).join(", ")} and ${last}`;
    return `${list.charAt(0).toUpperCase()}${list.slice(1)} from ${ORIGIN_LABELS[origin]}`;
  });
  return parts.join(" · ");
}
