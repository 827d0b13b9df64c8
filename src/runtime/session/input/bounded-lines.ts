// Lines of input that another party writes (stream-json on stdin, an `--inbox` file, an editor's
// ACP messages), read with bounded memory: a line longer than the cap is never held whole. Its
// bytes are dropped as they arrive, up to its newline, it is reported with its number, and the
// lines after it are read as usual, so one bad line loses nothing that was valid.

/** Most bytes of one input line: a message with a few images fits, a runaway stream does not. */
export const MAX_INPUT_LINE_BYTES = 16 * 1024 * 1024;

/** A line as read: its text (without `\n` or `\r\n`) and its number, counted from 1. */
export interface InputLine {
  text: string;
  number: number;
}

/** Called for a line over the cap: its number and how many bytes it had. */
export type OnTooLong = (number: number, bytes: number) => void;

/** Splits bytes into lines as they come, keeping at most `max` bytes of an unfinished line. */
export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  /** Bytes of an over-long line dropped so far; -1 while the current line is within the cap. */
  private dropped = -1;
  private count = 0;
  private readonly max: number;
  private readonly onTooLong: OnTooLong;

  constructor(onTooLong: OnTooLong, max = MAX_INPUT_LINE_BYTES) {
    this.onTooLong = onTooLong;
    this.max = max;
  }

  /** Lines read so far (over-long ones included): the number of the last one. */
  get lines(): number {
    return this.count;
  }

  /** Starts numbering after `lines` lines (a file already that long when reading began). */
  skipTo(lines: number): void {
    this.count = lines;
  }

  /** The complete lines `chunk` finishes. */
  push(chunk: Buffer | string): InputLine[] {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    const out: InputLine[] = [];
    let start = 0;
    for (let end = bytes.indexOf(10); end !== -1; end = bytes.indexOf(10, start)) {
      this.take(bytes.subarray(start, end));
      const line = this.finish();
      if (line) out.push(line);
      start = end + 1;
    }
    if (start < bytes.length) this.take(bytes.subarray(start));
    return out;
  }

  /** The last line, when the input ended without a newline. */
  end(): InputLine[] {
    if (this.held === 0 && this.dropped < 0) return [];
    const line = this.finish();
    return line ? [line] : [];
  }

  /** Forgets an unfinished line (the file it came from was replaced). */
  reset(): void {
    this.parts = [];
    this.held = 0;
    this.dropped = -1;
  }

  private take(piece: Buffer): void {
    if (this.dropped >= 0) {
      this.dropped += piece.length;
      return;
    }
    if (this.held + piece.length > this.max) {
      this.dropped = this.held + piece.length;
      this.parts = [];
      this.held = 0;
      return;
    }
    // A copy: the caller's buffer may be reused for the next read.
    this.parts.push(Buffer.from(piece));
    this.held += piece.length;
  }

  private finish(): InputLine | null {
    this.count += 1;
    if (this.dropped >= 0) {
      this.onTooLong(this.count, this.dropped);
      this.dropped = -1;
      return null;
    }
    const text = Buffer.concat(this.parts, this.held).toString("utf8").replace(/\r$/, "");
    this.parts = [];
    this.held = 0;
    return { text, number: this.count };
  }
}

/** The lines of a stream (stdin), each at most `max` bytes; longer ones reported and skipped. */
export async function* boundedLines(
  input: AsyncIterable<Buffer | string>,
  onTooLong: OnTooLong,
  max = MAX_INPUT_LINE_BYTES,
): AsyncGenerator<InputLine> {
  const splitter = new LineSplitter(onTooLong, max);
  try {
    for await (const chunk of input) yield* splitter.push(chunk);
  } catch (error) {
    // The reader destroyed its own input (it stopped early): the lines simply end.
    if ((error as { code?: string }).code === "ERR_STREAM_PREMATURE_CLOSE") return;
    throw error;
  }
  yield* splitter.end();
}

/**
 * All of a stream (a task piped to stdin), or null as soon as it passes `max` bytes: the reading
 * stops there, and the rest is never held.
 */
export async function readBounded(
  input: AsyncIterable<Buffer | string> & { destroy?: () => void },
  max = MAX_INPUT_LINE_BYTES,
): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    size += bytes.length;
    if (size > max) {
      input.destroy?.();
      return null;
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

/** The cap in words, for messages. */
export function inputLineCap(max = MAX_INPUT_LINE_BYTES): string {
  return `${max / 1024 / 1024} MiB`;
}
