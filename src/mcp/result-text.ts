import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/**
 * A tool result as text the model can read: text blocks as they are, images and audio described
 * (the model gets no pixels), embedded resources with their URI (text whole, binary described),
 * resource links named, and structured content as JSON when no text block already carries it.
 */
export function resultText(result: CallToolResult): string {
  const parts: string[] = [];
  for (const block of result.content ?? []) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
      case "audio":
        parts.push(
          `[${block.type}: ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}; not shown: nex passes no ${block.type} to the model]`,
        );
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource && typeof resource.text === "string")
          parts.push(
            `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}]\n${resource.text}`,
          );
        else
          parts.push(
            `[resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ""}: ${formatBytes(base64Bytes(String((resource as { blob?: string }).blob ?? "")))} of binary data, not shown]`,
          );
        break;
      }
      case "resource_link":
        parts.push(
          `[resource link ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.mimeType ? ` (${block.mimeType})` : ""}${block.description ? `: ${block.description}` : ""}]`,
        );
        break;
      default:
        parts.push(`[content of type ${JSON.stringify((block as { type: string }).type)}]`);
    }
  }
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    const carried = parts.some((part) => {
      try {
        return JSON.stringify(JSON.parse(part)) === json;
      } catch {
        return false;
      }
    });
    if (!carried)
      parts.push(`Structured result:\n${JSON.stringify(result.structuredContent, null, 2)}`);
  }
  return parts.join("\n");
}

function base64Bytes(data: string): number {
  const clean = data.replace(/[^A-Za-z0-9+/_-]/g, "");
  return Math.floor((clean.length * 3) / 4);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
