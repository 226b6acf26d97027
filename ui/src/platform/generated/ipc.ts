// Generated from the Rust types by `src/commands/ipc_types.rs`; do not edit.
// After changing a type: QUIRE_WRITE_IPC_TYPES=1 cargo test ipc_types

/**
 * Which engine produced a result.
 */
export type EngineKind = "offline" | "agent";

export type Verdict = "include" | "maybe" | "exclude";

/**
 * A passage of a paper with the page it is on (1-based).
 */
export type Quote = { text: string, 
/**
 * 1-based. A summary sentence (a paraphrase) no page retells has 0,
 * and is shown without a page.
 */
page: number, };

export type CriterionOutcome = "met" | "not_met" | "unclear";

export type CriterionVerdict = { criterion: string, outcome: CriterionOutcome, 
/**
 * Why, with the passage it rests on when there is one.
 */
note: string, evidence: Quote | null, };

/**
 * Where a result came from.
 */
export type Provenance = { engine: EngineKind, 
/**
 * The language model, when one was used.
 */
model: string | null, 
/**
 * Hash of the inputs that decide the result; equal hash = up to date.
 */
inputHash: string, 
/**
 * The fingerprint of the review's inputs the result was made under
 * (question, criteria, protocol, engine, prompt version): a result
 * whose fingerprint is not the current one is stale.
 */
inputs?: string | null, extractor: string | null, startedAt: string, finishedAt: string, 
/**
 * Hash of the reader's prompt (agent engine).
 */
promptHash?: string | null, 
/**
 * Evidence quotes checked against their cited page and kept / dropped.
 */
quotesVerified?: number | null, quotesDropped?: number | null, 
/**
 * Why the reader was asked again, once, before its answer stood (a
 * quote not on its page, a rationale that was not in words...).
 */
reasked?: string | null, 
/**
 * Who covered the paper: the reviewer agent itself or the final sweep.
 */
coveredBy?: string | null, };

/**
 * A paper's title and authors as a reader read them on its first page.
 */
export type FrontMatter = { title?: string | null, authors?: Array<string>, };

/**
 * One paper's review.
 */
export type PaperResult = { 
/**
 * Three to five sentences, each with its page.
 */
summary: Array<Quote>, keyPoints: Array<string>, 
/**
 * 0-10.
 */
score: number, verdict: Verdict, rationale: string, evidence: Array<Quote>, criteria: Array<CriterionVerdict>, 
/**
 * The criterion the reader excluded the paper by, whatever its score:
 * one of `criteria`, not met, with its passage verified on its page.
 * The verdict is relevance *and* criteria, so cut-offs never move it.
 */
excludedBy?: string | null, 
/**
 * What the researcher should check before trusting the reading, each
 * in words: the paper's text holds an instruction to the model, the
 * evidence quoted uses none of the question's terms, the passage an
 * exclusion rests on none of its criterion's.
 */
doubts?: Array<string>, provenance: Provenance, 
/**
 * The title and authors the reader read on page one, as far as page
 * one bears them out; laid over what extraction found.
 */
frontMatter?: FrontMatter | null, };

export type Author = { 
/**
 * Given names and initials as printed ("Michael A."); empty when only
 * one name is known.
 */
given: string, 
/**
 * The family name with its particles ("van Renesse").
 */
family: string, };

/**
 * A field of a paper's bibliographic record.
 */
export type MetaField = "title" | "authors" | "year" | "venue" | "doi" | "arxiv" | "abstract";

/**
 * Where a field's value came from.
 */
export type Origin = "pdf" | "reader" | "crossref" | "arxiv" | "openalex" | "corrected" | "record" | "zotero";

/**
 * Bibliographic metadata: read offline from the PDF itself, then, where a
 * scholarly index knows the paper, its authoritative values. `sources` says
 * where each field came from.
 */
export type PaperMeta = { authors: Array<Author>, year: number | null, doi: string | null, arxiv: string | null, 
/**
 * The journal, proceedings or conference.
 */
venue?: string | null, abstract?: string | null, 
/**
 * Where each field's value came from; a field not listed was not found.
 */
sources?: { [key in MetaField]?: Origin }, };

export type Label = { verdict: Verdict | null, 
/**
 * 0-10, overriding the engine's score.
 */
score: number | null, note: string | null, at: string, 
/**
 * The key of the question (and criteria) the label was given under
 * ([`super::inputs::question_key`]); none on labels from before it was
 * kept.
 */
question?: string | null, 
/**
 * Given to a paper the screening queue had just served (in its order),
 * not one picked by hand: only these count as a sample for the
 * stopping criterion ([`crate::screening::stopping`]).
 */
queued?: boolean, };

export type PaperFailure = { 
/**
 * A stable code (`incoherent_answer`, `window_too_small`, `malformed_answer`,
 * an HTTP error's code...).
 */
code: string, 
/**
 * What went wrong, in words a researcher can act on.
 */
reason: string, 
/**
 * The model that could not read it.
 */
model: string | null, 
/**
 * Reads tried in the run that wrote this.
 */
attempts: number, at: string, };

export type WorkspaceRow = { id: string, root: string, title: string, source: string | null, question: string | null, status: string, createdAt: string, updatedAt: string, 
/**
 * Distinct papers found (identical files count once).
 */
paperCount: number, 
/**
 * Files that were byte-identical copies of a counted paper.
 */
duplicateCount: number, };

export type WorkspaceListResponse = { workspaces: Array<WorkspaceRow>, 
/**
 * Set when the list had to be read from the workspace folders because the
 * index could not be used; says why.
 */
notice: string | null, };

export type WorkspaceCreateParams = { 
/**
 * A folder of PDFs (searched recursively) or a single PDF file.
 */
folder: string, };

/**
 * Where a review stands, for the screen that opens it.
 */
export type ReviewState = "new" | "running" | "interrupted" | "done" | "cancelled" | "stopped" | "pilot" | "failed";

/**
 * One paper as the board and the table list it.
 */
export type PaperRow = { id: string, 
/**
 * The file's path as shown: a name that is not UTF-8 travels with
 * U+FFFD in place of its odd bytes (the record keeps it exactly).
 */
file: string, title: string | null, authors: Array<string>, year: number | null, status: string, reason: string | null, pages: number, 
/**
 * A search record (title and abstract, no PDF): its export's format
 * and its place there. `file` is then the export.
 */
imported: ImportedFrom | null, 
/**
 * The text was read by OCR.
 */
ocr: boolean, duplicates: number, 
/**
 * On a search record: the review's PDF attached as its full text.
 */
fullText: string | null, 
/**
 * On a PDF: the search record it is the full text of.
 */
fullTextOf: string | null, 
/**
 * The engine's reading (by the applied cut-offs, reconciled under
 * dual reading).
 */
score: number | null, verdict: Verdict | null, 
/**
 * The researcher's label, when it counts now.
 */
label: Label | null, 
/**
 * The researcher's label given under an earlier question: kept and
 * shown as such, counted nowhere (the paper is screened again).
 */
earlierLabel: Label | null, 
/**
 * What the review shows, the researcher's label over the reading: what
 * the table sorts, filters and counts by. The app applies nothing itself.
 */
shownScore: number | null, shownVerdict: Verdict | null, 
/**
 * Why a readable paper has no result: the model could not read it.
 */
failure: PaperFailure | null, 
/**
 * Its two independent readings disagreed (dual reading).
 */
disagreed: boolean, 
/**
 * Why its reading is stale (made under an earlier question, protocol,
 * engine or model): it counts nowhere until the paper is read again.
 */
stale: string | null, };

/**
 * The review's papers counted, for the lines and buttons that say how many.
 */
export type PaperCounts = { total: number, 
/**
 * Search records (title and abstract); the rest are files.
 */
records: number, 
/**
 * Search records with the review's PDF attached as full text.
 */
recordsWithFullText: number, 
/**
 * Items from Zotero.
 */
zotero: number, 
/**
 * Files not extracted yet.
 */
pending: number, 
/**
 * Papers whose text was read cleanly (status ok).
 */
readable: number, 
/**
 * Papers with the engine's reading that stands.
 */
scored: number, 
/**
 * Papers with an engine verdict.
 */
withVerdict: number, 
/**
 * Papers whose reading was made under earlier inputs, and why the
 * first of them is stale (they share a reason but for rare mixes).
 */
stale: number, staleReason: string | null, 
/**
 * Papers whose two readings disagreed, and those of them not labelled.
 */
disagreed: number, unsettled: number, 
/**
 * Every Zotero tag of the review's items, sorted, for the filter.
 */
zoteroTags: Array<string>, };

export type VerdictFilter = "any" | "include" | "maybe" | "exclude";

/**
 * Where a paper stands: scored (has a result), stale (read under earlier
 * inputs), unread (readable, no result yet), unreadable (cannot be read).
 */
export type StatusFilter = "any" | "scored" | "stale" | "unread" | "unreadable";

export type LabelFilter = "any" | "labelled" | "unlabelled";

/**
 * `disagree`: the two independent readings disagree (dual reading).
 */
export type ReadersFilter = "any" | "disagree";

export type SortKey = "listed" | "score" | "title" | "year" | "verdict" | "status";

/**
 * The filters and the order of the results table, and the page wanted.
 */
export type RowQuery = { 
/**
 * Words that must all appear in the title, authors, file, year, the
 * label's note or the Zotero item's tags and notes (any case).
 */
text: string, verdict: VerdictFilter, status: StatusFilter, label: LabelFilter, readers: ReadersFilter, 
/**
 * Shown score at least this (0 shows papers without a score too).
 */
minScore: number, 
/**
 * Earliest year shown; none shows all (papers without a year too).
 */
fromYear: number | null, 
/**
 * Only papers whose Zotero item carries this tag (a record's full text
 * goes with its record).
 */
zoteroTag: string | null, sort: SortKey, descending: boolean, 
/**
 * The first row of the page, in the query's order.
 */
offset: number, 
/**
 * Rows in the page at most.
 */
limit: number, };

/**
 * One page of the rows a query shows.
 */
export type RowsPage = { 
/**
 * Papers in the review.
 */
total: number, 
/**
 * Papers the filters let through.
 */
matched: number, offset: number, rows: Array<PaperRow>, 
/**
 * The shown scores of the matched papers in ten bins, 0-1 to 9-10.
 */
histogram: [number, number, number, number, number, number, number, number, number, number], 
/**
 * Every paper counted, whatever the filters: labels change some counts
 * (the disagreements left to settle), so each page says them anew.
 */
counts: PaperCounts, };

/**
 * One search export of the review, as its records say.
 */
export type SearchExport = { 
/**
 * The file as the review knows it (shown lossily when not UTF-8).
 */
file: string, format: string, 
/**
 * Its records in the review, those that left the search included.
 */
records: number, 
/**
 * Of those, records a newer export of it no longer held.
 */
left: number, };

export type ReviewView = { root: string, title: string, source: string | null, question: string | null, criteria: Array<string>, state: ReviewState, 
/**
 * The engine of the latest run.
 */
engine: EngineKind | null, 
/**
 * The dual-reading policy of the latest run, and its second profile.
 */
dual: DualPolicy | null, secondProfile: string | null, 
/**
 * The first rows in the table's first order (score, highest first),
 * with every paper counted; the rest come a page at a time from
 * [`review_rows`].
 */
firstRows: RowsPage, 
/**
 * Papers found to be one work (DOI, PMID, else title, year and first
 * author), never merged: the researcher decides.
 */
duplicateGroups: Array<DuplicateGroup>, 
/**
 * The search exports the review's records came from (a Zotero
 * library and citation searching aside), in name order: what a newer
 * export of a search is matched against.
 */
searches: Array<SearchExport>, };

/**
 * The detail pane's paper.
 */
export type PaperDetail = { paper: PaperRow, 
/**
 * The whole bibliographic record: venue, DOI, arXiv id, abstract, and
 * where each field came from (the PDF, an index, a correction).
 */
meta: PaperMeta, 
/**
 * The reading that stands (dual reading: the reconciled one).
 */
result: PaperResult | null, 
/**
 * The first reading, as read (dual reading).
 */
firstReading: PaperResult | null, 
/**
 * The second, independent reading (dual reading).
 */
secondReading: PaperResult | null, 
/**
 * The third reading that broke a tie (tie-breaker policy).
 */
thirdReading: PaperResult | null, 
/**
 * The dual-reading policy the readings were reconciled under.
 */
policy: DualPolicy | null, 
/**
 * The reading made under earlier inputs, when it is stale (`paper.stale`
 * says why): shown as such, never as the review's.
 */
staleReading: PaperResult | null, };

/**
 * Whether a review looks its papers up in the scholarly indexes (sending
 * their DOIs, arXiv ids and titles, nothing else), and the contact address
 * the requests carry.
 */
export type LookupChoice = { enabled: boolean, contact?: string | null, };

/**
 * A review the app starts on a workspace it has open.
 */
export type ReviewLaunchParams = { workspace: string, question: string, criteria: Array<string>, engine: EngineKind, 
/**
 * The model profile (agent engine); default: the configured one.
 */
profile?: string | null, maxTokens?: number | null, maxCostUsd?: number | null, 
/**
 * Look the papers up in the scholarly indexes (the app's setting).
 */
lookups: LookupChoice, 
/**
 * Read only this many papers under the approved protocol, and stop.
 */
pilot?: number | null, 
/**
 * Read every paper twice, independently, under this policy.
 */
dual?: DualPolicy | null, 
/**
 * The second reading's model profile (default: the first's model).
 */
secondProfile?: string | null, 
/**
 * Read through the profile's Batch API (cheaper, slower).
 */
batch: boolean, };

/**
 * Model calls and tokens a run spends, and their cost.
 */
export type Spend = { readerCalls: number, agentSteps: number, 
/**
 * The synthesis's calls, one per group of included papers.
 */
digestCalls: number, inputTokens: number, outputTokens: number, 
/**
 * `None` when the model has no price in the table.
 */
costUsd: number | null, };

/**
 * How two readings that disagree are reconciled.
 */
export type DualPolicy = "agree-to-exclude" | "tie-breaker" | "flag";

/**
 * A dual-reading policy's whole run: the single reading's spend plus the
 * second readings (and, for the tie-breaker, third readings).
 */
export type PolicySpend = { policy: DualPolicy, expected: Spend, atMost: Spend, };

export type Estimate = { model: string, readable: number, alreadyReviewed: number, toRead: number, paperTokens: number, 
/**
 * The upper bound: every retry, re-ask and second attempt taken.
 */
atMost: Spend, 
/**
 * What the run takes with dual reading, per policy (the second
 * reading priced as the first model's).
 */
policies: Array<PolicySpend>, concurrency: number, 
/**
 * Model calls one after another, at the profile's concurrency.
 */
serialRounds: number, 
/**
 * Wall time at [`ASSUMED_CALL_SECONDS`] a round.
 */
seconds: number, 
/**
 * The expected run with its readings sent as a batch (`--batch`).
 */
batch: BatchPrice, readerCalls: number, agentSteps: number, 
/**
 * The synthesis's calls, one per group of included papers.
 */
digestCalls: number, inputTokens: number, outputTokens: number, 
/**
 * `None` when the model has no price in the table.
 */
costUsd: number | null, };

/**
 * A run whose readings go through a Batch API: the readings at the batch
 * price, the rest as ever, and the window a round of them is answered in
 * (re-asks, when answers need them, go in a round after).
 */
export type BatchPrice = { 
/**
 * `None` when the model has no price in the table.
 */
costUsd: number | null, 
/**
 * The provider's window: a round of readings is answered within it.
 */
waitHours: number, };

/**
 * How a version of the protocol came to be.
 */
export type ProtocolOrigin = "drafted" | "template" | "researcher";

/**
 * What happened to the protocol.
 */
export type ProtocolEvent = "drafted" | "approved";

/**
 * One version of the protocol, as `protocol.json` keeps it.
 */
export type ProtocolVersion = { event: ProtocolEvent, origin: ProtocolOrigin, text: string, 
/**
 * The text's hash (hex), as the report and each result name it.
 */
hash: string, 
/**
 * The question and criteria it was written for.
 */
question: string, criteria: Array<string>, 
/**
 * The model that drafted it ([`Origin::Drafted`]).
 */
model: string | null, 
/**
 * Why Quire's template stands in for a model's draft.
 */
note: string | null, at: string, };

/**
 * A pilot: some papers read under an approved protocol before the rest.
 */
export type ProtocolPilot = { 
/**
 * The approved protocol's hash.
 */
hash: string, papers: Array<string>, at: string, };

/**
 * Where the protocol for a question stands.
 */
export type ProtocolView = { 
/**
 * The approval in force for this question and criteria.
 */
approved: ProtocolVersion | null, 
/**
 * A draft awaiting approval.
 */
draft: ProtocolVersion | null, 
/**
 * Every draft and approval for this question and criteria, oldest first.
 */
history: Array<ProtocolVersion>, 
/**
 * The pilots run under the approved text.
 */
pilots: Array<ProtocolPilot>, };

/**
 * Which protocol: the workspace's, for a question and its criteria.
 */
export type ProtocolParams = { workspace: string, question: string, criteria: Array<string>, 
/**
 * The model profile that drafts (default: the configured one).
 */
profile?: string | null, 
/**
 * The text to approve.
 */
text?: string | null, };

/**
 * Where a paper stands in a run.
 */
export type PaperPhase = "queued" | "extracting" | "reading" | "scored" | "failed";

/**
 * One thing that happened in a run. Wire names are camelCase with a `type` tag.
 */
export type RunEvent = { "type": "runStarted", runId: string, engine: string, papers: number, } | { "type": "extractionStarted", papers: number, toExtract: number, } | { "type": "extracted", paper: string, status: string, fromCache: boolean, } | { "type": "paperStatus", paper: string, phase: PaperPhase, detail?: string, } | { "type": "agentStep", task: string, agent: string, step: number, promptTokens: number, 
/**
 * Of those, the prefix that repeats byte for byte from step to step
 * (system prompt, tool specs, task): what provider caches reuse.
 */
stableTokens: number, consolidation: boolean, } | { "type": "toolCall", task: string, agent: string, step: number, tool: string, ok: boolean, summary: string, } | { "type": "agentDone", task: string, agent: string, status: string, } | { "type": "usage", inputTokens: number, outputTokens: number, costUsd: number | null, modelCalls: number, } | { "type": "lookupsStarted", papers: number, } | { "type": "lookupsDone", lookedUp: number, matched: number, 
/**
 * What the researcher should know: an allowance spent, a key refused.
 */
notices: Array<string>, } | { "type": "batchProgress", shard: string, status: string, completed: number, failed: number, total: number, } | { "type": "finished", coveredByAgent: number, coveredBySweep: number, } | { "type": "failed", kind: string, message: string, } | { "type": "cancelled" };

export type LabelParams = { workspace: string, 
/**
 * A paper id, or a unique prefix of one.
 */
paper: string, verdict?: Verdict | null, score?: number | null, note?: string | null, 
/**
 * The token of the queue's serve of this paper ([`ScreeningView::serve`]),
 * when it is labelled as the queue served it: only then is the label a
 * sample for the stopping criterion.
 *
 * [`ScreeningView::serve`]: crate::review::queue::ScreeningView::serve
 */
serve?: string | null, };

/**
 * A label from the app: a verdict and/or a score, or `clear` to take the
 * label away (undo).
 */
export type PaperLabelParams = { clear: boolean, workspace: string, 
/**
 * A paper id, or a unique prefix of one.
 */
paper: string, verdict?: Verdict | null, score?: number | null, note?: string | null, 
/**
 * The token of the queue's serve of this paper ([`ScreeningView::serve`]),
 * when it is labelled as the queue served it: only then is the label a
 * sample for the stopping criterion.
 *
 * [`ScreeningView::serve`]: crate::review::queue::ScreeningView::serve
 */
serve?: string | null, };

export type MetaSetParams = { workspace: string, 
/**
 * A paper id, or a unique prefix of one.
 */
paper: string, title?: string | null, 
/**
 * Each as printed: "Robbert van Renesse" or "van Renesse, Robbert".
 */
authors?: Array<string> | null, year?: number | null, doi?: string | null, arxiv?: string | null, };

/**
 * The detail pane's metadata edit: the fields to correct, or `clear` to
 * take every correction away.
 */
export type PaperMetaParams = { clear: boolean, workspace: string, 
/**
 * A paper id, or a unique prefix of one.
 */
paper: string, title?: string | null, 
/**
 * Each as printed: "Robbert van Renesse" or "van Renesse, Robbert".
 */
authors?: Array<string> | null, year?: number | null, doi?: string | null, arxiv?: string | null, };

/**
 * The formats a review can be exported in.
 */
export type ExportFormat = "markdown" | "bibtex" | "csv" | "ris" | "prisma" | "table";

/**
 * A reason for a document that could not be read, and how many.
 */
export type Unreadable = { reason: string, papers: number, };

/**
 * One reason for exclusion and how many papers it excluded.
 */
export type Reason = { reason: string, papers: number, };

/**
 * PRISMA 2020's "identification of studies via other methods" column, for
 * citation searching: its records are not in the databases column.
 */
export type OtherMethodsFlow = { 
/**
 * Works found by citation searching, duplicates included.
 */
identified: number, 
/**
 * Of those, works the review already had (in any version).
 */
duplicates: number, 
/**
 * Records screened on title and abstract.
 */
screened: number, 
/**
 * Excluded on title and abstract, by the engine or the researcher.
 */
excluded: number, 
/**
 * Kept (included or maybe): their reports are sought.
 */
sought: number, 
/**
 * Of the sought, reports not retrieved: no full text attached yet.
 */
notRetrieved: number, 
/**
 * The not retrieved by why: a failed download's reason, else not
 * sought yet (no download approved).
 */
notRetrievedReasons: Array<Reason>, 
/**
 * Of the sought, reports with full text: assessed for eligibility.
 */
assessed: number, included: number, };

/**
 * The PRISMA 2020 counts of a review.
 */
export type Flow = { 
/**
 * Records and files found, duplicates included.
 */
identified: number, 
/**
 * Of the identified, records imported from search exports (databases);
 * the rest are PDFs found in folders.
 */
fromDatabases: number, duplicates: number, 
/**
 * Files that could not be read, by reason.
 */
unreadable: Array<Unreadable>, screened: number, 
/**
 * Screened but with no result and no label: no decision yet.
 */
notScored: number, 
/**
 * Of the not scored, those with a stale reading (made under earlier
 * inputs): they await a new reading.
 */
stale: number, 
/**
 * Excluded by the engine and not checked by the researcher.
 */
excludedByAutomation: number, 
/**
 * Excluded by the researcher's label.
 */
excludedByResearcher: number, 
/**
 * Every exclusion by its reason: the first criterion not met, else the
 * score below the cut-off (automation) or the researcher's judgement.
 */
reasons: Array<Reason>, 
/**
 * Maybe: awaiting the researcher's decision.
 */
maybe: number, included: number, 
/**
 * Of the included, those the researcher labelled include.
 */
includedByResearcher: number, 
/**
 * Papers the researcher labelled, whatever the label.
 */
labelled: number, 
/**
 * Records with a PDF attached as their full text (the PDF is the
 * record's report, counted through its record, not on its own).
 */
withFullText: number, 
/**
 * Records kept (included or maybe) with no full text attached: the
 * reports still to be sought.
 */
keptWithoutFullText: number, 
/**
 * Of the duplicates, papers the researcher set aside as copies of
 * another (the rest are identical files).
 */
setAside: number, 
/**
 * Identification via other methods: citation searching.
 */
citations: OtherMethodsFlow, };

export type ExportWritten = { path: string, bytes: number, };

/**
 * Where an imported record came from, and what it holds beyond
 * [`PaperMeta`].
 */
export type ImportedFrom = { 
/**
 * The export's format, as a person names it ("RIS", "PubMed/MEDLINE").
 */
format: string, 
/**
 * The record's place in its file, from 1.
 */
position: number, pmid?: string | null, 
/**
 * The database's own id of the record (WoS UT, Scopus EID, an Embase
 * or Ovid accession number).
 */
accession?: string | null, keywords?: Array<string>, 
/**
 * A newer export of the search this record came from no longer holds
 * it: it left the search (kept, with its labels, for the researcher
 * to judge).
 */
leftSearch?: boolean, 
/**
 * The Zotero item the record is, for a record read from Zotero.
 */
zotero?: ZoteroItem | null, 
/**
 * How citation searching found the record, for one it found.
 */
citation?: CitationFound | null, };

export type ImportParams = { 
/**
 * The review's workspace folder; made when it is not one yet.
 */
workspace: string, 
/**
 * The search exports (RIS, PubMed/MEDLINE, BibTeX, CSV).
 */
files: string[], 
/**
 * The earlier export of the same search that the one file of `files`
 * is a newer run of: its records are matched to the earlier ones,
 * which keep their labels. A file imported before is matched against
 * itself without it.
 */
replaces: string | null, };

/**
 * A record that left the search.
 */
export type LeftRecord = { paper: string, title: string | null, };

/**
 * How one export file went in.
 */
export type FileImport = { 
/**
 * The file as given (its name shown lossily when not UTF-8).
 */
file: string, 
/**
 * The format read ("RIS", "PubMed/MEDLINE", …); none when unreadable.
 */
format: string | null, 
/**
 * Records the file holds.
 */
records: number, 
/**
 * Of those, records new to the review.
 */
added: number, 
/**
 * The earlier export of the same search this one was matched against
 * (it was named as replaced, or is the same file, exported again).
 */
replaces: string | null, 
/**
 * Records of the earlier export found again, changed (a DOI added,
 * an abstract corrected): each keeps its paper and labels.
 */
updated: number, 
/**
 * Of those, records whose title or abstract changed: their readings
 * were dropped, and the next run reads them again.
 */
reread: number, 
/**
 * Records of the earlier export this one no longer holds: they left
 * the search, and stay in the review marked so.
 */
left: Array<LeftRecord>, 
/**
 * Why the file could not be read; nothing of it was imported.
 */
error: string | null, 
/**
 * What the researcher should know of how it was read: a guessed
 * encoding, records skipped and why, a file cut short.
 */
notices: Array<string>, };

/**
 * One member of a group of duplicates.
 */
export type DuplicateMember = { paper: string, title: string | null, year: number | null, 
/**
 * "RIS record", "PDF", …: what the member is.
 */
kind: string, 
/**
 * The researcher set it aside as a copy of this group's other member.
 */
setAside: boolean, };

/**
 * Papers of a review found to be one work, and why.
 */
export type DuplicateGroup = { members: Array<DuplicateMember>, 
/**
 * "the same DOI", "the same PMID", or "the same title, year and first
 * author".
 */
why: string, };

/**
 * What an import did.
 */
export type ImportSummary = { files: Array<FileImport>, 
/**
 * Records new to the review, over all files.
 */
added: number, 
/**
 * Every paper the imported files' records are, in file order, each once.
 */
papers: Array<string>, 
/**
 * The review's groups of duplicates after the import.
 */
duplicates: Array<DuplicateGroup>, };

/**
 * Where an import is, for a progress display: records taken in of all the
 * readable files hold, then the saving of them as one change.
 */
export type ImportProgress = { done: number, total: number, 
/**
 * Every record is taken in and the import is being saved.
 */
saving: boolean, };

export type AttachParams = { 
/**
 * The review's workspace folder.
 */
workspace: string, 
/**
 * A folder of PDFs (or one PDF): the records' full text.
 */
folder: string, };

export type SetAsideParams = { workspace: string, 
/**
 * The paper to set aside (an id, or a unique prefix of one).
 */
paper: string, 
/**
 * The paper it is a copy of; none puts it back.
 */
of?: string | null, };

/**
 * A PDF found to be a record's full text.
 */
export type Attachment = { record: string, recordTitle: string | null, pdf: string, 
/**
 * The PDF's file name.
 */
file: string, 
/**
 * "DOI" or "title".
 */
by: string, };

/**
 * A PDF of the folder that is no record's full text, and why.
 */
export type Unmatched = { pdf: string, file: string, why: string, };

/**
 * What attaching a folder did.
 */
export type FullTextSummary = { folder: string, 
/**
 * PDFs found in the folder.
 */
pdfs: number, 
/**
 * Those matched to a record now or before.
 */
attached: Array<Attachment>, unmatched: Array<Unmatched>, 
/**
 * Records in the review, and of them those with full text now.
 */
records: number, withFullText: number, };

export type ScreeningParams = { workspace: string, 
/**
 * How many of the next papers to return (default 5).
 */
count?: number | null, 
/**
 * The review question, for a review that has none yet (or has not
 * run): saved as the review's, and the order follows it.
 */
question?: string | null, 
/**
 * Words to find papers by (title and abstract), for labelling one the
 * researcher knows; the view's `found`.
 */
find?: string | null, };

/**
 * What the order rests on, as it stands.
 */
export type Basis = "recordOrder" | "likeness" | "learned";

/**
 * One paper as the queue serves it.
 */
export type QueueItem = { paper: string, title: string | null, authors: Array<string>, year: number | null, venue: string | null, abstract: string | null, 
/**
 * "RIS record", "PDF", …
 */
kind: string, 
/**
 * The ranking's score (higher: more likely kept); comparable within
 * one order only.
 */
score: number, };

/**
 * One point of the curve: papers screened so far and, of them, kept.
 */
export type CurvePoint = { screened: number, kept: number, };

/**
 * Where screening stands and what comes next.
 */
export type ScreeningView = { 
/**
 * Readable papers in the queue, labelled or not.
 */
total: number, 
/**
 * Labelled by the researcher.
 */
screened: number, 
/**
 * Labelled include or maybe.
 */
kept: number, excluded: number, 
/**
 * The next papers to screen, best first.
 */
next: Array<QueueItem>, 
/**
 * Kept against screened, in the order the labels were given.
 */
curve: Array<CurvePoint>, basis: Basis, ranker: string, stopping: StoppingView, 
/**
 * Papers not yet labelled that hold every word searched for (when
 * asked): for labelling a paper the researcher already knows.
 */
found: Array<QueueItem>, 
/**
 * The token of this serve of `next[0]`: a label of that paper given
 * with it is a sample for the stopping criterion. None when nothing is
 * left, or when the serve could not be kept (a run holds the review).
 */
serve: string | null, };

/**
 * Whether screening may stop: the criterion's test of "fewer than
 * `target` of the relevant papers are found" on the labels given in the
 * queue's order.
 */
export type StoppingView = { target: number, confidence: number, 
/**
 * Labels given to papers as the queue served them; the rest (picked
 * by hand, or before the queue) count as found before any sample.
 */
inOrder: number, 
/**
 * The chance of what was seen were the target missed; none before the
 * first label given in the queue's order.
 */
p: number | null, 
/**
 * `p` is below `1 - confidence`: the target is shown met.
 */
met: boolean, 
/**
 * The greatest recall shown at `confidence` (1% steps from 99% down
 * to 50%).
 */
recallAtLeast: number | null, 
/**
 * Papers screened in order since the last one kept.
 */
sinceLastKept: number, rule: string, };

/**
 * Which papers a question is asked of.
 */
export type AskScope = { "kind": "included" } | { "kind": "all" } | { "kind": "papers", "ids": Array<string> };

/**
 * What the result is.
 */
export type AskMode = "answer" | "passages";

/**
 * How a question's run ended.
 */
export type AskStatus = "running" | "done" | "cancelled" | "stopped" | "failed";

/**
 * A cited source: `[n]` in the answer is this quote, on this page.
 */
export type AskSource = { n: number, paper: string, title: string, page: number, quote: string, 
/**
 * What the paper's reader said the quote supports.
 */
claim: string, 
/**
 * The paper is a search record: the quote is in its title and
 * abstract, not on a page of a PDF.
 */
record?: boolean, };

/**
 * How many papers the question went to.
 */
export type AskCoverage = { 
/**
 * Papers in scope.
 */
considered: number, 
/**
 * Papers read for it (or searched, offline).
 */
read: number, 
/**
 * Papers with at least one verified claim (or passage) in the result.
 */
contributed: number, 
/**
 * Papers whose reading failed, with the reason.
 */
failed: Array<[string, string]>, 
/**
 * Quotes not found on the page they cite, dropped.
 */
quotesDropped: number, 
/**
 * Sentences of the composed answer that cite no source, marked.
 */
unsupported: number, 
/**
 * Model calls that composed the answer, and how many ran one after
 * another (the groups, then each level of merges).
 */
composingCalls: number, composingRounds: number, };

/**
 * One question and its result: `asks/<id>/ask.json`.
 */
export type AskRecord = { id: string, question: string, scope: AskScope, 
/**
 * Every paper in scope was read, not only the candidates.
 */
readAll: boolean, mode: AskMode, status: AskStatus, 
/**
 * Markdown, citing sources as `[n]`.
 */
answer: string, sources: Array<AskSource>, 
/**
 * The papers read (their titles), so "none of them answers" says which.
 */
papersRead: Array<string>, coverage: AskCoverage, model: string | null, promptVersion: string, startedAt: string, finishedAt: string | null, 
/**
 * Why it ended before an answer, when it did: a cap, or the cause
 * every paper read failed for.
 */
stopped: string | null, 
/**
 * The researcher asked for it in the review's report.
 */
inReport: boolean, 
/**
 * The fingerprint of the review's inputs when it was asked: the papers
 * the review keeps follow them.
 */
reviewInputs?: string | null, 
/**
 * Why the answer is stale, when it read the papers the review kept
 * under earlier inputs. Worked out on reading (what a file says is
 * overwritten).
 */
stale?: string | null, };

/**
 * A question for the papers of a review.
 */
export type AskParams = { workspace: string, question: string, 
/**
 * Which papers (default: those the review keeps).
 */
scope?: AskScope | null, 
/**
 * Read every paper in scope, not only the best candidates.
 */
readAll: boolean, 
/**
 * The model profile (default: the configured one).
 */
profile?: string | null, 
/**
 * No model: the best-matching passages, not an answer.
 */
offline: boolean, maxTokens?: number | null, maxCostUsd?: number | null, 
/**
 * Send each paper's calls through the profile's Batch API first.
 */
batch: boolean, 
/**
 * Seconds between asking an open batch how far it got (the app's
 * `QUIRE_BATCH_POLL_SECS`, else 30, when not given).
 */
batchPollSecs?: number | null, };

/**
 * What a run would spend.
 */
export type WorkEstimate = { papers: number, 
/**
 * Papers already answered (or current), which cost nothing.
 */
reused: number, calls: number, inputTokens: number, outputTokens: number, 
/**
 * `None` when the model has no price in the table.
 */
costUsd: number | null, 
/**
 * The papers' calls sent as a batch (`--batch`), the composing as ever.
 */
batch: BatchPrice, };

/**
 * A batch as last polled, for the progress shown per shard (and sent as
 * is to the app in a question's or a fill's progress).
 */
export type BatchProgress = { shard: string, 
/**
 * The API's status: validating, in_progress, finalizing, completed…
 */
status: string, completed: number, failed: number, total: number, };

/**
 * Where a run is, for a host's progress display.
 */
export type AskProgress = { "type": "reading", papers: number, cached: number, } | { "type": "read", title: string, answers: boolean, } | { "type": "composing", sources: number, } | { "type": "batch" } & BatchProgress;

/**
 * What a cell holds.
 */
export type ColumnKind = { "kind": "text" } | { "kind": "number", unit: string, } | { "kind": "yes_no" } | { "kind": "one_of", options: Array<string>, } | { "kind": "list" };

/**
 * One column.
 */
export type Column = { 
/**
 * A slug of the name, unique in the table.
 */
id: string, name: string, 
/**
 * What to extract, for the reader.
 */
instruction: string, kind: ColumnKind, };

/**
 * One cell as extracted.
 */
export type Cell = { value: string | null, quote: string | null, page: number | null, lowConfidence: boolean, 
/**
 * Why it is low-confidence, in words.
 */
reason: string | null, 
/**
 * What the cell was read for: the column's definition, the model, the
 * prompt version.
 */
definition: string, model: string, promptVersion: string, at: string, };

/**
 * One cell as the table shows it.
 */
export type ShownCell = { value: string | null, page: number | null, quote: string | null, lowConfidence: boolean, reason: string | null, 
/**
 * The researcher's value replaces the extracted one.
 */
corrected: boolean, 
/**
 * The researcher checked it.
 */
checked: boolean, 
/**
 * Not read yet for the column as it is now.
 */
stale: boolean, };

/**
 * One paper's row.
 */
export type TableRow = { paper: string, title: string, 
/**
 * A search record: its quotes are in its title and abstract.
 */
record?: boolean, 
/**
 * In the columns' order.
 */
cells: Array<ShownCell>, };

/**
 * The whole table for some papers.
 */
export type TableView = { columns: Array<Column>, rows: Array<TableRow>, 
/**
 * The model whose cells are current (the latest fill's); `None` before any.
 */
model: string | null, };

/**
 * How a fill went.
 */
export type FillOutcome = { papers: number, 
/**
 * Papers read in this fill (the rest were current).
 */
read: number, cellsFilled: number, 
/**
 * Cells with a value, flagged low-confidence.
 */
lowConfidence: number, 
/**
 * Papers whose reading failed, with the reason.
 */
failed: Array<[string, string]>, 
/**
 * Why the fill stopped early (cancelled, a cap), when it did.
 */
stopped: string | null, 
/**
 * The cause, when every paper read failed (cut prompts, a server down).
 */
failure: string | null, };

/**
 * Where a fill is, for a host's progress display.
 */
export type FillProgress = { "type": "started", papers: number, } | { "type": "current" } | { "type": "read", title: string, failed: boolean, } | { "type": "batch" } & BatchProgress;

/**
 * A change to the table's columns; what is not given is left as it is.
 */
export type ColumnsParams = { workspace: string, 
/**
 * Add (or replace, by id) this column.
 */
add?: Column | null, 
/**
 * Add the template of this name (or id).
 */
template?: string | null, 
/**
 * Remove the column of this id.
 */
remove?: string | null, 
/**
 * Copy the columns of another review's workspace.
 */
from?: string | null, };

/**
 * Filling the table.
 */
export type FillParams = { workspace: string, scope?: AskScope | null, profile?: string | null, maxTokens?: number | null, maxCostUsd?: number | null, 
/**
 * Send the fill's calls through the profile's Batch API first.
 */
batch: boolean, 
/**
 * Seconds between asking an open batch how far it got (the app's
 * `QUIRE_BATCH_POLL_SECS`, else 30, when not given).
 */
batchPollSecs?: number | null, };

/**
 * The researcher's value for a cell (or, with `None`, the extracted value
 * checked); no fill overwrites it.
 */
export type CorrectParams = { workspace: string, 
/**
 * A paper id, or a unique prefix of one.
 */
paper: string, column: string, value?: string | null, };

/**
 * The score cut-offs that turn a 0-10 score into a verdict.
 */
export type Cutoffs = { 
/**
 * From this score a paper is "include".
 */
include: number, 
/**
 * From this score a paper is "maybe"; below it, "exclude".
 */
maybe: number, };

/**
 * Counts of the labelled papers by the researcher's and the engine's decision.
 */
export type Confusion = { 
/**
 * Relevant and kept.
 */
truePositive: number, 
/**
 * Relevant but excluded: evidence the engine would lose.
 */
falseNegative: number, 
/**
 * Not relevant but kept: work the researcher still does.
 */
falsePositive: number, 
/**
 * Not relevant and excluded.
 */
trueNegative: number, };

/**
 * A figure with its 95% interval.
 */
export type Range = { value: number, low: number, high: number, };

/**
 * Recall at a cut for the whole review, from the sample.
 */
export type RecallEstimate = { 
/**
 * `None` when no sampled label is relevant: there is nothing to recall
 * as far as the sample shows.
 */
recall: Range | null, 
/**
 * The one-sided 95% lower bound: recall is at least this.
 */
lowerBound: number, 
/**
 * Relevant papers in the review, and of them excluded by the engine.
 */
relevant: Range, missed: Range, 
/**
 * The labels it rests on, and the papers it speaks for.
 */
labels: number, papers: number, };

/**
 * More labels a band needs before a claim could hold.
 */
export type MoreLabels = { stratum: number, from: number, to: number, count: number, };

/**
 * A higher maybe cut-off one half of the sample asked for, which the other
 * half did not support.
 */
export type RaiseRefused = { maybe: number, 
/**
 * Why, in words.
 */
reason: string, };

/**
 * Whether the sample supports letting the engine exclude papers unread at
 * the cut-offs in force, and if not, what would.
 */
export type Support = { target: number, 
/**
 * Recall's one-sided 95% lower bound for the whole review is at or
 * above the target.
 */
supported: boolean, 
/**
 * More labels that would bring the bound to the target if they turn out
 * as the sample's have so far, by score band; empty when supported.
 */
more: Array<MoreLabels>, 
/**
 * No number of labels would: the estimate itself is below the target.
 */
beyondReach: boolean, };

/**
 * What the labels say of the engine, as the report, the CLI and the app show it.
 */
export type Assessment = { 
/**
 * Labelled papers with a score under the current question, and of
 * them those in the sample and those labelled while browsing.
 */
labelled: number, sampleLabelled: number, browsingLabelled: number, 
/**
 * Relevant among the sample's labels the figures rest on.
 */
relevant: number, 
/**
 * The sample's papers still to label.
 */
toLabel: Array<string>, sampleSize: number, 
/**
 * The cut-offs in force, and whether they were calibrated.
 */
cutoffs: Cutoffs, calibrated: boolean, 
/**
 * The sample's labels the applied cut-offs were fitted on: counted in
 * no figure at them.
 */
fittedLabels: number, 
/**
 * The sample's labels the figures rest on against the engine's
 * decisions, unweighted: agreement on these papers.
 */
confusion: Confusion, kappa: number | null, 
/**
 * Why kappa is not defined, in words, when it is not.
 */
kappaUndefined: string | null, 
/**
 * Recall and the relevant papers for the whole review at the cut-offs
 * in force, weighted back from the sample.
 */
estimate: RecallEstimate | null, 
/**
 * Why there is no estimate, in words, when there is none.
 */
noEstimate: string | null, 
/**
 * Work saved over sampling at 95% recall, for the whole review.
 */
wssAt95: number | null, 
/**
 * Relevant by the researcher (any label), excluded by the engine, best
 * score first.
 */
lost: Array<string>, 
/**
 * The cut-offs the sample supports at the target recall.
 */
proposed: Cutoffs | null, raiseRefused: RaiseRefused | null, support: Support, 
/**
 * Labels given under an earlier question: kept (the researcher's),
 * counted nowhere in these figures.
 */
earlierLabels: number, 
/**
 * When cut-offs set on earlier inputs' scores were applied: on record,
 * not in force.
 */
staleCutoffs: string | null, };

/**
 * A paper of the sample still to label: its id and title, never its score
 * (labelling is blind).
 */
export type ToLabel = { id: string, title: string, };

export type ValidationView = { assessment: Assessment, toLabel: Array<ToLabel>, 
/**
 * The report's screening-validation section, as it reads now.
 */
markdown: string, };

/**
 * What the CLI and the app ask: a missing field reads as "leave it".
 */
export type ValidateParams = { workspace: string, 
/**
 * Propose a new sample of this many papers (replacing the last one).
 */
sample?: number | null, 
/**
 * The recall the cut-offs are calibrated to (default 0.95).
 */
target?: number | null, 
/**
 * Draw into the sample the further labels the assessment asks for.
 */
extend: boolean, 
/**
 * Apply the cut-offs the labels support: the verdicts shown follow them.
 */
apply: boolean, 
/**
 * Go back to the default cut-offs.
 */
reset: boolean, };

/**
 * Which wire protocol an endpoint speaks.
 */
export type Protocol = "openai" | "anthropic";

/**
 * One endpoint and model, with the limits Quire keeps to.
 */
export type ModelSettings = { protocol: Protocol, 
/**
 * Up to and including the version segment: `https://api.openai.com/v1`,
 * `http://localhost:11434/v1`, `https://api.anthropic.com`.
 */
base_url: string, model: string, 
/**
 * The environment variable holding the API key. When unset or empty, the key
 * comes from the OS secret store or the 0600 key file (`quire key set`).
 */
api_key_env: string | null, 
/**
 * The model's context window in tokens; prompts are kept below it.
 */
context_window: number, 
/**
 * The most tokens one answer may use (`max_tokens`).
 */
max_output_tokens: number, 
/**
 * At most this many requests in flight to this endpoint.
 */
concurrency: number, 
/**
 * Seconds to establish a connection.
 */
connect_timeout_secs: number, 
/**
 * Seconds of silence from the server (before the first byte or between
 * bytes of a stream) before the attempt counts as timed out.
 */
read_timeout_secs: number, 
/**
 * Seconds one whole call may take, all retries included.
 */
request_timeout_secs: number, 
/**
 * Retries of a retryable failure (rate limit, 5xx, timeout, cut stream).
 */
max_retries: number, 
/**
 * Stream answers (text shows as it arrives).
 */
stream: boolean, 
/**
 * Stream turns that offer tools. Off for Ollama, which loses streamed tool
 * calls.
 */
stream_tool_turns: boolean, 
/**
 * More endpoints serving the same model (replicas of a vLLM or llama.cpp
 * server, a Ray Serve deployment's routes): calls are spread over
 * `base_url` and these, each within its own concurrency. Empty: one endpoint.
 */
pool: Array<PoolEndpoint>, 
/**
 * Seconds an endpoint of a pool is rested after it failed three calls
 * in a row (`pool::FAILURES_BEFORE_REST`); its calls go to the others
 * meanwhile.
 */
pool_cooldown_secs: number, };

/**
 * One more endpoint of a profile's pool. It serves the profile's model, with
 * the profile's protocol, and the profile's key unless it names its own:
 * every server of a pool is sent the key it is given.
 */
export type PoolEndpoint = { base_url: string, 
/**
 * At most this many requests in flight here; `None`: the profile's.
 */
concurrency: number | null, 
/**
 * The environment variable holding this server's own API key; `None`:
 * it gets the profile's key.
 */
api_key_env?: string | null, };

/**
 * What one endpoint of a profile said when asked what it serves.
 */
export type EndpointCheck = { 
/**
 * Its address (no password).
 */
endpoint: string, 
/**
 * It answered the models list.
 */
reached: boolean, 
/**
 * It lists the profile's model.
 */
serves: boolean, 
/**
 * Why not, said so the setting can be fixed.
 */
problem: string | null, };

/**
 * The model a review would use now.
 */
export type ActiveModel = { profile: string, model: string, baseUrl: string, 
/**
 * True when no profile is configured and a local Ollama was found.
 */
detected: boolean, };

/**
 * A profile as the settings screen shows it: its settings and where its key
 * comes from, never the key.
 */
export type ProfileView = { name: string, settings: ModelSettings, keySource: string | null, };

/**
 * Everything the model settings screen needs.
 */
export type ModelSetup = { 
/**
 * `None`: no model, so reviews use the offline engine.
 */
active: ActiveModel | null, profiles: Array<ProfileView>, defaultProfile: string | null, settingsPath: string, 
/**
 * What a new profile starts from.
 */
defaults: ModelSettings, };

/**
 * The day's allowance as OpenAlex tells it (in its answers' headers, or
 * its `/rate-limit` status), in US dollars.
 */
export type Allowance = { remainingUsd: number, limitUsd: number, 
/**
 * Seconds until it renews, when OpenAlex said.
 */
resetsInSecs: number | null, };

/**
 * Where OpenAlex's key is kept and what is left of today's allowance.
 */
export type OpenAlexStatus = { 
/**
 * Where the key is kept ("the OS secret store", the key file's path,
 * "environment variable …"); `None` without a key.
 */
keySource: string | null, 
/**
 * Whether the key comes from the environment (Settings cannot replace it).
 */
fromEnv: boolean, 
/**
 * Today's allowance, when it was asked and OpenAlex told it.
 */
allowance: Allowance | null, 
/**
 * Why the allowance is not known: offline, unreachable, a refused key.
 */
problem: string | null, };

/**
 * `openalex_key_save`'s parameters: the key as typed.
 */
export type OpenAlexKeyParams = { key: string, };

/**
 * A Zotero item as a record keeps it: where it lives, its version when
 * read, and the researcher's own tags and notes on it.
 */
export type ZoteroItem = { 
/**
 * The library's API prefix: `users/0` or `groups/123`.
 */
library: string, key: string, version: number, itemType: string, tags?: Array<string>, notes?: Array<string>, 
/**
 * Its PDF attachments that were not found, with why.
 */
missingPdfs?: Array<string>, 
/**
 * The key of the attachment that is its full text (a page link's target).
 */
pdfKey?: string | null, };

/**
 * A library: "My Library" (the local user's, id 0) or a group's.
 */
export type ZoteroLibrary = { 
/**
 * "user" or "group".
 */
kind: string, 
/**
 * 0 for the local user's library, the group's id for a group.
 */
id: number, name: string, };

/**
 * A collection, with the path of names that leads to it.
 */
export type ZoteroCollection = { library: ZoteroLibrary, key: string, name: string, 
/**
 * Its parents' names and its own: "Thesis / Chapter 2".
 */
path: string, 
/**
 * Items directly in it (notes and attachments of items not counted).
 */
items: number, };

/**
 * Where a collection was read from.
 */
export type ZoteroVia = "localApi" | "database";

/**
 * The collections Zotero holds, and how they were read.
 */
export type ZoteroCollections = { via: ZoteroVia, collections: Array<ZoteroCollection>, };

export type ZoteroOpenParams = { 
/**
 * The collection's key, path ("Thesis / Chapter 2") or unique name.
 */
collection: string, };

/**
 * A collection read into its snapshot: what the review will take.
 */
export type ZoteroRead = { collection: ZoteroCollection, via: ZoteroVia, 
/**
 * The snapshot file, the review's source.
 */
snapshot: string, items: number, 
/**
 * Items with a PDF found on disk.
 */
withPdf: number, 
/**
 * PDF attachments not found, "title: why".
 */
missing: Array<string>, };

/**
 * A collection opened as a review.
 */
export type ZoteroOpened = { read: ZoteroRead, workspace: WorkspaceRow, };

/**
 * Where the Zotero Web API key is kept; the key itself never leaves the core.
 */
export type ZoteroKeyStatus = { 
/**
 * "the OS secret store", the key file's path, "environment variable …";
 * `None` without a key.
 */
keySource: string | null, 
/**
 * From the environment (Settings cannot replace it).
 */
fromEnv: boolean, };

export type ZoteroKeyParams = { key: string, };

export type ZoteroPushParams = { 
/**
 * The review's workspace folder.
 */
workspace: string, };

/**
 * How a push went.
 */
export type ZoteroPushSummary = { 
/**
 * Zotero items in the review.
 */
items: number, 
/**
 * Items whose tags were written.
 */
tagged: number, notesCreated: number, notesUpdated: number, 
/**
 * Items Zotero already held as Quire would write them.
 */
unchanged: number, 
/**
 * Items changed in Zotero during the push, read again and written.
 */
conflictsResolved: number, 
/**
 * Items not written, with why ("title: why").
 */
failed: Array<string>, 
/**
 * Items whose own `screen:` tag (the researcher's, another tool's)
 * differs from the label Quire would write: theirs is kept and Quire's
 * is not written ("title: why").
 */
theirScreenTagsKept: Array<string>, 
/**
 * HTTP requests sent (reads and writes, retries included).
 */
requests: number, };

/**
 * What asking the running Zotero for write access gave.
 */
export type ZoteroLocalAccess = { 
/**
 * The database Zotero serves.
 */
serverId: string, 
/**
 * Where the lasting key is kept; none when Zotero granted one write
 * only (not kept: a push is many writes).
 */
keySource: string | null, };

/**
 * Which way along the citations a record was found from its seed.
 */
export type Direction = "backward" | "forward";

/**
 * One seed that led to a record, and which way.
 */
export type FoundVia = { 
/**
 * The seed: a paper of the review.
 */
seed: string, direction: Direction, };

/**
 * An open-access copy of a work, as OpenAlex or Unpaywall tells it: what
 * the researcher sees before approving a download.
 */
export type OpenCopy = { 
/**
 * The PDF itself, when the host offers one.
 */
pdfUrl?: string | null, landingUrl?: string | null, 
/**
 * Who hosts it: a repository or a publisher, by name.
 */
host?: string | null, 
/**
 * "publishedVersion", "acceptedVersion" or "submittedVersion".
 */
version?: string | null, 
/**
 * "cc-by", "cc-by-nc", …; none when the host states none.
 */
licence?: string | null, };

/**
 * What citation searching knows of a record it found.
 */
export type CitationFound = { 
/**
 * Its OpenAlex id (`W…`), after any merge.
 */
openalex: string, 
/**
 * The round of citation searching that found it, from 1.
 */
round: number, 
/**
 * Every seed that led to it, and which way.
 */
via: Array<FoundVia>, openCopy?: OpenCopy | null, };

/**
 * A paper of the review the round started from.
 */
export type SnowballSeed = { paper: string, title: string | null, 
/**
 * Its OpenAlex id, when OpenAlex knows it.
 */
openalex: string | null, 
/**
 * Works in its references.
 */
references: number, 
/**
 * Works citing it, as OpenAlex counts them.
 */
citedBy: number, 
/**
 * Why it could not be followed, when it could not.
 */
notFollowed?: string | null, };

/**
 * The calls a round made to OpenAlex, by its price tier.
 */
export type SnowballCalls = { 
/**
 * Lookups of one work by id or DOI: free.
 */
singleton: number, 
/**
 * Lists (by ids, by `cites:`), one page each.
 */
list: number, 
/**
 * Title searches, for seeds with no identifier.
 */
search: number, 
/**
 * What they cost at OpenAlex's published prices, in US dollars.
 */
costUsd: number, };

/**
 * What a round will do and cost, shown before it runs.
 */
export type SnowballPlan = { 
/**
 * The round it would be, from 1.
 */
round: number, seeds: Array<SnowballSeed>, directions: Array<Direction>, 
/**
 * Calls made to plan: the seeds' lookups (free by id or DOI; a search
 * for a seed with neither).
 */
planning: SnowballCalls, 
/**
 * List calls the round will make: the seeds' references, 100 a call,
 * less those the review already has.
 */
backwardCalls: number, 
/**
 * List calls the round will make: pages of 100 citing works per seed.
 */
forwardCalls: number, 
/**
 * Distinct references to fetch.
 */
references: number, 
/**
 * Citing works within reach (the first 10,000 per seed).
 */
citing: number, 
/**
 * What the round's calls cost, in US dollars.
 */
costUsd: number, 
/**
 * Today's allowance as OpenAlex last told it.
 */
allowance: Allowance | null, 
/**
 * Whether what is left today pays for the round; none when unknown.
 */
affordable: boolean | null, notices: Array<string>, };

/**
 * What a round did.
 */
export type SnowballRound = { round: number, 
/**
 * The round's file, relative to the review.
 */
file: string, seeds: number, 
/**
 * Works found, duplicates included, each once.
 */
found: number, 
/**
 * Of the found, new to the review: now records awaiting screening.
 */
added: number, 
/**
 * Of the found, works the review already had (any version).
 */
duplicates: number, 
/**
 * New works found backward (in a seed's references) and forward
 * (citing a seed); a work found both ways counts in both.
 */
backward: number, forward: number, 
/**
 * New works with an open-access copy listed (not downloaded).
 */
openCopies: number, calls: SnowballCalls, complete: boolean, notices: Array<string>, 
/**
 * The papers the new records are, in the order found.
 */
papers: Array<string>, 
/**
 * The plan the round followed.
 */
plan: SnowballPlan, };

export type SnowballParams = { 
/**
 * The review's workspace folder.
 */
workspace: string, 
/**
 * Seeds by paper id; none means the included papers not yet followed.
 */
seeds: Array<string> | null, 
/**
 * Backward, forward or both (empty).
 */
directions: Array<Direction>, };

export type CopiesParams = { 
/**
 * The review's workspace folder.
 */
workspace: string, 
/**
 * Unpaywall's contact address; none means `QUIRE_CONTACT_EMAIL`.
 */
contact: string | null, };

export type FetchParams = { 
/**
 * The review's workspace folder.
 */
workspace: string, 
/**
 * The records whose open copies the researcher approved.
 */
papers: Array<string>, contact: string | null, };

/**
 * A record the review keeps, and the open copy that could be its full text.
 */
export type CopyOffer = { paper: string, title: string | null, doi: string | null, 
/**
 * The copy, when one is known (a PDF link, or only a landing page).
 */
copy: OpenCopy | null, 
/**
 * Who told of it: "OpenAlex" or "Unpaywall".
 */
from: string | null, 
/**
 * Why there is no PDF to fetch, when there is none.
 */
noneBecause: string | null, 
/**
 * The last attempt to fetch it, when there was one.
 */
lastAttempt: Retrieval | null, };

/**
 * One attempt to fetch a record's open copy.
 */
export type Retrieval = { retrieved: boolean, 
/**
 * Why it was not retrieved.
 */
reason?: string | null, url?: string | null, 
/**
 * The PDF's paper, when retrieved.
 */
pdf?: string | null, 
/**
 * When (RFC 3339).
 */
at: string, };

/**
 * What fetching one approved record did.
 */
export type FetchOutcome = { paper: string, title: string | null, retrieval: Retrieval, };

export type ModelProfileSaveParams = { name: string, settings: ModelSettings, 
/**
 * A new key to store; `None` or empty keeps the stored one.
 */
apiKey?: string | null, 
/**
 * Make this the profile reviews use.
 */
makeDefault: boolean, };

/**
 * What `quire models` shows of a profile.
 */
export type ModelListing = { profile: string, baseUrl: string, configuredModel: string, 
/**
 * Where the key came from, never the key.
 */
keySource: string | null, models: Array<string>, 
/**
 * A pool's endpoints, each as it answered (empty for one endpoint).
 */
endpoints: Array<EndpointCheck>, };

/**
 * What kind of thing went wrong, as far as the researcher can act on it.
 */
export type ErrorKind = "invalid_input" | "not_found" | "busy" | "model_setup" | "model_server" | "storage" | "cancelled" | "internal";

export type CommandError = { kind: ErrorKind, 
/**
 * Stable snake_case code, e.g. `folder_not_found`, `workspace_locked`.
 */
code: string, 
/**
 * One sentence for a person.
 */
message: string, };
