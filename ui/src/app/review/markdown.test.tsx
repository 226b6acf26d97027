import { render } from "preact";
import { afterEach, describe, expect, it } from "vitest";

import { createHost, destroyHost } from "../../testing/render";
import { Markdown } from "./markdown";

let host: HTMLElement | null = null;
function show(source: string): HTMLElement {
  host = createHost();
  render(<Markdown source={source} />, host);
  return host;
}

afterEach(() => {
  if (host !== null) destroyHost(host);
  host = null;
});

describe("the report preview", () => {
  it("renders the report's blocks and inline marks", () => {
    const el = show(
      "# Review\n\nA **bold** claim with `code` and *care*.\n\n## Ranking\n\n| # | Title |\n|---:|---|\n| 1 | Paper \\| one |\n\n- first\n- second\n\n1. one\n\n> quoted\n\n---\n",
    );
    expect(el.querySelector("h2")?.textContent).toBe("Review");
    expect(el.querySelector("h3")?.textContent).toBe("Ranking");
    expect(el.querySelector("strong")?.textContent).toBe("bold");
    expect(el.querySelector("code")?.textContent).toBe("code");
    expect(el.querySelector("em")?.textContent).toBe("care");
    expect([...el.querySelectorAll("td")].map((c) => c.textContent)).toEqual(["1", "Paper | one"]);
    expect(el.querySelectorAll("ul li")).toHaveLength(2);
    expect(el.querySelectorAll("ol li")).toHaveLength(1);
    expect(el.querySelector("blockquote")?.textContent).toBe("quoted");
    expect(el.querySelector("hr")).not.toBeNull();
  });

  it("shows markup as text and never makes links, images or scripts", () => {
    const el = show(
      '## <img src=x onerror="alert(1)"> Title\n\n<script>alert(2)</script> and [click](javascript:alert(3)) <a href="http://evil">x</a>\n',
    );
    expect(el.querySelector("img, script, a, iframe")).toBeNull();
    expect(el.querySelector("h3")?.textContent).toBe('<img src=x onerror="alert(1)"> Title');
    expect(el.textContent).toContain("<script>alert(2)</script>");
    expect(el.querySelector(".md__link")?.getAttribute("title")).toMatch(/^javascript:/);
  });
});
