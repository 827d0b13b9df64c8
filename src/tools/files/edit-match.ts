// Where an edit's old_string is in a file: exactly, or by a tolerance the result names. A model that
// gets whitespace slightly wrong fixes its old_string (it is shown the nearest region) instead of
// rewriting the whole file.

/** How strictly old_string matched, from strictest; the result tells the model which. */
export type MatchLevel = "exact" | "line endings" | "trailing whitespace" | "indentation";

/** One replacement: bytes `start`..`end` of the text become `text`. */
export interface Replacement {
  start: number;
  end: number;
  text: string;
}

/** What to do with an edit. */
export type EditPlan =
  | { type: "match"; level: MatchLevel; replacements: Replacement[] }
  | { type: "ambiguous"; level: MatchLevel; lines: number[] }
  | { type: "none"; nearest: { from: number; to: number; text: string } | null };

interface Line {
  start: number;
  /** End of the line's content, before its terminator. */
  end: number;
  /** End including the terminator. */
  next: number;
  text: string;
}

function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const next = newline === -1 ? text.length : newline + 1;
    let end = newline === -1 ? text.length : newline;
    if (end > start && text[end - 1] === "\r") end -= 1;
    lines.push({ start, end, next, text: text.slice(start, end) });
    start = next;
  }
  return lines;
}

function exactOffsets(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length))
    found.push(i);
  return found;
}

function lineNumberAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line += 1;
  return line;
}

const indentOf = (line: string): string => /^[ \t]*/.exec(line)?.[0] ?? "";

/**
 * Re-indents `replacement` by the difference between the indentation old_string was written with and
 * the indentation the file really has at the match.
 */
function reindent(replacement: string, written: string, actual: string): string {
  if (written === actual) return replacement;
  return replacement
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      const own = indentOf(line);
      return own.startsWith(written)
        ? `${actual}${own.slice(written.length)}${line.slice(own.length)}`
        : `${actual}${line.slice(own.length)}`;
    })
    .join("\n");
}

/** Line windows of `lines` whose content equals `wanted` under `same`. */
function lineWindows(
  lines: Line[],
  wanted: string[],
  same: (a: string, b: string) => boolean,
): number[] {
  const starts: number[] = [];
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    let ok = true;
    for (let k = 0; k < wanted.length && ok; k++)
      ok = same(lines[i + k]?.text ?? "", wanted[k] ?? "");
    if (ok) {
      starts.push(i);
      i += wanted.length - 1;
    }
  }
  return starts;
}

/** The window of the file most like old_string (most lines equal once trimmed), for the model to compare. */
function nearestRegion(
  lines: Line[],
  wanted: string[],
): { from: number; to: number; text: string } | null {
  const byContent = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const key = line.text.trim();
    if (key === "") return;
    const list = byContent.get(key);
    if (list) list.push(index);
    else byContent.set(key, [index]);
  });
  const scores = new Map<number, number>();
  wanted.forEach((line, k) => {
    for (const index of byContent.get(line.trim()) ?? []) {
      const start = index - k;
      if (start >= 0) scores.set(start, (scores.get(start) ?? 0) + 1);
    }
  });
  let best: number | null = null;
  let bestScore = 0;
  for (const [start, score] of scores) {
    if (score > bestScore || (score === bestScore && best !== null && start < best)) {
      best = start;
      bestScore = score;
    }
  }
  if (best === null) return null;
  const to = Math.min(lines.length, best + Math.max(wanted.length, 1));
  const shown = lines.slice(best, Math.min(to, best + 30));
  return {
    from: best + 1,
    to: best + shown.length,
    text: shown.map((line, i) => `${String(best + i + 1).padStart(6)}\t${line.text}`).join("\n"),
  };
}

/**
 * Finds old_string in `text`: exactly first; then with the other line-ending style; then, for whole
 * lines, ignoring trailing whitespace; then ignoring indentation (re-indenting `newString` to the
 * file). The first level with any match decides; more than one match there (without `all`) is
 * ambiguous. Nothing outside the matched regions is ever part of a replacement.
 */
export function planEdit(
  text: string,
  oldString: string,
  newString: string,
  all: boolean,
): EditPlan {
  const pick = (level: MatchLevel, replacements: Replacement[]): EditPlan =>
    replacements.length > 1 && !all
      ? { type: "ambiguous", level, lines: replacements.map((r) => lineNumberAt(text, r.start)) }
      : { type: "match", level, replacements };

  const exact = exactOffsets(text, oldString);
  if (exact.length > 0)
    return pick(
      "exact",
      exact.map((start) => ({ start, end: start + oldString.length, text: newString })),
    );
  if (oldString.includes("\n")) {
    const other = oldString.includes("\r\n")
      ? oldString.replaceAll("\r\n", "\n")
      : oldString.replaceAll("\n", "\r\n");
    const flipped = exactOffsets(text, other);
    if (flipped.length > 0)
      return pick(
        "line endings",
        flipped.map((start) => ({ start, end: start + other.length, text: newString })),
      );
  }

  const lines = splitLines(text);
  // The tolerant levels compare whole lines; a final line break in old_string is its last line's end.
  const endsWithBreak = /\r?\n$/.test(oldString);
  const wanted = oldString.replace(/\r?\n$/, "").split(/\r?\n/);
  if (wanted.every((line) => line.trim() === "")) return { type: "none", nearest: null };
  const region = (start: number, count: number) => {
    const first = lines[start] as Line;
    const last = lines[start + count - 1] as Line;
    return { start: first.start, end: endsWithBreak ? last.next : last.end };
  };
  const trailing = lineWindows(lines, wanted, (a, b) => a.trimEnd() === b.trimEnd());
  if (trailing.length > 0)
    return pick(
      "trailing whitespace",
      trailing.map((start) => ({ ...region(start, wanted.length), text: newString })),
    );
  const indented = lineWindows(lines, wanted, (a, b) => a.trim() === b.trim());
  if (indented.length > 0) {
    const firstWanted = wanted.findIndex((line) => line.trim() !== "");
    return pick(
      "indentation",
      indented.map((start) => {
        const actual = indentOf(lines[start + firstWanted]?.text ?? "");
        const written = indentOf(wanted[firstWanted] ?? "");
        return { ...region(start, wanted.length), text: reindent(newString, written, actual) };
      }),
    );
  }
  return { type: "none", nearest: nearestRegion(lines, wanted) };
}

/** Applies non-overlapping replacements (in any order) to `text`. */
export function applyReplacements(text: string, replacements: Replacement[]): string {
  const sorted = [...replacements].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const r of sorted) {
    out += text.slice(at, r.start) + r.text;
    at = r.end;
  }
  return out + text.slice(at);
}
