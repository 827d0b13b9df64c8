// Code in an answer keeps its lines: one longer than the width is cut into rows of the width, each
// continuation marked and indented, where the terminal would have wrapped it to column 0.
import { hardWrap } from "../fit.ts";

/** `code` with every line cut to `width` columns; a continuation row starts with "↪ ". */
export function wrapCode(code: string, width: number): string {
  const room = Math.max(8, width);
  return code
    .split("\n")
    .map((line) => {
      const [first = "", ...rest] = hardWrap(line, room);
      if (rest.length === 0) return first;
      const indent = /^\s*/.exec(first)?.[0] ?? "";
      const tail = hardWrap(rest.join(""), Math.max(4, room - indent.length - 2));
      return [first, ...tail.map((row) => `${indent}↪ ${row}`)].join("\n");
    })
    .join("\n");
}
