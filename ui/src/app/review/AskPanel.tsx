// Ask the papers: a question answered across the review's papers, each claim
// citing [n], a quote checked on its page; a citation opens the paper at that
// page with the quote marked. With no model the result is the best passages,
// labelled as such. Every question asked is kept and listed.

import type { ComponentChild } from "preact";
import { useEffect, useState } from "preact/hooks";

import { type AskRecord, type AskSource, type Platform, QuireError } from "../../platform";
import { usePdfViewer } from "./usePdfViewer";
import { count } from "./format";
import { inline } from "./markdown";

export interface AskPanelProps {
  platform: Platform;
  workspace: string;
  /** The review has verdicts: "the papers it keeps" is a scope. */
  reviewed: boolean;
}

/** A paragraph of the answer, its `[n]` citations as buttons. */
function Cited({ text, sources, onOpen }: { text: string; sources: AskSource[]; onOpen: (s: AskSource) => void }) {
  const parts: ComponentChild[] = [];
  let last = 0;
  let key = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const source = sources.find((s) => s.n === Number(m[1]));
    if (source === undefined) continue;
    if (m.index > last) parts.push(...inline(text.slice(last, m.index)));
    parts.push(
      <button
        key={`c${key++}`}
        type="button"
        class="citation"
        data-testid="citation"
        title={`${source.title}, p. ${source.page}: “${source.quote}”`}
        onClick={() => {
          onOpen(source);
        }}
      >
        [{source.n}]
      </button>,
    );
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(...inline(text.slice(last)));
  return <p>{parts}</p>;
}

export function AskPanel({ platform, workspace, reviewed }: AskPanelProps) {
  const [question, setQuestion] = useState("");
  const [scope, setScope] = useState<"included" | "all">(reviewed ? "included" : "all");
  const [readAll, setReadAll] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<AskRecord | null>(null);
  const [history, setHistory] = useState<AskRecord[]>([]);
  const [saved, setSaved] = useState<string | null>(null);
  const [openPdf, pdfViewer] = usePdfViewer(platform);

  const refresh = () =>
    platform.askHistory(workspace).then(
      (records) => {
        setHistory(records);
        return records;
      },
      (raw: unknown) => {
        setError(QuireError.from(raw).describe());
        return [];
      },
    );

  useEffect(() => {
    void refresh().then((records) => {
      setShown((current) => current ?? records[0] ?? null);
    });
    // `refresh` closes over the workspace only.
  }, [platform, workspace]);

  const ask = async () => {
    setBusy(true);
    setError(null);
    try {
      const record = await platform.askPapers({ workspace, question, scope: { kind: scope }, readAll, offline: false });
      setShown(record);
      await refresh();
    } catch (raw) {
      setError(QuireError.from(raw).describe());
    } finally {
      setBusy(false);
    }
  };

  const open = (s: AskSource) => {
    openPdf({ workspace, paper: s.paper, title: s.title, page: s.page, quote: s.quote });
  };

  return (
    <section class="ask" data-testid="ask" aria-label="Ask the papers">
      <div class="ask__main">
        <form
          class="ask__form"
          onSubmit={(e) => {
            e.preventDefault();
            void ask();
          }}
        >
          <label class="field">
            <span class="field__label">Ask the papers</span>
            <textarea
              class="field__input"
              data-testid="ask-question"
              rows={2}
              value={question}
              placeholder="Which of these papers measure recovery time, and how?"
              onInput={(e) => {
                setQuestion(e.currentTarget.value);
              }}
            />
          </label>
          <div class="ask__options">
            <select
              class="field__input"
              aria-label="Which papers"
              data-testid="ask-scope"
              value={scope}
              onChange={(e) => {
                setScope(e.currentTarget.value as "included" | "all");
              }}
            >
              {reviewed && <option value="included">the papers the review keeps</option>}
              <option value="all">all readable papers</option>
            </select>
            <label class="pilot__choice">
              <input
                type="checkbox"
                data-testid="ask-read-all"
                checked={readAll}
                onChange={(e) => {
                  setReadAll(e.currentTarget.checked);
                }}
              />
              <span>read every one, not only the best matches</span>
            </label>
            {busy && (
              <button type="button" class="button" onClick={() => void platform.cancelAsk(workspace)}>
                Cancel
              </button>
            )}
            <button type="submit" class="button button--primary" data-testid="ask-submit" disabled={busy || question.trim() === ""}>
              {busy ? "Reading the papers…" : "Ask"}
            </button>
          </div>
        </form>
        {error !== null && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        {shown !== null && (
          <AskResult
            record={shown}
            onOpen={open}
            actions={
              <div class="ask__actions">
                <button
                  type="button"
                  class="button button--small"
                  data-testid="ask-to-report"
                  onClick={() =>
                    void platform.askInReport(workspace, shown.id, !shown.inReport).then(
                      (record) => {
                        setShown(record);
                        void refresh();
                      },
                      (raw: unknown) => {
                        setError(QuireError.from(raw).describe());
                      },
                    )
                  }
                >
                  {shown.inReport ? "In the report ✓ (take out)" : "Add to the report"}
                </button>
                <button
                  type="button"
                  class="button button--small"
                  data-testid="ask-export"
                  onClick={() =>
                    void platform.exportAsk(workspace, shown.id, "answer").then(
                      (written) => {
                        if (written !== null) setSaved(`Saved ${written.path}`);
                      },
                      (raw: unknown) => {
                        setError(QuireError.from(raw).describe());
                      },
                    )
                  }
                >
                  Export Markdown
                </button>
                {saved !== null && <span class="muted">{saved}</span>}
              </div>
            }
          />
        )}
      </div>
      <aside class="ask__history" aria-label="Questions asked">
        <h2 class="section-title">Asked</h2>
        {history.length === 0 ? (
          <p class="muted">No question yet.</p>
        ) : (
          <ul data-testid="ask-history">
            {history.map((r) => (
              <li key={r.id}>
                <button
                  type="button"
                  class={`link-button${shown?.id === r.id ? " ask__current" : ""}`}
                  onClick={() => {
                    setShown(r);
                  }}
                >
                  {r.question}
                </button>
                <small class="muted">
                  {r.mode === "passages" ? "passages" : `${count(r.coverage.contributed)} of ${count(r.coverage.read)} papers`}
                </small>
              </li>
            ))}
          </ul>
        )}
      </aside>
      {pdfViewer}
    </section>
  );
}

function AskResult({ record, onOpen, actions }: { record: AskRecord; onOpen: (s: AskSource) => void; actions: ComponentChild }) {
  const c = record.coverage;
  return (
    <article class="ask__result" data-testid="ask-result">
      <h2 class="ask__question">{record.question}</h2>
      {record.status !== "done" && (
        <p class="notice" role="status">
          {record.status === "stopped"
            ? `Stopped before it was answered: ${record.stopped ?? "a cap"}. Asking again resumes.`
            : record.status === "cancelled"
              ? "Cancelled before it was answered. Asking again resumes with the papers already read."
              : "Still being answered."}
        </p>
      )}
      {record.mode === "passages" ? (
        <>
          <p class="ask__label" data-testid="ask-mode">
            Passages, not an answer: no language model was used. These are the sentences that best match the question&apos;s words.
          </p>
          <ul class="ask__passages">
            {record.sources.map((s) => (
              <li key={s.n}>
                <button
                  type="button"
                  class="link-button"
                  data-testid="citation"
                  onClick={() => {
                    onOpen(s);
                  }}
                >
                  <em>{s.title}</em>, p. {s.page}
                </button>
                : “{s.quote}”
              </li>
            ))}
          </ul>
        </>
      ) : (
        <div class="ask__answer" data-testid="ask-answer">
          {record.answer
            .split(/\n\n+/)
            .filter((p) => p.trim() !== "")
            .map((p, i) => (
              <Cited key={i} text={p} sources={record.sources} onOpen={onOpen} />
            ))}
        </div>
      )}
      {record.mode === "answer" && record.sources.length > 0 && (
        <details class="ask__sources">
          <summary>Sources: {count(record.sources.length)} quotes, each checked on its page</summary>
          <ol>
            {record.sources.map((s) => (
              <li key={s.n} value={s.n}>
                <button
                  type="button"
                  class="link-button"
                  onClick={() => {
                    onOpen(s);
                  }}
                >
                  <em>{s.title}</em>, p. {s.page}
                </button>
                : “{s.quote}”
              </li>
            ))}
          </ol>
        </details>
      )}
      <p class="muted" data-testid="ask-coverage">
        {count(c.considered)} papers considered, {count(c.read)} {record.mode === "answer" ? "read" : "searched"},{" "}
        {count(c.contributed)} contributed
        {c.quotesDropped > 0 && ` · ${count(c.quotesDropped)} quotes not on their page dropped`}
        {c.unsupported > 0 && ` · ${count(c.unsupported)} sentences cite no source`}
        {c.failed.length > 0 && ` · ${count(c.failed.length)} papers could not be read`}
        {record.model !== null && ` · ${record.model}`}
      </p>
      {actions}
    </article>
  );
}
