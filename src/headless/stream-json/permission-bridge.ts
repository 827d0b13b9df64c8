import { isDeepStrictEqual } from "node:util";
import type { AgentEvent, PermissionAnswer } from "../../protocol/index.ts";
import type { AgentSession } from "../../runtime/session/index.ts";
import type { StreamLine } from "./envelope.ts";

/**
 * Asks the orchestrator about each action that needs approval (`can_use_tool` control requests) and
 * gives its answer to the session. Used only when the orchestrator declared it answers
 * (`--permission-prompt-tool stdio`); otherwise headless nex refuses such actions itself.
 */
export function createPermissionBridge(session: AgentSession, write: (line: StreamLine) => void) {
  const inputs = new Map<string, Record<string, unknown>>();
  const waiting = new Map<string, { callId: string; input: Record<string, unknown> }>();
  let counter = 0;
  const unsubscribe = session.subscribe((event: AgentEvent) => {
    if (event.type === "message_added" && event.message.type === "assistant") {
      for (const call of event.message.toolCalls)
        inputs.set(call.id, parseObject(call.argumentsText));
    } else if (event.type === "permission_requested") {
      counter += 1;
      const requestId = `nex_permission_${counter}`;
      const input = inputs.get(event.callId) ?? {};
      waiting.set(requestId, { callId: event.callId, input });
      write({
        type: "control_request",
        request_id: requestId,
        request: {
          subtype: "can_use_tool",
          tool_name: event.name,
          input,
          tool_use_id: event.callId,
          description: event.summary,
          title: event.summary,
        },
      });
    }
  });
  return {
    /** True when the response answered one of this bridge's questions (and was given to the session). */
    answer(
      requestId: string,
      ok: boolean,
      response: Record<string, unknown>,
      error: string,
    ): boolean {
      const asked = waiting.get(requestId);
      if (!asked) return false;
      waiting.delete(requestId);
      const answer = ok
        ? toAnswer(response, asked.input)
        : {
            type: "deny" as const,
            reason: `the orchestrator could not answer: ${error || "no reason given"}`,
          };
      session.answerPermission(asked.callId, answer);
      if (ok && response.behavior === "deny" && response.interrupt === true) session.interrupt();
      return true;
    },
    /** Nobody is left to answer (stdin closed): every open question is refused. */
    refuseAll(reason: string): void {
      for (const [requestId, asked] of waiting) {
        waiting.delete(requestId);
        session.answerPermission(asked.callId, { type: "deny", reason });
      }
    },
    close: unsubscribe,
  };
}

function toAnswer(
  response: Record<string, unknown>,
  input: Record<string, unknown>,
): PermissionAnswer {
  if (response.behavior !== "allow") {
    const message = typeof response.message === "string" ? response.message : "";
    return {
      type: "deny",
      reason: message ? `the orchestrator refused: ${message}` : "the orchestrator refused",
    };
  }
  const updated = response.updatedInput;
  // nex runs the arguments the model sent, never others: a changed call goes back to the model.
  if (updated !== undefined && !isDeepStrictEqual(updated, input))
    return {
      type: "deny",
      reason: `the orchestrator allows this call only with these arguments: ${JSON.stringify(updated)}; call the tool again with them if they serve the task`,
    };
  const permanent =
    Array.isArray(response.updatedPermissions) && response.updatedPermissions.length > 0;
  return { type: permanent ? "allow_session" : "allow_once" };
}

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
