// A safe view of Quire's Markdown report: the subset the report uses
// (headings, paragraphs, lists, tables, quotes, rules, **bold**, *italic*,
// `code`, links) turned into Preact elements whose every piece of content is
// a text node. There is no HTML path at all: raw HTML in a paper's title or a
// model's answer shows as the characters it is, and links are text with the
// address beside them (nothing navigates the app's window).

import type { ComponentChild } from "preact";

/** Inline markup of one line, as nodes. */
export function inline(text: string): ComponentChild[] {
  const out: ComponentChild[] = [];
  const pattern = /(\*\*([^*]+)\*\*|`([^`]+)`|\[([^\]]+)\]\(([^)\s]+)\)|(?<![\w*])[*_]([^*_]+)[*_](?![\w*]))/g;
  let last = 0;
  let key = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index;
    if (at > last) out.push(unescape(text.slice(last, at)));
    const [, , bold, code, label, href, em] = m;
    if (bold !== undefined) out.push(<strong key={key++}>{unescape(bold)}</strong>);
    else if (code !== undefined) out.push(<code key={key++}>{code}</code>);
    else if (label !== undefined)
      out.push(
        <span key={key++} class="md__link" title={href}>
          {unescape(label)}
        </span>,
      );
    else if (em !== undefined) out.push(<em key={key++}>{unescape(em)}</em>);
    last = at + m[0].length;
  }
  if (last < text.length) out.push(unescape(text.slice(last)));
  return out;
}

/** Markdown's backslash escapes, undone. */
function unescape(text: string): string {
  return text.replace(/\\([\\`*_[\]()#+\-.!|<>])/g, "$1");
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

const RULE = /^\s*(-{3,}|\*{3,})\s*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

/** The document as blocks. */
export function Markdown({ source }: { source: string }) {
  const lines = source.split("\n");
  const blocks: ComponentChild[] = [];
  let i = 0;
  let key = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() === "") {
      i += 1;
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading !== null) {
      const level = Math.min(6, (heading[1] ?? "#").length + 1);
      const Tag = `h${level}` as "h2";
      blocks.push(<Tag key={key++}>{inline(heading[2] ?? "")}</Tag>);
      i += 1;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push(<hr key={key++} />);
      i += 1;
      continue;
    }
    if (line.trimStart().startsWith("|") && TABLE_SEPARATOR.test(lines[i + 1] ?? "")) {
      const head = cells(line);
      const body: string[][] = [];
      i += 2;
      while (i < lines.length && (lines[i] ?? "").trimStart().startsWith("|")) {
        body.push(cells(lines[i] ?? ""));
        i += 1;
      }
      blocks.push(
        <table key={key++}>
          <thead>
            <tr>
              {head.map((c, k) => (
                <th key={k}>{inline(c)}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {body.map((row, r) => (
              <tr key={r}>
                {row.map((c, k) => (
                  <td key={k}>{inline(c)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>,
      );
      continue;
    }
    const bullet = /^\s*([-*]|\d+\.)\s+/;
    if (bullet.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items: string[] = [];
      while (i < lines.length && bullet.test(lines[i] ?? "")) {
        items.push((lines[i] ?? "").replace(bullet, ""));
        i += 1;
      }
      const children = items.map((item, k) => <li key={k}>{inline(item)}</li>);
      blocks.push(ordered ? <ol key={key++}>{children}</ol> : <ul key={key++}>{children}</ul>);
      continue;
    }
    if (line.startsWith(">")) {
      const quoted: string[] = [];
      while (i < lines.length && (lines[i] ?? "").startsWith(">")) {
        quoted.push((lines[i] ?? "").replace(/^>\s?/, ""));
        i += 1;
      }
      blocks.push(<blockquote key={key++}>{inline(quoted.join(" "))}</blockquote>);
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length) {
      const next = lines[i] ?? "";
      const startsBlock = /^(#{1,6}\s|>|\s*([-*]|\d+\.)\s|\|)/.test(next) || RULE.test(next);
      if (next.trim() === "" || (paragraph.length > 0 && startsBlock)) break;
      paragraph.push(next.trim());
      i += 1;
    }
    blocks.push(<p key={key++}>{inline(paragraph.join(" "))}</p>);
  }
  return <div class="md">{blocks}</div>;
}
