// The JavaScript search of one file, line by line as ripgrep numbers lines. Shared by the search on
// the event loop and the worker that runs patterns V8 cannot run in linear time.
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

/** Searches one file (absolute path); a file with a NUL byte is binary and shows no lines. */
export async function searchFile(abs: string, regex: RegExp): Promise<FileMatches> {
  let bytes: Buffer;
  try {
    bytes = await readFile(abs);
  } catch (error) {
    return { type: "unreadable", reason: reasonOf(error) };
  }
  const lines = linesOf(bytes.toString("utf8"));
  if (bytes.includes(0))
    return lines.some((line) => regex.test(line))
      ? { type: "binary" }
      : { type: "lines", lines: [] };
  const found: { line: number; text: string }[] = [];
  for (let n = 0; n < lines.length; n += 1)
    if (regex.test(lines[n] as string)) found.push({ line: n + 1, text: lines[n] as string });
  return { type: "lines", lines: found };
}
