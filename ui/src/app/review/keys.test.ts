import { describe, expect, it } from "vitest";

import type { PaperRow } from "../../platform";
import { actionFor } from "./keys";

const paper: PaperRow = {
  id: "a",
  file: "/p/a.pdf",
  title: "A",
  authors: [],
  year: null,
  status: "ok",
  imported: null,
  reason: null,
  pages: 1,
  ocr: false,
  disagreed: false,
  stale: null,
  earlierLabel: null,
  duplicates: 0,
  fullText: null,
  fullTextOf: null,
  score: 5,
  verdict: "maybe",
  label: { verdict: "include", score: null, note: "strong", at: "" },
  shownScore: 5,
  shownVerdict: "include",
  failure: null,
};

describe("keyboard review", () => {
  it("moves with j and k", () => {
    expect(actionFor("j", paper)).toEqual({ type: "move", by: 1 });
    expect(actionFor("k", null)).toEqual({ type: "move", by: -1 });
  });

  it("labels with i, m and e, keeping the score and note already given", () => {
    expect(actionFor("e", paper)).toEqual({ type: "label", label: { verdict: "exclude", score: null, note: "strong" } });
  });

  it("sets the score with a digit, 0 meaning 10, keeping the verdict", () => {
    expect(actionFor("7", paper)).toEqual({ type: "label", label: { verdict: "include", score: 7, note: "strong" } });
    expect(actionFor("0", paper)).toEqual({ type: "label", label: { verdict: "include", score: 10, note: "strong" } });
  });

  it("undoes with u and ignores other keys and labels without a paper", () => {
    expect(actionFor("u", null)).toEqual({ type: "undo" });
    expect(actionFor("x", paper)).toBeNull();
    expect(actionFor("i", null)).toBeNull();
  });
});
