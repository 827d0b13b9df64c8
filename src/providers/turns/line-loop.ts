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
/** A line longer than this is compared by its length and ends only (a line is never kept whole). */
const MAX_LINE_CHARS = 4096;

interface Line {
  /** The line without the white space around it (indentation and trailing spaces vary in a loop). */
  text: string;
  chars: number;
  /** Where the line ends in the stream, in characters. */
  end: number;
}

/**
 * `counts`: which repeated blocks are a loop (every one, by default); given the block's lines, as
 * compared (trimmed).
 */
export function createLineLoopWatch(
  counts: (block: readonly string[]) => boolean = () => true,
): LineLoopWatch {
  const lines: Line[] = [];
  let partial: string[] = [];
  let partialChars = 0;
  let seen = 0;
  let found: LineLoop | null = null;

  const endLine = (end: number) => {
    const raw = partial.join("");
    partial = [];
    partialChars = 0;
    const text = raw.trim();
    // Blank lines between rounds are layout, not part of what repeats.
    if (text === "") return;
    const key =
      text.length > MAX_LINE_CHARS
        ? `${text.length}\u0000${text.slice(0, 256)}\u0000${text.slice(-256)}`
        : text;
    lines.push({ text: key, chars: text.length, end });
    if (lines.length > KEPT_LINES) lines.shift();
    found = loopAtEnd(lines, counts);
  };

  return {
    push(text) {
      if (found || text === "") return null;
      let from = 0;
      for (let at = text.indexOf("\n"); at >= 0 && !found; at = text.indexOf("\n", from)) {
        const piece = text.slice(from, at);
        if (partialChars <= MAX_LINE_CHARS * 2) partial.push(piece);
        partialChars += piece.length;
        from = at + 1;
        endLine(seen + from);
      }
      if (!found) {
        const rest = text.slice(from);
        if (partialChars <= MAX_LINE_CHARS * 2) partial.push(rest);
        partialChars += rest.length;
      }
      seen += text.length;
      return found;
    },
  };
}

/** The loop the kept lines end in, if any: the shortest block repeated often and long enough. */
function loopAtEnd(lines: Line[], counts: (block: readonly string[]) => boolean): LineLoop | null {
  const n = lines.length;
  for (let period = 1; period <= MAX_PERIOD && period * MIN_ROUNDS <= n; period++) {
    // How many lines back the sequence equals itself `period` lines earlier.
    let same = 0;
    while (
      n - 1 - same - period >= 0 &&
      (lines[n - 1 - same] as Line).text === (lines[n - 1 - same - period] as Line).text
    )
      same += 1;
    const rounds = Math.floor((same + period) / period);
    if (rounds < MIN_ROUNDS) continue;
    const start = n - rounds * period;
    let chars = 0;
    for (let i = start; i < n; i++) chars += (lines[i] as Line).chars;
    if (chars < MIN_CHARS) continue;
    if (!counts(lines.slice(n - period).map((line) => line.text))) continue;
    const first = lines[start] as Line;
    const shown = first.chars > 60 ? `${first.text.slice(0, 57)}…` : first.text;
    const what =
      period === 1
        ? `the same line (${JSON.stringify(shown)})`
        : `the same ${period} lines (from ${JSON.stringify(shown)})`;
    return {
      detail: `${what} ${rounds} times in a row`,
      keepChars: (lines[start + period - 1] as Line).end,
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
  const lines = createLineLoopWatch();
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
