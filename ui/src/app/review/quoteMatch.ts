// Where a quote is on a PDF page: which of the page's text items it covers.
// PDF text comes in pieces (a word, a line, a run of one font) with spacing,
// hyphenation and ligatures that differ from the extracted text the quote was
// taken from, so both sides are compared as letters and digits only.

/** Letters and digits, lower-cased, ligatures spelled out. */
function letters(text: string): string {
  return text.normalize("NFKD").toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");
}

/** The shortest quote prefix worth looking for when the whole is not found. */
const MIN_PREFIX = 24;

/**
 * Indexes of the items of `items` (a page's text pieces, in order) that the
 * quote covers; empty when it is not on the page. When the whole quote is
 * not found (it spans a page break, or the extraction differs) its longest
 * findable prefix is used, down to a couple of dozen letters.
 */
export function itemsCovering(items: readonly string[], quote: string): number[] {
  const owners: number[] = [];
  let page = "";
  items.forEach((item, index) => {
    const norm = letters(item);
    page += norm;
    for (let k = 0; k < norm.length; k++) owners.push(index);
  });
  const wanted = letters(quote);
  if (wanted.length === 0) return [];
  let length = wanted.length;
  let start = page.indexOf(wanted);
  while (start < 0 && length > MIN_PREFIX) {
    length = Math.max(MIN_PREFIX, Math.floor(length * 0.7));
    start = page.indexOf(wanted.slice(0, length));
  }
  if (start < 0) return [];
  const covered = new Set(owners.slice(start, start + length));
  return [...covered].sort((a, b) => a - b);
}
