// The JavaScript search of one file, line by line as ripgrep numbers lines. Shared by the search on
// the event loop and the worker that runs patterns V8 cannot run in linear time.
import { isUtf8 } from "node:buffer";
import { readFile } from "node:fs/promises";
import { reasonOf } from "./file-walk.ts";

/** What one file gave: its matching lines, or that it is binary with a match, or why it was not read. */
export type FileMatches =
  | { type: "lines"; lines: { line: number; text: string }[] }
  | { type: "binary" }
  | { type: "unreadable"; reason: string };

/** The lines of a file's text as ripgrep numbers them: a final line break ends the last line. */
export function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

// The second byte's range after each lead byte of a well-formed UTF-8 sequence (Unicode table 3-7).
function sequence(lead: number): { length: number; low: number; high: number } | null {
  if (lead >= 0xc2 && lead <= 0xdf) return { length: 2, low: 0x80, high: 0xbf };
  if (lead === 0xe0) return { length: 3, low: 0xa0, high: 0xbf };
  if (lead === 0xed) return { length: 3, low: 0x80, high: 0x9f };
  if (lead >= 0xe1 && lead <= 0xef) return { length: 3, low: 0x80, high: 0xbf };
  if (lead === 0xf0) return { length: 4, low: 0x90, high: 0xbf };
  if (lead === 0xf4) return { length: 4, low: 0x80, high: 0x8f };
  if (lead >= 0xf1 && lead <= 0xf3) return { length: 4, low: 0x80, high: 0xbf };
  return null;
}

/**
 * The text of bytes that are not all UTF-8: each byte outside a well-formed sequence becomes the lone
 * surrogate U+DC80+byte, which the search's patterns never match (as Rust's regex never matches an
 * invalid byte) and `shownLine` turns back into the bytes.
 */
export function textOf(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString("utf8");
  let out = "";
  let from = 0;
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i += 1;
      continue;
    }
    const seq = sequence(lead);
    let ok = seq !== null && i + seq.length <= bytes.length;
    if (seq && ok) {
      const second = bytes[i + 1] as number;
      ok = second >= seq.low && second <= seq.high;
      for (let k = 2; ok && k < seq.length; k += 1) {
        const next = bytes[i + k] as number;
        ok = next >= 0x80 && next <= 0xbf;
      }
    }
    if (seq && ok) {
      i += seq.length;
      continue;
    }
    out += `${bytes.toString("utf8", from, i)}${String.fromCharCode(0xdc00 + lead)}`;
    i += 1;
    from = i;
  }
  return out + bytes.toString("utf8", from);
}

/** A line as ripgrep shows it: bytes that are not UTF-8 as U+FFFD, the same way. */
export function shownLine(line: string): string {
  if (!/[\uDC80-\uDCFF]/.test(line)) return line;
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < line.length; i += 1) {
    const unit = line.charCodeAt(i);
    // A lone low surrogate here is always a byte put there by textOf: decoded text has none.
    if (unit >= 0xdc80 && unit <= 0xdcff && !(i > 0 && /[\uD800-\uDBFF]/.test(line[i - 1] ?? ""))) {
      parts.push(Buffer.from(line.slice(from, i)), Buffer.from([unit - 0xdc00]));
      from = i + 1;
    }
  }
  parts.push(Buffer.from(line.slice(from)));
  return Buffer.concat(parts).toString("utf8");
}

/** Searches one file (absolute path); a file with a NUL byte is binary and shows no lines. */
export async function searchFile(abs: string, regex: RegExp): Promise<FileMatches> {
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
  } catch (error) {
    return { type: "unreadable", reason: reasonOf(error) };
  }
  const lines = linesOf(textOf(bytes));
  if (bytes.includes(0))
    return lines.some((line) => regex.test(line))
      ? { type: "binary" }
      : { type: "lines", lines: [] };
  const found: { line: number; text: string }[] = [];
  for (let n = 0; n < lines.length; n += 1)
    if (regex.test(lines[n] as string))
      found.push({ line: n + 1, text: shownLine(lines[n] as string) });
  return { type: "lines", lines: found };
}
