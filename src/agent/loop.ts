import type {
  AgentEvent,
  AssembledToolCall,
  AssembledTurn,
  Message,
  ModelRequest,
  ProviderError,
  TerminalEvent,
} from "../protocol/index.ts";
import { cutOffBy } from "../protocol/index.ts";
import { concurrently } from "./concurrent.ts";
import { keepInterrupted, stopWords } from "./interrupted.ts";
import type { LoopOptions } from "./loop-options.ts";
import { RefusalTracker } from "./refusal-tracker.ts";
import { RepeatGuard } from "./repeat-guard.ts";
import { createAttemptRelay } from "./request-events.ts";
import {
  findTextToolCall,
  inventedToolCall,
  inventedToolReminder,
  type JsonReplyCall,
  jsonReplyCalls,
  textToolCallMessage,
  textToolCallReminder,
} from "./text-tool-call.ts";
import { type CallContext, handleCall } from "./tool-call.ts";
import { canonicalToolName } from "./tool-names.ts";

export type { Approver, Compactor, LoopOptions, RequestBudget } from "./loop-options.ts";

type RequestOutcome =
  | { type: "turn"; turn: AssembledTurn }
  | { type: "failed"; error: ProviderError }
  /** `partial`: the answer's text as far as it came. */
  | { type: "aborted"; partial: string };

/**
 * Runs one user prompt to its end: request, assemble, dispatch whole calls, refuse the rest, repeat.
 * Yields every event; the last one is the single terminal event of the run.
 */
export async function* runLoop(
  prompt: string,
  options: LoopOptions,
): AsyncGenerator<AgentEvent, TerminalEvent> {
  const { messages, signal } = options;
  // What happened between prompts (a background job ended) comes with the prompt, marked as nex's.
  const between = options.tools.notices?.() ?? [];
  const user: Message = {
    type: "user",
    text: between.length > 0 ? `${prompt}\n\n${between.join("\n\n")}` : prompt,
    ...(options.images && options.images.length > 0 ? { images: options.images } : {}),
  };
  messages.push(user);
  yield { type: "message_added", message: user };

  const tracker = new RefusalTracker();
  const repeats = new RepeatGuard();
  let raisedMaxTokens: number | null = null;
  let remindedOfParts = false;
  // Calls written as JSON text: the model is told once in a row, at most `MAX_TEXT_CALL_REMINDERS` a run.
  let textCallReminders = 0;
  let askedForAnswer = false;
  let remindedLastTurn = false;
  // Every end of a run removes the staging of writes in parts left unfinished: they would otherwise
  // stay in the user's workspace as hidden files no later run can complete.
  const finish = async function* (event: TerminalEvent): AsyncGenerator<AgentEvent, TerminalEvent> {
    for (const message of (await options.tools.endOfPrompt?.()) ?? [])
      yield { type: "notice", message };
    const discarded = (await options.tools.discardUnfinished?.()) ?? [];
    if (discarded.length > 0) {
      yield {
        type: "notice",
        message: `Unfinished write in parts discarded, nothing was written: ${discarded.join(", ")}.`,
      };
    }
    yield event;
    return event;
  };

  for (let turn = 1; ; turn++) {
    if (signal.aborted) {
      yield* keepInterrupted(messages, "", stopWords(signal));
      return yield* finish({ type: "aborted", reason: stopWords(signal) });
    }
    if (turn > options.maxTurns) {
      return yield* finish({
        type: "error",
        code: "turn_limit",
        message: `Stopped after ${options.maxTurns} turns (the --max-turns limit) before the model finished. Resume the session to let it continue, or raise --max-turns.`,
      });
    }

    let compacted = false;
    let escalated = false;
    let result: RequestOutcome;
    let maxTokens: number;
    for (;;) {
      if (options.shrink) yield* options.shrink(options.system, messages);
      const promptTokens = options.budget.estimatePrompt(options.system, messages);
      const fitted = options.budget.maxTokensFor(promptTokens);
      if (fitted === null) {
        if (compacted || !options.compact) {
          return yield* finish(tooLarge(promptTokens));
        }
        compacted = true;
        const shrunk = await options.compact(messages, signal);
        if (!shrunk) return yield* finish(compactionFailed(signal));
        repeats.forgetReads();
        messages.splice(0, messages.length, ...shrunk);
        continue;
      }
      maxTokens = Math.max(
        fitted,
        Math.min(raisedMaxTokens ?? 0, options.budget.largestMaxTokensFor(promptTokens)),
      );
      result = yield* request(options, messages, maxTokens);
      if (result.type === "failed" && result.error.code === "context_length") {
        if (result.error.contextLimit) options.budget.correctWindow(result.error.contextLimit);
        if (compacted || !options.compact) break;
        compacted = true;
        yield {
          type: "notice",
          message:
            "The endpoint says the conversation no longer fits the model's context; compacting once and retrying.",
        };
        const shrunk = await options.compact(messages, signal);
        if (!shrunk) return yield* finish(compactionFailed(signal));
        repeats.forgetReads();
        messages.splice(0, messages.length, ...shrunk);
        continue;
      }
      if (result.type === "turn" && !escalated && wasCutByOutputLimit(result.turn)) {
        const larger = options.budget.largestMaxTokensFor(promptTokens);
        if (larger > maxTokens) {
          escalated = true;
          raisedMaxTokens = larger;
          yield {
            type: "notice",
            message: `The response was cut off ${cutOffBy(result.turn.usage?.outputTokens ?? null, maxTokens)}; asking again once with ${larger} tokens.`,
          };
          continue;
        }
      }
      break;
    }

    if (result.type === "aborted") {
      yield* keepInterrupted(messages, result.partial, stopWords(signal));
      return yield* finish({ type: "aborted", reason: stopWords(signal) });
    }
    if (result.type === "failed") {
      return yield* finish({
        type: "error",
        code: result.error.code,
        message: result.error.message,
      });
    }

    const known = options.tools.specs().map((spec) => spec.name);
    const written =
      result.turn.toolCalls.length === 0 ? jsonReplyCalls(result.turn.text, known) : null;
    if (written) {
      yield {
        type: "notice",
        message: `The model wrote its ${written.map((call) => call.name).join(", ")} call as JSON text (the whole reply); nex runs it as the call it is.`,
      };
    }
    const turnCalls = written ? asToolCalls(written, turn) : result.turn.toolCalls;
    const assembled = {
      ...result.turn,
      ...(written ? { text: "" } : {}),
      toolCalls: turnCalls.map((call) => ({
        ...call,
        name: canonicalToolName(call.name, known),
      })),
    };
    const assistant: Message = {
      type: "assistant",
      text: assembled.text,
      // A refused call goes back as "{}": its tool result says what arrived and why it was refused,
      // and its raw text (a cut 4 MB write, say) would otherwise ride along in every later request
      // and in every estimate of the conversation's size.
      toolCalls: assembled.toolCalls.map(({ id, name, argumentsText, verdict }) => ({
        id,
        name,
        argumentsText: verdict.type === "whole" ? argumentsText : "{}",
      })),
      ...(assembled.replay ? { replay: assembled.replay } : {}),
    };
    messages.push(assistant);
    yield { type: "message_added", message: assistant };

    if (assembled.toolCalls.length === 0 && assembled.stopReason === "pause") {
      // The server paused its own long turn (server-side tools): sending the turn back continues it.
      continue;
    }
    if (assembled.toolCalls.length === 0) {
      if (assembled.refusal && !assembled.text.trim()) {
        yield { type: "notice", message: "The model refused the request; its answer follows." };
        return yield* finish({ type: "done", finalText: assembled.refusal, turns: turn });
      }
      const cut = describeCutAnswer(assembled, maxTokens);
      if (cut) return yield* finish({ type: "error", code: "invalid_response", message: cut });
      if (turn === 1 && !assembled.text.trim()) {
        return yield* finish({
          type: "error",
          code: "invalid_response",
          message:
            "The model's response was empty: no text and no tool calls, so nothing was done. Try again, or check the model and the endpoint's logs.",
        });
      }
      if (!assembled.text.trim() && !askedForAnswer) {
        // An empty reply after some work is no answer (small models stop so mid-task): asked once.
        askedForAnswer = true;
        yield {
          type: "notice",
          message:
            "The model's reply was empty (no text, no tool call); nex asks it once to go on or answer.",
        };
        const nudge: Message = { type: "user", text: EMPTY_REPLY_NUDGE };
        messages.push(nudge);
        yield { type: "message_added", message: nudge };
        continue;
      }
      const textCall = findTextToolCall(assembled.text, known);
      if (
        textCall &&
        !textCall.marked &&
        !remindedLastTurn &&
        textCallReminders < MAX_TEXT_CALL_REMINDERS
      ) {
        textCallReminders += 1;
        remindedLastTurn = true;
        yield {
          type: "notice",
          message: `The model wrote a ${textCall.tool} call as JSON text instead of calling the tool; nex told it so and asks again.`,
        };
        const reminder: Message = { type: "user", text: textToolCallReminder(textCall.tool) };
        messages.push(reminder);
        yield { type: "message_added", message: reminder };
        continue;
      }
      if (textCall) {
        return yield* finish({
          type: "error",
          code: "invalid_response",
          message: textToolCallMessage(textCall.tool, textCall.marked),
        });
      }
      const invented = inventedToolCall(assembled.text, known);
      if (invented !== null && !remindedLastTurn && textCallReminders < MAX_TEXT_CALL_REMINDERS) {
        textCallReminders += 1;
        remindedLastTurn = true;
        yield {
          type: "notice",
          message: `The model called a tool that does not exist (${invented}) in JSON text; nex told it which tools there are and asks again.`,
        };
        const reminder: Message = { type: "user", text: inventedToolReminder(invented, known) };
        messages.push(reminder);
        yield { type: "message_added", message: reminder };
        continue;
      }
      const unfinished = options.tools.unfinishedWrites?.() ?? [];
      if (unfinished.length > 0 && !remindedOfParts) {
        // The model ended while a write in parts still misses parts: it may believe the file is written.
        remindedOfParts = true;
        const reminder: Message = { type: "user", text: partsReminder(unfinished) };
        messages.push(reminder);
        yield { type: "message_added", message: reminder };
        continue;
      }
      if (unfinished.length > 0) {
        return yield* finish({
          type: "error",
          code: "invalid_response",
          message: `The model ended without sending every part of ${unfinished.join(", ")}, so that file was not written and the task is not finished. Resume the session and ask it to write the file again.`,
        });
      }
      return yield* finish({ type: "done", finalText: assembled.text, turns: turn });
    }

    remindedLastTurn = false;
    const run: CallContext = { turn, options, tracker, repeats, refusals: [] };
    // Reads of one turn run side by side; anything that changes the workspace runs alone, in order.
    const calls = assembled.toolCalls;
    const concurrent = (call: (typeof calls)[number] | undefined): boolean =>
      call !== undefined &&
      call.verdict.type === "whole" &&
      (options.tools.readOnly?.(call.name) ?? false);
    for (let i = 0; i < calls.length; ) {
      const batch: typeof calls = [];
      while (concurrent(calls[i])) batch.push(calls[i++] as (typeof calls)[number]);
      if (batch.length === 0) batch.push(calls[i++] as (typeof calls)[number]);
      const toolResults =
        batch.length === 1
          ? [yield* handleCall(batch[0] as (typeof calls)[number], run)]
          : yield* concurrently(
              batch.map((call) => handleCall(call, run)),
              MAX_CONCURRENT_READS,
            );
      // A background job that ended during the turn: told at the boundary, beside the last result.
      const notes = i >= calls.length ? (options.tools.notices?.() ?? []) : [];
      const last = toolResults.at(-1);
      if (notes.length > 0 && last) {
        last.content = `${last.content}\n\n${notes.join("\n\n")}`;
        for (const message of notes) yield { type: "notice", message };
      }
      for (const toolResult of toolResults) {
        messages.push(toolResult);
        yield { type: "message_added", message: toolResult };
      }
    }
    const stop = tracker.endTurn(run.refusals);
    if (stop) return yield* finish({ type: "error", code: "repeated_failure", message: stop });
    if (signal.aborted) {
      yield* keepInterrupted(messages, "", stopWords(signal));
      return yield* finish({ type: "aborted", reason: stopWords(signal) });
    }
  }
}

/** A reply's JSON calls as the turn's tool calls: whole (they parsed), with ids of their own. */
function asToolCalls(calls: JsonReplyCall[], turn: number): AssembledToolCall[] {
  return calls.map((call, index) => {
    const argumentsText = JSON.stringify(call.args);
    const isObject =
      typeof call.args === "object" && call.args !== null && !Array.isArray(call.args);
    // Arguments of the wrong shape are refused as any call's are: the model is told what arrived.
    const verdict: AssembledToolCall["verdict"] = isObject
      ? { type: "whole", args: call.args as Record<string, unknown>, recovery: "extracted" }
      : {
          type: "poisoned",
          cause: "not_an_object",
          reason: `the arguments are ${Array.isArray(call.args) ? "an array" : `a ${call.args === null ? "null" : typeof call.args}`}, not a JSON object of ${call.name}'s parameters`,
          bytesReceived: Buffer.byteLength(argumentsText),
        };
    return { id: `text_call_${turn}_${index + 1}`, name: call.name, argumentsText, verdict };
  });
}

const EMPTY_REPLY_NUDGE =
  "nex: your reply was empty. If the task is not finished, continue with a tool call; if it is, answer with a short summary of what you did.";

/** How many times a run tells the model that its JSON text is not a tool call. */
const MAX_TEXT_CALL_REMINDERS = 3;

/** Read-only calls of one turn that run at once. */
const MAX_CONCURRENT_READS = 4;

function partsReminder(unfinished: string[]): string {
  return (
    `nex: not finished. A write in parts is incomplete and nothing of it is on disk yet: ${unfinished.join(", ")}. ` +
    "Send the remaining parts with write_file (the next part number, same parts count), or tell the user the file was not written."
  );
}

/** Sends one request (with all the provider's own attempts), relaying its events. */
async function* request(
  options: LoopOptions,
  messages: Message[],
  maxTokens: number,
): AsyncGenerator<AgentEvent, RequestOutcome> {
  const requestId = options.nextRequestId();
  const body: ModelRequest = {
    model: options.model,
    system: options.system,
    messages: [...messages],
    tools: options.tools.specs(),
    maxTokens,
    requestId,
  };
  const relay = createAttemptRelay({ requestId, model: options.model, maxTokens });
  let partial = "";
  for await (const event of options.stream(body, options.signal)) {
    const relayed = relay(event);
    if (relayed) yield relayed;
    if (event.type === "text_delta") partial += event.text;
    switch (event.type) {
      case "text_delta":
      case "reasoning_delta":
      case "tool_call_delta":
        yield event;
        break;
      case "done":
        return { type: "turn", turn: event.turn };
      case "error":
        if (event.error.code === "aborted" || options.signal.aborted)
          return { type: "aborted", partial };
        return { type: "failed", error: event.error };
    }
  }
  return {
    type: "failed",
    error: {
      code: "invalid_response",
      retryable: false,
      message:
        "The provider stream ended without a result; this is a bug in nex, please report it.",
    },
  };
}

function wasCutByOutputLimit(turn: AssembledTurn): boolean {
  // A server that streamed far past the limit ignores it: a larger one would only bring a larger flood.
  if (turn.outputOverrun) return false;
  if (turn.stopReason === "length") return true;
  return turn.toolCalls.some(
    (call) => call.verdict.type === "poisoned" && call.verdict.cause === "output_limit",
  );
}

/** A text-only answer that did not end cleanly is not a finished task. */
function describeCutAnswer(turn: AssembledTurn, maxTokens: number): string | null {
  if (turn.outputOverrun) {
    return `The endpoint did not stop at the ${maxTokens}-token output limit nex asked for: ${turn.dropDetail ?? "its output ran far past it"}. Nothing in that answer was run. Check the server's max_tokens handling (or its reasoning settings), then resume the session.`;
  }
  const hitLimit = turn.usage !== null && turn.usage.outputTokens >= maxTokens;
  if (turn.stopReason === "length" || hitLimit) {
    const what =
      turn.reasoning && !turn.text.trim()
        ? "The model used up its output on reasoning before writing any answer"
        : "The model's answer was cut off";
    const where = cutOffBy(turn.usage?.outputTokens ?? null, maxTokens);
    return `${what} ${where}, so the task is not finished. Resume the session and ask it to continue in smaller steps.`;
  }
  if (!turn.terminated) {
    const why = turn.dropDetail ? ` (${turn.dropDetail})` : "";
    return `The endpoint's stream ended before its terminator${why}, so the answer above may be incomplete. Resume the session to continue.`;
  }
  // An explicit abnormal reason; a missing one (some proxies drop it) is judged by the terminator above.
  if (
    turn.rawStopReason !== null &&
    (turn.stopReason === "content_filter" || turn.stopReason === "other")
  ) {
    if (turn.stopReason === "content_filter") {
      return `The model declined or the endpoint's content filter stopped the answer (stop reason \`${turn.rawStopReason}\`), so the task is not done. Rephrase the request, or check the endpoint's policy.`;
    }
    return `The endpoint ended the answer abnormally (stop reason \`${turn.rawStopReason ?? turn.stopReason}\`), so it may be incomplete. Resume the session to continue, or rephrase the request.`;
  }
  return null;
}

function tooLarge(promptTokens: number): TerminalEvent {
  return {
    type: "error",
    code: "context_length",
    message: `The conversation (~${promptTokens} tokens) no longer fits the model's context window and could not be compacted. Start a new session, or use a model with a larger window.`,
  };
}

function compactionFailed(signal: AbortSignal): TerminalEvent {
  if (signal.aborted)
    return { type: "aborted", reason: "interrupted by the user during compaction" };
  return {
    type: "error",
    code: "context_length",
    message:
      "The conversation does not fit the model's context window, and compacting did not help (there was nothing older to summarise, or the summary request failed: see above). Start a new session with a shorter prompt, or check the model's context size on the server and in nex's config (`models`).",
  };
}
