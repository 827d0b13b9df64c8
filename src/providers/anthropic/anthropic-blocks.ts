// An Anthropic turn's content blocks as they came, for history. Thinking must go back with its
// signature unchanged (redacted thinking as it came) on tool-use turns, and server-side tool blocks
// (`server_tool_use`, `web_search_tool_result`, code execution, MCP, ...) belong to the server: they
// are never client tool calls, and a `pause_turn` is continued by sending them back as they came.
import { isObject } from "../turns/index.ts";

type Block = Record<string, unknown>;

/** Block types nex reads itself; every other type is the server's, kept as it came. */
const CLIENT_TYPES = new Set(["text", "tool_use"]);

export interface BlockCollector {
  /** A block started (streamed) or arrived whole; returns what kind of block it is for the reader. */
  start(index: number, block: Block): "text" | "tool_use" | "thinking" | "server";
  /** A delta of a block that is not a client tool call: returns new reasoning text, if any. */
  delta(index: number, delta: Block): string;
  stop(index: number): void;
  kindOf(index: number): "text" | "tool_use" | "thinking" | "server" | undefined;
  /** The blocks in order, when the turn holds any the server needs back; else null. */
  replay(): Block[] | null;
}

interface Entry {
  block: Block;
  kind: "text" | "tool_use" | "thinking" | "server";
  json: string[];
}

export function createBlockCollector(): BlockCollector {
  const entries = new Map<number, Entry>();
  return {
    start(index, block) {
      const type = typeof block.type === "string" ? block.type : "";
      const kind =
        type === "thinking" || type === "redacted_thinking"
          ? "thinking"
          : CLIENT_TYPES.has(type)
            ? (type as "text" | "tool_use")
            : "server";
      const copy: Block =
        kind === "tool_use"
          ? { type: "tool_use" }
          : kind === "text"
            ? { type: "text", text: "" }
            : { ...block };
      if (kind === "text" && typeof block.text === "string") copy.text = block.text;
      entries.set(index, { block: copy, kind, json: [] });
      return kind;
    },
    delta(index, delta) {
      const entry = entries.get(index);
      if (!entry) return "";
      const { block } = entry;
      if (delta.type === "text_delta" && typeof delta.text === "string") {
        block.text = `${typeof block.text === "string" ? block.text : ""}${delta.text}`;
      } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
        block.thinking = `${typeof block.thinking === "string" ? block.thinking : ""}${delta.thinking}`;
        return delta.thinking;
      } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
        block.signature = `${typeof block.signature === "string" ? block.signature : ""}${delta.signature}`;
      } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
        entry.json.push(delta.partial_json);
      }
      return "";
    },
    stop(index) {
      const entry = entries.get(index);
      if (entry?.kind !== "server" || entry.json.length === 0) return;
      const text = entry.json.join("");
      if (text.trim() === "") return;
      try {
        const input = JSON.parse(text) as unknown;
        if (isObject(input)) entry.block.input = input;
      } catch {
        // A server block is never run by nex; the server judges its own input.
        entry.block.input = {};
      }
    },
    kindOf(index) {
      return entries.get(index)?.kind;
    },
    replay() {
      const ordered = [...entries.entries()].sort((a, b) => a[0] - b[0]).map(([, e]) => e);
      if (!ordered.some((e) => e.kind === "thinking" || e.kind === "server")) return null;
      return ordered.filter((e) => e.kind !== "text" || e.block.text !== "").map((e) => e.block);
    },
  };
}

/** The text of a streamed thinking block's start (usually empty). */
export function startThinking(block: Block): string {
  return typeof block.thinking === "string" ? block.thinking : "";
}
