/** A line break style. */
export type LineEnding = "\n" | "\r\n";

const BOM = "\uFEFF";

/** The style most of a text's line breaks use, or null when it has none. */
export function dominantLineEnding(text: string): LineEnding | null {
  let crlf = 0;
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf += 1;
    else lf += 1;
  }
  if (crlf + lf === 0) return null;
  return crlf > lf ? "\r\n" : "\n";
}

/** Every line break of `text` written as `ending`. */
export function withLineEnding(text: string, ending: LineEnding): string {
  return text.replace(/\r?\n/g, ending);
}

/** Whether every line break of `text` is `ending` (vacuously true without any). */
function uniformly(text: string, ending: LineEnding): boolean {
  const other = ending === "\n" ? /\r\n/ : /(^|[^\r])\n/;
  return !other.test(text);
}

/** New text as the file it replaces keeps it, and what was kept, for the result. */
export interface Conformed {
  text: string;
  /** E.g. ["CRLF line endings", "byte order mark"]; empty when the text was left as sent. */
  kept: string[];
}

/**
 * Gives new content the conventions of the file it replaces, as an editor does on save: the file's
 * dominant line-break style (the model writes LF; a CRLF file stays CRLF) and its UTF-8 byte order
 * mark. Content whose own line breaks are mixed is left as sent: that is deliberate.
 */
export function conformToFile(oldText: string | null, newText: string): Conformed {
  if (oldText === null) return { text: newText, kept: [] };
  const kept: string[] = [];
  let text = newText;
  const ending = dominantLineEnding(oldText);
  const sent = dominantLineEnding(text);
  if (ending !== null && sent !== null && sent !== ending && uniformly(text, sent)) {
    text = withLineEnding(text, ending);
    kept.push(`${ending === "\r\n" ? "CRLF" : "LF"} line endings`);
  }
  if (oldText.startsWith(BOM) && !text.startsWith(BOM)) {
    text = `${BOM}${text}`;
    kept.push("byte order mark");
  }
  return { text, kept };
}

/** `, keeping its CRLF line endings and byte order mark` or "". */
export function describeKept(kept: string[]): string {
  return kept.length === 0 ? "" : `, keeping its ${kept.join(" and ")}`;
}
