import type {
  AgentEvent,
  AssembledTurn,
  Message,
  ModelRequest,
  ProviderError,
  TerminalEvent,
  ToolResultMessage,
} from "../protocol/index.ts";
import { cutOffBy } from "../protocol/index.ts";
import { concurrently } from "./concurrent.ts";
import { keepInterrupted } from "./interrupted.ts";
import type { LoopOptions } from "./loop-options.ts";
import { namedCalls } from "./named-calls.ts";
import { RefusalTracker } from "./refusal-tracker.ts";
import { RepeatGuard } from "./repeat-guard.ts";
import { type ReplyNudges, replyNudge, runawayNudge } from "./reply-nudges.ts";
import { createAttemptRelay } from "./request-events.ts";
import { abortReason, SESSION_WORDS, type StopWords } from "./stop-words.ts";
import type { AliasedCall } from "./tool-aliases.ts";
import { type CallContext, handleCall } from "./tool-call.ts";

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

  const words = options.words ?? SESSION_WORDS;
  const tracker = new RefusalTracker(words);
  const explained = new Set<string>();
  const repeats = new RepeatGuard();
  // Once a cut answer was asked again with more tokens, later requests of the prompt may use them too.
  const raise = { maxTokens: null as number | null };
  const reminded = { ofParts: false };
  const nudges: ReplyNudges = {
    askedForAnswer: false,
    textCalls: 0,
    lastTurn: false,
    runaways: 0,
  };
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
      yield* keepInterrupted(messages, abortReason(signal));
      return yield* finish({ type: "aborted", reason: abortReason(signal) });
    }
    if (turn > options.maxTurns) {
      return yield* finish({
        type: "error",
        code: "turn_limit",
        message: words.turnLimit(options.maxTurns),
      });
    }

    const fitted = yield* fittedRequest(options, repeats, raise);
    if ("terminal" in fitted) return yield* finish(fitted.terminal);
    const { result, maxTokens } = fitted;
    if (result.type === "aborted") {
      yield* keepInterrupted(messages, abortReason(signal), result.partial);
      return yield* finish({ type: "aborted", reason: abortReason(signal) });
    }
    if (result.type === "failed") {
      return yield* finish({
        type: "error",
        code: result.error.code,
        message: result.error.message,
      });
    }

    const specs = options.tools.specs();
    const known = specs.map((spec) => spec.name);
    const aliases = new Map<string, AliasedCall>();
    const assembled = yield* namedCalls(result.turn, { turn, specs, explained, aliases });
    const assistant = assistantMessage(assembled);
    messages.push(assistant);
    yield { type: "message_added", message: assistant };

    if (assembled.toolCalls.length === 0 && assembled.stopReason === "pause") {
      // The server paused its own long turn (server-side tools): sending the turn back continues it.
      continue;
    }
    if (assembled.toolCalls.length === 0) {
      const end = yield* endWithoutCalls(assembled, {
        turn,
        maxTokens,
        known,
        options,
        reminded,
        nudges,
      });
      if (end === "continue") continue;
      return yield* finish(end);
    }

    nudges.lastTurn = false;
    const run: CallContext = { turn, options, tracker, repeats, refusals: [], aliases };
    yield* runCalls(assembled.toolCalls, run);
    const stop = tracker.endTurn(run.refusals);
    if (stop) return yield* finish({ type: "error", code: "repeated_failure", message: stop });
    const loop = assembled.runaway
      ? yield* askAfterRunaway(assembled.runaway, options, nudges)
      : null;
    if (loop) return yield* finish(loop);
    if (signal.aborted) {
      yield* keepInterrupted(messages, abortReason(signal));
      return yield* finish({ type: "aborted", reason: abortReason(signal) });
    }
  }
}

/** A request that fits the window: compacted once when it does not, asked again once when cut. */
async function* fittedRequest(
  options: LoopOptions,
  repeats: RepeatGuard,
  raise: { maxTokens: number | null },
): AsyncGenerator<
  AgentEvent,
  { terminal: TerminalEvent } | { result: RequestOutcome; maxTokens: number }
> {
  const { messages, signal } = options;
  const words = options.words ?? SESSION_WORDS;
  let compacted = false;
  let escalated = false;
  for (;;) {
    if (options.shrink) yield* options.shrink(options.system, messages);
    const promptTokens = options.budget.estimatePrompt(options.system, messages);
    const fitted = options.budget.maxTokensFor(promptTokens);
    if (fitted === null) {
      if (compacted || !options.compact) return { terminal: tooLarge(promptTokens, words) };
      compacted = true;
      const shrunk = await options.compact(messages, signal);
      if (!shrunk) return { terminal: compactionFailed(signal) };
      repeats.forgetReads();
      messages.splice(0, messages.length, ...shrunk);
      continue;
    }
    const maxTokens = Math.max(
      fitted,
      Math.min(raise.maxTokens ?? 0, options.budget.largestMaxTokensFor(promptTokens)),
    );
    const note = options.requestNote?.(promptTokens) ?? null;
    const result = yield* request(options, messages, maxTokens, note);
    if (result.type === "failed" && result.error.code === "context_length") {
      if (result.error.contextLimit) options.budget.correctWindow(result.error.contextLimit);
      if (compacted || !options.compact) return { result, maxTokens };
      compacted = true;
      yield {
        type: "notice",
        message:
          "The endpoint says the conversation no longer fits the model's context; compacting once and retrying.",
      };
      const shrunk = await options.compact(messages, signal);
      if (!shrunk) return { terminal: compactionFailed(signal) };
      repeats.forgetReads();
      messages.splice(0, messages.length, ...shrunk);
      continue;
    }
    if (result.type === "turn" && !escalated && wasCutByOutputLimit(result.turn)) {
      const larger = options.budget.largestMaxTokensFor(promptTokens);
      if (larger > maxTokens) {
        escalated = true;
        raise.maxTokens = larger;
        yield {
          type: "notice",
          message: `The response was cut off ${cutOffBy(result.turn.usage?.outputTokens ?? null, maxTokens)}; asking again once with ${larger} tokens.`,
        };
        continue;
      }
    }
    return { result, maxTokens };
  }
}

/** The assistant's turn as it is kept: a refused call's arguments go back as "{}". */
function assistantMessage(assembled: AssembledTurn): Message {
  return {
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
}

/**
 * How a turn with no tool calls ends the prompt: the answer, or an error for an answer that is cut,
 * empty or a tool call written as text; "continue" after asking the model again (an empty reply, a
 * call written as text or to a tool that does not exist: `replyNudge`) or reminding it once of a
 * write in parts it left unfinished.
 */
async function* endWithoutCalls(
  assembled: AssembledTurn,
  context: {
    turn: number;
    maxTokens: number;
    known: string[];
    options: LoopOptions;
    reminded: { ofParts: boolean };
    nudges: ReplyNudges;
  },
): AsyncGenerator<AgentEvent, TerminalEvent | "continue"> {
  const { turn, maxTokens, known, options, reminded, nudges } = context;
  const words = options.words ?? SESSION_WORDS;
  if (assembled.refusal && !assembled.text.trim()) {
    yield { type: "notice", message: "The model refused the request; its answer follows." };
    return { type: "done", finalText: assembled.refusal, turns: turn };
  }
  if (assembled.runaway)
    return (yield* askAfterRunaway(assembled.runaway, options, nudges)) ?? "continue";
  const cut = describeCutAnswer(assembled, maxTokens, words);
  if (cut) return { type: "error", code: "invalid_response", message: cut };
  if (turn === 1 && !assembled.text.trim()) {
    return {
      type: "error",
      code: "invalid_response",
      message:
        "The model's response was empty: no text and no tool calls, so nothing was done. Try again, or check the model and the endpoint's logs.",
    };
  }
  const nudge = await replyNudge(assembled.text, known, nudges, options.tools, options.signal);
  if (nudge?.type === "error") {
    return { type: "error", code: "invalid_response", message: nudge.message };
  }
  if (nudge) {
    yield { type: "notice", message: nudge.notice };
    const reminder: Message = { type: "user", text: nudge.reminder };
    options.messages.push(reminder);
    yield { type: "message_added", message: reminder };
    return "continue";
  }
  const unfinished = options.tools.unfinishedWrites?.() ?? [];
  if (unfinished.length > 0 && !reminded.ofParts) {
    // The model ended while a write in parts still misses parts: it may believe the file is written.
    reminded.ofParts = true;
    const reminder: Message = { type: "user", text: partsReminder(unfinished) };
    options.messages.push(reminder);
    yield { type: "message_added", message: reminder };
    return "continue";
  }
  if (unfinished.length > 0) {
    return {
      type: "error",
      code: "invalid_response",
      message: `The model ended without sending every part of ${unfinished.join(", ")}, so that file was not written and the task is not finished. ${words.again("ask it to write the file again")}`,
    };
  }
  return { type: "done", finalText: assembled.text, turns: turn };
}

/** After a reply nex cut while it looped: the model asked once (null), or the run's end. */
async function* askAfterRunaway(
  detail: string,
  options: LoopOptions,
  nudges: ReplyNudges,
): AsyncGenerator<AgentEvent, TerminalEvent | null> {
  const nudge = runawayNudge(detail, nudges);
  if (nudge.type === "error")
    return { type: "error", code: "invalid_response", message: nudge.message };
  yield { type: "notice", message: nudge.notice };
  const reminder: Message = { type: "user", text: nudge.reminder };
  options.messages.push(reminder);
  yield { type: "message_added", message: reminder };
  return null;
}

/**
 * A turn's calls, in order: reads of one turn (and fetches) side by side, anything that changes the
 * workspace alone.
 */
async function* runCalls(
  calls: AssembledTurn["toolCalls"],
  run: CallContext,
): AsyncGenerator<AgentEvent, void> {
  const { options } = run;
  const parallel = options.tools.parallel ?? options.tools.readOnly;
  const concurrent = (call: (typeof calls)[number] | undefined): boolean =>
    call !== undefined && call.verdict.type === "whole" && (parallel?.(call.name) ?? false);
  for (let i = 0; i < calls.length; ) {
    const batch: typeof calls = [];
    while (concurrent(calls[i])) batch.push(calls[i++] as (typeof calls)[number]);
    if (batch.length === 0) batch.push(calls[i++] as (typeof calls)[number]);
    const toolResults =
      batch.length === 1
        ? [yield* handleCall(batch[0] as (typeof calls)[number], run)]
        : yield* concurrently(askingInOrder(batch, run), MAX_CONCURRENT_READS);
    // A background job that ended during the turn: told at the boundary, beside the last result.
    const notes = i >= calls.length ? (options.tools.notices?.() ?? []) : [];
    const last = toolResults.at(-1);
    if (notes.length > 0 && last) {
      last.content = `${last.content}\n\n${notes.join("\n\n")}`;
      for (const message of notes) yield { type: "notice", message };
    }
    for (const toolResult of toolResults) {
      options.messages.push(toolResult);
      yield { type: "message_added", message: toolResult };
    }
  }
}

/** Read-only calls of one turn that run at once. */
const MAX_CONCURRENT_READS = 4;

/**
 * The calls of a batch, each asking its question (if it must ask) only once the calls before it
 * have passed theirs: a person answers one question at a time, in the order the model made them.
 */
function askingInOrder(
  batch: AssembledTurn["toolCalls"],
  run: CallContext,
): AsyncGenerator<AgentEvent, ToolResultMessage>[] {
  let before: Promise<void> = Promise.resolve();
  return batch.map((call) => {
    let passed: () => void = () => {};
    const mine = new Promise<void>((resolve) => {
      passed = resolve;
    });
    const context: CallContext = { ...run, askAfter: before, asked: passed };
    before = mine;
    return handleCall(call, context);
  });
}

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
  note: string | null = null,
): AsyncGenerator<AgentEvent, RequestOutcome> {
  const requestId = options.nextRequestId();
  const body: ModelRequest = {
    model: options.model,
    system: options.system,
    // The note rides at the end of this request only: the conversation (and its prefix) stays as it is.
    messages: note ? [...messages, { type: "user", text: note }] : [...messages],
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
  // A server that streamed far past the limit ignores it: a larger one would only bring a larger flood;
  // a loop nex cut would loop longer.
  if (turn.outputOverrun || turn.runaway) return false;
  if (turn.stopReason === "length") return true;
  return turn.toolCalls.some(
    (call) => call.verdict.type === "poisoned" && call.verdict.cause === "output_limit",
  );
}

/** A text-only answer that did not end cleanly is not a finished task. */
function describeCutAnswer(
  turn: AssembledTurn,
  maxTokens: number,
  words: StopWords,
): string | null {
  if (turn.outputOverrun) {
    return `The endpoint did not stop at the ${maxTokens}-token output limit nex asked for: ${turn.dropDetail ?? "its output ran far past it"}. Nothing in that answer was run. Check the server's max_tokens handling (or its reasoning settings). ${words.again(null)}`;
  }
  const hitLimit = turn.usage !== null && turn.usage.outputTokens >= maxTokens;
  if (turn.stopReason === "length" || hitLimit) {
    const what =
      turn.reasoning && !turn.text.trim()
        ? "The model used up its output on reasoning before writing any answer"
        : "The model's answer was cut off";
    const where = cutOffBy(turn.usage?.outputTokens ?? null, maxTokens);
    return `${what} ${where}, so the task is not finished. ${words.again("ask it to continue in smaller steps")}`;
  }
  if (!turn.terminated) {
    const why = turn.dropDetail ? ` (${turn.dropDetail})` : "";
    return `The endpoint's stream ended before its terminator${why}, so the answer above may be incomplete. ${words.again(null)}`;
  }
  // An explicit abnormal reason; a missing one (some proxies drop it) is judged by the terminator above.
  if (
    turn.rawStopReason !== null &&
    (turn.stopReason === "content_filter" || turn.stopReason === "other")
  ) {
    if (turn.stopReason === "content_filter") {
      return `The model declined or the endpoint's content filter stopped the answer (stop reason \`${turn.rawStopReason}\`), so the task is not done. Rephrase the request, or check the endpoint's policy.`;
    }
    return `The endpoint ended the answer abnormally (stop reason \`${turn.rawStopReason ?? turn.stopReason}\`), so it may be incomplete. ${words.again(null)}`;
  }
  return null;
}

function tooLarge(promptTokens: number, words: StopWords): TerminalEvent {
  return {
    type: "error",
    code: "context_length",
    message: `The conversation (~${promptTokens} tokens) no longer fits the model's context window and could not be compacted. ${words.tooLarge}`,
  };
}

function compactionFailed(signal: AbortSignal): TerminalEvent {
  if (signal.aborted)
    return { type: "aborted", reason: `${abortReason(signal)} during compaction` };
  return {
    type: "error",
    code: "context_length",
    message:
      "The conversation does not fit the model's context window, and compacting did not help (there was nothing older to summarise, or the summary request failed: see above). Start a new session with a shorter prompt, or check the model's context size on the server and in nex's config (`models`).",
  };
}
