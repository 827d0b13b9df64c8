// A markdown table drawn to fit a width: columns keep their natural width when they all fit, else
// the widest are narrowed (fair shares) and their cells wrap; too narrow for a grid, rows become
// "header: value" lines. Never wider than `width`.
import { textWidth } from "../fit.ts";

type Align = "left" | "right" | "center";

const MIN_COLUMN = 3;

/** Column widths that sum to at most `room`: natural widths, the widest cut to a fair share. */
function fitColumns(natural: number[], room: number): number[] {
  const widths = natural.map((w) => Math.max(1, w));
  if (widths.reduce((a, b) => a + b, 0) <= room) return widths;
  const order = widths.map((_, i) => i).sort((a, b) => (widths[a] ?? 0) - (widths[b] ?? 0));
  let left = room;
  let count = widths.length;
  const out = [...widths];
  for (const i of order) {
    const share = Math.floor(left / count);
    const w = Math.max(MIN_COLUMN, Math.min(widths[i] ?? 0, share));
    out[i] = w;
    left -= w;
    count--;
  }
  return out;
}

/** `text` cut into lines of at most `width` columns, at spaces where it can. */
export function wrapCell(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word;
    while (textWidth(rest) > width) {
      if (line) {
        lines.push(line);
        line = "";
      }
      let head = "";
      for (const char of rest) {
        if (textWidth(head + char) > width) break;
        head += char;
      }
      lines.push(head);
      rest = rest.slice(head.length);
    }
    if (!rest) continue;
    if (!line) line = rest;
    else if (textWidth(`${line} ${rest}`) <= width) line = `${line} ${rest}`;
    else {
      lines.push(line);
      line = rest;
    }
  }
  if (line || lines.length === 0) lines.push(line);
  return lines;
}

function pad(text: string, width: number, align: Align): string {
  const room = Math.max(0, width - textWidth(text));
  if (align === "right") return " ".repeat(room) + text;
  if (align === "center") {
    const left = Math.floor(room / 2);
    return " ".repeat(left) + text + " ".repeat(room - left);
  }
  return text + " ".repeat(room);
}

const dim = (text: string) => `\x1b[2m${text}\x1b[22m`;
const bold = (text: string) => `\x1b[1m${text}\x1b[22m`;

/** The table as terminal text at most `width` columns wide. */
export function fitTable(
  header: string[],
  rows: string[][],
  align: Align[],
  width: number,
): string {
  const n = header.length;
  const room = width - (3 * n + 1);
  if (n === 0 || room < MIN_COLUMN * n) {
    return rows
      .map((row) =>
        row
          .map((value, i) => wrapCell(`${header[i] ?? ""}: ${value}`, width).join("\n"))
          .join("\n"),
      )
      .join("\n\n");
  }
  const natural = header.map((h, i) =>
    Math.max(textWidth(h), ...rows.map((row) => textWidth(row[i] ?? ""))),
  );
  const widths = fitColumns(natural, room);
  const rule = (l: string, m: string, r: string) =>
    dim(l + widths.map((w) => "─".repeat(w + 2)).join(m) + r);
  const line = (cells: string[], style: (s: string) => string) => {
    const wrapped = widths.map((w, i) => wrapCell(cells[i] ?? "", w));
    const height = Math.max(...wrapped.map((c) => c.length));
    const out: string[] = [];
    for (let r = 0; r < height; r++) {
      const parts = widths.map((w, i) => style(pad(wrapped[i]?.[r] ?? "", w, align[i] ?? "left")));
      out.push(`${dim("│")} ${parts.join(` ${dim("│")} `)} ${dim("│")}`);
    }
    return out.join("\n");
  };
  return [
    rule("┌", "┬", "┐"),
    line(header, bold),
    rule("├", "┼", "┤"),
    ...rows.map((row) => line(row, (s) => s)),
    rule("└", "┴", "┘"),
  ].join("\n");
}
