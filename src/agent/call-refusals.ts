import type {
  AgentEvent,
  AssembledToolCall,
  CallVerdict,
  ToolResultMessage,
} from "../protocol/index.ts";
import { answerCall, type CallContext } from "./call-context.ts";
import { changeTack, refusalContent } from "./refusal.ts";
import { CHANGE_TACK_AT } from "./refusal-tracker.ts";

type Refusal = AsyncGenerator<AgentEvent, ToolResultMessage>;

/** Refuses a call whose arguments did not arrive whole. */
export async function* refusePoisoned(
  call: AssembledToolCall,
  verdict: Extract<CallVerdict, { type: "poisoned" }>,
  { tracker, refusals }: CallContext,
): Refusal {
  // An incomplete call's arguments are not whole, so every one of the tool's counts alike.
  const key = `${verdict.cause}:${call.name}`;
  refusals.push(key);
  tracker.note(key, { cause: verdict.cause, tool: call.name, reason: verdict.reason });
  yield {
    type: "tool_call_refused",
    callId: call.id,
    name: call.name,
    cause: verdict.cause,
    reason: verdict.reason,
    bytesReceived: verdict.bytesReceived,
  };
  return answerCall(call, refusalContent(call.name, verdict, tracker.countFor(key) + 1), true);
}

/** Refuses a call that cannot run at all: the run interrupted, or no tool name. */
export async function* refuseUnrunnable(
  call: AssembledToolCall,
  { options, tracker, refusals }: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage | undefined> {
  if (options.signal.aborted)
    return answerCall(call, "Not run: the user interrupted the session before this call.", true);
  if (!call.name) {
    const reason = "the tool call arrived without a tool name";
    refusals.push("unparseable:");
    tracker.note("unparseable:", { cause: "unparseable", tool: "", reason });
    yield {
      type: "tool_call_refused",
      callId: call.id,
      name: "",
      cause: "unparseable",
      reason,
      bytesReceived: 0,
    };
    return answerCall(
      call,
      `Not executed: ${reason}. Re-emit the call with the name of one of your tools.`,
      true,
    );
  }
  return undefined;
}

/** Refuses the very call that already answered (`why` says how often and when). */
export async function* refuseRepeat(
  call: AssembledToolCall,
  why: string,
  { tracker, refusals }: CallContext,
): Refusal {
  // Refused only because it is the very call that already answered: one streak for the tool, so
  // a model reading A, B, A, B... is stopped as surely as one reading A again and again.
  const key = `repeated_call:${call.name}`;
  const reason = `the same ${call.name} call ${why}`;
  refusals.push(key);
  tracker.note(key, { cause: "repeated_call", tool: call.name, reason });
  yield {
    type: "tool_call_refused",
    callId: call.id,
    name: call.name,
    cause: "repeated_call",
    reason,
    bytesReceived: 0,
  };
  const content = `Not run again: ${reason}, and it would return it again. Use the result you already have, or do something different.`;
  const occurrence = tracker.countFor(key) + 1;
  return answerCall(
    call,
    occurrence >= CHANGE_TACK_AT
      ? `${content}\n${changeTack(occurrence, call.name, "repeated_call")}`
      : content,
    true,
  );
}

/** Refuses a call under another tool's name that used an argument only that tool has. */
export async function* refuseAliasArgument(
  call: AssembledToolCall,
  reason: string,
  key: string,
  { tracker, refusals }: CallContext,
): Refusal {
  // An argument only the other tool has: nothing runs, and the model is told what nex's tool takes.
  refusals.push(key);
  tracker.note(key, { cause: "invalid_arguments", tool: call.name, reason });
  const occurrence = tracker.countFor(key) + 1;
  const content =
    `Not run: ${reason}` +
    (occurrence >= CHANGE_TACK_AT
      ? `\n${changeTack(occurrence, call.name, "invalid_arguments")}`
      : "");
  yield {
    type: "tool_result",
    callId: call.id,
    name: call.name,
    isError: true,
    code: "invalid_arguments",
    content,
    details: null,
  };
  return answerCall(call, content, true);
}
