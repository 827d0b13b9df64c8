// The end of one response: what the assembler collected, judged once into an AssembledTurn (the
// answer without orphan reasoning, usage, stop reason, and a verdict per tool call).
import type { AssembledToolCall, AssembledTurn, Replay, Usage } from "../../protocol/index.ts";
import type { Repetition } from "./repetition.ts";
import { historyReplay } from "./replay.ts";
import { isNormalStop, mapStopReason, terminatorName, type WireFormat } from "./stop-reason.ts";
import { judgeCall } from "./verdict.ts";

/** A delta for the tool call at some index: any of its id, name and a fragment of argument text. */
export interface CallDelta {
  id?: string | null;
  name?: string | null;
  argumentsText?: string | null;
}

/** One tool call as its deltas built it. */
export interface CallState {
  index: number;
  id: string;
  name: string;
  fragments: string[];
  closed: boolean;
}

/** Adds a delta to the call at `index` (opening it), counting the output it carries. */
export function addCallDelta(
  calls: Map<number, CallState>,
  index: number,
  delta: CallDelta,
  explicitClose: boolean,
  count: (chars: number) => void,
): void {
  let call = calls.get(index);
  if (!call) {
    call = { index, id: "", name: "", fragments: [], closed: !explicitClose };
    calls.set(index, call);
  }
  if (delta.id && !call.id) call.id = delta.id;
  // Most servers send the name once; some repeat it in every delta, a few split it ("write_",
  // "file"). A repeat is ignored and a piece is joined on.
  if (delta.name && delta.name !== call.name) {
    call.name += delta.name;
    count(delta.name.length);
  }
  if (delta.argumentsText) {
    call.fragments.push(delta.argumentsText);
    count(delta.argumentsText.length);
  }
}

/** Everything the assembler collected from one response. */
export interface CollectedTurn {
  text: string[];
  reasoning: string[];
  refusal: string[];
  replay: Replay | null;
  /** Answer text came as content that may carry reasoning tags. */
  tagged: boolean;
  overrun: boolean;
  dropDetail: string | null;
  /** The text looped and nex stopped reading (see repetition.ts). */
  repetition: Repetition | null;
  reasoningInContent: boolean;
  calls: CallState[];
  rawStop: string | null;
  usage: Partial<Usage> | null;
  terminated: boolean;
}

/** Judges a collected response once. */
export function finishTurn(
  parts: CollectedTurn,
  options: { wire: WireFormat; streaming: boolean; maxTokens: number },
): AssembledTurn {
  const { text, reasoning, refusal, replay, tagged, overrun, calls, rawStop, usage, repetition } =
    parts;
  // A loop cut by nex: the text keeps its first round (what the model said), and the turn did not
  // end on its own, so nothing in it counts as arrived whole.
  const terminated = parts.terminated && repetition === null;
  const dropDetail = repetition
    ? `the model wrote ${repetition.detail} (a loop), so nex stopped the stream`
    : parts.dropDetail;
  const said = text.join("");
  const answer = splitOrphanClose(
    repetition ? said.slice(0, repetition.keepChars) : said,
    tagged && reasoning.length === 0,
  );
  let reasoningInContent = parts.reasoningInContent;
  if (answer.reasoning) {
    reasoning.push(answer.reasoning);
    reasoningInContent = true;
  }
  const finalUsage: Usage | null = usage
    ? {
        inputTokens: usage.inputTokens ?? 0,
        outputTokens: usage.outputTokens ?? 0,
        ...(usage.cacheReadTokens !== undefined ? { cacheReadTokens: usage.cacheReadTokens } : {}),
        ...(usage.cacheWriteTokens !== undefined
          ? { cacheWriteTokens: usage.cacheWriteTokens }
          : {}),
      }
    : null;
  // A cut response ends like one stopped at its length limit: nothing in it may run.
  const stopReason = overrun ? "length" : mapStopReason(options.wire, rawStop);
  const signals = {
    rawStopReason: rawStop,
    stopReason,
    normalStop: isNormalStop(options.wire, rawStop),
    terminated,
    terminator: terminatorName(options.wire, options.streaming),
    usage: finalUsage,
    maxTokens: options.maxTokens,
    dropDetail,
    overrun,
  };
  // Each result must answer exactly one call: a server that repeats an id (or sends none) gets
  // ids made unique within the turn, or the next request would pair results with the wrong call.
  const usedIds = new Set<string>();
  const toolCalls: AssembledToolCall[] = calls.map((call, position) => {
    const argumentsText = call.fragments.join("");
    let id = call.id || `call_${position + 1}`;
    if (usedIds.has(id)) id = `${id}_${position + 1}`;
    while (usedIds.has(id)) id = `${id}_`;
    usedIds.add(id);
    return {
      id,
      name: call.name,
      argumentsText,
      verdict: judgeCall({ argumentsText, closed: call.closed }, signals),
    };
  });
  return {
    text: answer.text,
    toolCalls,
    stopReason,
    rawStopReason: rawStop,
    terminated,
    ...(dropDetail ? { dropDetail } : {}),
    ...(overrun ? { outputOverrun: true } : {}),
    ...(repetition ? { runaway: repetition.detail } : {}),
    usage: finalUsage,
    ...(reasoning.length > 0 ? { reasoning: reasoning.join("") } : {}),
    ...(reasoningInContent ? { reasoningInContent: true } : {}),
    ...(refusal.length > 0 ? { refusal: refusal.join("") } : {}),
    ...replayOf(replay, reasoning.join(""), calls.length > 0, stopReason === "pause"),
    maxTokens: options.maxTokens,
  };
}

/** A `reasoningContent` marker takes the whole reasoning of the turn; see `historyReplay`. */
function replayOf(
  replay: Replay | null,
  reasoning: string,
  calledTools: boolean,
  paused: boolean,
): { replay?: Replay } {
  if (!replay) return {};
  const filled =
    replay.reasoningContent === undefined ? replay : { ...replay, reasoningContent: reasoning };
  const kept = historyReplay(filled, calledTools, paused);
  return kept ? { replay: kept } : {};
}

const CLOSE = "</think>";

/**
 * Reasoning whose opening tag was in the prompt (DeepSeek-R1 and Qwen3 templates end the prompt with
 * `<think>`; a server without a reasoning parser streams the rest): the answer holds a lone
 * `</think>` and everything before it is reasoning. It was shown as it streamed, but it is kept out of
 * the final answer and of history.
 */
function splitOrphanClose(
  text: string,
  noReasoning: boolean,
): { text: string; reasoning?: string } {
  const at = noReasoning ? text.indexOf(CLOSE) : -1;
  if (at < 0 || text.slice(0, at).includes("<think>")) return { text };
  // The template's tag ends its line; a `</think>` inside a sentence (an answer about the tags) is text.
  if (!/^[ \t]*(\r?\n|$)/.test(text.slice(at + CLOSE.length))) return { text };
  return { text: text.slice(at + CLOSE.length).replace(/^\s+/, ""), reasoning: text.slice(0, at) };
}
