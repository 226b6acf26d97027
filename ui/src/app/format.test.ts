import { describe, expect, it } from "vitest";

import { paperCounts, relativeTime } from "./format";
import { planDrop } from "./drop";

describe("relativeTime", () => {
  const now = new Date("2026-11-30T12:00:00Z");
  it.each([
    ["2026-11-30T11:59:30Z", "just now"],
    ["2026-11-30T11:15:00Z", "45 min ago"],
    ["2026-11-30T07:00:00Z", "5 h ago"],
    ["2026-11-29T06:00:00Z", "yesterday"],
    ["2026-11-26T12:00:00Z", "4 days ago"],
  ])("%s is %s", (iso, expected) => {
    expect(relativeTime(iso, now)).toBe(expected);
  });
  it("falls back to the raw text for an unparseable date", () => {
    expect(relativeTime("soon", now)).toBe("soon");
  });
});

describe("paperCounts", () => {
  it("pluralises and mentions duplicates only when there are some", () => {
    expect(paperCounts(1, 0)).toBe("1 paper");
    expect(paperCounts(12, 1)).toBe("12 papers · 1 duplicate skipped");
  });
});

describe("planDrop", () => {
  it("opens a single path and refuses none or several", () => {
    expect(planDrop(["/a"])).toEqual({ kind: "open", path: "/a", alsoImport: [] });
    expect(planDrop([]).kind).toBe("refuse");
    expect(planDrop(["/a", "/b", "/c"])).toMatchObject({ kind: "refuse", reason: expect.stringContaining("3 items") as unknown });
  });

  it("takes several search exports as one review, and refuses them mixed with PDFs", () => {
    expect(planDrop(["/s/pubmed.nbib", "/s/embase.RIS", "/s/wos.csv"])).toEqual({
      kind: "open",
      path: "/s/pubmed.nbib",
      alsoImport: ["/s/embase.RIS", "/s/wos.csv"],
    });
    expect(planDrop(["/s/pubmed.nbib", "/s/paper.pdf"]).kind).toBe("refuse");
    expect(planDrop(["/s/ris", "/s/x.ris"]).kind).toBe("refuse");
  });
});
