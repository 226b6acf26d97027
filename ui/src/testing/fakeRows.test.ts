import { describe, expect, it } from "vitest";

import type { PaperRow } from "../platform";
import { DEFAULT_QUERY, titleOf } from "../app/review/table";
import { histogram, visibleRows, zoteroTags } from "./fakeRows";

function row(id: string, p: Partial<PaperRow> = {}): PaperRow {
  return shown({
    id,
    file: `/papers/${id}.pdf`,
    title: `Paper ${id}`,
    authors: ["Ada Lovelace"],
    year: 2020,
    status: "ok",
    reason: null,
    pages: 10,
    imported: null,
    disagreed: false,
    stale: null,
    earlierLabel: null,
    ocr: false,
    duplicates: 0,
    fullText: null,
    fullTextOf: null,
    score: null,
    verdict: null,
    label: null,
    failure: null,
    shownScore: null,
    shownVerdict: null,
    ...p,
  });
}

/** What Quire sends: the row with the label shown over the engine's reading. */
function shown(r: PaperRow): PaperRow {
  return { ...r, shownScore: r.label?.score ?? r.score, shownVerdict: r.label?.verdict ?? r.verdict };
}

const rows = [
  row("a", { score: 8, verdict: "include", year: 2019, title: "Query optimisation in practice" }),
  row("b", { score: 3, verdict: "exclude", authors: ["Grace Hopper"], year: 2022 }),
  row("c", { score: 5, verdict: "maybe", label: { verdict: "include", score: 9, note: null, at: "" } }),
  row("d", { status: "encrypted", reason: "needs a password", title: null }),
  row("e", { status: "ok" }),
];

const ids = (shown: PaperRow[]) => shown.map((r) => r.id);

describe("the results table's query", () => {
  it("sorts by score, best first, with the researcher's score in force", () => {
    // Unscored papers last, in title order ("d.pdf" before "Paper e").
    expect(ids(visibleRows(rows, DEFAULT_QUERY))).toEqual(["c", "a", "b", "d", "e"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, descending: false })).slice(0, 3)).toEqual(["d", "e", "b"]);
  });

  it("filters by verdict (the label's first), status, label, score and year", () => {
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, verdict: "include" }))).toEqual(["c", "a"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, status: "unreadable" }))).toEqual(["d"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, status: "unread" }))).toEqual(["e"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, label: "labelled" }))).toEqual(["c"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, minScore: 5 }))).toEqual(["c", "a"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, fromYear: 2020 }))).toEqual(["c", "b", "d", "e"]);
  });

  it("matches every word of the text filter in title, authors, file or year", () => {
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, text: "hopper" }))).toEqual(["b"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, text: "query 2019" }))).toEqual(["a"]);
    expect(ids(visibleRows(rows, { ...DEFAULT_QUERY, text: "query 2022" }))).toEqual([]);
  });

  it("names a paper without a title by its file", () => {
    expect(titleOf(rows[3] as PaperRow)).toBe("d.pdf");
  });

  it("bins scores from 0 to 10, a 10 in the last bin", () => {
    const bins = histogram([...rows, row("f", { score: 10 }), row("g", { score: 0 })]);
    expect(bins).toEqual([1, 0, 0, 1, 0, 0, 0, 0, 1, 2]);
  });

  it("filters a thousand papers in one pass", () => {
    const many = Array.from({ length: 1000 }, (_, i) => row(`p${i}`, { score: i % 11, authors: [`Author${i % 10}x`] }));
    const shown = visibleRows(many, { ...DEFAULT_QUERY, text: "author7x", minScore: 5 });
    const wanted = many.filter((_, i) => i % 10 === 7 && i % 11 >= 5).length;
    expect(shown).toHaveLength(wanted);
    expect(shown.every((r) => r.authors[0] === "Author7x" && (r.score ?? 0) >= 5)).toBe(true);
    const scores = shown.map((r) => r.score ?? 0);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe("Zotero tags", () => {
  const zotero = (id: string, tags: string[], notes: string[] = []): PaperRow =>
    row(id, {
      score: 5,
      imported: {
        format: "Zotero",
        position: 1,
        zotero: { library: "users/0", key: `K${id}`, version: 1, itemType: "journalArticle", tags, notes },
      },
    });

  it("filters by a tag, a record's full text going with its record, and finds notes by text", () => {
    const a = zotero("a", ["to-read", "core"], ["Compare with Spanner"]);
    const b = zotero("b", ["later"]);
    const pdf = row("pdf-a", { score: 6, fullTextOf: "a" });
    const rows = [a, b, pdf];
    expect(zoteroTags(rows)).toEqual(["core", "later", "to-read"]);
    const shown = visibleRows(rows, { ...DEFAULT_QUERY, zoteroTag: "core" }).map((r) => r.id);
    expect(shown.sort()).toEqual(["a", "pdf-a"]);
    expect(visibleRows(rows, { ...DEFAULT_QUERY, zoteroTag: "later" }).map((r) => r.id)).toEqual(["b"]);
    expect(visibleRows(rows, { ...DEFAULT_QUERY, text: "spanner" }).map((r) => r.id)).toEqual(["a"]);
  });
});
