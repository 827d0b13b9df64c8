// A running command's output as a UI shows it live: the last few lines, a count of lines and bytes,
// reported at most every quarter second and only when something new came. Bounded: only the end of
// the output is kept here (the whole of it is spooled to the results store as before).
import { StringDecoder } from "node:string_decoder";

const EVERY_MS = 250;
// Enough for the last lines of any sane output; a line longer than this shows its end.
const KEPT_CHARS = 2048;
const TAIL_LINES = 3;

/** Feeds chunks in; `report` gets the tail at most every quarter second; `stop` ends the reports. */
export function liveOutput(report: (tail: string, lines: number, bytes: number) => void): {
  see(chunk: Buffer): void;
  stop(): void;
} {
  // A character split between two chunks is decoded whole, never as two replacement marks.
  const decoder = new StringDecoder("utf8");
  let kept = "";
  let lines = 0;
  let bytes = 0;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const flush = () => {
    timer = null;
    if (stopped) return;
    const tail = kept.replace(/\n$/, "").split("\n").slice(-TAIL_LINES).join("\n");
    report(tail, lines, bytes);
  };
  return {
    see(chunk) {
      if (stopped) return;
      bytes += chunk.length;
      for (let at = chunk.indexOf(0x0a); at >= 0; at = chunk.indexOf(0x0a, at + 1)) lines += 1;
      kept += decoder.write(chunk);
      if (kept.length > KEPT_CHARS) {
        // Cut only at whitespace: a cut inside a word could leave the end of a secret that the
        // scrubber no longer recognises as one. A longer unbroken run is not shown at all.
        const rest = kept.slice(-KEPT_CHARS);
        const space = rest.search(/\s/);
        kept = space >= 0 ? rest.slice(space + 1) : "";
      }
      timer ??= setTimeout(flush, EVERY_MS);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
