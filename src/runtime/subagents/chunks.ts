import { closeSync, openSync, readSync, statSync } from "node:fs";

/**
 * Cuts text into pieces of at most `maxBytes` UTF-8 bytes, at a paragraph break when one lies in the
 * second half of a piece, else at a line end; only a single line longer than a piece is cut inside.
 */
export function cutIntoChunks(text: string, maxBytes: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let size = 0;
  let lastBreak = -1;
  const flush = (upTo: number) => {
    chunks.push(current.slice(0, upTo).join(""));
    current = current.slice(upTo);
    size = current.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
    lastBreak = -1;
  };
  for (const line of text.split(/(?<=\n)/)) {
    const bytes = Buffer.byteLength(line);
    if (bytes > maxBytes) {
      if (current.length > 0) flush(current.length);
      for (const piece of cutLine(line, maxBytes)) chunks.push(piece);
      continue;
    }
    if (size + bytes > maxBytes) {
      const cutAt = lastBreak > current.length / 2 ? lastBreak + 1 : current.length;
      flush(cutAt);
    }
    current.push(line);
    size += bytes;
    if (line.trim() === "") lastBreak = current.length - 1;
  }
  if (current.length > 0) flush(current.length);
  return chunks.filter((chunk) => chunk.length > 0);
}

function cutLine(line: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  // Characters are at most 4 bytes: a quarter of the bytes in characters always fits.
  const step = Math.max(1, Math.floor(maxBytes / 4));
  for (let i = 0; i < line.length; i += step) pieces.push(line.slice(i, i + step));
  return pieces;
}

/** The first `limit` bytes of a file as text, with its whole size; refuses what is not text. */
export function readTextPrefix(
  path: string,
  limit: number,
):
  | { type: "text"; text: string; size: number; complete: boolean }
  | { type: "binary"; size: number } {
  const size = statSync(path).size;
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(Math.min(size, limit));
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, read);
      if (got === 0) break;
      read += got;
    }
    const bytes = buffer.subarray(0, read);
    if (bytes.subarray(0, 8192).includes(0)) return { type: "binary", size };
    // A character cut at the limit is dropped, not shown as a replacement mark.
    const text = bytes.toString("utf8").replace(/\uFFFD$/, "");
    return { type: "text", text, size, complete: read >= size };
  } finally {
    closeSync(fd);
  }
}
