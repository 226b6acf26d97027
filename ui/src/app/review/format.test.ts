import { describe, expect, it } from "vitest";

import { place } from "./format";

describe("place", () => {
  it("cites a PDF's page, and a search record's title and abstract", () => {
    expect(place(false, 3)).toBe("p. 3");
    expect(place(undefined, 2)).toBe("p. 2");
    expect(place(true, 1)).toBe("title/abstract");
  });
});
