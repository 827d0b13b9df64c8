// An editor's prompt (text, links to files, files it embedded) as the one text nex's session takes.
import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

/** The prompt as text, or why nex cannot take it (the editor shows the message). */
export type PromptText = { type: "text"; text: string } | { type: "unsupported"; message: string };

/** Where a resource lives, shown as a path for `file:` URIs. */
function placeOf(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

/**
 * Text stays text. A link is named, not read here: the model reads it with its tools, so the read
 * goes through the workspace guard and counts for read-before-write. An embedded text resource is
 * the editor's current content of that file (perhaps unsaved), so it is passed whole, fenced.
 */
export function promptText(blocks: readonly ContentBlock[]): PromptText {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "resource_link":
        parts.push(`[The user attached ${placeOf(block.uri)}; read it if you need its content.]`);
        break;
      case "resource": {
        const resource = block.resource;
        if (!("text" in resource)) {
          return {
            type: "unsupported",
            message: `nex takes text only; ${placeOf(resource.uri)} was attached as binary data. Attach it as a link or as text.`,
          };
        }
        const fence = resource.text.includes("```") ? "~~~~" : "```";
        parts.push(
          `[The user attached ${placeOf(resource.uri)} as the editor shows it now:]\n${fence}\n${resource.text}\n${fence}`,
        );
        break;
      }
      default:
        return {
          type: "unsupported",
          message: `nex takes text, links and text files; this prompt has ${block.type} content, which it does not read. Remove it and send the prompt again.`,
        };
    }
  }
  const text = parts.join("\n\n");
  if (!text.trim())
    return { type: "unsupported", message: "The prompt is empty; write what nex should do." };
  return { type: "text", text };
}
