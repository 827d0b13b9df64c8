import type { FileHandle } from "node:fs/promises";

/** Counts the bytes a reader fetched from disk, so callers (and tests) can see what a load cost. */
export interface ReadCounter {
  bytesRead: number;
}

/** One line read from the end of a file. */
export interface TailLine {
  /** The line's bytes, without its newline. */
  bytes: Buffer;
  /** Byte offset of the line's start. */
  offset: number;
  /** 1 for the last line of the file, 2 for the one before, ... (blank lines are not counted). */
  fromEnd: number;
  /** False only for a last line with no newline after it: a write that a crash may have torn. */
  terminated: boolean;
}

/** Options of a backward read. */
export interface BackwardOptions {
  /** Bytes to read; the file's size at open. */
  size: number;
  /** Offset where reading stops (e.g. the end of the header line, already read). */
  stopAt?: number;
  blockSize?: number;
  counter?: ReadCounter;
}

const DEFAULT_BLOCK = 64 * 1024;

/**
 * Yields a file's lines from the last to the first, reading fixed-size blocks at decreasing positions.
 * Only the blocks needed for the lines consumed are read, so a caller that stops early pays for what it
 * used. A line longer than a block is assembled from its pieces once, not by repeated concatenation.
 */
export async function* readLinesBackward(
  handle: FileHandle,
  options: BackwardOptions,
): AsyncGenerator<TailLine> {
  const stopAt = options.stopAt ?? 0;
  const blockSize = options.blockSize ?? DEFAULT_BLOCK;
  let pos = options.size;
  let pending: Buffer[] = [];
  let fromEnd = 0;
  let atEnd = true;

  const emit = (pieces: Buffer[], offset: number): TailLine | null => {
    const bytes = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
    const terminated = !atEnd;
    atEnd = false;
    if (bytes.length === 0) return null;
    fromEnd += 1;
    return { bytes, offset, fromEnd, terminated };
  };

  while (pos > stopAt) {
    const length = Math.min(blockSize, pos - stopAt);
    pos -= length;
    const block = Buffer.allocUnsafe(length);
    let got = 0;
    while (got < length) {
      const { bytesRead } = await handle.read(block, got, length - got, pos + got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    if (options.counter) options.counter.bytesRead += got;
    let end = got;
    while (end > 0) {
      const nl = block.lastIndexOf(0x0a, end - 1);
      if (nl < 0) break;
      pending.push(block.subarray(nl + 1, end));
      const line = emit(pending.reverse(), pos + nl + 1);
      pending = [];
      if (line) yield line;
      end = nl;
    }
    if (end > 0) pending.push(block.subarray(0, end));
  }
  const first = emit(pending.reverse(), stopAt);
  if (first) yield first;
}

/** The first line of a file (without its newline) and the offset just after it. */
export async function readFirstLine(
  handle: FileHandle,
  options: { size: number; counter?: ReadCounter; maxBytes?: number },
): Promise<{ bytes: Buffer; end: number; terminated: boolean }> {
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const pieces: Buffer[] = [];
  let pos = 0;
  while (pos < options.size && pos < maxBytes) {
    const length = Math.min(4096, options.size - pos);
    const block = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(block, 0, length, pos);
    if (bytesRead === 0) break;
    if (options.counter) options.counter.bytesRead += bytesRead;
    const nl = block.subarray(0, bytesRead).indexOf(0x0a);
    if (nl >= 0) {
      pieces.push(block.subarray(0, nl));
      return { bytes: Buffer.concat(pieces), end: pos + nl + 1, terminated: true };
    }
    pieces.push(block.subarray(0, bytesRead));
    pos += bytesRead;
  }
  return { bytes: Buffer.concat(pieces), end: pos, terminated: false };
}
