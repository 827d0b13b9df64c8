// Watches an answer's text while it streams for a model caught in a loop: the same tool call written
// as text over and over (Qwen2.5-Coder 0.5B on llama-server streamed one todo_write line until its
// time ran out, minutes at 1.5 tokens/s). Only calls count: a JSON object with a string `name` and
// `arguments` or `parameters`. No reply needs the same call three times in a row, the same round of
// several calls twice, or a call that differs only in its numbers six times; repeated rows, tables,
// test data and lists in an answer are no calls, and a native call's arguments (a file's content) are
// never watched for calls. One short unit repeated back to back inside a line, in the text or in a
// call's arguments, is unit-loop.ts's watch.

import { createUnitLoopWatch } from "./unit-loop.ts";

/** A loop found in the text: what repeated, and where the text stops being worth keeping. */
export interface Repetition {
  /** Plain words, e.g. "the same todo_write call 3 times in a row". */
  detail: string;
  /**
   * Characters of the text up to the end of the loop's first round (the rest repeats it); Infinity
   * when the loop was in a native call's arguments, not in the text.
   */
  keepChars: number;
}

/** Feeds the answer's text as it streams; returns the loop once it is found, then stays quiet. */
export interface RepetitionWatch {
  push(text: string): Repetition | null;
}

/** The answer's text as it streams, kept whole, and the loop it fell into, once there is one. */
export interface WatchedText {
  pieces: string[];
  loop: Repetition | null;
  add(piece: string): void;
}

export function createWatchedText(): WatchedText {
  const calls = createRepetitionWatch();
  const units = createUnitLoopWatch();
  const text: WatchedText = {
    pieces: [],
    loop: null,
    add(piece) {
      text.pieces.push(piece);
      text.loop ??= calls.push(piece) ?? units.push(piece);
    },
  };
  return text;
}

/** One piece of the text: a JSON value at the top level, or the words between two of them. */
interface Unit {
  /** Exact identity: a JSON value compared after parsing (whitespace does not count), text as written. */
  exact: string;
  /** Identity with every number value left out (`offset: 1`, `offset: 2` are the same call). */
  shape: string;
  /** Identity with the digits inside strings left out too (`item1.txt`, `item2.txt`). */
  counted: string;
  /** The tool's name when the unit is a call written as text. */
  call: string | null;
  /** Where the unit ends in the text, in characters. */
  end: number;
}

/** Rounds of one call (with the words around it) that end the stream: alike, or alike but for numbers. */
const EXACT_ROUNDS = 3;
/** A round of several calls (and the words between them) written twice over is already a loop. */
const ROUNDS_OF_SEVERAL = 2;
/** A call alike but for its numbers (a paging loop: offset 1, 2, 3 ...) six times in a row. */
const SHAPE_ROUNDS = 6;
/**
 * A call alike but for a counter in its strings, this many times in one reply: past any batch of
 * numbered files a reply reads at once (30 parts stay legitimate), short of a run to the budget
 * (r13 checklist: Qwen2.5-Coder 0.5B read item1.txt ... item61.txt, none of them there, for 400 s).
 */
const COUNTED_ROUNDS = 32;
/** The longest loop looked for, in units (dead-code's loop went through ten calls). */
const MAX_PERIOD = 16;
/** Units remembered: enough for the longest loop's rounds, and bounded memory. */
const KEPT_UNITS = MAX_PERIOD * EXACT_ROUNDS;
/** A unit longer than this is no loop worth cutting early (the output meter bounds it). */
const MAX_UNIT_CHARS = 64 * 1024;

export function createRepetitionWatch(): RepetitionWatch {
  const units: Unit[] = [];
  let seen = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  // The unit being read (a JSON value, or the words before the next one), in the pieces it came in.
  let pieces: string[] = [];
  let pieceChars = 0;
  let found: Repetition | null = null;

  const take = (piece: string) => {
    if (pieceChars <= MAX_UNIT_CHARS) pieces.push(piece);
    pieceChars += piece.length;
  };
  const end = (at: number, json: boolean) => {
    const raw = pieces.join("");
    const long = pieceChars > MAX_UNIT_CHARS;
    pieces = [];
    pieceChars = 0;
    if (json) return add(long ? opaque(at) : jsonUnit(raw, at));
    const words = raw.trim();
    // Fences and whitespace around calls are their wrapping, not a unit of their own.
    if (words === "" || /^```[\w-]*$/.test(words)) return;
    add(long ? opaque(at) : { exact: words, shape: words, counted: words, call: null, end: at });
  };
  const add = (unit: Unit) => {
    units.push(unit);
    if (units.length > KEPT_UNITS) units.shift();
    found = loopAtEnd(units);
  };

  return {
    push(text) {
      if (found) return null;
      let from = 0;
      for (let i = 0; i < text.length && !found; i++) {
        const ch = text.charCodeAt(i);
        if (depth === 0) {
          if (ch !== 123 /* { */) continue;
          take(text.slice(from, i));
          end(seen + i, false);
          from = i;
          depth = 1;
          continue;
        }
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === 92 /* \ */) escaped = true;
          else if (ch === 34 /* " */) inString = false;
          continue;
        }
        if (ch === 34) inString = true;
        else if (ch === 123 || ch === 91 /* [ */) depth += 1;
        else if (ch === 125 /* } */ || ch === 93 /* ] */) depth -= 1;
        if (depth > 0) continue;
        depth = 0;
        take(text.slice(from, i + 1));
        end(seen + i + 1, true);
        from = i + 1;
      }
      if (!found) take(text.slice(from));
      seen += text.length;
      return found;
    },
  };
}

/** A unit too long to compare: it matches nothing, so no loop runs through it. */
function opaque(end: number): Unit {
  const key = `\u0000${end}`;
  return { exact: key, shape: key, counted: key, call: null, end };
}

/** A JSON value of the text as a unit: a call when it has a name and arguments. */
function jsonUnit(raw: string, end: number): Unit {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { exact: raw, shape: raw, counted: raw, call: null, end };
  }
  const record = isRecord(value) ? value : null;
  const named = record !== null && typeof record.name === "string" && record.name !== "";
  const call =
    named && (record.arguments !== undefined || record.parameters !== undefined)
      ? (record.name as string)
      : null;
  return {
    exact: JSON.stringify(value),
    shape: JSON.stringify(value, (_key, item) => (typeof item === "number" ? 0 : item)),
    counted: JSON.stringify(value, (_key, item) =>
      typeof item === "number" ? 0 : typeof item === "string" ? item.replace(/[0-9]+/g, "#") : item,
    ),
    call,
    end,
  };
}

/** The loop the last units close, if any: a round of units with a call in it, repeated back to back. */
function loopAtEnd(units: Unit[]): Repetition | null {
  const last = units.at(-1);
  if (!last?.call) return null;
  for (let period = 1; period <= MAX_PERIOD; period++) {
    const exact = roundsAtEnd(units, period, (unit) => unit.exact);
    const calls = units.slice(-period).filter((unit) => unit.call !== null).length;
    if (exact >= (calls === 1 ? EXACT_ROUNDS : ROUNDS_OF_SEVERAL))
      return described(units, period, exact, "exact");
    const shape = roundsAtEnd(units, period, (unit) => unit.shape);
    if (period === 1 && shape >= SHAPE_ROUNDS) return described(units, period, shape, "shape");
    const counted = period === 1 ? roundsAtEnd(units, period, (unit) => unit.counted) : 0;
    if (counted >= COUNTED_ROUNDS) return described(units, period, counted, "shape");
  }
  return null;
}

/** How many times the last `period` units repeat back to back at the end (1 when they do not). */
function roundsAtEnd(units: Unit[], period: number, key: (unit: Unit) => string): number {
  const n = units.length;
  if (n < period) return 0;
  let matched = 0;
  while (n - period - matched - 1 >= 0) {
    const a = units[n - 1 - matched] as Unit;
    const b = units[n - 1 - matched - period] as Unit;
    if (key(a) !== key(b)) break;
    matched += 1;
  }
  return 1 + Math.floor(matched / period);
}

function described(
  units: Unit[],
  period: number,
  rounds: number,
  kind: "exact" | "shape",
): Repetition {
  const round = units.slice(units.length - period);
  const calls = round.flatMap((unit) => (unit.call ? [unit.call] : []));
  const first = units[units.length - rounds * period + period - 1] as Unit;
  const what =
    calls.length === 1
      ? `the same ${calls[0]} call${kind === "shape" ? " (only its numbers changing)" : ""}`
      : `the same ${calls.length} calls (${namesOf(calls)})`;
  return { detail: `${what} ${rounds} times in a row`, keepChars: first.end };
}

/** The tools a round calls, at most five named. */
function namesOf(calls: string[]): string {
  const names = [...new Set(calls)];
  const more = names.length > 5 ? `, and ${names.length - 5} more` : "";
  return `${names.slice(0, 5).join(", ")}${more}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
