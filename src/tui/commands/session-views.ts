// What /status and /export show: the session as the chat knows it, in words and as a markdown file.

import { formatCount, type Message } from "../../protocol/index.ts";
import { type Price, usageLine } from "../../runtime/config/index.ts";
import type { SessionInfo } from "../../runtime/session/index.ts";
import type { MeterState } from "../state/index.ts";

const WINDOW_SOURCES: Record<MeterState["windowSource"], string> = {
  config: "from the config file",
  registry: "from nex's model table",
  endpoint: "reported by the endpoint",
  error_body: "learned from the endpoint's error",
  default: "assumed (the endpoint did not say)",
};

const count = (n: number) => formatCount(n);

/** `/status`: model, endpoint, window and its source, context use, tokens, sandbox, session file (rows "name\ttext"). */
export function statusText(
  info: SessionInfo,
  meter: MeterState,
  mode: string,
  price: Price | null = null,
): string {
  const used =
    meter.contextTokens === null
      ? "no request yet"
      : `${count(meter.contextTokens)} tokens (${Math.round((100 * meter.contextTokens) / meter.contextWindow)}%)`;
  const sandbox = meter.sandbox ?? info.sandbox;
  return [
    `model\t${meter.model} (${info.provider}) at ${info.host}`,
    `window\t${count(meter.contextWindow)} tokens, ${WINDOW_SOURCES[meter.windowSource]}`,
    `context\t${used}`,
    `tokens\tthis chat: ${usageLine(meter.model, price, meter)}`,
    `permissions\t${mode}`,
    `commands\t${sandbox.line}`,
    ...(info.search ? [`search\t${info.search}`] : []),
    `workspace\t${info.workspace}`,
    `session\t${info.sessionId}`,
    `file\t${info.journalPath}`,
  ].join("\n");
}

/** `/export`: the conversation as a markdown transcript (tool results shortened). */
export function transcriptMarkdown(info: SessionInfo, history: readonly Message[]): string {
  const parts = [
    `# nex session ${info.sessionId}`,
    "",
    `Model ${info.model} at ${info.host} · workspace \`${info.workspace}\``,
  ];
  const fence = (text: string) => {
    const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
    return "`".repeat(longest + 1);
  };
  for (const message of history) {
    if (message.type === "user") parts.push("", "## You", "", message.text);
    else if (message.type === "assistant") {
      parts.push("", "## nex", "");
      if (message.text.trim()) parts.push(message.text.trim());
      for (const call of message.toolCalls) {
        const f = fence(call.argumentsText);
        parts.push("", `Tool call \`${call.name}\`:`, "", `${f}json`, call.argumentsText, f);
      }
    } else {
      const text =
        message.content.length > 2000
          ? `${message.content.slice(0, 2000)}\n… (${count(message.content.length - 2000)} more characters)`
          : message.content;
      const f = fence(text);
      parts.push("", `Result${message.isError ? " (error)" : ""}:`, "", f, text, f);
    }
  }
  return `${parts.join("\n")}\n`;
}
