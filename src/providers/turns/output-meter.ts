// What a response has produced so far, for two decisions the endpoint's own word cannot be trusted with:
// - progress: only content (text, tool-call names and arguments, reasoning) resets the idle timeout. A
//   stream of empty deltas, role-only deltas or keep-alives is a server holding nex, not answering;
// - the bound: a response is asked for with `max_tokens`, and one that streams far more (a server that
//   ignores the limit, a reasoning loop that never ends) is cut, not read for as long as the server likes.

/** Shared by the transport (timeouts) and the assembler (counting); one per attempt. */
export interface OutputMeter {
  /** Characters of content received: text, tool-call names and arguments, reasoning. */
  chars: number;
  /** Characters of content the server made itself (a server tool's results): progress, not output. */
  serverChars: number;
  /** Every byte is progress (a whole JSON body is content until it is parsed). */
  everyByte: boolean;
}

export function createOutputMeter(): OutputMeter {
  return { chars: 0, serverChars: 0, everyByte: false };
}

// Three characters per token undercounts no real tokenizer by much on prose or code, and the limit is
// twice what was asked plus slack: an answer inside `max_tokens` is never cut by this estimate.
const CHARS_PER_TOKEN = 3;
const SLACK_TOKENS = 1024;

/** Characters past which a response asked for with `maxTokens` is cut; Infinity when nothing was asked. */
export function outputCharLimit(maxTokens: number): number {
  if (!(maxTokens > 0)) return Number.POSITIVE_INFINITY;
  return (2 * maxTokens + SLACK_TOKENS) * CHARS_PER_TOKEN;
}

/** Counts a response's output against its bound: `overrun` says how far past it, once it went far past. */
export function createOutputCount(
  meter: OutputMeter,
  maxTokens: number,
): { add(chars: number): void; overrun: string | null } {
  const limit = outputCharLimit(maxTokens);
  const output = {
    overrun: null as string | null,
    add(chars: number) {
      meter.chars += chars;
      if (meter.chars > limit && output.overrun === null)
        output.overrun = overrunDetail(meter.chars, maxTokens);
    },
  };
  return output;
}

/** The drop detail of a cut response, for the user and the refused calls' results. */
export function overrunDetail(chars: number, maxTokens: number): string {
  const tokens = Math.round(chars / CHARS_PER_TOKEN);
  return `the endpoint streamed about ${tokens} tokens of output (text, tool arguments and reasoning), far beyond the max_tokens of ${maxTokens} nex asked for, so nex stopped reading it`;
}
