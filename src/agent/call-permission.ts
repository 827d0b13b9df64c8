import type {
  AgentEvent,
  AssembledToolCall,
  ToolInvocation,
  ToolResultMessage,
} from "../protocol/index.ts";
import { answerCall, type CallContext } from "./call-context.ts";

/**
 * Asks the permission rules about a call and, when they say ask, the user: the refusal when it may
 * not run, nothing when it may (an approval for the session or project is remembered here).
 */
export async function* gatePermission(
  call: AssembledToolCall,
  invocation: ToolInvocation,
  key: string,
  { options, tracker, refusals, askAfter, asked }: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage | undefined> {
  const permission = await options.tools.permission(invocation);
  if (permission.type !== "ask") asked?.();
  if (permission.type === "deny") {
    refusals.push(key);
    tracker.note(key, {
      cause: "denied",
      tool: call.name,
      reason: permission.reason,
      advice:
        "What refused it is named above: change that rule or setting if it should run, or ask for the task another way",
    });
    yield {
      type: "tool_call_refused",
      callId: call.id,
      name: call.name,
      cause: "denied",
      reason: permission.reason,
      bytesReceived: 0,
      args: invocation.args,
    };
    return answerCall(call, `Not run: ${permission.reason}`, true);
  }
  if (permission.type === "ask") {
    await askAfter;
    yield {
      type: "permission_requested",
      callId: call.id,
      name: call.name,
      summary: permission.summary,
      ...(permission.preview ? { preview: permission.preview } : {}),
      ...(permission.scope ? { scope: permission.scope } : {}),
    };
    const decision = await options.approve(
      { callId: call.id, name: call.name, summary: permission.summary },
      options.signal,
    );
    asked?.();
    if (decision.type === "deny") {
      // Nobody was asked in a headless run without --yes: that is no person's no.
      const who = decision.unasked ? "not approved" : "the user denied it";
      const denied = decision.reason ? `${who}: ${decision.reason}` : who;
      const why = permission.warning
        ? `${denied} (it needed approval: ${permission.warning})`
        : denied;
      refusals.push(key);
      tracker.note(key, {
        cause: "denied",
        tool: call.name,
        reason: why,
        advice: decision.unasked
          ? "Rerun with --yes (or --mode auto_edit for file edits), or ask for the task another way"
          : "Approve it when nex asks, or ask for the task another way",
      });
      yield {
        type: "tool_call_refused",
        callId: call.id,
        name: call.name,
        cause: "denied",
        reason: why,
        bytesReceived: 0,
        args: invocation.args,
      };
      return answerCall(
        call,
        `Not run: ${why}. Do not retry the same call; ask the user or choose another way.`,
        true,
      );
    }
    if (decision.type === "allow_session" || decision.type === "allow_project")
      options.tools.rememberApproval(invocation);
    if (decision.type === "allow_project") {
      const line = options.tools.saveApproval
        ? await options.tools.saveApproval(invocation)
        : "This session cannot save approvals; it holds for this session only.";
      yield { type: "notice", message: line };
    }
  }

  return undefined;
}
