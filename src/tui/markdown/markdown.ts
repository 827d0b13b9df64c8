// The model's answers as terminal markdown: headings, emphasis, lists, block quotes, links, tables
// fitted to the width, code highlighted by language. `marked` + `marked-terminal` (and highlight.js
// under it) are loaded once, lazily, off the start-up path; until they are, text shows plain.
import { plainText } from "../../protocol/plain-text.ts";
import { coloursOn } from "../colour.ts";
import { textWidth } from "../fit.ts";

type Render = (markdown: string, width: number) => string;

let renderer: Render | null = null;
let loading: Promise<void> | null = null;

/** Starts loading the renderer (once); resolves when it is ready, or failed (then text stays plain). */
export function loadMarkdown(): Promise<void> {
  loading ??= build().then(
    (render) => {
      renderer = render;
    },
    () => {},
  );
  return loading;
}

/** `markdown` rendered for a terminal `width` columns wide, or null while the renderer is not loaded. */
export function renderMarkdown(markdown: string, width: number): string | null {
  if (!renderer) return null;
  try {
    return renderer(markdown, width);
  } catch {
    return null;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: colour codes are what it matches
const SGR = /\x1b\[[0-9;]*m/g;

/** `text` without its colour codes. */
export function stripSgr(text: string): string {
  return text.replace(SGR, "");
}

/** Tabs as spaces to the next stop of 4: a terminal moves a tab up to 8 columns, a width count says 1. */
export function expandTabs(text: string): string {
  if (!text.includes("\t")) return text;
  return text
    .split("\n")
    .map((line) => {
      let out = "";
      for (const char of line) {
        out += char === "\t" ? " ".repeat(4 - (out.length % 4)) : char;
      }
      return out;
    })
    .join("\n");
}

// Whatever the markdown said (entities included), the output may carry colour codes only.
function onlyColour(text: string): string {
  const kept: string[] = [];
  let last = 0;
  for (const match of text.matchAll(SGR)) {
    kept.push(plainText(text.slice(last, match.index)), match[0]);
    last = match.index + match[0].length;
  }
  kept.push(plainText(text.slice(last)));
  return kept.join("");
}

const sgr = (open: string, close: string) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`;
const bold = sgr("1", "22");
const dim = sgr("2", "22");
const cyan = (text: string) => (coloursOn() ? sgr("36", "39")(text) : text);
const underline = sgr("4", "24");

async function build(): Promise<Render> {
  const [{ Marked }, { markedTerminal }] = await Promise.all([
    import("marked"),
    import("marked-terminal"),
  ]);
  const { fitTable } = await import("./markdown-table.ts");
  const { listRenderer } = await import("./markdown-list.ts");
  const { wrapCode } = await import("./markdown-code.ts");
  const { resolveSoftBreaks, SOFT_BREAK } = await import("./soft-breaks.ts");
  const cache = new Map<number, (text: string) => string>();
  const forWidth = (width: number) => {
    let parse = cache.get(width);
    if (parse) return parse;
    // A single line break stays a line break while every line fits (models lay out plain text line by
    // line); once one is wider than the terminal, the paragraph's single breaks are soft and it flows
    // to the width, instead of ragged rows of a long line's wrap and a short remainder.
    const marked = new Marked({ gfm: true, breaks: true });
    const list = listRenderer(width);
    marked.use(
      markedTerminal(
        {
          width,
          reflowText: true,
          showSectionPrefix: false,
          emoji: false,
          tab: 2,
          paragraph: (text: string) => resolveSoftBreaks(text, width, "\r"),
          heading: (text: string) => bold(cyan(text)),
          firstHeading: (text: string) => bold(cyan(underline(text))),
          blockquote: (text: string) => dim(text),
          codespan: (text: string) => cyan(text),
          href: (text: string) => underline(text),
        },
        { ignoreIllegals: true },
      ),
    );
    marked.use({
      renderer: {
        // marked-terminal prints a tight list item's text raw (`**one**`): its inline parts are parsed here.
        text(token) {
          if ("tokens" in token && token.tokens) return this.parser.parseInline(token.tokens);
          return false;
        },
        // A link as its text and its address (no OSC 8 hyperlinks: not every terminal or width count knows them).
        link(token) {
          const text = this.parser.parseInline(token.tokens);
          const shown = stripSgr(text);
          return shown === token.href
            ? underline(token.href)
            : `${text} (${underline(token.href)})`;
        },
        // A single newline (not two spaces or a backslash before it) is marked soft, for the paragraph.
        br(token) {
          return token.raw === "\n" ? SOFT_BREAK : false;
        },
        list(token) {
          return list(this.parser, token);
        },
        // A code line longer than the width is cut into rows indented like the block, so it never
        // wraps to column 0; marked-terminal then highlights and indents what it gets.
        code(token) {
          token.text = wrapCode(token.text, width - 4);
          return false;
        },
        table(token) {
          const cell = (tokens: Parameters<typeof this.parser.parseInline>[0]) =>
            stripSgr(this.parser.parseInline(tokens));
          const header = token.header.map((c) => cell(c.tokens));
          const rows = token.rows.map((row) => row.map((c) => cell(c.tokens)));
          const align = token.align.map((a) => a ?? "left");
          return `${fitTable(header, rows, align, width)}\n\n`;
        },
      },
    });
    parse = (text: string) => marked.parse(text, { async: false }) as string;
    cache.set(width, parse);
    return parse;
  };
  return (markdown, width) => {
    const source = expandTabs(plainText(markdown));
    const out = forWidth(Math.max(20, width))(source);
    return onlyColour(out).replace(/\n+$/, "").replace(/^\n+/, "");
  };
}

/** The last whole lines of rendered text that fit in `maxRows` rows at `columns`, after a "…" row when cut. */
export function renderedTail(rendered: string, columns: number, maxRows: number): string {
  const lines = rendered.split("\n");
  const rowsOf = (line: string) => Math.max(1, Math.ceil(textWidth(line) / Math.max(1, columns)));
  const total = lines.reduce((sum, line) => sum + rowsOf(line), 0);
  if (total <= maxRows) return rendered;
  const kept: string[] = [];
  let rows = 1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const need = rowsOf(lines[i] ?? "");
    if (rows + need > maxRows) break;
    kept.unshift(lines[i] ?? "");
    rows += need;
  }
  return ["\x1b[2m…\x1b[22m", ...kept].join("\n");
}

/** An answer as the chat shows it: markdown when the renderer is loaded, else plain text. */
export function answerText(markdown: string, columns: number): string {
  return renderMarkdown(markdown, columns) ?? expandTabs(plainText(markdown));
}
