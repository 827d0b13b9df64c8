// A model's single line breaks. A paragraph whose lines are all of a like length (prose the model
// wrapped at its own width) flows to the terminal's width once a line is wider than it: kept, each
// line would show as a long row and a short remainder. Lines laid out by hand (a list of short lines,
// one long line then short ones) keep their breaks.
import { textWidth } from "../fit.ts";

/** What the `br` renderer writes for a single newline, until the paragraph decides. */
export const SOFT_BREAK = "\u000e";

// biome-ignore lint/suspicious/noControlCharactersInRegex: the marker and marked-terminal's hard return
const lineEnds = /[\u000e\r\n]/;

/** `text` with its soft breaks as spaces when it is prose wrapped wider than `width`, else as `hard`. */
export function resolveSoftBreaks(text: string, width: number, hard: string): string {
  if (!text.includes(SOFT_BREAK)) return text;
  // textWidth counts no colour code.
  const widths = text.split(lineEnds).map((line) => textWidth(line));
  const widest = Math.max(...widths);
  const prose = widths.slice(0, -1).every((w) => w * 2 >= widest);
  return text.split(SOFT_BREAK).join(widest > width && prose ? " " : hard);
}
