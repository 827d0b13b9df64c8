import { formatBytes } from "../../protocol/index.ts";
import { type ResultStore, storedNote } from "./result-store.ts";

/** The line put where output was cut. */
function cutNote(cut: number): string {
  return `\n[… ${formatBytes(cut)} cut from the middle of the output …]\n`;
}

/** Collects a stream of output keeping only its first and last bytes within a cap. */
export interface HeadTail {
  push(chunk: Buffer): void;
  /** Total bytes seen. */
  readonly total: number;
  /** The kept text, with a note of how many bytes were cut from the middle. */
  text(): string;
  /** The last bytes, for a UI's one-line view. */
  tail(bytes: number): string;
}

/** A head-and-tail collector keeping at most `cap` bytes (half head, half tail). */
export function headTail(cap: number): HeadTail {
  const headCap = Math.floor(cap / 2);
  const tailCap = cap - headCap;
  const head: Buffer[] = [];
  let headBytes = 0;
  let tailChunks: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;
  return {
    get total() {
      return total;
    },
    push(chunk) {
      total += chunk.length;
      let rest = chunk;
      if (headBytes < headCap) {
        const take = rest.subarray(0, headCap - headBytes);
        head.push(take);
        headBytes += take.length;
        rest = rest.subarray(take.length);
      }
      if (rest.length === 0) return;
      tailChunks.push(rest);
      tailBytes += rest.length;
      if (tailBytes > tailCap * 2) {
        const joined = Buffer.concat(tailChunks).subarray(-tailCap);
        tailChunks = [joined];
        tailBytes = joined.length;
      }
    },
    text() {
      const headText = Buffer.concat(head).toString("utf8");
      const tail = Buffer.concat(tailChunks);
      if (total <= cap) return headText + tail.toString("utf8");
      const kept = tail.subarray(-tailCap);
      return headText + cutNote(total - headBytes - kept.length) + kept.toString("utf8");
    },
    tail(bytes) {
      const all = Buffer.concat([...head, ...tailChunks]);
      return all.subarray(-bytes).toString("utf8");
    },
  };
}

/** Cuts text to at most `cap` UTF-8 bytes, keeping its head and tail and saying how much was cut. */
function capText(text: string, cap: number): { text: string; cut: number } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= cap) return { text, cut: 0 };
  const collector = headTail(cap);
  collector.push(bytes);
  return { text: collector.text(), cut: bytes.length - cap };
}

/** Newlines in a text, counted without splitting it. */
function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count += 1;
  return text.endsWith("\n") || text.length === 0 ? count : count + 1;
}

/**
 * Fits a result to `cap` bytes without losing it: a larger one is stored whole and the model gets its
 * head and tail with where it is and how to page it. When it cannot be stored, the middle is cut and
 * the result says why.
 */
export function fitResult(
  text: string,
  cap: number,
  store: ResultStore,
  label: string,
): { text: string; cut: number } {
  const size = Buffer.byteLength(text, "utf8");
  if (size <= cap) return { text, cut: 0 };
  try {
    const stored = store.save(text, label);
    const note = storedNote(stored, lineCount(text));
    const kept = capText(text, Math.max(512, cap - Buffer.byteLength(note) - 120));
    return { text: `${note}\n${kept.text}`, cut: kept.cut };
  } catch (error) {
    const kept = capText(text, Math.max(512, cap - 200));
    return {
      text: `${kept.text}\n[The full result could not be stored (${(error as Error).message}); its middle is lost.]`,
      cut: kept.cut,
    };
  }
}

/**
 * The most bytes one result may put into a conversation with a window of `windowTokens`: a tenth of
 * the window at about 3.5 bytes a token, at least 2 KiB, at most 64 KiB. More is stored and paged.
 */
export function resultCapForWindow(windowTokens: number): number {
  return Math.round(Math.min(64 * 1024, Math.max(2048, windowTokens * 0.1 * 3.5)));
}
