// The integrity verdict on one tool call. A call is whole only when the signals agree: no abnormal
// stop reason, the explicit terminator, output tokens below the max_tokens sent, and a strict or
// lossless parse yielding an object. Gateways relabel truncation as `stop`/`tool_calls`, so no single
// signal is trusted alone. A missing or empty stop reason is unknown, not abnormal (TGI never sends
// one with streamed tool calls; some gateways send ""): the other signals then decide. The first
// failing signal, in that order of blame, names the cause.
import { type CallVerdict, cutOffBy, type StopReason, type Usage } from "../../protocol/index.ts";
import { isObject, parseToolArguments } from "./arguments.ts";
import { scanJson } from "./json-scan.ts";

/** What the whole response said about its own integrity. */
export interface TurnSignals {
  rawStopReason: string | null;
  stopReason: StopReason;
  /** The stop reason is one after which a call may run (per wire format). */
  normalStop: boolean;
  /** The explicit terminator arrived (or a complete JSON body). */
  terminated: boolean;
  /** How the terminator is named in messages: `[DONE]`, `message_stop`, `a complete JSON body`. */
  terminator: string;
  usage: Usage | null;
  maxTokens: number;
  /** What ended the stream early, in plain words, when known (e.g. "the connection was reset"). */
  dropDetail: string | null;
  /** The output went far past `max_tokens` and nex cut the stream (`dropDetail` says how far). */
  overrun?: boolean;
}

/** One call's own signals: its text, and whether its block was closed (Anthropic `content_block_stop`). */
export interface CallSignals {
  argumentsText: string;
  closed: boolean;
}

export function judgeCall(call: CallSignals, turn: TurnSignals): CallVerdict {
  const text = call.argumentsText;
  const bytesReceived = Buffer.byteLength(text, "utf8");
  const poisoned = (cause: Extract<CallVerdict, { type: "poisoned" }>["cause"], reason: string) =>
    ({ type: "poisoned", cause, reason, bytesReceived }) as const;

  if (turn.overrun)
    return poisoned("output_limit", turn.dropDetail ?? "the output exceeded max_tokens");
  const hitLimit = turn.usage !== null && turn.usage.outputTokens >= turn.maxTokens;
  if (hitLimit || turn.stopReason === "length") {
    return poisoned("output_limit", outputLimitReason(text, turn));
  }
  if (!turn.terminated || !call.closed) {
    const detail = turn.dropDetail ? ` (${turn.dropDetail})` : "";
    const where = turn.terminated
      ? "before this tool call's block was closed"
      : `before its terminator (${turn.terminator})`;
    return poisoned(
      "stream_dropped",
      `the stream ended ${where} after ${bytesReceived} bytes of arguments${detail}`,
    );
  }
  if (!turn.normalStop && turn.rawStopReason !== null) {
    return poisoned(
      "abnormal_stop",
      `the response ended with stop reason \`${turn.rawStopReason}\`, not a normal stop`,
    );
  }
  if (text.trim() === "") return { type: "whole", args: {}, recovery: "strict" };
  const parsed = parseToolArguments(text);
  if (parsed.type === "refused") {
    return poisoned("unparseable", `the arguments could not be read: ${parsed.why}`);
  }
  if (!isObject(parsed.value)) {
    return poisoned(
      "not_an_object",
      `the arguments are ${describeValue(parsed.value)}, not a JSON object`,
    );
  }
  return { type: "whole", args: parsed.value, recovery: parsed.recovery };
}

function outputLimitReason(text: string, turn: TurnSignals): string {
  const limit = `output was cut off ${cutOffBy(turn.usage?.outputTokens ?? null, turn.maxTokens)}`;
  const scan = scanJson(text);
  if (scan.openKey !== null && (scan.inString || scan.openContainers > 0)) {
    return `${limit} while writing \`${scan.openKey}\``;
  }
  return `${limit} before the tool call's arguments were known to be complete`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a JSON array";
  return `a JSON ${typeof value}`;
}
