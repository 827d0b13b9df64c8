// Anthropic prompt caching: `cache_control` breakpoints where a long session's prompt stays the same
// from one request to the next. Anthropic caches the prefix up to a breakpoint (tools, then system,
// then messages) and allows four; nex sets at most three: the end of the stable prefix (system, or
// the tools when there is no system), the end of the conversation (so the next request reads it),
// and the end of the user turn before it (what the previous request wrote, found again when a
// turn added more than Anthropic's 20-block look-back). The marker is not part of the cached content:
// moving it does not change the prefix.

/** The marker, as JSON, for the end of a block object's JSON. */
const MARK = ',"cache_control":{"type":"ephemeral"}';

// Blocks a breakpoint may sit on; thinking blocks may not carry one.
const CACHEABLE = new Set(["text", "image", "document", "tool_use", "tool_result"]);

/** A block's JSON with the breakpoint added. */
export function markJson(json: string): string {
  return `${json.slice(0, -1)}${MARK}}`;
}

/** A block object with the breakpoint added. */
export function markBlock(block: Record<string, unknown>): Record<string, unknown> {
  return { ...block, cache_control: { type: "ephemeral" } };
}

function blockType(json: string): string {
  const head = /^\{"type":"([a-z_]+)"/.exec(json);
  if (head) return head[1] as string;
  try {
    const parsed = JSON.parse(json) as { type?: unknown };
    return typeof parsed.type === "string" ? parsed.type : "";
  } catch {
    return "";
  }
}

/**
 * Where the conversation's breakpoints go, as `[message, block]` positions: the last cacheable block
 * of the last message, and of the last user message before the last assistant message.
 */
export function conversationBreakpoints(
  messages: readonly { role: string; blocks: readonly string[] }[],
): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const lastIn = (index: number) => {
    const blocks = messages[index]?.blocks ?? [];
    for (let b = blocks.length - 1; b >= 0; b--) {
      if (CACHEABLE.has(blockType(blocks[b] as string))) return out.push([index, b]);
    }
    return 0;
  };
  const last = messages.length - 1;
  if (last < 0) return out;
  lastIn(last);
  let previous = last - 1;
  while (previous >= 0 && messages[previous]?.role !== "assistant") previous--;
  while (previous >= 0 && messages[previous]?.role !== "user") previous--;
  if (previous >= 0) lastIn(previous);
  return out;
}
