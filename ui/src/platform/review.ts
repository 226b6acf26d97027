// The review shapes that cross the IPC boundary, mirroring
// quire::commands::review_view, quire::review and quire::agent::events (camelCase).

export type Verdict = "include" | "maybe" | "exclude";
export type EngineKind = "offline" | "agent";
export type ExportFormat = "markdown" | "bibtex" | "csv" | "ris";
export type ReviewState = "new" | "running" | "interrupted" | "done" | "cancelled" | "stopped" | "failed";

/** The researcher's own judgement of a paper. */
export interface Label {
  verdict: Verdict | null;
  score: number | null;
  note: string | null;
  at: string;
}

/** One paper as the board and the table list it. */
export interface PaperRow {
  id: string;
  file: string;
  title: string | null;
  authors: string[];
  year: number | null;
  /** ok, pending, encrypted, needs_ocr, damaged, not_pdf, too_large, timeout. */
  status: string;
  reason: string | null;
  pages: number;
  /** The text was read from page images by OCR (a scan). */
  ocr: boolean;
  duplicates: number;
  score: number | null;
  verdict: Verdict | null;
  label: Label | null;
  /** Why a readable paper has no result: the model could not read it. */
  failure: PaperFailure | null;
}

/** A model's failure to read one paper (`papers/<id>/failure.json`). */
export interface PaperFailure {
  code: string;
  reason: string;
  model: string | null;
  attempts: number;
  at: string;
}

export interface ReviewView {
  root: string;
  title: string;
  source: string | null;
  question: string | null;
  criteria: string[];
  state: ReviewState;
  engine: EngineKind | null;
  papers: PaperRow[];
}

export interface Quote {
  text: string;
  page: number;
}

export interface CriterionVerdict {
  criterion: string;
  outcome: "met" | "not_met" | "unclear";
  note: string;
  evidence: Quote | null;
}

export interface PaperResult {
  summary: Quote[];
  keyPoints: string[];
  score: number;
  verdict: Verdict;
  rationale: string;
  evidence: Quote[];
  criteria: CriterionVerdict[];
  provenance: { engine: EngineKind; model: string | null; finishedAt: string };
}

/** Where a field of a paper's record came from. */
export type Origin = "pdf" | "reader" | "crossref" | "arxiv" | "openalex" | "corrected";

/** A paper's whole bibliographic record, with each field's source. */
export interface PaperMeta {
  authors: { given: string; family: string }[];
  year: number | null;
  doi: string | null;
  arxiv: string | null;
  venue?: string | null;
  abstract?: string | null;
  sources?: Partial<Record<"title" | "authors" | "year" | "venue" | "doi" | "arxiv" | "abstract", Origin>>;
}

export interface PaperDetail {
  paper: PaperRow;
  meta: PaperMeta;
  result: PaperResult | null;
}

/** Whether a review looks its papers up in the scholarly indexes. */
export interface LookupChoice {
  enabled: boolean;
  /** Sent with each request, as Crossref and OpenAlex ask; optional. */
  contact?: string | null;
}

/** What starting a review sends. */
export interface ReviewLaunch {
  workspace: string;
  question: string;
  criteria: string[];
  engine: EngineKind;
  profile?: string | null;
  maxTokens?: number | null;
  maxCostUsd?: number | null;
  lookups?: LookupChoice;
}

/** Model calls and tokens a run spends, and their cost. */
export interface Spend {
  readerCalls: number;
  agentSteps: number;
  /** The synthesis's calls, one per group of included papers. */
  digestCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number | null;
}

/** What an agent review would cost, before anything is spent: the expected spend, and at most. */
export interface Estimate extends Spend {
  model: string;
  readable: number;
  alreadyReviewed: number;
  toRead: number;
  paperTokens: number;
  /** What the run spends at most when the model needs every retry and re-ask. */
  atMost: Spend;
  concurrency: number;
  serialRounds: number;
  /** Wall time at a typical model's pace. */
  seconds: number;
}

export type PaperPhase = "queued" | "extracting" | "reading" | "scored" | "failed";

/** One thing that happened in a run (quire::agent::RunEvent). */
export type RunEvent =
  | { type: "runStarted"; runId: string; engine: string; papers: number }
  | { type: "extractionStarted"; papers: number; toExtract: number }
  | { type: "lookupsStarted"; papers: number }
  | { type: "lookupsDone"; lookedUp: number; matched: number }
  | { type: "extracted"; paper: string; status: string; fromCache: boolean }
  | { type: "paperStatus"; paper: string; phase: PaperPhase; detail?: string }
  | {
      type: "agentStep";
      task: string;
      agent: string;
      step: number;
      promptTokens: number;
      stableTokens: number;
      consolidation: boolean;
    }
  | { type: "toolCall"; task: string; agent: string; step: number; tool: string; ok: boolean; summary: string }
  | { type: "agentDone"; task: string; agent: string; status: string }
  | { type: "usage"; inputTokens: number; outputTokens: number; costUsd: number | null; modelCalls: number }
  | { type: "finished"; coveredByAgent: number; coveredBySweep: number }
  | { type: "failed"; kind: string; message: string }
  | { type: "cancelled" };

export interface ExportWritten {
  path: string;
  bytes: number;
}
