// Ink clears the whole terminal (scrollback included) and reprints the entire chat on every frame once the
// live region is as tall as the terminal. These helpers keep every live part within a row budget.

// Widths are measured as Ink measures them (string-width: East Asian wide characters and emoji
// count two, colour codes and zero-width marks none), so a cut here agrees with Ink's own wrapping.
import stringWidth from "string-width";

/** Terminal columns a string takes (wide CJK and emoji count two; colour codes none). */
export function textWidth(text: string): number {
  return stringWidth(text);
}

const segmenter = new Intl.Segmenter();

/** The characters a person sees (grapheme clusters: an emoji sequence is one), with their columns. */
function* shownCharacters(text: string): Generator<{ char: string; columns: number }> {
  for (const { segment } of segmenter.segment(text))
    yield { char: segment, columns: stringWidth(segment) };
}

/** Cuts `text` to at most `width` columns, ending in "…" when cut. */
export function truncateEnd(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const { char, columns } of shownCharacters(text)) {
    if (used + columns > width - 1) break;
    out += char;
    used += columns;
  }
  return `${out}…`;
}

/** `text` cut to `width` columns (ending in "…" when cut) and padded with spaces to fill them. */
export function fitToWidth(text: string, width: number): string {
  const cut = truncateEnd(text, width);
  return cut + " ".repeat(Math.max(0, width - textWidth(cut)));
}

/** Rows `text` takes when wrapped at `columns`. */
export function wrappedRows(text: string, columns: number): number {
  const cols = Math.max(1, columns);
  return text
    .split("\n")
    .reduce((rows, line) => rows + Math.max(1, Math.ceil(textWidth(line) / cols)), 0);
}

/** The end of `text` that fits in `maxRows` rows at `columns`, after a "…" row when anything was cut. */
export function tailToFit(text: string, columns: number, maxRows: number): string {
  const budget = Math.max(1, maxRows);
  if (wrappedRows(text, columns) <= budget) return text;
  const lines = text.split("\n");
  const kept: string[] = [];
  let rows = 1;
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] ?? "";
    const need = wrappedRows(line, columns);
    if (rows + need <= budget) {
      kept.unshift(line);
      rows += need;
      continue;
    }
    const room = budget - rows;
    if (room > 0) {
      const chars = [...line];
      kept.unshift(chars.slice(-room * Math.max(1, columns)).join(""));
    }
    break;
  }
  return ["…", ...kept].join("\n");
}

/** A text cut to a row budget, and how many of its rows were left out (0 when shown whole). */
export interface Fitted {
  text: string;
  hiddenRows: number;
}

// One line cut into rows of at most `columns` columns, at any character: what a terminal does with it.
export function hardWrap(line: string, columns: number): string[] {
  const cols = Math.max(1, columns);
  const rows: string[] = [];
  let row = "";
  let used = 0;
  for (const { char, columns: w } of shownCharacters(line)) {
    if (used + w > cols && row !== "") {
      rows.push(row);
      row = "";
      used = 0;
    }
    row += char;
    used += w;
  }
  rows.push(row);
  return rows;
}

/**
 * `text` whole when it fits in `maxRows` rows at `columns`; otherwise its first and last rows around a
 * "… N lines hidden …" row, so both ends show (the end of a command is where `; curl x | sh` hides).
 * At least three rows are used.
 */
export function headAndTailToFit(text: string, columns: number, maxRows: number): Fitted {
  const budget = Math.max(3, maxRows);
  if (wrappedRows(text, columns) <= budget) return { text, hiddenRows: 0 };
  const rows = text.split("\n").flatMap((line) => hardWrap(line, columns));
  if (rows.length <= budget) return { text, hiddenRows: 0 };
  const head = Math.floor((budget - 1) / 2);
  const tail = budget - 1 - head;
  const hiddenRows = rows.length - head - tail;
  const marker = `… ${hiddenRows} line${hiddenRows === 1 ? "" : "s"} hidden …`;
  return {
    text: [...rows.slice(0, head), marker, ...rows.slice(rows.length - tail)].join("\n"),
    hiddenRows,
  };
}

/** The range of lines to show of `count`, at most `maxRows` of them, keeping line `focus` in view. */
export function windowAround(
  count: number,
  focus: number,
  maxRows: number,
): { start: number; end: number } {
  const size = Math.max(1, maxRows);
  if (count <= size) return { start: 0, end: count };
  const start = Math.min(Math.max(0, focus - size + 1), count - size);
  return { start, end: start + size };
}
