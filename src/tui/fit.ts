// Ink clears the whole terminal (scrollback included) and reprints the entire chat on every frame once the
// live region is as tall as the terminal. These helpers keep every live part within a row budget.

const wide =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]|\p{Extended_Pictographic}/u;

/** Terminal columns a string takes (wide CJK and emoji count two). */
export function textWidth(text: string): number {
  let width = 0;
  for (const char of text) width += wide.test(char) ? 2 : 1;
  return width;
}

/** Cuts `text` to at most `width` columns, ending in "…" when cut. */
export function truncateEnd(text: string, width: number): string {
  if (width <= 0) return "";
  if (textWidth(text) <= width) return text;
  let out = "";
  let used = 0;
  for (const char of text) {
    const w = wide.test(char) ? 2 : 1;
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
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

/** The start of `text` that fits in `maxRows` rows at `columns`, ending in a "…" row when anything was cut. */
export function headToFit(text: string, columns: number, maxRows: number): string {
  const budget = Math.max(1, maxRows);
  if (wrappedRows(text, columns) <= budget) return text;
  const kept: string[] = [];
  let rows = 1;
  for (const line of text.split("\n")) {
    const need = wrappedRows(line, columns);
    if (rows + need > budget) {
      const room = budget - rows;
      if (room > 0) kept.push([...line].slice(0, room * Math.max(1, columns)).join(""));
      break;
    }
    kept.push(line);
    rows += need;
  }
  return [...kept, "…"].join("\n");
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
