import { describe, expect, it } from "vitest";

import { itemsCovering } from "./quoteMatch";

const page = ["1 Introduction", "Query optimi-", "zers choose a plan by", " estimating its cost.", "We then ﬁnd", "the best join order."];

describe("finding a quote on a page", () => {
  it("marks the pieces it spans, across hyphenation and spacing", () => {
    expect(itemsCovering(page, "Query optimizers choose a plan by estimating its cost.")).toEqual([1, 2, 3]);
  });

  it("reads ligatures as their letters", () => {
    expect(itemsCovering(page, "We then find the best join order")).toEqual([4, 5]);
  });

  it("falls back to the longest prefix found, as when a quote runs onto the next page", () => {
    expect(itemsCovering(page, "We then find the best join order, which the next page of this paper explains")).toEqual([4, 5]);
  });

  it("finds nothing for a quote that is not there", () => {
    expect(itemsCovering(page, "Completely different words that appear nowhere on the page")).toEqual([]);
    expect(itemsCovering(page, "   ")).toEqual([]);
  });
});
