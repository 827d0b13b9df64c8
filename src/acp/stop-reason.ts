// The prompt's answer, from nex's terminal event. A failure is a JSON-RPC error, never `end_turn`.
import type { StopReason } from "@agentclientprotocol/sdk";
import type { TerminalEvent, StopReason as TurnStopReason } from "../protocol/index.ts";

/** How one prompt ended, as ACP can say it. */
export type PromptEnd =
  | { type: "stop"; stopReason: StopReason }
  | { type: "error"; code: string; message: string };

/**
 * `lastStop` is the stop reason of the prompt's last model response. nex ends a cut or filtered
 * answer with an error (the task is not done); ACP has a word for each, so the editor can say why.
 */
export function promptEnd(
  terminal: TerminalEvent,
  lastStop: TurnStopReason | null,
  refused: boolean,
): PromptEnd {
  switch (terminal.type) {
    case "aborted":
      return { type: "stop", stopReason: "cancelled" };
    case "done":
      return { type: "stop", stopReason: refused ? "refusal" : "end_turn" };
    case "error":
      if (terminal.code === "turn_limit") return { type: "stop", stopReason: "max_turn_requests" };
      if (terminal.code === "invalid_response" && lastStop === "length")
        return { type: "stop", stopReason: "max_tokens" };
      if (terminal.code === "invalid_response" && lastStop === "content_filter")
        return { type: "stop", stopReason: "refusal" };
      return { type: "error", code: terminal.code, message: terminal.message };
  }
}
