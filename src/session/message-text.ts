import type { Message, ToolCall } from "../protocol/index.ts";
import { formatCount, parseJson } from "../protocol/index.ts";

/**
 * Messages as plain text for a summariser. Historical tool arguments are never quoted in part: a short
 * single-line scalar (a path, a command) is shown whole, anything longer is replaced whole by its size,
 * e.g. `[write_file path=src/a.ts, 12,345 bytes of content omitted]`, so no clipped content and no
 * marker can be copied back into a file. Long tool results keep only their first whole lines, followed
 * by a plain note of their size.
 */

/** Longest argument value shown whole; longer ones are described by their size. */
export const MAX_INLINE_ARGUMENT = 160;
/** Tool results up to this many bytes are shown whole. */
export const MAX_WHOLE_RESULT = 1200;
/** How many bytes of a long tool result's first lines are shown. */
export const RESULT_HEAD_BYTES = 400;

const bytes = (s: string): number => Buffer.byteLength(s, "utf8");
function inlineValue(value: unknown): string | null {
  if (typeof value === "number" || typeof value === "boolean" || value === null) {
    return String(value);
  }
  if (typeof value !== "string") return null;
  if (value.length > MAX_INLINE_ARGUMENT || /[\r\n]/.test(value)) return null;
  return /[\s,=[\]]/.test(value) || value === "" ? JSON.stringify(value) : value;
}

/** A tool call described without its long arguments. */
export function describeToolCall(call: ToolCall): string {
  let args: unknown;
  try {
    args = parseJson(call.argumentsText);
  } catch {
    return `[${call.name}: ${formatCount(bytes(call.argumentsText))} bytes of arguments omitted (not valid JSON)]`;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return `[${call.name}: ${formatCount(bytes(call.argumentsText))} bytes of arguments omitted]`;
  }
  const shown: string[] = [];
  const omitted: string[] = [];
  let otherBytes = 0;
  for (const [key, value] of Object.entries(args)) {
    const simpleKey = /^[\w.-]{1,40}$/.test(key);
    const inline = simpleKey ? inlineValue(value) : null;
    if (inline !== null) {
      shown.push(`${key}=${inline}`);
      continue;
    }
    const size = bytes(typeof value === "string" ? value : JSON.stringify(value));
    if (simpleKey) omitted.push(`${formatCount(size)} bytes of ${key} omitted`);
    else otherBytes += size;
  }
  if (otherBytes > 0) omitted.push(`${formatCount(otherBytes)} bytes of other arguments omitted`);
  const parts = [shown.join(" "), ...omitted].filter((p) => p.length > 0);
  return parts.length > 0 ? `[${call.name} ${parts.join(", ")}]` : `[${call.name}]`;
}

/** A tool result's content, whole when short, else its first whole lines and a note. */
export function describeToolResult(content: string): string {
  const size = bytes(content);
  if (size <= MAX_WHOLE_RESULT) return content;
  let head = "";
  let from = 0;
  while (from < content.length) {
    const nl = content.indexOf("\n", from);
    if (nl < 0) break;
    const next = content.slice(from, nl + 1);
    if (bytes(head) + bytes(next) > RESULT_HEAD_BYTES) break;
    head += next;
    from = nl + 1;
  }
  if (head.length === 0) return `[tool_result: ${formatCount(size)} bytes omitted]`;
  return `${head}[tool_result: ${formatCount(size)} bytes in total; only the first lines are shown above, the rest is omitted]`;
}

// The summariser sees that pictures were there, not their bytes.
function imagesNote(images: readonly { width: number; height: number }[] | undefined): string {
  if (!images || images.length === 0) return "";
  return `\n[${images.length} image(s) attached: ${images.map((i) => `${i.width}×${i.height}`).join(", ")}]`;
}

/** One message as a transcript block. */
export function renderMessage(message: Message): string {
  if (message.type === "user") return `[user]\n${message.text}${imagesNote(message.images)}`;
  if (message.type === "tool_result") {
    const status = message.isError ? " (error)" : "";
    return `[result of ${message.toolName}${status}]\n${describeToolResult(message.content)}${imagesNote(message.images)}`;
  }
  const calls = message.toolCalls.map(describeToolCall);
  return ["[assistant]", message.text, ...calls].filter((p) => p.length > 0).join("\n");
}
