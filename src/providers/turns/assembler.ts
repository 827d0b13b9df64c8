// Assembles one response (streamed or whole) into an AssembledTurn with a verdict per tool call.
// Argument fragments are kept per call as an array and joined once at the end: linear in the bytes received.
import type { AssembledTurn, ProviderEvent, Replay, Usage } from "../../protocol/index.ts";
import { addCallDelta, type CallDelta, type CallState, finishTurn } from "./assembled-turn.ts";

export type { CallDelta } from "./assembled-turn.ts";

import { createOutputCount, createOutputMeter, type OutputMeter } from "./output-meter.ts";
import { createReplyWatch } from "./reply-watch.ts";
import type { WireFormat } from "./stop-reason.ts";
import { type ContentPiece, createThinkSplitter } from "./think-tags.ts";

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
  /** Stop reading: the output ran far past `max_tokens`, or it loops (repetition.ts, unit-loop.ts). */
  isCut(): boolean;
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

export function createTurnAssembler(options: AssemblerOptions): TurnAssembler {
  // The answer's text, the calls' arguments and the reasoning, each watched for a loop.
  const watch = createReplyWatch();
  const { text, reasoning } = watch;
  const refusal: string[] = [];
  let replay: Replay | null = null;
  const splitter = createThinkSplitter();
  // Answer text came as content that may carry reasoning tags (not Anthropic text blocks).
  let tagged = false;
  const meter = options.meter ?? createOutputMeter();
  // Text, reasoning and tool-call bytes are output: they count against max_tokens and as progress.
  const output = createOutputCount(meter, options.maxTokens);
  const count = output.add;
  let dropDetail: string | null = null;
  // Reasoning came inside the answer's text (`<think>`): the server has no reasoning parser on.
  let reasoningInContent = false;
  const relay = (pieces: ContentPiece[]): ProviderEvent[] =>
    pieces.map((piece) => {
      if (piece.kind !== "text") reasoningInContent = true;
      if (piece.kind === "text") watch.addText(piece.text);
      else watch.addReasoning(piece.text);
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
      watch.addText(piece);
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
      watch.addReasoning(piece);
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
      addCallDelta(calls, index, delta, options.explicitClose, count);
      watch.addArguments(index, calls.get(index)?.name, delta.argumentsText);
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
      dropDetail = detail;
    },
    hasOutput() {
      // Reasoning is output too: it was shown, and it took the model's time and tokens.
      return text.length > 0 || calls.size > 0 || reasoning.length > 0 || refusal.length > 0;
    },
    isTerminated() {
      return terminated;
    },
    isOverrun() {
      return output.overrun !== null;
    },
    isCut() {
      return output.overrun !== null || watch.loop() !== null;
    },
    finish: () =>
      finishTurn(
        {
          text,
          reasoning: watch.keptReasoning(),
          refusal,
          replay,
          tagged,
          overrun: output.overrun !== null,
          dropDetail: output.overrun ?? dropDetail,
          repetition: watch.loop(),
          reasoningInContent,
          calls: [...calls.values()],
          rawStop,
          usage,
          terminated,
        },
        options,
      ),
  };
}
