// Assembles one response (streamed or whole) into an AssembledTurn with a verdict per tool call.
// Argument fragments are kept per call as an array and joined once at the end: linear in the bytes received.
import type {
  AssembledToolCall,
  AssembledTurn,
  ProviderEvent,
  Replay,
  Usage,
} from "../../protocol/index.ts";
import {
  createOutputMeter,
  type OutputMeter,
  outputCharLimit,
  overrunDetail,
} from "./output-meter.ts";
import { historyReplay } from "./replay.ts";
import { isNormalStop, mapStopReason, terminatorName, type WireFormat } from "./stop-reason.ts";
import { type ContentPiece, createThinkSplitter } from "./think-tags.ts";
import { judgeCall } from "./verdict.ts";

/** A delta for the tool call at some index: any of its id, name and a fragment of argument text. */
export interface CallDelta {
  id?: string | null;
  name?: string | null;
  argumentsText?: string | null;
}

/** Collects a response piece by piece, then judges it once. */
export interface TurnAssembler {
  addText(text: string): void;
  /** Answer text that may open with `<think>` reasoning: returns the deltas to relay. */
  addContent(text: string): ProviderEvent[];
  /** The end of the content: what `addContent` still held back. */
  endContent(): ProviderEvent[];
  addReasoning(text: string): void;
  /** Output the model streamed that nex keeps but does not show (server-tool input, signatures). */
  addUnshown(chars: number): void;
  /** Content the server made itself (a server tool's results): progress, but not the model's output. */
  addServerContent(chars: number): void;
  addRefusal(text: string): void;
  /** Wire content the assistant message must carry back (merged). */
  setReplay(replay: Replay): void;
  addCallDelta(index: number, delta: CallDelta): void;
  /** Marks the call's block closed (Anthropic `content_block_stop`). */
  closeCall(index: number): void;
  setStopReason(raw: string | null): void;
  /** Merges reported token counts (Anthropic reports input and output in different events). */
  setUsage(usage: Partial<Usage>): void;
  markTerminated(): void;
  /** Records what ended the stream early, in plain words. */
  markDropped(detail: string): void;
  /** True once any text or tool call arrived: from then on a failure cannot be retried silently. */
  hasOutput(): boolean;
  /** The output went far past `max_tokens` (see output-meter.ts): stop reading, the turn is cut. */
  isOverrun(): boolean;
  isTerminated(): boolean;
  finish(): AssembledTurn;
}

/** How the assembler should judge the response. */
export interface AssemblerOptions {
  wire: WireFormat;
  streaming: boolean;
  maxTokens: number;
  /** Calls end with an explicit block close (Anthropic); otherwise a call is closed by the turn's end. */
  explicitClose: boolean;
  /** Counts content for the transport's idle timeout; a private one when omitted. */
  meter?: OutputMeter;
}

interface CallState {
  index: number;
  id: string;
  name: string;
  fragments: string[];
  closed: boolean;
}

export function createTurnAssembler(options: AssemblerOptions): TurnAssembler {
  const text: string[] = [];
  const reasoning: string[] = [];
  const refusal: string[] = [];
  let replay: Replay | null = null;
  const splitter = createThinkSplitter();
  // Answer text came as content that may carry reasoning tags (not Anthropic text blocks).
  let tagged = false;
  const meter = options.meter ?? createOutputMeter();
  const limit = outputCharLimit(options.maxTokens);
  let overrun = false;
  let dropDetail: string | null = null;
  // Text, reasoning and tool-call bytes are output: they count against max_tokens and as progress.
  const count = (chars: number) => {
    meter.chars += chars;
    if (meter.chars > limit && !overrun) {
      overrun = true;
      dropDetail = overrunDetail(meter.chars, options.maxTokens);
    }
  };
  // Reasoning came inside the answer's text (`<think>`): the server has no reasoning parser on.
  let reasoningInContent = false;
  const relay = (pieces: ContentPiece[]): ProviderEvent[] =>
    pieces.map((piece) => {
      if (piece.kind !== "text") reasoningInContent = true;
      (piece.kind === "text" ? text : reasoning).push(piece.text);
      count(piece.text.length);
      return piece.kind === "text"
        ? { type: "text_delta", text: piece.text }
        : { type: "reasoning_delta", text: piece.text };
    });
  const calls = new Map<number, CallState>();
  let rawStop: string | null = null;
  let usage: Partial<Usage> | null = null;
  let terminated = false;

  return {
    addText(piece) {
      if (!piece) return;
      text.push(piece);
      count(piece.length);
    },
    addContent(piece) {
      tagged = true;
      return piece ? relay(splitter.push(piece)) : [];
    },
    endContent() {
      return relay(splitter.end());
    },
    addReasoning(piece) {
      if (!piece) return;
      reasoning.push(piece);
      count(piece.length);
    },
    addUnshown(chars) {
      if (chars > 0) count(chars);
    },
    addServerContent(chars) {
      meter.serverChars += chars;
    },
    addRefusal(piece) {
      if (!piece) return;
      refusal.push(piece);
      count(piece.length);
    },
    setReplay(next) {
      replay = { ...(replay ?? {}), ...next };
    },
    addCallDelta(index, delta) {
      let call = calls.get(index);
      if (!call) {
        call = { index, id: "", name: "", fragments: [], closed: !options.explicitClose };
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
    },
    closeCall(index) {
      const call = calls.get(index);
      if (call) call.closed = true;
    },
    setStopReason(raw) {
      // An empty reason (some gateways send "") says nothing: it stays unknown.
      if (typeof raw === "string" && raw.trim() !== "") rawStop = raw;
    },
    setUsage(next) {
      usage = { ...(usage ?? {}), ...next };
    },
    markTerminated() {
      terminated = true;
    },
    markDropped(detail) {
      if (!overrun) dropDetail = detail;
    },
    hasOutput() {
      // Reasoning is output too: it was shown, and it took the model's time and tokens.
      return text.length > 0 || calls.size > 0 || reasoning.length > 0 || refusal.length > 0;
    },
    isTerminated() {
      return terminated;
    },
    isOverrun() {
      return overrun;
    },
    finish() {
      const answer = splitOrphanClose(text.join(""), tagged && reasoning.length === 0);
      if (answer.reasoning) {
        reasoning.push(answer.reasoning);
        reasoningInContent = true;
      }
      const finalUsage: Usage | null = usage
        ? {
            inputTokens: usage.inputTokens ?? 0,
            outputTokens: usage.outputTokens ?? 0,
            ...(usage.cacheReadTokens !== undefined
              ? { cacheReadTokens: usage.cacheReadTokens }
              : {}),
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
      const toolCalls: AssembledToolCall[] = [...calls.values()].map((call, position) => {
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
        usage: finalUsage,
        ...(reasoning.length > 0 ? { reasoning: reasoning.join("") } : {}),
        ...(reasoningInContent ? { reasoningInContent: true } : {}),
        ...(refusal.length > 0 ? { refusal: refusal.join("") } : {}),
        ...replayOf(replay, reasoning.join(""), calls.size > 0, stopReason === "pause"),
        maxTokens: options.maxTokens,
      };
    },
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
