import { afterEach, beforeEach, describe, expect, it } from "vitest";

import type { Flow } from "../../platform";
import { createHost, destroyHost, mountInto } from "../../testing/render";
import { FlowDiagram } from "./PrismaFlow";

let host: HTMLElement;

const text = (id: string) => host.querySelector(`[data-testid=${id}]`)?.textContent ?? "";

function flow(citations: Flow["citations"]): Flow {
  return {
    identified: 10,
    fromDatabases: 3,
    duplicates: 0,
    unreadable: [],
    screened: 10,
    notScored: 0,
    stale: 0,
    excludedByAutomation: 4,
    excludedByResearcher: 0,
    reasons: [],
    maybe: 1,
    included: 5,
    includedByResearcher: 2,
    labelled: 2,
    withFullText: 1,
    keptWithoutFullText: 2,
    setAside: 0,
    citations,
  };
}

beforeEach(() => {
  host = createHost();
});

afterEach(() => {
  destroyHost(host);
});

describe("the PRISMA diagram", () => {
  it("shows citation searching in its own column, apart from the databases", async () => {
    await mountInto(
      host,
      <FlowDiagram flow={flow({ identified: 9, duplicates: 3, screened: 6, excluded: 2, sought: 4, notRetrieved: 3, notRetrievedReasons: [{ reason: "arxiv.org refused the download (403)", papers: 1 }, { reason: "not sought yet (no download approved)", papers: 2 }], assessed: 1, included: 2 })} />,
    );
    expect(text("prisma-identified")).toContain("From databases (search exports): 3");
    expect(text("prisma-identified")).toContain("From files (PDFs): 1");
    expect(text("prisma-identified")).toContain("From citation searching, new to the review: 6");
    expect(text("prisma-citations-identified")).toContain("n = 9");
    expect(text("prisma-citations-identified")).toContain("Already in the review (any version): 3");
    expect(text("prisma-citations-sought")).toContain("Not retrieved (no full text attached): 3");
    expect(text("prisma-citations-included")).toContain("n = 2");
    expect(text("prisma-citations-sought")).toContain("arxiv.org refused the download (403): 1");
  });

  it("has no other-methods column for a review that did no citation searching", async () => {
    const none = { identified: 0, duplicates: 0, screened: 0, excluded: 0, sought: 0, notRetrieved: 0, notRetrievedReasons: [], assessed: 0, included: 0 };
    await mountInto(host, <FlowDiagram flow={flow(none)} />);
    expect(host.querySelector("[data-testid=prisma-other-methods]")).toBeNull();
    expect(text("prisma-identified")).toContain("From files (PDFs): 7");
  });
});
