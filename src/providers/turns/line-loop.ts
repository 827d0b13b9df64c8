// Watches a reply's reasoning for the loop reasoning models fall into: the same line, or the same few
// lines, written over and over until max_tokens or the user's patience runs out. Reports against real
// servers: Qwen3.5-35B-A3B on vLLM "gets stuck repeating the same phrases/sentences indefinitely
// until the token budget is exhausted, never outputting </think>" (QwenLM/Qwen3.8 #88); Qwen3-4B on
// llama.cpp reconsidered the same formatting decisions for 4,400 tokens and 55 minutes (QwenLM/Qwen3
// #1887); deepseek-v4-flash "repeats the same reasoning block indefinitely" (deepseek-ai/DeepSeek-V3
// #1587). unit-loop.ts watches loops within a line; this one watches whole lines, which only reasoning
// is held to: an answer or a file may hold repeated rows and records, but no line of thought needs
// writing four times in a row.
import { createUnitLoopWatch } from "./unit-loop.ts";

/** A loop found in the reasoning: what repeated, and where its first round ends. */
export interface LineLoop {
  /** Plain words: the lines, how many, and how many times they ran. */
  detail: string;
  /** Characters of the stream up to the end of the loop's first round (the rest repeats it). */
  keepChars: number;
}

/** Feeds one stream of reasoning; returns the loop once it is found, then stays quiet. */
export interface LineLoopWatch {
  push(text: string): LineLoop | null;
}

/** The longest block looked for, in lines (the Qwen3-4B cycle was five). */
const MAX_PERIOD = 16;
/** Rounds of a block, back to back, before it is a loop. */
const MIN_ROUNDS = 4;
/** Characters the repeated rounds cover before they are a loop: a short line needs more rounds. */
const MIN_CHARS = 1024;
/**
 * Lines remembered. A block whose rounds need more lines than this to reach MIN_CHARS (lines of a
 * few characters) is left to the output bound: at worst a loop runs to max_tokens, as it did before.
 */
const KEPT_LINES = 256;
/** A longer line is compared by its length, its head and its tail (it is never kept whole). */
const MAX_LINE_CHARS = 4096;
const EDGE_CHARS = 256;

interface Line {
  /** What is compared: the line without the white space around it, or a long line's length and edges. */
  key: string;
  /** Its first words, to name it. */
  head: string;
  chars: number;
  /** Characters of the stream through this line's end. */
  end: number;
  /** Characters of the watch's lines up to and including this one (a block's size is a difference). */
  total: number;
  /** A line of thought, not of a draft (see `proseLines`). */
  prose: boolean;
}

/** Which lines are thoughts (called once per line, in order). */
export type LineFilter = (line: string) => boolean;

/**
 * `counts`: which repeated blocks are a loop (every one, by default), given one round's lines as
 * compared. `prose`: which lines are thoughts; a block of none is a draft repeating rows, no loop.
 * Every line but a blank one takes part in the comparison.
 */
export function createLineLoopWatch(
  counts: (block: readonly string[]) => boolean = () => true,
  prose: LineFilter = () => true,
): LineLoopWatch {
  let lines: Line[] = [];
  // For each period p, how many lines in a row have equalled the line p before them.
  const runs = new Array<number>(MAX_PERIOD + 1).fill(0);
  // The line being read: its first MAX_LINE_CHARS, its length, and, once it may be longer, its last
  // characters (a long line is never held whole; the same line streamed in other pieces gets the
  // same key).
  let head = "";
  let tail = "";
  let length = 0;
  let total = 0;
  let seen = 0;
  let found: LineLoop | null = null;

  const add = (piece: string) => {
    length += piece.length;
    if (head.length < MAX_LINE_CHARS) head += piece.slice(0, MAX_LINE_CHARS - head.length);
    // Only a line longer than MAX_LINE_CHARS needs its tail: from the piece that reaches its last
    // EDGE_CHARS on, whatever the pieces' sizes.
    if (length > MAX_LINE_CHARS - EDGE_CHARS) tail = (tail + piece).slice(-EDGE_CHARS * 2);
  };

  const endLine = (end: number) => {
    const whole = length <= MAX_LINE_CHARS;
    const text = whole ? head.trim() : "";
    const key = whole
      ? text
      : `${length}\u0000${head.trimStart().slice(0, EDGE_CHARS)}\u0000${tail.trimEnd().slice(-EDGE_CHARS)}`;
    const shown = (whole ? text : head.trimStart()).slice(0, 64);
    const chars = whole ? text.length : length;
    head = "";
    tail = "";
    length = 0;
    // Blank lines between rounds are layout, not part of what repeats.
    if (chars === 0) return;
    total += chars;
    lines.push({ key, head: shown, chars, end, total, prose: prose(whole ? text : shown) });
    const n = lines.length;
    for (let period = 1; period <= MAX_PERIOD; period++)
      runs[period] =
        n > period && (lines[n - 1 - period] as Line).key === key
          ? (runs[period] as number) + 1
          : 0;
    found = loopAtEnd(lines, runs, counts);
    // Kept in bulk, so that each line costs the same whatever the stream's length.
    if (lines.length >= 2 * KEPT_LINES) lines = lines.slice(-KEPT_LINES);
  };

  return {
    push(text) {
      if (found || text === "") return null;
      let from = 0;
      for (let at = text.indexOf("\n"); at >= 0 && !found; at = text.indexOf("\n", from)) {
        add(text.slice(from, at));
        from = at + 1;
        endLine(seen + from);
      }
      if (!found) add(text.slice(from));
      seen += text.length;
      return found;
    },
  };
}

/** The loop the kept lines end in, if any: the shortest block repeated often and long enough. */
function loopAtEnd(
  lines: Line[],
  runs: readonly number[],
  counts: (block: readonly string[]) => boolean,
): LineLoop | null {
  const n = lines.length;
  for (let period = 1; period <= MAX_PERIOD && period * MIN_ROUNDS <= n; period++) {
    // The repetition begins `run + period` lines back (as far as lines are kept).
    const run = Math.min(runs[period] as number, n - period);
    const rounds = Math.floor((run + period) / period);
    if (rounds < MIN_ROUNDS) continue;
    const begin = n - run - period;
    const first = lines[begin] as Line;
    const chars = (lines[n - 1] as Line).total - (first.total - first.chars);
    if (chars < MIN_CHARS) continue;
    const round = lines.slice(n - period);
    if (!round.some((line) => line.prose) || !counts(round.map((line) => line.key))) continue;
    const shown = first.chars > 60 ? `${first.head.slice(0, 57)}…` : first.head;
    const what =
      period === 1
        ? `the same line (${JSON.stringify(shown)})`
        : `the same ${period} lines (from ${JSON.stringify(shown)})`;
    return {
      detail: `${what} ${rounds} times in a row`,
      // The text before the loop and its first round; the rest only repeats it.
      keepChars: (lines[begin + period - 1] as Line).end,
    };
  }
  return null;
}

/** A reply's reasoning, watched for a loop of lines and, within a line, of one short unit. */
export interface ReasoningWatch {
  /** The reasoning as it streams; the loop once it is found. */
  push(text: string): LineLoop | null;
  loop: LineLoop | null;
}

export function createReasoningWatch(): ReasoningWatch {
  const lines = createLineLoopWatch(() => true, proseLines());
  const units = createUnitLoopWatch();
  const watch: ReasoningWatch = {
    loop: null,
    push(text) {
      if (watch.loop) return null;
      const found = lines.push(text) ?? units.push(text);
      if (found)
        watch.loop = { detail: `${found.detail} in its reasoning`, keepChars: found.keepChars };
      return watch.loop;
    },
  };
  return watch;
}

/**
 * The lines of reasoning that are thoughts: a model drafting a file in its reasoning writes rows,
 * markup and code that may repeat (a chessboard's squares, identical fixture rows), and a cut there
 * would lose the work. Not thoughts: fenced blocks, lines that start with anything but a word (after
 * a list marker), and lines of one token split by commas, semicolons, bars or tabs.
 */
function proseLines(): LineFilter {
  let fenced = false;
  return (line) => {
    if (line.startsWith("```") || line.startsWith("~~~")) {
      fenced = !fenced;
      return false;
    }
    if (fenced || /^[^\s]*[,;|\t][^\s]*$/.test(line)) return false;
    return /^(?:[-*•>]\s+)?\p{L}/u.test(line);
  };
}

/**
 * The answer's text watched for the loop that runs past the end of reasoning: a block of lines that
 * closes reasoning (`</think>` on a line of its own) over and over. A server's reasoning parser ends
 * the reasoning at the first `</think>`, so the rest of such a loop arrives as the answer: Qwen3.8-27B
 * on vLLM wrote "I need to investigate this. Let / me just paste the message. / </think>" 251 times
 * in one turn (1Cat-vLLM #569). Other repeated lines in an answer are rows and records a user may
 * have asked for, and stay the output bound's.
 */
export function createClosedReasoningWatch(): LineLoopWatch {
  return createLineLoopWatch((block) => block.includes("</think>"));
}
