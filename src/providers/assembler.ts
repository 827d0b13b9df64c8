// Assembles one response (streamed or whole) into an AssembledTurn with a verdict per tool call.
// Argument fragments are kept per call as an array and joined once at the end: linear in the bytes received.
import type { AssembledToolCall, AssembledTurn, Usage } from "../protocol/index.ts";
import { type OutputMeter, outputCharLimit, overrunDetail } from "./output-meter.ts";
import { isNormalStop, mapStopReason, terminatorName, type WireFormat } from "./stop-reason.ts";
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
  /** Reasoning the model streamed (not shown, not kept): it counts as output and as progress. */
  addReasoning(text: string): void;
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
  isTerminated(): boolean;
  /** The output went far past `max_tokens` (see output-meter.ts): stop reading, the turn is cut. */
  isOverrun(): boolean;
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
  const calls = new Map<number, CallState>();
  let rawStop: string | null = null;
  let usage: Partial<Usage> | null = null;
  let terminated = false;
  let dropDetail: string | null = null;
  const meter = options.meter ?? { chars: 0, everyByte: false };
  const limit = outputCharLimit(options.maxTokens);
  let overrun = false;
  const count = (chars: number) => {
    meter.chars += chars;
    if (meter.chars > limit && !overrun) {
      overrun = true;
      dropDetail = overrunDetail(meter.chars, options.maxTokens);
    }
  };

  return {
    addText(piece) {
      if (!piece) return;
      text.push(piece);
      count(piece.length);
    },
    addReasoning(piece) {
      if (piece) count(piece.length);
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
      if (raw !== null && raw !== undefined) rawStop = raw;
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
      return text.length > 0 || calls.size > 0;
    },
    isTerminated() {
      return terminated;
    },
    isOverrun() {
      return overrun;
    },
    finish() {
      const finalUsage: Usage | null = usage
        ? { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 }
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
        text: text.join(""),
        toolCalls,
        stopReason,
        rawStopReason: rawStop,
        terminated,
        ...(dropDetail ? { dropDetail } : {}),
        ...(overrun ? { outputOverrun: true } : {}),
        usage: finalUsage,
        maxTokens: options.maxTokens,
      };
    },
  };
}
