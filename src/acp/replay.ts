// A loaded session's conversation as the updates an editor would have seen live.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { Message } from "../protocol/index.ts";
import { kindOf, locationsOf, parseArguments, titleOf } from "./tool-calls.ts";
import { shown, textBlock, textContent } from "./updates.ts";

export function replayUpdates(messages: readonly Message[], workspace: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  for (const message of messages) {
    switch (message.type) {
      case "user":
        updates.push({ sessionUpdate: "user_message_chunk", content: textBlock(message.text) });
        break;
      case "assistant":
        if (message.text)
          updates.push({ sessionUpdate: "agent_message_chunk", content: textBlock(message.text) });
        for (const call of message.toolCalls) {
          const args = parseArguments(call.argumentsText);
          updates.push({
            sessionUpdate: "tool_call",
            toolCallId: call.id,
            title: titleOf(call.name, args),
            kind: kindOf(call.name),
            status: "pending",
            locations: locationsOf(call.name, args, workspace),
            rawInput: args,
          });
        }
        break;
      case "tool_result":
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: message.toolCallId,
          status: message.isError ? "failed" : "completed",
          content: [textContent(shown(message.content))],
        });
        break;
    }
  }
  return updates;
}
