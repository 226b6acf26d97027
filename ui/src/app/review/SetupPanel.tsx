// The new-review form: question, criteria, engine, budget, and the files found
// with their status, with the estimate before anything is spent.

import { useState } from "preact/hooks";

import {
  type ActiveModel,
  type EngineKind,
  type Estimate,
  type DualPolicy,
  type LookupChoice,
  type PaperRow,
  type Platform,
  type ProtocolVersion,
  QuireError,
  type ReviewLaunch,
  type ReviewView,
} from "../../platform";
import { FILE_STATUS, count, fileName, fileSummary } from "./format";
import { ProtocolPanel } from "./ProtocolPanel";
import { EstimateList, ReadingChoices } from "./ReadingChoices";
import { CapsFields, type CapsText, NO_CAPS, capsParams, numberOrNull } from "./Spend";


export interface SetupPanelProps {
  platform: Platform;
  view: ReviewView;
  /** Every paper of the review, in its order. */
  papers: readonly PaperRow[] | null;
  model: ActiveModel | null;
  defaultEngine: EngineKind;
  /** The scholarly lookups, as set in Settings. */
  lookups: LookupChoice;
  onStart: (launch: ReviewLaunch) => Promise<void>;
  /** The files are still being read (their statuses not known yet): a run
   * cannot start until they are, as both need the review. */
  preparing?: boolean;
}

export function SetupPanel({ platform, view, papers: asked, model, defaultEngine, lookups, onStart, preparing = false }: SetupPanelProps) {
  // The form does not wait for the files' list; the list says it is coming.
  const papers = asked ?? [];
  const [question, setQuestion] = useState(view.question ?? "");
  const [criteria, setCriteria] = useState(view.criteria.join("\n"));
  const [engine, setEngine] = useState<EngineKind>(model === null ? "offline" : (view.engine ?? defaultEngine));
  const [caps, setCaps] = useState<CapsText>(NO_CAPS);
  const [estimate, setEstimate] = useState<Estimate | null>(null);
  const [busy, setBusy] = useState<"estimate" | "start" | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [approved, setApproved] = useState<ProtocolVersion | null>(null);
  const [pilotOn, setPilotOn] = useState(false);
  const [pilotSize, setPilotSize] = useState("5");
  const [dual, setDual] = useState<DualPolicy | null>(view.dual);
  const [secondProfile, setSecondProfile] = useState<string | null>(view.secondProfile);
  const [batch, setBatch] = useState(false);

  const criteriaLines = criteria.split("\n").map((c) => c.trim()).filter(Boolean);
  const pilot = engine === "agent" && pilotOn ? numberOrNull(pilotSize) : null;
  const launch = (): ReviewLaunch => ({
    workspace: view.root,
    question,
    criteria: criteriaLines,
    engine,
    profile: engine === "agent" ? (model?.profile ?? null) : null,
    ...capsParams(caps),
    lookups,
    pilot: pilot === null ? null : Math.floor(pilot),
    dual: engine === "agent" ? dual : null,
    secondProfile: engine === "agent" && dual !== null ? secondProfile : null,
    batch: engine === "agent" && batch,
  });
  const awaitingProtocol = engine === "agent" && approved === null;

  const run = async (what: "estimate" | "start") => {
    setBusy(what);
    setError(null);
    try {
      if (what === "estimate") setEstimate(await platform.estimateReview(launch()));
      else await onStart(launch());
    } catch (raw) {
      setError(QuireError.from(raw).describe());
    } finally {
      setBusy(null);
    }
  };

  const unreadable = papers.filter((p) => p.status !== "ok" && p.status !== "damaged" && p.status !== "pending");
  // A folder or an export of thousands lists its first files, those that
  // cannot be read always among them (each says why), until asked for all.
  const [allFiles, setAllFiles] = useState(false);
  const listed = allFiles || papers.length <= FILES_AT_FIRST ? papers : firstFiles(papers, unreadable);
  return (
    <form
      class="setup"
      data-testid="setup"
      onSubmit={(e) => {
        e.preventDefault();
        void run("start");
      }}
    >
      <div class="setup__main">
        <label class="field">
          <span class="field__label">Review question</span>
          <textarea
            class="field__input"
            data-testid="question"
            rows={3}
            required
            value={question}
            placeholder="What does the literature say about …?"
            onInput={(e) => {
              setQuestion(e.currentTarget.value);
              setEstimate(null);
            }}
          />
        </label>
        <label class="field">
          <span class="field__label">Inclusion and exclusion criteria (optional, one per line)</span>
          <textarea
            class="field__input"
            data-testid="criteria"
            rows={3}
            value={criteria}
            placeholder={"Reports an empirical evaluation\nPublished after 2015"}
            onInput={(e) => {
              setCriteria(e.currentTarget.value);
              setEstimate(null);
            }}
          />
        </label>
        <fieldset class="field engine">
          <legend class="field__label">Engine</legend>
          <label class={`engine__choice${model === null ? " engine__choice--off" : ""}`}>
            <input
              type="radio"
              name="engine"
              value="agent"
              data-testid="engine-agent"
              checked={engine === "agent"}
              disabled={model === null}
              onChange={() => {
                setEngine("agent");
              }}
            />
            <span>
              <strong>Agent</strong>{" "}
              {model === null ? "— no model yet" : `with ${model.model} (${model.profile})`}
              <small>A language model reads every paper: summaries, scores with reasons, quotes with pages.</small>
            </span>
          </label>
          <label class="engine__choice">
            <input
              type="radio"
              name="engine"
              value="offline"
              data-testid="engine-offline"
              checked={engine === "offline"}
              onChange={() => {
                setEngine("offline");
                setEstimate(null);
              }}
            />
            <span>
              <strong>Offline</strong>
              <small>No model, no cost: relevance ranking and extractive summaries, in seconds.</small>
            </span>
          </label>
          {model === null && (
            <p class="engine__hint" data-testid="no-model-hint">
              To use the agent, add a model with the model button at the top right (or start Ollama on this machine).
            </p>
          )}
        </fieldset>
        <p class="field__hint" data-testid="lookups-line">
          {lookups.enabled
            ? "Titles, authors, years and venues are checked against Crossref, arXiv and OpenAlex (each paper's DOI, arXiv id or title is sent, nothing else). Change this in Settings."
            : "Titles, authors and years come from the PDFs alone: looking them up is off in Settings."}
        </p>
        {engine === "agent" && (
          <CapsFields caps={caps} onChange={setCaps} />
        )}
        {engine === "agent" && (
          <ProtocolPanel
            platform={platform}
            workspace={view.root}
            question={question}
            criteria={criteriaLines}
            profile={model?.profile ?? null}
            onApproved={setApproved}
          />
        )}
        {engine === "agent" && (
          <ReadingChoices
            platform={platform}
            firstProfile={model?.profile ?? null}
            pilot={{ on: pilotOn, size: pilotSize }}
            onPilot={(on, size) => {
              setPilotOn(on);
              setPilotSize(size);
            }}
            dual={dual}
            secondProfile={secondProfile}
            onDual={(policy, profile) => {
              setDual(policy);
              setSecondProfile(profile);
            }}
            batch={batch}
            onBatch={setBatch}
          />
        )}
        {estimate !== null && engine === "agent" && <EstimateList estimate={estimate} chosen={dual} />}
        {error !== null && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        <div class="setup__actions">
          {engine === "agent" && (
            <button
              type="button"
              class="button"
              disabled={busy !== null || question.trim() === ""}
              onClick={() => void run("estimate")}
            >
              {busy === "estimate" ? "Estimating…" : "Estimate cost"}
            </button>
          )}
          <button
            type="submit"
            class="button button--primary"
            data-testid="start"
            disabled={busy !== null || preparing || question.trim() === "" || awaitingProtocol || (pilotOn && pilot === null)}
            title={
              preparing
                ? "Reading the files first…"
                : awaitingProtocol
                  ? "Approve the protocol first: no paper is read before it is approved."
                  : undefined
            }
          >
            {busy === "start"
              ? "Starting…"
              : pilot !== null
                ? `Run pilot on ${count(Math.floor(pilot))} ${pilot < 2 ? "paper" : "papers"}`
                : view.state === "new"
                  ? "Start review"
                  : view.state === "pilot"
                    ? "Run the rest"
                    : "Run again"}
          </button>
        </div>
      </div>
      <section class="files" aria-labelledby="files-title">
        <h2 id="files-title" class="section-title">
          Files <span class="section-title__note">{asked === null ? "listing them…" : fileSummary(papers)}</span>
        </h2>
        <ul class="files__list" data-testid="files">
          {listed.map((p) => (
            <li key={p.id} class={`file file--${p.status}`} data-testid="file" title={p.file}>
              <span class="file__name">{p.title ?? fileName(p.file)}</span>
              <span class="file__status">
                {FILE_STATUS[p.status] ?? p.status}
                {fileKind(p)}
              </span>
              {p.reason !== null && <span class="file__reason">{p.reason}</span>}
            </li>
          ))}
        </ul>
        {listed.length < papers.length && (
          <p class="files__note">
            {count(listed.length)} of {count(papers.length)} listed.{" "}
            <button
              type="button"
              class="button button--small"
              data-testid="files-all"
              onClick={() => {
                setAllFiles(true);
              }}
            >
              List all {count(papers.length)}
            </button>
          </p>
        )}
        {unreadable.length > 0 && (
          <p class="files__note">Files that cannot be read are listed in the report and skipped; nothing is spent on them.</p>
        )}
      </section>
    </form>
  );
}

/** Files listed before the researcher asks for all. */
const FILES_AT_FIRST = 200;

/** The first files to list: every one that cannot be read, then the others
 * in order up to FILES_AT_FIRST, in the review's order. */
function firstFiles(papers: readonly PaperRow[], unreadable: readonly PaperRow[]): PaperRow[] {
  const always = new Set(unreadable.map((p) => p.id));
  let room = Math.max(0, FILES_AT_FIRST - always.size);
  return papers.filter((p) => {
    if (always.has(p.id)) return true;
    if (room === 0) return false;
    room -= 1;
    return true;
  });
}

/** What a listed paper is beyond its status: a record (title and abstract),
 * a record's full text, or a PDF's pages. */
function fileKind(p: PaperRow): string {
  if (p.imported !== null) {
    return ` · ${p.imported.format} record, title and abstract${p.fullText === null ? "" : " (full text attached)"}`;
  }
  const pages = p.pages > 0 ? ` · ${count(p.pages)} ${p.pages === 1 ? "page" : "pages"}` : "";
  return p.fullTextOf === null ? pages : `${pages} · a record's full text`;
}
