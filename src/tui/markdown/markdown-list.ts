// Lists as the chat shows them: nested lists indented under their item's text, task boxes once,
// and each item's text wrapped here at the width with a hanging indent, measured as Ink measures
// (wrap-ansi is Ink's own wrapper), so a wrapped line never lands under the bullet and a line of CJK
// text (no spaces to break at) never leaves its bullet alone on a row.
import type { Token, Tokens } from "marked";
import wrapAnsi from "wrap-ansi";
import { textWidth } from "../fit.ts";
import { resolveSoftBreaks } from "./soft-breaks.ts";

/** What a list needs of marked's parser. */
export interface ListParser {
  parse(tokens: Token[]): string;
  parseInline(tokens: Token[]): string;
}

/** Renders lists; one per width, as it keeps the indentation of the list being rendered. */
export function listRenderer(width: number): (parser: ListParser, list: Tokens.List) => string {
  const indents: string[] = [];
  return (parser, list) => {
    const outer = indents.at(-1) ?? "  ";
    const start = typeof list.start === "number" ? list.start : 1;
    const items = list.items.map((item, i) => {
      const marker = list.ordered ? `${start + i}. ` : "* ";
      const box = item.task ? (item.checked ? "[x] " : "[ ] ") : "";
      const hang = " ".repeat(textWidth(outer + marker));
      const room = Math.max(8, width - textWidth(outer + marker + box));
      const text = item.tokens
        .filter((token) => token.type !== "checkbox" && token.type !== "list")
        .map((token) =>
          token.type === "text" && "tokens" in token && token.tokens
            ? parser.parseInline(token.tokens)
            : parser.parse([token]),
        )
        .join("\n")
        .trim();
      const flowing = resolveSoftBreaks(text, room, "\n").replace(/\r/g, "\n");
      const rows = wrapAnsi(flowing, room, { hard: true, trim: true }).split("\n");
      const lines = rows.map(
        (row, j) => (j === 0 ? outer + marker + box : hang + box.replace(/./g, " ")) + row,
      );
      indents.push(hang);
      try {
        const nested = item.tokens
          .filter((token) => token.type === "list")
          .map((token) => parser.parse([token]).replace(/\n+$/, ""));
        return [...lines, ...nested].join("\n");
      } finally {
        indents.pop();
      }
    });
    return `${items.join(list.loose ? "\n\n" : "\n")}${indents.length === 0 ? "\n\n" : "\n"}`;
  };
}
