import { afterEach, beforeEach, describe, expect, it } from "vitest";

import { FakePlatform, newReview } from "../../testing/fakePlatform";
import { createHost, destroyHost, mountInto, settle } from "../../testing/render";
import { PdfViewer } from "./PdfViewer";
import { findQuote } from "./RecordText";

const ROOT = "/data/workspaces/search";
let host: HTMLElement;

beforeEach(() => {
  host = createHost();
});

afterEach(() => {
  destroyHost(host);
});

describe("findQuote", () => {
  it("finds a quote whatever its case and spacing, and nothing that is not there", () => {
    const text = "Tolterodine for the overactive bladder\n\nA randomised   trial of tolterodine in 120 patients.";
    const at = findQuote(text, "a randomised trial of  Tolterodine");
    expect(at).not.toBeNull();
    expect(text.slice(...(at ?? [0, 0]))).toBe("A randomised   trial of tolterodine");
    expect(findQuote(text, "oxybutynin (Ditropan)")).toBeNull();
    expect(findQuote(text, "   ")).toBeNull();
  });
});

describe("a cited search record", () => {
  it("opens as its title and abstract with the quote marked, not as a missing PDF", async () => {
    const platform = new FakePlatform();
    const review = newReview(ROOT, "search", "/search/pubmed.ris");
    const template = review.papers[0];
    if (template === undefined) throw new Error("no paper");
    review.papers = [
      { ...template, id: "r1", status: "ok", title: "Tolterodine for the overactive bladder", imported: { format: "RIS", position: 3 } },
    ];
    platform.reviews.set(ROOT, review);
    platform.metas.set("r1", {
      authors: [],
      year: 2001,
      doi: null,
      arxiv: null,
      abstract: "A randomised trial of tolterodine in 120 patients.",
      sources: {},
    });
    await mountInto(
      host,
      <PdfViewer
        platform={platform}
        target={{ workspace: ROOT, paper: "r1", title: "Tolterodine", page: 1, quote: "trial of tolterodine" }}
        onClose={() => undefined}
      />,
    );
    await settle();
    await settle();
    expect(host.querySelector("[role=alert]")).toBeNull();
    expect(host.querySelector("[data-testid=record-text]")?.textContent).toContain("RIS record 3: title and abstract only");
    expect(host.querySelector("[data-testid=record-mark]")?.textContent).toBe("trial of tolterodine");
  });
});
