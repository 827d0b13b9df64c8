// Watches streamed text for the degenerate loop of a small model: one short unit written back to back
// within one line, hundreds of times, until max_tokens or the user's time runs out. Qwen2.5-Coder 0.5B
// on llama-server (bench/eval r12) spent three 8-minute budgets so: `c2f6a42f9` as its answer, 3,620
// characters; `"edit_file", ` in a todo_write list, 6,312; `[0-9]+ ` in a grep pattern, 5,271.
//
// The thresholds come from what real text holds. Units of 1 to 4 characters are left alone (rules
// `=====`, padding, `0,0,0`, `\x00\x00`, `---|` in a table). A line break ends a unit's run, a JSON
// `\n` escape too (a file written through a call), so repeated rows, lines and records never count.
// In 187 MB of published npm code (minified bundles and data tables included) the longest such run
// of a 5 to 64 character unit is 43 times (348 characters), outside source maps; in the replies
// recorded in bench/eval r3 to r12 it is 6 times (76 characters) but for six loops that ran to the
// budget, 80 to 700 times (bench/eval/loop-replay.ts replays them through this watch).

/** A loop found (the shape of repetition.ts's `Repetition`, which runs this watch on the text). */
export interface UnitLoop {
  /** Plain words: the unit, its length, and how many times it ran. */
  detail: string;
  /** Characters of the text up to the loop's first unit (the rest repeats it). */
  keepChars: number;
}

/** Feeds one stream of text; returns the loop once it is found, then stays quiet. */
export interface UnitLoopWatch {
  push(text: string): UnitLoop | null;
}

/** Shorter units are rules, padding and byte runs that real answers and files hold. */
const MIN_UNIT = 5;
/** Longer units are no short loop (the call watch sees whole calls). */
const MAX_UNIT = 64;
/** Times a unit repeats back to back before it is a loop (real text: at most 43). */
const MIN_TIMES = 64;
/** Characters the run covers before it is a loop, so that a 5-character unit needs 103 times. */
const MIN_CHARS = 512;
/** Characters of a long line between two looks: the loop is found at most this late. */
const LOOK_EVERY = 32;
/** The line's tail kept (at least; up to twice between two trims): the longest run a loop needs, and a look's worth more. */
const KEPT_CHARS = MAX_UNIT * MIN_TIMES + LOOK_EVERY;

const BACKSLASH = 92;

/** A watch on one stream of text (an answer's, or one call's arguments). */
export function createUnitLoopWatch(): UnitLoopWatch {
  // Characters pushed so far, and the current line's tail since its last break (or KEPT_CHARS of it).
  let seen = 0;
  let line: string[] = [];
  let lineChars = 0;
  let sinceLook = 0;
  // The last piece ended in a backslash: an `n` or `r` first in the next is a `\n` escape.
  let backslashLast = false;
  let found: UnitLoop | null = null;

  return {
    push(text) {
      if (found || text === "") return null;
      const cut = afterLastBreak(text, backslashLast);
      if (cut >= 0) {
        line = [text.slice(cut)];
        lineChars = text.length - cut;
        sinceLook = lineChars;
      } else {
        line.push(text);
        lineChars += text.length;
        sinceLook += text.length;
      }
      backslashLast = text.charCodeAt(text.length - 1) === BACKSLASH;
      seen += text.length;
      if (lineChars > 2 * KEPT_CHARS) {
        const kept = line.join("");
        line = [kept.slice(kept.length - KEPT_CHARS)];
        lineChars = KEPT_CHARS;
      }
      if (lineChars < MIN_CHARS || sinceLook < LOOK_EVERY) return null;
      sinceLook = 0;
      // Most long lines are prose or code, whose last characters repeat no unit, or rules and
      // padding, whose unit is too short (then so is any unit of a run through them).
      if (shortestUnit(lastChars(line, 2 * MAX_UNIT)) < MIN_UNIT) return null;
      const tail = line.join("");
      line = [tail];
      found = loopAtEnd(tail, seen - tail.length);
      return found;
    },
  };
}

/**
 * The native calls' arguments of one response, each watched on its own: the first loop found, named
 * with its call (the text is kept whole: `keepChars` is Infinity).
 */
export function createArgumentsWatch(): {
  add(index: number, name: string | undefined, piece: string | null | undefined): void;
  loop: UnitLoop | null;
} {
  const watches = new Map<number, UnitLoopWatch>();
  const watched = {
    loop: null as UnitLoop | null,
    add(index: number, name: string | undefined, piece: string | null | undefined) {
      if (watched.loop || !piece) return;
      let watch = watches.get(index);
      if (!watch) {
        watch = createUnitLoopWatch();
        watches.set(index, watch);
      }
      const found = watch.push(piece);
      if (found)
        watched.loop = {
          detail: `${found.detail} in its ${name || "tool"} call's arguments`,
          keepChars: Number.POSITIVE_INFINITY,
        };
    },
  };
  return watched;
}

/** The last `count` characters of the pieces (fewer when they hold fewer). */
function lastChars(pieces: string[], count: number): string {
  let chars = 0;
  let from = pieces.length;
  while (from > 0 && chars < count) {
    from -= 1;
    chars += (pieces[from] as string).length;
  }
  const text = pieces.slice(from).join("");
  return text.slice(Math.max(0, text.length - count));
}

/** The shortest unit of at most MAX_UNIT characters the whole text repeats; 0 for none. */
function shortestUnit(text: string): number {
  for (let unit = 1; unit <= MAX_UNIT && unit < text.length; unit++) {
    let at = text.length - 1;
    while (at >= unit && text.charCodeAt(at) === text.charCodeAt(at - unit)) at -= 1;
    if (at < unit) return unit;
  }
  return 0;
}

/** Where the text after its last line break starts (a newline, a return, or their JSON escape); -1 for none. */
function afterLastBreak(text: string, backslashLast: boolean): number {
  for (let at = text.length - 1; at >= 0; at--) {
    const ch = text.charCodeAt(at);
    if (ch === 10 || ch === 13) return at + 1;
    // `n` or `r` after a backslash: a JSON escape (a line of a file inside a call's arguments).
    if (ch !== 110 && ch !== 114) continue;
    if (at > 0 ? text.charCodeAt(at - 1) === BACKSLASH : backslashLast) return at + 1;
  }
  return -1;
}

/**
 * The loop the tail ends in, if any: its shortest unit, when that unit is 5 to 64 characters and runs
 * back to back often and long enough. `offset`: where the tail starts in the whole text.
 */
function loopAtEnd(tail: string, offset: number): UnitLoop | null {
  const n = tail.length;
  for (let unit = 1; unit <= MAX_UNIT; unit++) {
    const needed = Math.max(MIN_CHARS, MIN_TIMES * unit);
    if (needed > n) return null;
    // How many characters back the tail repeats itself `unit` characters earlier.
    let same = 0;
    while (
      same < needed - unit &&
      tail.charCodeAt(n - 1 - same) === tail.charCodeAt(n - 1 - same - unit)
    )
      same += 1;
    if (same < needed - unit) continue;
    // A shorter unit runs as far: rules, padding and byte runs are no loop (see MIN_UNIT).
    if (unit < MIN_UNIT) return null;
    while (
      n - 1 - same - unit >= 0 &&
      tail.charCodeAt(n - 1 - same) === tail.charCodeAt(n - 1 - same - unit)
    )
      same += 1;
    const start = n - same - unit;
    const times = Math.floor((same + unit) / unit);
    const what = JSON.stringify(tail.slice(start, start + unit));
    return {
      detail: `the same ${unit} characters (${what}) ${times} times back to back`,
      // The text before the loop and its unit once; the rest only repeats it.
      keepChars: offset + start + unit,
    };
  }
  return null;
}
