// Keys typed while `nex chat` starts, before it takes the terminal out of line mode, are held by the
// terminal as lines, and its line mode turned each Enter into a line feed. They come as the first
// input the chat reads. In the chat itself Enter is a carriage return and a line feed is Ctrl-J,
// which starts a new line in the draft: read as typed, "fix the bug⏎" typed ahead would sit in the
// draft with a new line after it instead of being sent.
import type { Key } from "ink";

/** The first input the chat reads, its line feeds read as the Enters they were, if it held lines. */
export function typedAhead(input: string, key: Key): { input: string; key: Key } {
  if (!input.endsWith("\n") || input.includes("\r") || input.startsWith("\x1b"))
    return { input, key };
  const enters = input.replaceAll("\n", "\r");
  return enters === "\r"
    ? { input: enters, key: { ...key, return: true } }
    : { input: enters, key };
}
