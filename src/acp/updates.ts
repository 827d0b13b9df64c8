// Small pieces of `session/update`s shared by the live stream and the replay of a loaded session.
import type { ContentBlock, ToolCallContent } from "@agentclientprotocol/sdk";

/** A tool result is shown up to this size; the model saw it whole (or paged), the editor a glimpse. */
const RESULT_SHOWN = 16 * 1024;

export function textBlock(text: string): ContentBlock {
  return { type: "text", text };
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: textBlock(text) };
}

/** A tool result as the editor shows it: whole up to a size, then cut with a note. */
export function shown(text: string): string {
  return text.length > RESULT_SHOWN
    ? `${text.slice(0, RESULT_SHOWN)}\n… (${text.length - RESULT_SHOWN} more characters; the model saw them)`
    : text;
}

/** The 1-based line where `after` first differs from `before`; null when they are the same. */
export function firstChangedLine(before: string, after: string): number | null {
  if (before === after) return null;
  const a = before.split("\n");
  const b = after.split("\n");
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line++;
  return line + 1;
}
