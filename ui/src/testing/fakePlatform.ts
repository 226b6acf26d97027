// An in-memory Platform for UI tests: behaves like the real commands (create
// adds or reopens, list returns newest first) and lets a test play the OS's part
// in drag and drop.

import {
  type AskParams,
  type AskProgress,
  type AskRecord,
  type AskScope,
  type Column,
  type ColumnsParams,
  type CorrectParams,
  type FillOutcome,
  type FillParams,
  type FillProgress,
  type ShownCell,
  type TableView,
  type CopyOffer,
  type ZoteroLocalAccess,
  type Direction,
  type FetchOutcome,
  type SnowballPlan,
  type SnowballRound,
  type DragDropEvent,
  type Estimate,
  type ExportFormat,
  type ImportProgress,
  type ImportSummary,
  type FullTextSummary,
  type DuplicateGroup,
  type ScreeningView,
  type ExportWritten,
  type Label,
  type LabelChange,
  type MetaChange,
  type PaperMeta,
  type PaperRow,
  type PaperDetail,
  type PaperResult,
  type ReviewLaunch,
  type ReviewView,
  type SearchExport,
  type RowQuery,
  type RowsPage,
  type RunEvent,
  type ModelListing,
  type ModelProfile,
  type ModelProfileSave,
  type ModelSettings,
  type ModelSetup,
  type OpenAlexStatus,
  type Platform,
  type ZoteroCollection,
  type ZoteroCollections,
  type ZoteroKeyStatus,
  type ZoteroOpened,
  type ZoteroPushSummary,
  QuireError,
  type WorkspaceSummary,
  type Cutoffs,
  type DualPolicy,
  type Flow,
  type MoreLabels,
  type ProtocolParams,
  type ProtocolVersion,
  type ProtocolView,
  type ValidateParams,
  type ValidationView,
  type WorkEstimate,
} from "../platform";
import { DEFAULT_QUERY } from "../app/review/table";
import { pageOf } from "./fakeRows";

/** The first page's rows, as the core sends them. */
const FIRST_PAGE = 100;

/** A review as the fake keeps it: the view and every one of its rows. */
export type FakeReview = Omit<ReviewView, "firstRows" | "searches"> & { papers: PaperRow[] };

/** The search exports `papers` came from, as the core lists them (SearchExport). */
function searchesOf(papers: PaperRow[]): SearchExport[] {
  const byFile = new Map<string, SearchExport>();
  for (const p of papers) {
    if (p.imported === null || p.imported.zotero != null || p.imported.citation != null) continue;
    const search = byFile.get(p.file) ?? { file: p.file, format: p.imported.format, records: 0, left: 0 };
    search.records += 1;
    if (p.imported.leftSearch === true) search.left += 1;
    byFile.set(p.file, search);
  }
  return [...byFile.values()].sort((a, b) => a.file.localeCompare(b.file));
}

/** The core's defaults for a new profile (ModelSettings::default). */
export const DEFAULT_SETTINGS: ModelSettings = {
  protocol: "openai",
  base_url: "http://localhost:11434/v1",
  model: "",
  api_key_env: null,
  context_window: 32768,
  max_output_tokens: 4096,
  concurrency: 4,
  connect_timeout_secs: 10,
  read_timeout_secs: 120,
  request_timeout_secs: 900,
  max_retries: 4,
  stream: true,
  stream_tool_turns: true,
  pool: [],
  pool_cooldown_secs: 30,
};

export class FakePlatform implements Platform {
  workspaces: WorkspaceSummary[] = [];
  notice: string | null = null;
  /** What the folder dialog answers next; null is "cancelled". */
  nextPick: string | null = null;
  /** When set, createWorkspace rejects with it. */
  createError: QuireError | null = null;
  created: string[] = [];
  profiles: ModelProfile[] = [];
  defaultProfile: string | null = null;
  /** A local Ollama's models, as if one were running; empty means none. */
  ollamaModels: string[] = [];
  /** What each endpoint lists, by base URL; a missing URL is unreachable. */
  endpoints = new Map<string, string[]>();
  /** Keys stored, by profile: the fake's secret store. */
  storedKeys = new Map<string, string>();
  saved: ModelProfileSave[] = [];
  /** OpenAlex's saved key (the fake's secret store), and the one OpenAlex accepts (null: any). */
  openalexKey: string | null = null;
  openalexValidKey: string | null = null;
  /** Whether OpenAlex can be reached, and what each allowance check costs it. */
  openalexOnline = true;
  openalexChecks = 0;
  /** What Zotero holds; `zoteroError` (a 403, Zotero missing) is what reading it answers instead. */
  zotero: ZoteroCollections = { via: "localApi", collections: [] };
  zoteroError: QuireError | null = null;
  /** PDFs of the next opened collection that are not on this computer. */
  zoteroMissing: string[] = [];
  /** The saved Zotero Web API key, and the pushes made with it. */
  zoteroKey: string | null = null;
  pushes: string[] = [];
  /** What the next push answers. */
  nextPush: ZoteroPushSummary = {
    items: 3,
    tagged: 3,
    notesCreated: 3,
    notesUpdated: 0,
    unchanged: 0,
    conflictsResolved: 0,
    failed: [],
    theirScreenTagsKept: [],
    requests: 4,
  };
  private dragHandlers: ((e: DragDropEvent) => void)[] = [];
  private changeHandlers: (() => void)[] = [];
  private clock = Date.parse("2026-11-30T12:00:00Z");

  listWorkspaces() {
    return Promise.resolve({ workspaces: [...this.workspaces], notice: this.notice });
  }

  createWorkspace(folder: string) {
    this.created.push(folder);
    if (this.createError !== null) return Promise.reject(this.createError);
    this.clock += 60_000;
    const now = new Date(this.clock).toISOString();
    const title = folder.split("/").filter(Boolean).pop() ?? folder;
    const existing = this.workspaces.find((w) => w.source === folder);
    const summary: WorkspaceSummary = existing
      ? { ...existing, updatedAt: now }
      : {
          id: `${title}-${this.workspaces.length + 1}`,
          root: `/data/workspaces/${title}`,
          title,
          source: folder,
          question: null,
          status: "new",
          createdAt: now,
          updatedAt: now,
          paperCount: 3,
          duplicateCount: 0,
        };
    this.workspaces = [summary, ...this.workspaces.filter((w) => w.id !== summary.id)];
    if (!this.reviews.has(summary.root)) this.reviews.set(summary.root, newReview(summary.root, title, folder));
    return Promise.resolve(summary);
  }

  pickFolder() {
    return Promise.resolve(this.nextPick);
  }

  screeningCalls: { workspace: string; count: number; question: string | null; find: string | null }[] = [];

  /** The queue as the core serves it, without the learning: unlabelled
   * readable rows in the review's order, the curve from the labels' times. */
  /** The queue's last serve: the paper it put first and its token. */
  private served: { paper: string; token: string } | null = null;
  private serves = 0;

  screeningNext(workspace: string, count: number, question: string | null, find: string | null = null): Promise<ScreeningView> {
    this.screeningCalls.push({ workspace, count, question, find });
    const view = this.review(workspace);
    if (question !== null && view.question === null) view.question = question;
    const readable = view.papers.filter((p) => p.status === "ok");
    const labelled = readable.filter((p) => p.label?.verdict != null);
    const kept = (p: PaperRow) => p.label?.verdict === "include" || p.label?.verdict === "maybe";
    const keptCount = labelled.filter(kept).length;
    const byTime = [...labelled].sort((a, b) => (a.label?.at ?? "").localeCompare(b.label?.at ?? ""));
    let soFar = 0;
    const curve = byTime.map((p, i) => {
      soFar += kept(p) ? 1 : 0;
      return { screened: i + 1, kept: soFar };
    });
    const item = (p: PaperRow, i: number) => ({
        paper: p.id,
        title: p.title,
        authors: p.authors,
        year: p.year,
        venue: null,
        abstract: `The abstract of ${p.title ?? p.id}.`,
        kind: p.imported === null ? "PDF" : `${p.imported.format} record`,
        score: 1 - i / 10,
      });
    const unlabelled = readable.filter((p) => p.label?.verdict == null);
    const next = unlabelled.slice(0, count).map(item);
    const words = (find ?? "").toLowerCase().split(/\W+/).filter(Boolean);
    const found = words.length === 0 ? [] : unlabelled.filter((p) => words.every((w) => (p.title ?? p.file).toLowerCase().includes(w))).map(item);
    const both = keptCount > 0 && labelled.length > keptCount;
    // Not the statistics (the core's tests check those): met once half the
    // papers are screened and the last one was excluded.
    const lastKept = byTime.map(kept).lastIndexOf(true);
    const sinceLastKept = byTime.length - 1 - lastKept;
    const met = labelled.length * 2 >= readable.length && sinceLastKept >= 1;
    this.serves += 1;
    const first = next.at(0);
    this.served = first === undefined ? null : { paper: first.paper, token: `serve-${String(this.serves)}` };
    return Promise.resolve({
      total: readable.length,
      screened: labelled.length,
      kept: keptCount,
      excluded: labelled.length - keptCount,
      next,
      curve,
      basis: both ? "learned" : view.question !== null || keptCount > 0 ? "likeness" : "recordOrder",
      ranker: "fake",
      stopping: {
        target: 0.95,
        confidence: 0.95,
        inOrder: labelled.filter((p) => p.label?.queued === true).length,
        p: labelled.length === 0 ? null : met ? 0.01 : 0.5,
        met,
        recallAtLeast: met ? 0.96 : labelled.length === 0 ? null : 0.6,
        sinceLastKept: Math.min(sinceLastKept, byTime.length),
        rule: "the fake rule",
      },
      found,
      serve: this.served?.token ?? null,
    });
  }

  setAsideCalls: { workspace: string; paper: string; of: string | null }[] = [];

  /** Marks the member in the review's groups, as the core does. */
  setAside(workspace: string, paper: string, of: string | null): Promise<DuplicateGroup[]> {
    this.setAsideCalls.push({ workspace, paper, of });
    const view = this.review(workspace);
    view.duplicateGroups = view.duplicateGroups.map((g) => ({
      ...g,
      members: g.members.map((m) => (m.paper === paper ? { ...m, setAside: of !== null } : m)),
    }));
    return Promise.resolve(view.duplicateGroups);
  }

  fullTextCalls: { workspace: string; folder: string }[] = [];

  /** Each record with no full text gets a PDF of the folder (matched by
   * title), and one more PDF matches no record. */
  attachFullText(workspace: string, folder: string): Promise<FullTextSummary> {
    this.fullTextCalls.push({ workspace, folder });
    const view = this.review(workspace);
    const summary: FullTextSummary = { folder, pdfs: 0, attached: [], unmatched: [], records: 0, withFullText: 0 };
    const records = view.papers.filter((p) => p.imported !== null);
    const added: PaperRow[] = [];
    for (const record of records.filter((r) => r.fullText === null)) {
      const pdf: PaperRow = { ...record, id: `f${record.id}`, file: `${folder}/${record.id}.pdf`, imported: null, pages: 8, fullTextOf: record.id, fullText: null };
      record.fullText = pdf.id;
      added.push(pdf);
      summary.attached.push({ record: record.id, recordTitle: record.title, pdf: pdf.id, file: `${record.id}.pdf`, by: "title" });
    }
    const template = view.papers[0];
    if (template !== undefined) {
      const lone: PaperRow = { ...template, id: `lone${String(view.papers.length)}`, file: `${folder}/lone.pdf`, imported: null, fullText: null, fullTextOf: null };
      added.push(lone);
      summary.unmatched.push({ pdf: lone.id, file: "lone.pdf", why: "no DOI on its first page, and no record has its title" });
    }
    view.papers = [...view.papers, ...added];
    summary.pdfs = added.length;
    summary.records = records.length;
    summary.withFullText = records.filter((r) => r.fullText !== null).length;
    return Promise.resolve(summary);
  }

  /** What the next file dialog for search exports answers. */
  nextRecordFiles: string[] = [];
  imports: { workspace: string; files: string[]; replaces: string | null }[] = [];

  pickRecordFiles() {
    return Promise.resolve(this.nextRecordFiles);
  }

  /** Each file named `*.ris` gives two records (the second one a duplicate of
   * the review's first paper by DOI); any other name cannot be read. */
  /** Set to hold an import open after its first progress report, until resolved. */
  holdImport: Promise<void> | null = null;

  async importRecords(
    workspace: string,
    files: string[],
    onProgress?: (progress: ImportProgress) => void,
    replaces: string | null = null,
  ): Promise<ImportSummary> {
    this.imports.push({ workspace, files, replaces });
    const total = files.filter((f) => f.endsWith(".ris")).length * 2;
    onProgress?.({ done: 0, total, saving: false });
    if (this.holdImport !== null) await this.holdImport;
    onProgress?.({ done: total, total, saving: true });
    const view = this.review(workspace);
    const summary: ImportSummary = { files: [], added: 0, papers: [], duplicates: view.duplicateGroups };
    const line = { replaces: null, updated: 0, reread: 0, left: [] };
    const earlier = view.papers.filter((p) => replaces !== null && p.file === replaces && p.imported !== null);
    if (earlier.length > 0 && files[0] !== undefined) {
      // A newer run of the search: its first record found again changed
      // (its abstract corrected), its last no longer in the search.
      const file = files[0];
      const gone = earlier[earlier.length - 1];
      view.papers = view.papers.map((p) =>
        p.file === replaces && p.imported !== null
          ? { ...p, file, imported: { ...p.imported, leftSearch: p === gone } }
          : p,
      );
      summary.files.push({
        ...line,
        file,
        format: "RIS",
        records: earlier.length - 1,
        added: 0,
        replaces,
        updated: 1,
        reread: 1,
        left: gone === undefined ? [] : [{ paper: gone.id, title: gone.title }],
        error: null,
        notices: [],
      });
      summary.papers.push(...earlier.slice(0, -1).map((p) => p.id));
      return summary;
    }
    for (const file of files) {
      if (!file.endsWith(".ris")) {
        summary.files.push({ ...line, file, format: null, records: 0, added: 0, error: `${file} is not a search export Quire reads`, notices: [] });
        continue;
      }
      const template = view.papers[0];
      if (template === undefined) throw new Error("the fake review has no paper");
      const rows: PaperRow[] = [1, 2].map((n) => ({
        ...template,
        id: `r${String(view.papers.length + n)}`,
        file,
        title: `Record ${String(n)} of ${file}`,
        status: "ok",
        pages: 1,
        imported: { format: "RIS", position: n },
        duplicates: 0,
        score: null,
        verdict: null,
        label: null,
        shownScore: null,
        shownVerdict: null,
      }));
      view.papers = [...view.papers, ...rows];
      const notices = file.includes("cut") ? ["the file ends inside record 2 (line 9), before its closing ER  - line"] : [];
      summary.files.push({ ...line, file, format: "RIS", records: 2, added: 2, error: null, notices });
      summary.added += 2;
      summary.papers.push(...rows.map((r) => r.id));
      const member = (p: PaperRow, kind: string) => ({ paper: p.id, title: p.title, year: p.year, kind, setAside: false });
      summary.duplicates = [
        ...summary.duplicates,
        { why: "the same DOI", members: [member(template, "PDF"), member(rows[1] ?? template, "RIS record")] },
      ];
    }
    view.duplicateGroups = summary.duplicates;
    return summary;
  }

  onDragDrop(handler: (e: DragDropEvent) => void) {
    this.dragHandlers.push(handler);
    return Promise.resolve(() => {
      this.dragHandlers = this.dragHandlers.filter((h) => h !== handler);
    });
  }

  onWorkspacesChanged(handler: () => void) {
    this.changeHandlers.push(handler);
    return Promise.resolve(() => {
      this.changeHandlers = this.changeHandlers.filter((h) => h !== handler);
    });
  }

  /** Play the OS: send a drag event to whoever listens. */
  drag(event: DragDropEvent) {
    for (const handler of this.dragHandlers) handler(event);
  }

  /** Play the shell: announce that the list changed elsewhere. */
  announceChange() {
    for (const handler of this.changeHandlers) handler();
  }

  get listenerCount() {
    return this.dragHandlers.length + this.changeHandlers.length;
  }

  modelSetup(): Promise<ModelSetup> {
    const configured = this.profiles.find((p) => p.name === this.defaultProfile) ?? this.profiles[0];
    const local = this.ollamaModels.at(0);
    const active =
      configured !== undefined
        ? { profile: configured.name, model: configured.settings.model, baseUrl: configured.settings.base_url, detected: false }
        : local !== undefined
          ? { profile: "ollama", model: local, baseUrl: "http://localhost:11434/v1", detected: true }
          : null;
    return Promise.resolve({
      active,
      profiles: this.profiles.map((p) => ({ ...p, settings: { ...p.settings } })),
      defaultProfile: this.defaultProfile,
      settingsPath: "/home/user/.config/quire/models.toml",
      defaults: { ...DEFAULT_SETTINGS },
    });
  }

  saveModelProfile(profile: ModelProfileSave): Promise<ModelSetup> {
    this.saved.push(profile);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(profile.name)) {
      return Promise.reject(new QuireError("model_setup", "model_settings_invalid", "a profile name is 1 to 64 letters, digits, - or _"));
    }
    if (profile.settings.model.trim() === "") {
      return Promise.reject(
        new QuireError("model_setup", "model_settings_invalid", "invalid model settings: model is empty; name the model to use"),
      );
    }
    const apiKey = profile.apiKey ?? "";
    if (apiKey.trim() !== "") this.storedKeys.set(profile.name, apiKey);
    const keySource = this.storedKeys.has(profile.name) ? "the OS secret store" : null;
    this.profiles = [
      ...this.profiles.filter((p) => p.name !== profile.name),
      { name: profile.name, settings: { ...profile.settings }, keySource },
    ].sort((a, b) => a.name.localeCompare(b.name));
    if (profile.makeDefault || this.defaultProfile === null) this.defaultProfile = profile.name;
    return this.modelSetup();
  }

  openalexStatus(check: boolean): Promise<OpenAlexStatus> {
    const status: OpenAlexStatus = {
      keySource: this.openalexKey === null ? null : "the OS secret store",
      fromEnv: false,
      allowance: null,
      problem: null,
    };
    if (!check) return Promise.resolve(status);
    this.openalexChecks += 1;
    if (!this.openalexOnline) {
      status.problem = "OpenAlex cannot be reached (cannot connect)";
    } else if (this.openalexKey !== null && this.openalexValidKey !== null && this.openalexKey !== this.openalexValidKey) {
      status.problem = "OpenAlex refused the API key: check it at openalex.org/settings/api";
    } else {
      const keyed = this.openalexKey !== null;
      status.allowance = { limitUsd: keyed ? 1 : 0.01, remainingUsd: keyed ? 0.999 : 0.01, resetsInSecs: 11_520 };
    }
    return Promise.resolve(status);
  }

  saveOpenalexKey(key: string): Promise<OpenAlexStatus> {
    if (key.trim() === "" || /\s/.test(key.trim())) {
      return Promise.reject(
        new QuireError("invalid_input", "api_key_invalid", "an OpenAlex API key is one word with no spaces (openalex.org/settings/api)"),
      );
    }
    this.openalexKey = key.trim();
    return this.openalexStatus(true);
  }

  removeOpenalexKey(): Promise<OpenAlexStatus> {
    this.openalexKey = null;
    return this.openalexStatus(false);
  }

  zoteroCollections(): Promise<ZoteroCollections> {
    if (this.zoteroError !== null) return Promise.reject(this.zoteroError);
    return Promise.resolve({ ...this.zotero, collections: [...this.zotero.collections] });
  }

  async openZoteroCollection(key: string): Promise<ZoteroOpened> {
    if (this.zoteroError !== null) throw this.zoteroError;
    const collection: ZoteroCollection | undefined = this.zotero.collections.find((c) => c.key === key);
    if (collection === undefined) {
      throw new QuireError("not_found", "zotero_collection_not_found", `no Zotero collection is called "${key}"`);
    }
    const snapshot = `/data/zotero/${collection.library.kind}-${collection.key}/collection.zotero.json`;
    const workspace = await this.createWorkspace(snapshot);
    return {
      read: {
        collection,
        via: this.zotero.via,
        snapshot,
        items: collection.items,
        withPdf: collection.items - this.zoteroMissing.length,
        missing: [...this.zoteroMissing],
      },
      workspace,
    };
  }

  zoteroKeyStatus(): Promise<ZoteroKeyStatus> {
    return Promise.resolve({ keySource: this.zoteroKey === null ? null : "the OS secret store", fromEnv: false });
  }

  saveZoteroKey(key: string): Promise<ZoteroKeyStatus> {
    if (key.trim() === "" || /\s/.test(key.trim())) {
      return Promise.reject(
        new QuireError("invalid_input", "api_key_invalid", "a Zotero API key is one word with no spaces (zotero.org/settings/keys)"),
      );
    }
    this.zoteroKey = key.trim();
    return this.zoteroKeyStatus();
  }

  removeZoteroKey(): Promise<ZoteroKeyStatus> {
    this.zoteroKey = null;
    return this.zoteroKeyStatus();
  }

  pushToZotero(workspace: string): Promise<ZoteroPushSummary> {
    if (this.zoteroKey === null) {
      return Promise.reject(
        new QuireError(
          "invalid_input",
          "zotero_key_missing",
          "writing to Zotero needs a Zotero Web API key with write access to the library: create one at zotero.org/settings/keys, then save it (`quire zotero key`, or Settings)",
        ),
      );
    }
    this.pushes.push(workspace);
    return Promise.resolve({ ...this.nextPush });
  }

  /** Citation searching as the fake's OpenAlex answers: each seed cites two works (the first with an open
   * copy) and is cited by one. */
  snowballRuns: { workspace: string; seeds: string[] | null; directions: Direction[] }[] = [];
  fetchCalls: { workspace: string; papers: string[]; contact: string | null }[] = [];
  private rounds = new Map<string, { round: number; followed: Set<string> }>();

  private shownVerdict(p: PaperRow): string | null {
    return p.label?.verdict ?? p.shownVerdict ?? p.verdict;
  }

  snowballPlan(workspace: string, seeds: string[] | null, directions: Direction[]): Promise<SnowballPlan> {
    const view = this.review(workspace);
    const done = this.rounds.get(workspace) ?? { round: 0, followed: new Set<string>() };
    const chosen = view.papers.filter((p) =>
      seeds === null ? this.shownVerdict(p) === "include" && !done.followed.has(p.id) : seeds.includes(p.id),
    );
    const ways: Direction[] = directions.length === 0 ? ["backward", "forward"] : directions;
    const backwardCalls = ways.includes("backward") && chosen.length > 0 ? 1 : 0;
    const forwardCalls = ways.includes("forward") ? chosen.length : 0;
    return Promise.resolve({
      round: done.round + 1,
      seeds: chosen.map((p) => ({ paper: p.id, title: p.title, openalex: `W${p.id}`, references: 2, citedBy: 1, notFollowed: null })),
      directions: ways,
      planning: { singleton: chosen.length, list: 0, search: 0, costUsd: 0 },
      backwardCalls,
      forwardCalls,
      references: ways.includes("backward") ? 2 * chosen.length : 0,
      citing: forwardCalls,
      costUsd: (backwardCalls + forwardCalls) * 0.0001,
      allowance: { remainingUsd: 0.99, limitUsd: 1, resetsInSecs: 3600 },
      affordable: true,
      notices: [],
    });
  }

  async snowballRun(workspace: string, seeds: string[] | null, directions: Direction[]): Promise<SnowballRound> {
    this.snowballRuns.push({ workspace, seeds, directions });
    const plan = await this.snowballPlan(workspace, seeds, directions);
    const view = this.review(workspace);
    const template = view.papers[0];
    if (template === undefined) throw new Error("the fake review has no paper");
    const rows: PaperRow[] = [];
    for (const seed of plan.seeds) {
      const found: { title: string; direction: Direction; open: boolean }[] = [];
      if (plan.directions.includes("backward")) {
        found.push({ title: `Cited by ${seed.title ?? seed.paper} (1)`, direction: "backward", open: true });
        found.push({ title: `Cited by ${seed.title ?? seed.paper} (2)`, direction: "backward", open: false });
      }
      if (plan.directions.includes("forward")) found.push({ title: `Citing ${seed.title ?? seed.paper}`, direction: "forward", open: false });
      for (const f of found) {
        const id = `c${String(view.papers.length + rows.length + 1)}`;
        rows.push({
          ...template,
          id,
          file: `citations/round-${String(plan.round)}.citations.json`,
          title: f.title,
          status: "ok",
          pages: 1,
          imported: {
            format: "citation searching",
            position: rows.length + 1,
            citation: {
              openalex: `W${id}`,
              round: plan.round,
              via: [{ seed: seed.paper, direction: f.direction }],
              openCopy: f.open ? { pdfUrl: `https://repository.example/${id}.pdf`, host: "Example Repository", version: "acceptedVersion", licence: "cc-by" } : null,
            },
          },
          duplicates: 0,
          fullText: null,
          score: null,
          verdict: null,
          label: null,
          shownScore: null,
          shownVerdict: null,
        });
      }
    }
    view.papers = [...view.papers, ...rows];
    const done = this.rounds.get(workspace) ?? { round: 0, followed: new Set<string>() };
    plan.seeds.forEach((s) => done.followed.add(s.paper));
    this.rounds.set(workspace, { round: plan.round, followed: done.followed });
    const count = (d: Direction) => rows.filter((r) => r.imported?.citation?.via.some((v) => v.direction === d)).length;
    return {
      round: plan.round,
      file: `citations/round-${String(plan.round)}.citations.json`,
      seeds: plan.seeds.length,
      found: rows.length + 1,
      added: rows.length,
      duplicates: 1,
      backward: count("backward"),
      forward: count("forward"),
      openCopies: rows.filter((r) => r.imported?.citation?.openCopy != null).length,
      calls: { singleton: plan.seeds.length, list: plan.backwardCalls + plan.forwardCalls, search: 0, costUsd: plan.costUsd },
      complete: true,
      notices: [],
      papers: rows.map((r) => r.id),
      plan,
    };
  }

  private offerFor(p: PaperRow): CopyOffer {
    const copy = p.imported?.citation?.openCopy ?? null;
    return {
      paper: p.id,
      title: p.title,
      doi: null,
      copy,
      from: copy === null ? null : "OpenAlex",
      noneBecause: copy === null ? "no open-access copy known (OpenAlex, Unpaywall)" : null,
      lastAttempt: null,
    };
  }

  /** The contact address each copies listing carried (Unpaywall's). */
  copiesContacts: (string | null)[] = [];

  snowballCopies(workspace: string, contact: string | null): Promise<CopyOffer[]> {
    this.copiesContacts.push(contact);
    const view = this.review(workspace);
    const kept = view.papers.filter(
      (p) => p.imported?.citation != null && p.fullText === null && ["include", "maybe"].includes(this.shownVerdict(p) ?? ""),
    );
    return Promise.resolve(kept.map((p) => this.offerFor(p)));
  }

  snowballFetch(workspace: string, papers: string[], contact: string | null): Promise<FetchOutcome[]> {
    this.fetchCalls.push({ workspace, papers, contact });
    const view = this.review(workspace);
    const at = "2026-12-04T12:00:00Z";
    return Promise.resolve(
      papers.map((id) => {
        const row = view.papers.find((p) => p.id === id);
        const offer = row === undefined ? null : this.offerFor(row);
        const url = offer?.copy?.pdfUrl ?? null;
        if (row !== undefined && url !== null) {
          row.fullText = `pdf-${id}`;
          return { paper: id, title: row.title, retrieval: { retrieved: true, url, pdf: `pdf-${id}`, at } };
        }
        return { paper: id, title: row?.title ?? null, retrieval: { retrieved: false, reason: offer?.noneBecause ?? "no such record", at } };
      }),
    );
  }

  /** How the fake Zotero's dialog is answered; null: a Zotero too old to take writes. */
  zoteroConsent: "always" | "once" | "deny" | null = "always";
  zoteroAuthorizations = 0;

  authorizeZotero(): Promise<ZoteroLocalAccess> {
    this.zoteroAuthorizations += 1;
    switch (this.zoteroConsent) {
      case null:
        return Promise.reject(
          new QuireError(
            "invalid_input",
            "zotero_no_local_writes",
            "this Zotero cannot take writes from other applications (Zotero 10 or later can); use a Zotero Web API key instead (Settings, or `quire zotero key`)",
          ),
        );
      case "deny":
        return Promise.reject(new QuireError("invalid_input", "zotero_write_denied", "write access was denied in Zotero's dialog"));
      case "once":
        return Promise.resolve({ serverId: "db-42", keySource: null });
      case "always":
        return Promise.resolve({ serverId: "db-42", keySource: "the OS secret store" });
    }
  }

  checkModelProfile(name: string): Promise<ModelListing> {
    const profile = this.profiles.find((p) => p.name === name);
    const settings = profile?.settings;
    // Like the core: a pool's endpoints are each asked; the models are the
    // first answering one's.
    const urls = settings === undefined ? [] : [settings.base_url, ...settings.pool.map((p) => p.base_url)];
    const checks = urls.map((url) => {
      const listed = this.endpoints.get(url);
      const serves = listed?.includes(settings?.model ?? "") ?? false;
      const problem =
        listed === undefined
          ? `cannot reach the model server at ${url}: connection refused`
          : serves
            ? null
            : `serves ${listed.join(", ")}, not ${settings?.model ?? ""}`;
      return { url, listed, check: { endpoint: url, reached: listed !== undefined, serves, problem } };
    });
    const models = checks.find((c) => c.listed !== undefined)?.listed;
    if (profile === undefined || models === undefined) {
      const url = profile?.settings.base_url ?? "?";
      return Promise.reject(new QuireError("model_server", "unreachable", `cannot reach the model server at ${url}: connection refused`));
    }
    return Promise.resolve({
      profile: name,
      baseUrl: profile.settings.base_url,
      configuredModel: profile.settings.model,
      keySource: profile.keySource,
      models: [...models],
      endpoints: urls.length > 1 ? checks.map((c) => c.check) : [],
    });
  }

  /** Reviews by workspace root, every row at hand (the core pages them). */
  reviews = new Map<string, FakeReview>();
  /** The queries the results table asked. */
  rowQueries: RowQuery[] = [];
  /** Full results by paper id. */
  results = new Map<string, PaperResult>();
  launches: ReviewLaunch[] = [];
  /** When set, startReview rejects with it. */
  startError: QuireError | null = null;
  cancelled: string[] = [];
  labelCalls: { paper: string; label: LabelChange | null }[] = [];
  /** What the save dialog answers next; null is "cancelled". */
  nextSavePath: string | null = null;
  exported: { format: ExportFormat; path: string }[] = [];
  prepared: string[] = [];
  private runHandlers = new Map<string, (event: RunEvent) => void>();

  private review(root: string): FakeReview {
    const view = this.reviews.get(root);
    if (view === undefined) throw new QuireError("invalid_input", "not_a_workspace", `${root} is not a Quire workspace (no task.json)`);
    return view;
  }

  openReview(root: string): Promise<ReviewView> {
    try {
      const { papers, ...view } = structuredClone(this.review(root));
      return Promise.resolve({
        ...view,
        firstRows: pageOf(papers.map(shown), { ...DEFAULT_QUERY, offset: 0, limit: FIRST_PAGE }),
        searches: searchesOf(papers),
      });
    } catch (e) {
      return Promise.reject(QuireError.from(e));
    }
  }

  /** The reviews whose rows were built ahead of their open. */
  warmed: string[] = [];

  warmReview(root: string): Promise<void> {
    this.warmed.push(root);
    return Promise.resolve();
  }

  reviewRows(root: string, query: RowQuery): Promise<RowsPage> {
    this.rowQueries.push(query);
    try {
      return Promise.resolve(pageOf(structuredClone(this.review(root).papers).map(shown), query));
    } catch (e) {
      return Promise.reject(QuireError.from(e));
    }
  }

  prepareReview(root: string) {
    this.prepared.push(root);
    const view = this.reviews.get(root);
    if (view !== undefined) {
      view.papers = view.papers.map((p) => (p.status === "pending" ? { ...p, status: "ok", pages: 12 } : p));
    }
    return this.openReview(root);
  }

  estimateReview(launch: ReviewLaunch): Promise<Estimate> {
    const readable = this.review(launch.workspace).papers.filter((p) => p.status === "ok").length;
    return Promise.resolve({
      model: "fake-model",
      readable,
      alreadyReviewed: 0,
      toRead: readable,
      paperTokens: readable * 9000,
      readerCalls: readable,
      agentSteps: 16 + readable,
      digestCalls: Math.ceil(readable / 16),
      inputTokens: readable * 12000,
      outputTokens: readable * 900,
      costUsd: readable * 0.01,
      batch: { costUsd: readable * 0.006, waitHours: 24 },
      atMost: {
        readerCalls: readable * 8,
        agentSteps: 2 * (16 + readable),
        digestCalls: 2 * Math.ceil(readable / 16),
        inputTokens: readable * 60000,
        outputTokens: readable * 30000,
        costUsd: readable * 0.05,
      },
      policies: (["agree-to-exclude", "tie-breaker", "flag"] as const).map((policy) => {
        const times = policy === "tie-breaker" ? 2.15 : 2;
        return {
          policy,
          expected: {
            readerCalls: Math.ceil(readable * times),
            agentSteps: 16 + readable,
            digestCalls: Math.ceil(readable / 16),
            inputTokens: Math.ceil(readable * 12000 * times),
            outputTokens: Math.ceil(readable * 900 * times),
            costUsd: readable * 0.01 * times,
          },
          atMost: {
            readerCalls: readable * 8 * (policy === "tie-breaker" ? 3 : 2),
            agentSteps: 2 * (16 + readable),
            digestCalls: 2 * Math.ceil(readable / 16),
            inputTokens: readable * 60000 * 2,
            outputTokens: readable * 30000 * 2,
            costUsd: readable * 0.05 * (policy === "tie-breaker" ? 3 : 2),
          },
        };
      }),
      concurrency: 4,
      serialRounds: 16 + readable * 2,
      seconds: (16 + readable * 2) * 8,
    });
  }

  /** Every protocol version, by workspace, oldest first. */
  protocols = new Map<string, ProtocolVersion[]>();

  private protocolView(params: ProtocolParams): ProtocolView {
    const key = (v: { question: string; criteria: string[] }) => `${v.question.trim()}\n${v.criteria.join("\n")}`;
    const history = (this.protocols.get(params.workspace) ?? []).filter((v) => key(v) === key(params));
    const approved = history.filter((v) => v.event === "approved").at(-1) ?? null;
    const last = history.at(-1);
    return { approved, draft: last?.event === "drafted" ? last : null, history, pilots: [] };
  }

  private recordProtocol(params: ProtocolParams, version: Omit<ProtocolVersion, "question" | "criteria" | "at" | "note">) {
    const versions = this.protocols.get(params.workspace) ?? [];
    versions.push({ ...version, question: params.question.trim(), criteria: params.criteria, at: "2026-12-03T09:00:00Z", note: null });
    this.protocols.set(params.workspace, versions);
    return Promise.resolve(this.protocolView(params));
  }

  protocol(params: ProtocolParams): Promise<ProtocolView> {
    return Promise.resolve(this.protocolView(params));
  }

  /** Like the model: a draft from the question, kept and not approved. */
  draftProtocol(params: ProtocolParams): Promise<ProtocolView> {
    const text = `## Question\n${params.question}\n\n## Scores\n- 9-10: answers it directly.\n- 0-2: about something else.`;
    return this.recordProtocol(params, { event: "drafted", origin: "drafted", text, hash: `h${text.length}`, model: "fake-model" });
  }

  /** Like the core: the draft's origin when the text is the draft's, else the researcher's. */
  approveProtocol(params: ProtocolParams): Promise<ProtocolView> {
    const text = (params.text ?? "").trim();
    if (text === "") return Promise.reject(new QuireError("invalid_input", "bad_protocol", "the protocol is empty"));
    const draft = this.protocolView(params).draft;
    const asDrafted = draft !== null && draft.text.trim() === text;
    return this.recordProtocol(params, {
      event: "approved",
      origin: asDrafted ? draft.origin : "researcher",
      text,
      hash: `h${text.length}`,
      model: asDrafted ? draft.model : null,
    });
  }

  startReview(launch: ReviewLaunch, onEvent: (event: RunEvent) => void) {
    this.launches.push(launch);
    if (this.startError !== null) return Promise.reject(this.startError);
    if (launch.engine === "agent" && this.protocolView({ ...launch }).approved === null) {
      return Promise.reject(new QuireError("invalid_input", "protocol_not_approved", "an agent review reads no paper before its protocol is approved"));
    }
    this.runHandlers.set(launch.workspace, onEvent);
    const view = this.reviews.get(launch.workspace);
    if (view !== undefined) {
      view.state = "running";
      view.question = launch.question;
      view.criteria = launch.criteria;
      view.engine = launch.engine;
      view.dual = launch.dual ?? null;
      view.secondProfile = launch.secondProfile ?? null;
    }
    return Promise.resolve();
  }

  /** Play the run: send an event to the window that started it. */
  runEvent(root: string, event: RunEvent) {
    this.runHandlers.get(root)?.(event);
  }

  /** Play a run's end: results for the papers as given, the model's
   * failures for those in `failures` (id to reason), then `finished`. */
  finishRun(root: string, scores: Record<string, number>, failures: Record<string, string> = {}) {
    const view = this.review(root);
    view.state = "done";
    view.papers = view.papers.map((p) => {
      const score = scores[p.id];
      const failed = failures[p.id];
      if (failed !== undefined) {
        return { ...p, failure: { code: "incoherent_answer", reason: failed, model: "tiny-270m", attempts: 2, at: "" } };
      }
      if (score === undefined) return p;
      const verdict = score >= 6.5 ? "include" : score >= 4 ? "maybe" : "exclude";
      this.results.set(p.id, fakeResult(score, verdict));
      return { ...p, score, verdict };
    });
    this.runEvent(root, { type: "finished", coveredByAgent: Object.keys(scores).length, coveredBySweep: 0 });
  }

  /** Each paper's readings, and the policy, of a dual-read review. */
  readings = new Map<string, { first: PaperResult; second: PaperResult }>();
  dualPolicy: DualPolicy | null = null;

  /**
   * Finish a dual-read run: each paper read twice, reconciled like the core
   * (agree-to-exclude keeps a paper either reading keeps; flag shows a
   * disagreement as maybe).
   */
  finishDualRun(root: string, policy: "agree-to-exclude" | "flag", first: Record<string, number>, second: Record<string, number>) {
    this.dualPolicy = policy;
    const reviewed = this.review(root);
    reviewed.dual = policy;
    const verdictOf = (score: number) => (score >= 6.5 ? "include" : score >= 4 ? "maybe" : "exclude");
    const view = this.review(root);
    view.state = "done";
    view.papers = view.papers.map((p) => {
      const [a, b] = [first[p.id], second[p.id]];
      if (a === undefined || b === undefined) return p;
      const readings = { first: fakeResult(a, verdictOf(a)), second: fakeResult(b, verdictOf(b)) };
      readings.second.provenance.model = "second-model";
      this.readings.set(p.id, readings);
      const disagreed = (verdictOf(a) === "exclude") !== (verdictOf(b) === "exclude");
      const keeper = verdictOf(a) === "exclude" ? readings.second : readings.first;
      const shown = disagreed ? keeper : readings.first;
      const verdict = disagreed && policy === "flag" ? "maybe" : shown.verdict;
      this.results.set(p.id, { ...shown, verdict });
      return { ...p, score: shown.score, verdict, disagreed };
    });
    this.runEvent(root, { type: "finished", coveredByAgent: Object.keys(first).length, coveredBySweep: 0 });
  }

  /** Each stale paper's old reading. */
  staleReadings = new Map<string, PaperResult>();

  /**
   * The review's inputs changed (a new question, say) and no run has read the
   * papers again: like the core, every reading is stale and counts nowhere.
   */
  makeStale(root: string, why: string) {
    const view = this.review(root);
    view.papers = view.papers.map((p) => {
      const old = this.results.get(p.id);
      if (old === undefined) return p;
      this.staleReadings.set(p.id, old);
      this.results.delete(p.id);
      return { ...p, score: null, verdict: null, stale: why };
    });
  }

  cancelReview(root: string) {
    this.cancelled.push(root);
    return Promise.resolve(this.runHandlers.has(root));
  }

  paperDetail(root: string, paper: string): Promise<PaperDetail> {
    const row = this.review(root).papers.find((p) => p.id === paper);
    if (row === undefined) return Promise.reject(new QuireError("not_found", "paper_not_found", `no paper ${paper} in this review`));
    const meta: PaperMeta = this.metas.get(paper) ?? {
      authors: row.authors.map((name) => ({ given: "", family: name })),
      year: row.year,
      doi: null,
      arxiv: null,
      sources: this.corrected.get(paper) ?? {},
    };
    const readings = this.readings.get(paper);
    return Promise.resolve({
      paper: shown(structuredClone(row)),
      meta,
      result: this.results.get(paper) ?? null,
      firstReading: readings?.first ?? null,
      secondReading: readings?.second ?? null,
      thirdReading: null,
      policy: readings === undefined ? null : this.dualPolicy,
      staleReading: this.staleReadings.get(paper) ?? null,
    });
  }

  /** Like the core: a search record has no PDF. */
  paperPdf(root: string, paper: string): Promise<ArrayBuffer> {
    const row = this.review(root).papers.find((p) => p.id === paper);
    if (row?.imported != null) {
      return Promise.reject(new QuireError("not_found", "no_pdf", `this paper is a ${row.imported.format} record (title and abstract) with no PDF`));
    }
    return Promise.resolve(new TextEncoder().encode("%PDF-1.4").buffer);
  }

  setLabel(root: string, paper: string, label: LabelChange | null): Promise<PaperRow> {
    this.labelCalls.push({ paper, label });
    this.clock += 1000;
    // A sample only with the token of the serve that put this paper first, once.
    const queued = label !== null && label.serve != null && this.served?.paper === paper && this.served.token === label.serve;
    if (queued) this.served = null;
    const saved: Label | null =
      label === null
        ? null
        : { verdict: label.verdict ?? null, score: label.score ?? null, note: label.note ?? null, at: new Date(this.clock).toISOString(), queued };
    const view = this.review(root);
    view.papers = view.papers.map((p) => (p.id === paper ? { ...p, label: saved } : p));
    const row = view.papers.find((p) => p.id === paper);
    if (row === undefined) return Promise.reject(new QuireError("not_found", "paper_not_found", `no paper ${paper} in this review`));
    return Promise.resolve(shown(structuredClone(row)));
  }

  metaCalls: { paper: string; change: MetaChange | null }[] = [];
  /** Whole records a test sets (venue, abstract, sources), by paper id. */
  metas = new Map<string, PaperMeta>();
  private corrected = new Map<string, PaperMeta["sources"]>();
  /** What each corrected paper read before its first correction. */
  private extracted = new Map<string, PaperRow>();

  correctPaper(root: string, paper: string, change: MetaChange | null): Promise<PaperDetail> {
    this.metaCalls.push({ paper, change });
    const view = this.review(root);
    view.papers = view.papers.map((p) => {
      if (p.id !== paper) return p;
      if (!this.extracted.has(paper)) this.extracted.set(paper, structuredClone(p));
      if (change === null) {
        this.corrected.delete(paper);
        return structuredClone(this.extracted.get(paper) ?? p);
      }
      const fields = (["title", "authors", "year"] as const).filter((f) => change[f] !== undefined);
      this.corrected.set(paper, Object.fromEntries(fields.map((f) => [f, "corrected"])));
      return {
        ...p,
        title: change.title ?? p.title,
        authors: change.authors ?? p.authors,
        year: change.year ?? p.year,
      };
    });
    return this.paperDetail(root, paper);
  }

  /** Each review's validation sample and applied cut-offs. */
  samples = new Map<string, string[]>();
  applied = new Map<string, Cutoffs>();
  validationCalls: ValidateParams[] = [];

  /**
   * Like the core: a sample of the scored papers (here the first by id), the
   * sample's labels counted against the cut-offs in force (maybe counts as
   * include; labels outside the sample are "browsing" and count in no
   * figure), cut-offs proposed from three relevant sample labels (here the
   * lowest relevant score), applied only when asked, the rows' verdicts
   * following them, and a claim never supported: up to two more labels
   * asked below the cut while papers are left, which `extend` draws (the
   * next papers by id).
   */
  validation(params: ValidateParams): Promise<ValidationView> {
    this.validationCalls.push(params);
    const view = this.review(params.workspace);
    const root = params.workspace;
    const scored = view.papers.filter((p) => p.score !== null).sort((a, b) => a.id.localeCompare(b.id));
    if (params.sample != null) this.samples.set(root, scored.slice(0, params.sample).map((p) => p.id));
    if (params.extend) {
      const drawn = this.samples.get(root) ?? [];
      const more = scored.filter((p) => !drawn.includes(p.id)).slice(0, 2);
      this.samples.set(root, [...drawn, ...more.map((p) => p.id)]);
    }
    const sample = this.samples.get(root) ?? [];
    const labelledAny = scored.filter((p) => p.label?.verdict != null);
    const judged = labelledAny.filter((p) => sample.includes(p.id));
    const relevant = judged.filter((p) => p.label?.verdict !== "exclude");
    const proposed: Cutoffs | null =
      relevant.length >= 3 ? { include: 6.5, maybe: Math.min(...relevant.map((p) => p.score ?? 0)) } : null;
    if (params.reset) this.applied.delete(root);
    if (params.apply) {
      if (proposed === null) {
        return Promise.reject(new QuireError("invalid_input", "too_few_labels", "the cut-offs are set from at least 3 papers you labelled include or maybe; label more first"));
      }
      this.applied.set(root, proposed);
    }
    const cut = this.applied.get(root) ?? { include: 6.5, maybe: 4 };
    if (params.apply || params.reset) {
      view.papers = view.papers.map((p) =>
        p.score === null ? p : { ...p, verdict: p.score >= cut.include ? "include" : p.score >= cut.maybe ? "maybe" : "exclude" },
      );
    }
    const kept = (p: PaperRow) => (p.score ?? 0) >= cut.maybe;
    const confusion = {
      truePositive: relevant.filter(kept).length,
      falseNegative: relevant.filter((p) => !kept(p)).length,
      falsePositive: judged.filter((p) => p.label?.verdict === "exclude" && kept(p)).length,
      trueNegative: judged.filter((p) => p.label?.verdict === "exclude" && !kept(p)).length,
    };
    const toLabel = sample.filter((id) => !judged.some((p) => p.id === id));
    const recall = relevant.length === 0 ? null : { value: confusion.truePositive / relevant.length, low: 0, high: 1 };
    const room = Math.min(2, scored.length - sample.length);
    const more: MoreLabels[] = judged.length === 0 || room === 0 ? [] : [{ stratum: 0, from: 0, to: 2, count: room }];
    return Promise.resolve({
      assessment: {
        labelled: labelledAny.length,
        sampleLabelled: judged.length,
        browsingLabelled: labelledAny.length - judged.length,
        relevant: relevant.length,
        toLabel,
        sampleSize: sample.length,
        cutoffs: cut,
        calibrated: this.applied.has(root),
        fittedLabels: 0,
        confusion,
        kappa: null,
        kappaUndefined: null,
        estimate:
          judged.length === 0
            ? null
            : { recall, lowerBound: 0.5, relevant: { value: relevant.length, low: 0, high: 10 }, missed: { value: 0, low: 0, high: 5 }, labels: judged.length, papers: scored.length },
        noEstimate: judged.length === 0 ? "no validation sample has been labelled" : null,
        wssAt95: null,
        lost: relevant.filter((p) => !kept(p)).map((p) => p.id),
        proposed,
        raiseRefused: null,
        support: { target: params.target ?? 0.95, supported: false, more, beyondReach: false },
        earlierLabels: 0,
        staleCutoffs: null,
      },
      toLabel: toLabel.map((id) => ({ id, title: view.papers.find((p) => p.id === id)?.title ?? id })),
      markdown:
        judged.length === 0
          ? "## Screening validation\n\nCut-offs: the defaults, **uncalibrated**."
          : `## Screening validation\n\nFrom the validation sample: ${String(judged.length)} labels, ${String(relevant.length)} of them relevant.`,
    });
  }

  /** Every question asked, by workspace, newest first. */
  asks = new Map<string, AskRecord[]>();
  askCalls: AskParams[] = [];

  /** Tokens the fake reader spends on one paper, for estimates and caps. */
  static readonly PAPER_TOKENS = 15_000;

  /** A cap's reason when `papers` readings would pass it, as the core says it. */
  private static capHit(papers: number, maxTokens: number | null | undefined): string | null {
    const spent = papers * FakePlatform.PAPER_TOKENS;
    return maxTokens != null && spent > maxTokens ? `the token cap of ${String(maxTokens)} would be crossed` : null;
  }

  private estimateOf(papers: number, reused: number): WorkEstimate {
    const tokens = papers * FakePlatform.PAPER_TOKENS;
    // Like the core: the papers' calls at half the price as a batch (the fake prices only those).
    const costUsd = papers * 0.02;
    return { papers, reused, calls: papers === 0 ? 0 : papers + 1, inputTokens: tokens, outputTokens: papers * 500, costUsd, batch: { costUsd: costUsd / 2, waitHours: 24 } };
  }

  private noModel(): Promise<never> | null {
    const hasModel = this.profiles.length > 0 || this.ollamaModels.length > 0;
    return hasModel ? null : Promise.reject(new QuireError("model_setup", "no_model", "no model is set up"));
  }

  /** The papers of a scope: the chosen ones, or (as the fake keeps all) every one. */
  private inScope(root: string, scope: AskScope | null | undefined): PaperRow[] {
    const papers = this.review(root).papers;
    return scope?.kind === "papers" ? papers.filter((p) => scope.ids.includes(p.id)) : papers;
  }

  /** Like the core: papers asked this question before cost nothing. */
  estimateAsk(params: AskParams): Promise<WorkEstimate> {
    const missing = this.noModel();
    if (missing !== null) return missing;
    const papers = this.inScope(params.workspace, params.scope).length;
    const before = (this.asks.get(params.workspace) ?? []).some((r) => r.question === params.question && r.status === "done");
    return Promise.resolve(before ? this.estimateOf(0, papers) : this.estimateOf(papers, 0));
  }

  /** When set, a question waits for it after its progress, as a long read would. */
  askGate: Promise<void> | null = null;

  /**
   * Like the core: with a model, an answer citing one verified quote per
   * paper (the first two papers in scope); with none, their passages. A
   * token cap the reading would pass stops it before any paper is read.
   */
  async askPapers(params: AskParams, onProgress: (progress: AskProgress) => void): Promise<AskRecord> {
    this.askCalls.push(params);
    const inScope = this.inScope(params.workspace, params.scope);
    const hasModel = this.profiles.length > 0 || this.ollamaModels.length > 0;
    const stopped = hasModel ? FakePlatform.capHit(inScope.length, params.maxTokens) : null;
    if (hasModel && stopped === null) {
      onProgress({ type: "reading", papers: inScope.length, cached: 0 });
      if (params.batch) {
        // Like the core: every paper's first calls go into one batch first.
        onProgress({ type: "batch", shard: "r1-0", status: "submitted", completed: 0, failed: 0, total: 0 });
        onProgress({ type: "batch", shard: "r1-0", status: "ended", completed: inScope.length, failed: 0, total: inScope.length });
      }
      inScope.forEach((p, i) => {
        onProgress({ type: "read", title: p.title ?? p.file, answers: i < 2 });
      });
      onProgress({ type: "composing", sources: Math.min(2, inScope.length) });
    }
    if (this.askGate !== null) await this.askGate;
    const papers = inScope.slice(0, 2);
    const sources = papers.map((p, i) => ({
      n: i + 1,
      paper: p.id,
      title: p.title ?? p.file,
      page: i + 2,
      quote: `Recovery takes ${String(i + 3)} seconds in our experiments.`,
      claim: `measures recovery in ${String(i + 3)} seconds`,
      record: p.imported !== null,
    }));
    const record: AskRecord = {
      id: `ask${String(this.askCalls.length)}`,
      question: params.question,
      scope: params.scope ?? { kind: "included" },
      readAll: params.readAll,
      mode: hasModel ? "answer" : "passages",
      status: stopped === null ? "done" : "stopped",
      answer: hasModel && stopped === null ? sources.map((s) => `*${s.title}* ${s.claim} [${String(s.n)}].`).join(" ") : "",
      sources: stopped === null ? sources : [],
      papersRead: stopped === null ? inScope.map((p) => p.title ?? p.file) : [],
      coverage: {
        considered: inScope.length,
        read: stopped === null ? inScope.length : 0,
        contributed: stopped === null ? sources.length : 0,
        failed: [],
        quotesDropped: 0,
        unsupported: 0,
        composingCalls: hasModel && stopped === null ? 1 : 0,
        composingRounds: hasModel && stopped === null ? 1 : 0,
      },
      model: hasModel ? "fake-model" : null,
      promptVersion: "ask-1",
      startedAt: "2026-12-03T10:00:00Z",
      finishedAt: "2026-12-03T10:00:05Z",
      stopped,
      inReport: false,
    };
    this.asks.set(params.workspace, [record, ...(this.asks.get(params.workspace) ?? [])]);
    return Promise.resolve(structuredClone(record));
  }

  askInReport(root: string, id: string, include: boolean): Promise<AskRecord> {
    const record = (this.asks.get(root) ?? []).find((r) => r.id === id);
    if (record === undefined) return Promise.reject(new QuireError("not_found", "file_not_found", `no question ${id}`));
    record.inReport = include;
    return Promise.resolve(structuredClone(record));
  }

  exportAsk(_root: string, id: string): Promise<ExportWritten | null> {
    const path = this.nextSavePath;
    if (path === null) return Promise.resolve(null);
    this.exported.push({ format: "markdown", path });
    return Promise.resolve({ path: `${path}#${id}`, bytes: 100 });
  }

  cancelAsk(): Promise<boolean> {
    return Promise.resolve(false);
  }

  askHistory(root: string): Promise<AskRecord[]> {
    return Promise.resolve(structuredClone(this.asks.get(root) ?? []));
  }

  /** Each review's table columns and cells (paper → column → cell). */
  tableCols = new Map<string, Column[]>();
  tableCells = new Map<string, Map<string, Map<string, ShownCell>>>();
  fills: FillParams[] = [];

  table(root: string, scope: AskScope): Promise<TableView> {
    const columns = this.tableCols.get(root) ?? [];
    const cells = this.tableCells.get(root) ?? new Map<string, Map<string, ShownCell>>();
    const empty: ShownCell = { value: null, page: null, quote: null, lowConfidence: true, reason: null, corrected: false, checked: false, stale: true };
    return Promise.resolve({
      columns: structuredClone(columns),
      rows: this.inScope(root, scope).map((p) => ({
        paper: p.id,
        title: p.title ?? p.file,
        cells: columns.map((c) => structuredClone(cells.get(p.id)?.get(c.id) ?? empty)),
      })),
      model: cells.size > 0 ? "fake-model" : null,
    });
  }

  /** Like the core: a column's id is its name's slug; templates by id; another review's columns copied. */
  tableColumns(params: ColumnsParams): Promise<Column[]> {
    const columns = this.tableCols.get(params.workspace) ?? [];
    const slug = (name: string) => name.trim().toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
    const add = (c: Column) => {
      const at = columns.findIndex((x) => x.id === c.id);
      if (at >= 0) columns[at] = c;
      else columns.push(c);
    };
    if (params.from != null) {
      const copied = this.tableCols.get(params.from) ?? [];
      if (copied.length === 0) {
        return Promise.reject(new QuireError("invalid_input", "no_columns", `the review at ${params.from} has no table columns to copy`));
      }
      copied.forEach((c) => {
        add(structuredClone(c));
      });
    }
    if (params.template != null) add({ id: params.template, name: params.template.replace(/-/g, " "), instruction: `The ${params.template}.`, kind: { kind: "text" } });
    if (params.add != null) add({ ...params.add, id: slug(params.add.name) });
    const kept = params.remove == null ? columns : columns.filter((c) => c.id !== params.remove);
    this.tableCols.set(params.workspace, kept);
    return Promise.resolve(structuredClone(kept));
  }

  /** Papers with a cell not yet read, and those with every cell current. */
  private fillWork(root: string, scope: AskScope | null | undefined): { papers: number; reused: number } {
    const columns = this.tableCols.get(root) ?? [];
    const cells = this.tableCells.get(root);
    const papers = this.inScope(root, scope);
    const open = papers.filter((p) => columns.some((c) => cells?.get(p.id)?.has(c.id) !== true)).length;
    return { papers: open, reused: papers.length - open };
  }

  estimateFill(params: FillParams): Promise<WorkEstimate> {
    const missing = this.noModel();
    if (missing !== null) return missing;
    const work = this.fillWork(params.workspace, params.scope);
    return Promise.resolve(this.estimateOf(work.papers, work.reused));
  }

  cancelFill(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /**
   * Like the core: each paper's missing cells read, the second paper's
   * unsure; a token cap the reading would pass stops it before any is read.
   */
  /** When set, a fill waits for it after its progress, as a long one would. */
  fillGate: Promise<void> | null = null;

  async fillTable(params: FillParams, onProgress: (progress: FillProgress) => void): Promise<FillOutcome> {
    this.fills.push(params);
    const inScope = this.inScope(params.workspace, params.scope);
    const stopped = FakePlatform.capHit(this.fillWork(params.workspace, params.scope).papers, params.maxTokens);
    if (stopped !== null) return Promise.resolve({ papers: inScope.length, read: 0, cellsFilled: 0, lowConfidence: 0, failed: [], stopped, failure: null });
    const columns = this.tableCols.get(params.workspace) ?? [];
    const cells = this.tableCells.get(params.workspace) ?? new Map<string, Map<string, ShownCell>>();
    let filled = 0;
    let unsure = 0;
    onProgress({ type: "started", papers: inScope.length });
    if (params.batch) {
      // Like the core: the papers still to read go into one batch first.
      const toRead = inScope.filter((p) => columns.some((c) => !(cells.get(p.id)?.has(c.id) ?? false))).length;
      onProgress({ type: "batch", shard: "r1-0", status: "submitted", completed: 0, failed: 0, total: 0 });
      onProgress({ type: "batch", shard: "r1-0", status: "completed", completed: toRead, failed: 0, total: toRead });
    }
    inScope.forEach((p, i) => {
      const row = cells.get(p.id) ?? new Map<string, ShownCell>();
      if (columns.every((c) => row.has(c.id))) onProgress({ type: "current" });
      else onProgress({ type: "read", title: p.title ?? p.file, failed: false });
      for (const c of columns) {
        if (row.has(c.id)) continue;
        filled += 1;
        if (i === 1) unsure += 1;
        row.set(c.id, {
          value: `${c.name} of ${p.title ?? p.file}`,
          page: 2,
          quote: `The ${c.name.toLowerCase()} is stated here.`,
          lowConfidence: i === 1,
          reason: i === 1 ? "the reader was not sure" : null,
          corrected: false,
          checked: false,
          stale: false,
        });
      }
      cells.set(p.id, row);
    });
    this.tableCells.set(params.workspace, cells);
    if (this.fillGate !== null) await this.fillGate;
    return Promise.resolve({ papers: inScope.length, read: inScope.length, cellsFilled: filled, lowConfidence: unsure, failed: [], stopped: null, failure: null });
  }

  correctCell(params: CorrectParams): Promise<void> {
    const cell = this.tableCells.get(params.workspace)?.get(params.paper)?.get(params.column);
    if (cell === undefined) return Promise.reject(new QuireError("invalid_input", "column_not_found", `no column ${params.column}`));
    if (params.value != null) {
      cell.value = params.value;
      cell.corrected = true;
      cell.page = null;
      cell.quote = null;
    }
    cell.checked = true;
    cell.lowConfidence = false;
    return Promise.resolve();
  }

  /** Like the core's flow, from the rows: the label decides over the verdict. */
  reviewFlow(root: string): Promise<Flow> {
    const view = this.review(root);
    const readable = view.papers.filter((p) => p.status === "ok" || p.status === "damaged");
    const decided = readable.map((p) => ({ by: p.label?.verdict != null ? "researcher" : "engine", verdict: p.label?.verdict ?? p.verdict }));
    const excludedBy = (by: string) => decided.filter((d) => d.by === by && d.verdict === "exclude").length;
    const automation = excludedBy("engine");
    const unreadable = new Map<string, number>();
    for (const p of view.papers.filter((p) => !readable.includes(p))) unreadable.set(p.status, (unreadable.get(p.status) ?? 0) + 1);
    const fullTexts = view.papers.filter((p) => p.fullTextOf !== null).length;
    return Promise.resolve({
      // The fake has no records found by citation searching.
      citations: { identified: 0, duplicates: 0, screened: 0, excluded: 0, sought: 0, notRetrieved: 0, notRetrievedReasons: [], assessed: 0, included: 0 },
      withFullText: fullTexts,
      keptWithoutFullText: view.papers.filter(
        (p) => p.imported !== null && p.fullText === null && (p.label?.verdict ?? p.verdict) !== "exclude" && (p.label?.verdict ?? p.verdict) !== null,
      ).length,
      identified: view.papers.reduce((n, p) => n + (p.fullTextOf === null ? 1 + p.duplicates : 0), 0),
      fromDatabases: view.papers.filter((p) => p.imported !== null).reduce((n, p) => n + 1 + p.duplicates, 0),
      duplicates: view.papers.reduce((n, p) => n + p.duplicates, 0),
      unreadable: [...unreadable].map(([reason, papers]) => ({ reason, papers })),
      screened: readable.length,
      notScored: decided.filter((d) => d.verdict === null).length,
      stale: readable.filter((p) => p.stale !== null && p.label?.verdict == null).length,
      excludedByAutomation: automation,
      excludedByResearcher: excludedBy("researcher"),
      reasons: automation > 0 ? [{ reason: "score below the maybe cut-off", papers: automation }] : [],
      maybe: decided.filter((d) => d.verdict === "maybe").length,
      included: decided.filter((d) => d.verdict === "include").length,
      includedByResearcher: decided.filter((d) => d.by === "researcher" && d.verdict === "include").length,
      labelled: readable.filter((p) => p.label !== null).length,
      setAside: 0,
    });
  }

  readyCalls = 0;

  uiReady() {
    this.readyCalls += 1;
    return Promise.resolve();
  }

  renderReview(root: string, format: ExportFormat) {
    return Promise.resolve(`${format} of ${this.review(root).title}`);
  }

  exportReview(root: string, format: ExportFormat): Promise<ExportWritten | null> {
    this.review(root);
    if (this.nextSavePath === null) return Promise.resolve(null);
    this.exported.push({ format, path: this.nextSavePath });
    return Promise.resolve({ path: this.nextSavePath, bytes: 1234 });
  }
}

function fakeResult(score: number, verdict: PaperResult["verdict"]): PaperResult {
  return {
    summary: [
      { text: "The paper studies the question directly.", page: 1 },
      { text: "It reports an evaluation on two data sets.", page: 4 },
    ],
    keyPoints: ["A new method", "An evaluation"],
    score,
    verdict,
    rationale: `Scored ${score} because it addresses the question.`,
    evidence: [{ text: "We evaluate on two data sets.", page: 4 }],
    criteria: [{ criterion: "Reports an experiment", outcome: "met", note: "Section 5", evidence: null }],
    provenance: {
      engine: "offline",
      model: null,
      inputHash: "sha256:fake",
      extractor: "pdf-extract",
      startedAt: "2026-11-30T11:59:58Z",
      finishedAt: "2026-11-30T12:00:00Z",
    },
  };
}

/** A review just created for `folder`: three files, none read yet. */
export function newReview(root: string, title: string, folder: string): FakeReview {
  // A Zotero collection's review: its items are records carrying their Zotero key, tags and notes.
  const zotero = folder.endsWith(".zotero.json");
  const paper = (n: number, file: string) => ({
    id: `p${n}`,
    file: `${folder}/${file}`,
    title: null,
    authors: [],
    year: null,
    status: "pending",
    reason: null,
    pages: 0,
    imported: zotero
      ? {
          format: "Zotero",
          position: n,
          zotero: {
            library: "users/0",
            key: `ITEM000${String(n)}`,
            version: n,
            itemType: "journalArticle",
            tags: ["to-read"],
            notes: ["Compare with Spanner in section 3."],
          },
        }
      : null,
    ocr: false,
    duplicates: 0,
    fullText: null,
    fullTextOf: null,
    score: null,
    verdict: null,
    label: null,
    shownScore: null,
    shownVerdict: null,
    failure: null,
    disagreed: false,
    stale: null,
    earlierLabel: null,
  });
  return {
    root,
    title,
    source: folder,
    question: null,
    criteria: [],
    state: "new",
    engine: null,
    dual: null,
    secondProfile: null,
    papers: [paper(1, "alpha.pdf"), paper(2, "beta.pdf"), paper(3, "gamma.pdf")],
    duplicateGroups: [],
  };
}

/** A row with what the review shows, as Quire computes it: the researcher's label over the engine's reading. */
function shown(row: PaperRow): PaperRow {
  return { ...row, shownScore: row.label?.score ?? row.score, shownVerdict: row.label?.verdict ?? row.verdict };
}
