import type { AgentEvent, AssembledToolCall, ToolResultMessage } from "../protocol/index.ts";
import { answerCall, type CallContext } from "./call-context.ts";
import { gatePermission } from "./call-permission.ts";
import {
  refuseAliasArgument,
  refusePoisoned,
  refuseRepeat,
  refuseUnrunnable,
} from "./call-refusals.ts";
import { changeTack } from "./refusal.ts";
import { CHANGE_TACK_AT } from "./refusal-tracker.ts";
import { callSignature, digest } from "./repeat-guard.ts";
import { unknownToolHint } from "./reply-nudges.ts";

export type { CallContext } from "./call-context.ts";

/** Dispatches a whole, permitted call; answers every other call with a refusal that says why. */
export async function* handleCall(
  call: AssembledToolCall,
  context: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage> {
  try {
    return yield* handleOne(call, context);
  } finally {
    // Whatever way it ended, the calls after it need not wait for it to ask.
    context.asked?.();
  }
}

async function* handleOne(
  call: AssembledToolCall,
  context: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage> {
  const { turn, options, tracker, repeats, refusals, aliases } = context;
  const { verdict } = call;
  if (verdict.type === "poisoned") return yield* refusePoisoned(call, verdict, context);
  const unrunnable = yield* refuseUnrunnable(call, context);
  if (unrunnable) return unrunnable;
  const alias = aliases?.get(call.id);
  const signature = callSignature(call.name, verdict.args);
  // A streak is one call failing again the same way: the same tool with the same arguments.
  const kind = (cause: string) => `${cause}:${call.name}:${digest(signature)}`;
  const readOnly = options.tools.readOnly?.(call.name) ?? false;
  const why = repeats.stuck(signature, turn, readOnly);
  if (why) return yield* refuseRepeat(call, why, context);
  if (alias?.type === "refused")
    return yield* refuseAliasArgument(call, alias.reason, kind("invalid_arguments"), context);

  const invocation = { id: call.id, name: call.name, args: verdict.args, turn };
  const refused = yield* gatePermission(call, invocation, kind("denied"), context);
  if (refused) return refused;

  yield { type: "tool_call_started", callId: call.id, name: call.name, args: verdict.args };
  const outcome = await options.tools.execute(invocation, options.signal);
  // Invalid arguments have their own streak (the tracker below); the guard watches calls that ran.
  if (outcome.code !== "invalid_arguments")
    repeats.record(signature, turn, outcome.content, readOnly);
  let content =
    alias?.type === "call" && alias.note ? `${alias.note}\n${outcome.content}` : outcome.content;
  if (outcome.unknownTool)
    content += await unknownToolHint(call.name, options.tools, options.signal);
  if (outcome.isError && outcome.code === "invalid_arguments") {
    const key = kind("invalid_arguments");
    refusals.push(key);
    tracker.note(key, {
      cause: "invalid_arguments",
      tool: call.name,
      reason: firstLine(outcome.content),
    });
    const occurrence = tracker.countFor(key) + 1;
    if (occurrence >= CHANGE_TACK_AT)
      content = `${content}\n${changeTack(occurrence, call.name, "invalid_arguments")}`;
  }
  yield {
    type: "tool_result",
    callId: call.id,
    name: call.name,
    isError: outcome.isError,
    code: outcome.code ?? null,
    content,
    details: outcome.details ?? null,
  };
  const result = answerCall(call, content, outcome.isError);
  return outcome.images && outcome.images.length > 0
    ? { ...result, images: outcome.images }
    : result;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
