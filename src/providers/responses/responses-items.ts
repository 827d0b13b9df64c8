// A Responses API turn's output items: what each says (its text, reasoning, call id), and the items
// history needs back. With `store: false` a reasoning item can go back only with what it carries:
// its encrypted content (OpenAI's reasoning models), or its reasoning text (gpt-oss on local
// servers). One with neither refers to a stored item that does not exist, and is left out. Ids are
// dropped: with nothing stored they refer to nothing.
import { isObject } from "../turns/index.ts";

type Item = Record<string, unknown>;

export interface ItemCollector {
  /** An output item as the stream's `output_item.done` or a whole body gives it. */
  done(index: number, item: Item): void;
  /** The items in order when a reasoning item must go back with them; else null. */
  replay(): Item[] | null;
}

export function createItemCollector(): ItemCollector {
  const items = new Map<number, Item>();
  let reasoning = false;
  return {
    done(index, item) {
      if (item.type === "function_call") items.set(index, { type: "function_call" });
      else if (item.type === "message") {
        const text = outputText(item);
        if (text !== "")
          items.set(index, {
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text }],
          });
      } else if (item.type === "reasoning") {
        const kept = reasoningItem(item);
        if (kept) {
          items.set(index, kept);
          reasoning = true;
        }
      }
    },
    replay() {
      if (!reasoning) return null;
      return [...items.entries()].sort((a, b) => a[0] - b[0]).map(([, item]) => item);
    },
  };
}

function reasoningItem(item: Item): Item | null {
  const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : "";
  const content = Array.isArray(item.content)
    ? item.content.filter((part) => isObject(part) && typeof part.text === "string")
    : [];
  if (encrypted === "" && content.length === 0) return null;
  return {
    type: "reasoning",
    summary: Array.isArray(item.summary) ? item.summary : [],
    ...(content.length > 0 ? { content } : {}),
    ...(encrypted !== "" ? { encrypted_content: encrypted } : {}),
  };
}

/** The answer text of a message item: its `output_text` parts joined. */
export function outputText(item: Item): string {
  if (!Array.isArray(item.content)) return "";
  return item.content
    .filter(isObject)
    .map((part) => (part.type === "output_text" && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** The id a function call's output must name: `call_id` (the item's own `id` is another thing). */
export function callIdOf(item: Item): string | null {
  for (const key of ["call_id", "id"]) {
    const value = item[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}

export function refusalText(item: Item): string {
  if (!Array.isArray(item.content)) return "";
  return item.content
    .filter(isObject)
    .map((part) =>
      part.type === "refusal" && typeof part.refusal === "string" ? part.refusal : "",
    )
    .join("");
}

/** A reasoning item's words: its summaries, else its reasoning text. */
export function reasoningText(item: Item): string {
  for (const key of ["summary", "content"]) {
    const parts = item[key];
    if (!Array.isArray(parts)) continue;
    const text = parts
      .filter(isObject)
      .map((part) => (typeof part.text === "string" ? part.text : ""))
      .filter((t) => t !== "")
      .join("\n\n");
    if (text !== "") return text;
  }
  return "";
}
