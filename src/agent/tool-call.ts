import type { AgentEvent, AssembledToolCall, ToolResultMessage } from "../protocol/index.ts";
import type { LoopOptions } from "./loop-options.ts";
import { changeTack, refusalContent } from "./refusal.ts";
import { CHANGE_TACK_AT, type RefusalTracker } from "./refusal-tracker.ts";
import { callSignature, digest, type RepeatGuard } from "./repeat-guard.ts";
import type { AliasedCall } from "./tool-aliases.ts";

/** What handling one call needs from its run. */
export interface CallContext {
  turn: number;
  options: LoopOptions;
  tracker: RefusalTracker;
  repeats: RepeatGuard;
  /** Refusal kinds of this turn, for the tracker. */
  refusals: string[];
  /** Calls made under a Claude Code name, by call id (see `tool-aliases.ts`). */
  aliases?: Map<string, AliasedCall>;
  /** In a batch run side by side: a question waits for this (the calls before have asked theirs)... */
  askAfter?: Promise<void>;
  /** ...and this says this call is past its question (or needs none). */
  asked?: () => void;
}

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
  { turn, options, tracker, repeats, refusals, aliases, askAfter, asked }: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage> {
  const answer = (content: string, isError: boolean): ToolResultMessage => ({
    type: "tool_result",
    toolCallId: call.id,
    toolName: call.name,
    content,
    isError,
  });

  if (call.verdict.type === "poisoned") {
    // An incomplete call's arguments are not whole, so every one of the tool's counts alike.
    const key = `${call.verdict.cause}:${call.name}`;
    refusals.push(key);
    const { verdict } = call;
    tracker.note(key, { cause: verdict.cause, tool: call.name, reason: verdict.reason });
    yield {
      type: "tool_call_refused",
      callId: call.id,
      name: call.name,
      cause: verdict.cause,
      reason: verdict.reason,
      bytesReceived: verdict.bytesReceived,
    };
    return answer(refusalContent(call.name, verdict, tracker.countFor(key) + 1), true);
  }
  if (options.signal.aborted)
    return answer("Not run: the user interrupted the session before this call.", true);
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
    return answer(
      `Not executed: ${reason}. Re-emit the call with the name of one of your tools.`,
      true,
    );
  }
  const alias = aliases?.get(call.id);
  const signature = callSignature(call.name, call.verdict.args);
  // A streak is one call failing again the same way: the same tool with the same arguments.
  const kind = (cause: string) => `${cause}:${call.name}:${digest(signature)}`;
  const readOnly = options.tools.readOnly?.(call.name) ?? false;
  const why = repeats.stuck(signature, turn, readOnly);
  if (why) {
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
    return answer(
      occurrence >= CHANGE_TACK_AT
        ? `${content}\n${changeTack(occurrence, call.name, "repeated_call")}`
        : content,
      true,
    );
  }

  if (alias?.type === "refused") {
    // An argument only the other tool has: nothing runs, and the model is told what nex's tool takes.
    const key = kind("invalid_arguments");
    refusals.push(key);
    tracker.note(key, { cause: "invalid_arguments", tool: call.name, reason: alias.reason });
    const occurrence = tracker.countFor(key) + 1;
    const content =
      `Not run: ${alias.reason}` +
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
    return answer(content, true);
  }

  const invocation = { id: call.id, name: call.name, args: call.verdict.args, turn };
  const permission = await options.tools.permission(invocation);
  if (permission.type !== "ask") asked?.();
  if (permission.type === "deny") {
    refusals.push(kind("denied"));
    tracker.note(kind("denied"), {
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
      args: call.verdict.args,
    };
    return answer(`Not run: ${permission.reason}`, true);
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
      refusals.push(kind("denied"));
      tracker.note(kind("denied"), {
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
        args: call.verdict.args,
      };
      return answer(
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

  yield { type: "tool_call_started", callId: call.id, name: call.name, args: call.verdict.args };
  const outcome = await options.tools.execute(invocation, options.signal);
  // Invalid arguments have their own streak (the tracker below); the guard watches calls that ran.
  if (outcome.code !== "invalid_arguments")
    repeats.record(signature, turn, outcome.content, readOnly);
  let content =
    alias?.type === "call" && alias.note ? `${alias.note}\n${outcome.content}` : outcome.content;
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
  const result = answer(content, outcome.isError);
  return outcome.images && outcome.images.length > 0
    ? { ...result, images: outcome.images }
    : result;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
