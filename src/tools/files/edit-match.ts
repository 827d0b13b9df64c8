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

/** The file's region nearest to old_string, numbered as read_file shows it. */
export interface NearestRegion {
  from: number;
  to: number;
  text: string;
}

/** What to do with an edit. */
export type EditPlan =
  | { type: "match"; level: MatchLevel; replacements: Replacement[]; reindented?: string }
  | { type: "ambiguous"; level: MatchLevel; lines: number[] }
  | { type: "none"; nearest: NearestRegion | null }
  /** old_string matched only ignoring indentation, and no one re-indentation explains it: the lines side by side. */
  | { type: "inconsistent"; reason: string; sideBySide: string };

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
 * One re-indentation that turns what old_string's lines were written with into what the file has:
 * a shift (`written` prefix → `actual` prefix, the rest kept) or a change of unit (each level of
 * `writtenUnit` becomes one of `actualUnit`, above a common base). Null when no one mapping explains
 * every non-blank line.
 */
interface IndentMap {
  describe: string;
  /** The indentation a new_string line gets, or null when it does not fit the mapping. */
  apply(indent: string): string | null;
}

function shiftMap(written: string[], actual: string[]): IndentMap | null {
  const d = (actual[0]?.length ?? 0) - (written[0]?.length ?? 0);
  if (written.some((w, i) => (actual[i]?.length ?? 0) - w.length !== d)) return null;
  const shortest = Math.min(...written.map((w) => w.length));
  for (let keep = shortest; keep >= 0 && keep + d >= 0; keep -= 1) {
    const from = written[0]?.slice(0, keep) ?? "";
    const to = actual[0]?.slice(0, keep + d) ?? "";
    const fits = written.every(
      (w, i) =>
        w.startsWith(from) &&
        (actual[i] ?? "").startsWith(to) &&
        w.slice(keep) === (actual[i] ?? "").slice(keep + d),
    );
    if (!fits) continue;
    if (from === to) return { describe: "", apply: (indent) => indent };
    return {
      describe: `indentation ${visible(from) || "(none)"} became ${visible(to) || "(none)"}`,
      apply: (indent) => (indent.startsWith(from) ? to + indent.slice(from.length) : null),
    };
  }
  return null;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

function unitMap(written: string[], actual: string[]): IndentMap | null {
  const runOf = (list: string[]): string | null => {
    const chars = new Set(list.join(""));
    return chars.size === 1 ? ([...chars][0] ?? null) : chars.size === 0 ? "" : null;
  };
  const wc = runOf(written);
  const ac = runOf(actual);
  if (wc === null || ac === null) return null;
  const base = written.reduce((min, w, i) => (w.length < (written[min]?.length ?? 0) ? i : min), 0);
  const wBase = written[base]?.length ?? 0;
  const aBase = actual[base]?.length ?? 0;
  const dw = written.map((w) => w.length - wBase);
  const da = actual.map((a) => a.length - aBase);
  if (da.some((n) => n < 0)) return null;
  const wUnit = dw.reduce(gcd, 0);
  const aUnit = da.reduce(gcd, 0);
  if (wUnit === 0 || aUnit === 0) return null;
  if (dw.some((n, i) => n / wUnit !== (da[i] ?? 0) / aUnit)) return null;
  const wUnitText = (wc || " ").repeat(wUnit);
  const aUnitText = (ac || " ").repeat(aUnit);
  return {
    describe: `each ${visible(wUnitText)} level became ${visible(aUnitText)}`,
    apply(indent) {
      if (indent.length < wBase || (indent !== "" && runOf([indent]) !== wc)) return null;
      const extra = indent.length - wBase;
      if (extra % wUnit !== 0) return null;
      return (ac || " ").repeat(aBase) + aUnitText.repeat(extra / wUnit);
    },
  };
}

/** Spaces and tabs made visible: `····`, `→`. */
function visible(indent: string): string {
  return indent.replaceAll(" ", "·").replaceAll("\t", "→");
}

/** new_string re-indented by `map`, every non-blank line; null when a line does not fit it. */
function reindentAll(replacement: string, map: IndentMap): { text: string } | { badLine: string } {
  const out: string[] = [];
  for (const line of replacement.split("\n")) {
    if (line.trim() === "") {
      out.push(line);
      continue;
    }
    const own = indentOf(line);
    const mapped = map.apply(own);
    if (mapped === null) return { badLine: line.replace(/\r$/, "") };
    out.push(mapped + line.slice(own.length));
  }
  return { text: out.join("\n") };
}

/** old_string's lines beside the file's, whitespace made visible. */
function sideBySide(fileLines: Line[], start: number, wanted: string[]): string {
  const shown = wanted.slice(0, 30).map((w, k) => {
    const actual = fileLines[start + k]?.text ?? "";
    const mark = actual === w ? " " : "≠";
    return `${String(start + k + 1).padStart(6)} ${mark} file: ${visible(indentOf(actual))}${actual.trimStart()}\n         old_string: ${visible(indentOf(w))}${w.trimStart()}`;
  });
  return shown.join("\n");
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
function nearestRegion(lines: Line[], wanted: string[]): NearestRegion | null {
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

/** Characters two lines share as bigrams (Dice's coefficient), 0 to 1, whitespace aside. */
function likeness(a: string, b: string): number {
  const x = a.trim();
  const y = b.trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i + 1 < x.length; i += 1) {
    const g = x.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i + 1 < y.length; i += 1) {
    const g = y.slice(i, i + 2);
    const n = grams.get(g) ?? 0;
    if (n > 0) {
      shared += 1;
      grams.set(g, n - 1);
    }
  }
  return (2 * shared) / (x.length - 1 + (y.length - 1));
}

// Past this many line comparisons the similar-region search is skipped: it would stall on a huge file.
const MAX_LIKENESS_WORK = 2_000_000;

/** When no line of old_string is in the file even trimmed: the window most like it, line by line. */
function similarRegion(lines: Line[], wanted: string[]): NearestRegion | null {
  const count = Math.max(1, Math.min(wanted.length, lines.length));
  if (lines.length === 0 || lines.length * count > MAX_LIKENESS_WORK) return null;
  let best = -1;
  let bestScore = 0;
  for (let start = 0; start + count <= lines.length; start += 1) {
    let score = 0;
    for (let k = 0; k < count; k += 1)
      score += likeness(lines[start + k]?.text ?? "", wanted[k] ?? "");
    if (score > bestScore) {
      best = start;
      bestScore = score;
    }
  }
  if (best < 0) return null;
  const shown = lines.slice(best, Math.min(best + count, best + 30));
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
      exact.map((start) => ({
        // A match that starts inside a CRLF pair takes its CR too: new_string's breaks are CRLF
        // already, and leaving the CR would write `\r\r\n`.
        start: oldString.startsWith("\n") && text[start - 1] === "\r" ? start - 1 : start,
        end: start + oldString.length,
        text: newString,
      })),
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
    // Every non-blank line of old_string must be explained by one re-indentation, and new_string
    // gets that same one: a first-line-only guess would put new lines at the wrong depth.
    const nonBlank = wanted.flatMap((line, k) => (line.trim() === "" ? [] : [k]));
    const mapped: Replacement[] = [];
    let describe = "";
    let refusal: EditPlan | null = null;
    for (const start of indented) {
      const written = nonBlank.map((k) => indentOf(wanted[k] ?? ""));
      const actual = nonBlank.map((k) => indentOf(lines[start + k]?.text ?? ""));
      const map = shiftMap(written, actual) ?? unitMap(written, actual);
      if (!map) {
        refusal ??= {
          type: "inconsistent",
          reason:
            "old_string matches these lines only ignoring indentation, and no single re-indentation (a shift, or a change of indent unit) explains every line",
          sideBySide: sideBySide(lines, start, wanted),
        };
        continue;
      }
      const text = reindentAll(newString, map);
      if ("badLine" in text) {
        refusal ??= {
          type: "inconsistent",
          reason: `old_string matches these lines once ${map.describe}, but the new_string line ${JSON.stringify(text.badLine)} does not fit that re-indentation`,
          sideBySide: sideBySide(lines, start, wanted),
        };
        continue;
      }
      describe = map.describe;
      mapped.push({ ...region(start, wanted.length), text: text.text });
    }
    if (indented.length > 1 && !all)
      return {
        type: "ambiguous",
        level: "indentation",
        lines: indented.map((start) => start + 1),
      };
    // With replace_all, every occurrence is re-indented or none is.
    if (refusal) return refusal;
    if (mapped.length > 0) {
      const plan = pick("indentation", mapped);
      return plan.type === "match" ? { ...plan, reindented: describe } : plan;
    }
  }
  return { type: "none", nearest: nearestRegion(lines, wanted) ?? similarRegion(lines, wanted) };
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
