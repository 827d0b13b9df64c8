// Generators for the fuzz tests: random valid tool calls, their real SSE bytes in both wire formats
// (built by the stub endpoint's own script builders), and a fetch that serves bytes in given chunks.
import fc from "fast-check";
import type { HttpFetch } from "../../src/net/index.ts";
import type { AssembledTurn, ProviderEvent } from "../../src/protocol/index.ts";
import { createAnthropicClient, createOpenAIClient } from "../../src/providers/index.ts";
import { collect, sampleRequest, terminal } from "../providers/helpers.ts";
import {
  anthropicToolUses,
  openaiToolCalls,
  type Script,
  type StreamOptions,
} from "../support/stub-scripts.ts";

/** Property runs per test: a few seconds in CI; NEX_FUZZ_RUNS (or `npm run fuzz`) raises them. */
export const RUNS = Number(process.env.NEX_FUZZ_RUNS ?? 150);

/** Characters that break naive stream handling: every UTF-8 width, combining marks, JSON's escapes. */
const TRICKY = [
  "é",
  "e\u0301",
  "世界",
  "🌍",
  "👩‍💻",
  "\u{1F1EB}\u{1F1F7}",
  "𝄞",
  '"',
  "\\",
  "\\n",
  "\n",
  "\r\n",
  "\t",
  "\u2028",
  "data: ",
  "\n\n",
  "}",
  "{",
  "[DONE]",
  "\u0000",
  " ",
  "a",
  "z",
];

const trickyString = fc.oneof(
  fc.array(fc.constantFrom(...TRICKY), { maxLength: 40 }).map((parts) => parts.join("")),
  fc.string({ unit: "grapheme", maxLength: 30 }),
  fc.string({ maxLength: 30 }),
);

const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    trickyString,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** A tool call a model could send: a name and an object of arguments. */
export interface GeneratedCall {
  name: string;
  args: Record<string, unknown>;
  /** Non-ASCII sent as `\uXXXX` escapes instead of raw UTF-8 (both are the same JSON). */
  escaped: boolean;
  /** Characters of argument text per fragment; 1 splits surrogate pairs across fragments. */
  fragment: number;
}

export const toolCall: fc.Arbitrary<GeneratedCall> = fc.record({
  name: fc.oneof(
    fc.constantFrom("write_file", "edit_file", "read_file", "bash"),
    fc.stringMatching(/^[a-z][a-z0-9_]{0,20}$/),
  ),
  // Through JSON once: plain objects (fast-check builds null-prototype ones), as a parser returns them.
  args: fc
    .dictionary(trickyString, value, { maxKeys: 6 })
    .map((args) => JSON.parse(JSON.stringify(args)) as Record<string, unknown>),
  escaped: fc.boolean(),
  fragment: fc.oneof(
    fc.constant(1),
    fc.integer({ min: 1, max: 8 }),
    fc.integer({ min: 9, max: 200 }),
  ),
});

/** The argument text exactly as the model sends it. */
export function argumentText(call: GeneratedCall): string {
  const text = JSON.stringify(call.args);
  if (!call.escaped) return text;
  // Outside strings JSON has no non-ASCII character, so escaping them all keeps the same value.
  return text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** How a stream ends: as the server sent it, or with one of the truncation signals. */
export type Ending = "complete" | "length" | "relabelled" | "no_terminator";

export const endings: Ending[] = ["complete", "length", "relabelled", "no_terminator"];

/** The request's output limit; `relabelled` reports exactly this as the usage. */
export const MAX_TOKENS = 4096;

function streamOptions(ending: Ending, wire: "openai" | "anthropic"): StreamOptions {
  const normal = wire === "openai" ? "tool_calls" : "tool_use";
  switch (ending) {
    case "complete":
      return { finishReason: normal };
    case "length":
      return { finishReason: wire === "openai" ? "length" : "max_tokens" };
    case "relabelled":
      return {
        finishReason: wire === "openai" ? "stop" : "end_turn",
        usage: { input: 10, output: MAX_TOKENS },
      };
    case "no_terminator":
      return { finishReason: normal, includeDone: false };
  }
}

/** The whole SSE body the stub endpoint would send for these calls, as bytes. */
export function streamBytes(
  wire: "openai" | "anthropic",
  calls: GeneratedCall[],
  ending: Ending,
): Buffer {
  const options = streamOptions(ending, wire);
  const script: Script =
    wire === "openai"
      ? openaiToolCalls(
          calls.map((c) => ({ name: c.name, args: argumentText(c), chunkSize: c.fragment })),
          options,
        )
      : anthropicToolUses(
          calls.map((c) => ({ name: c.name, input: argumentText(c), chunkSize: c.fragment })),
          options,
        );
  if (script.type !== "stream") throw new Error("the builders make streams");
  return Buffer.from(
    script.parts.map((part) => (typeof part === "string" ? part : part.data)).join(""),
    "utf8",
  );
}

/** Splits bytes at the given offsets (any byte: inside a UTF-8 character, an SSE line or an event). */
export function splitAt(bytes: Buffer, offsets: number[]): Buffer[] {
  const cuts = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) out.push(bytes.subarray(from, cut));
    from = cut;
  }
  return out;
}

/** A fetch whose every response streams `chunks`, then ends normally (`close`) or with a reset (`destroy`). */
export function servingFetch(chunks: Buffer[], end: "close" | "destroy"): HttpFetch {
  return async () => ({
    status: 200,
    ok: true,
    headers: {
      get: (name) => (name.toLowerCase() === "content-type" ? "text/event-stream" : null),
    },
    body: (async function* () {
      for (const chunk of chunks) yield new Uint8Array(chunk);
      if (end === "destroy")
        throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    })(),
  });
}

/** Runs the real client of `wire` over `fetch`; returns the turn, or null when the request failed. */
export async function runClient(
  wire: "openai" | "anthropic",
  fetch: HttpFetch,
): Promise<{ turn: AssembledTurn | null; events: ProviderEvent[] }> {
  const options = {
    baseUrl: "http://fuzz.invalid/v1",
    fetch,
    retry: { sleep: async () => {}, random: () => 0.5 },
  };
  const client = wire === "openai" ? createOpenAIClient(options) : createAnthropicClient(options);
  const events = await collect(client, sampleRequest({ maxTokens: MAX_TOKENS }));
  const end = terminal(events);
  return { turn: end.type === "done" ? end.turn : null, events };
}
