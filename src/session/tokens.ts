import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Tiktoken } from "js-tiktoken/lite";
import type { ImagePart, Message, ToolSpec } from "../protocol/index.ts";

/**
 * Two estimators, for two jobs:
 * - `cheapTokens` (UTF-8 bytes / 3.5 plus overhead) runs on every journal append to keep the running
 *   total `tok`; it costs a `Buffer.byteLength` per string, so appends stay fast. It is only good for
 *   "~250k tokens" in a line to the user.
 * - `createTokenEstimator` counts with a real BPE tokenizer (cl100k_base via js-tiktoken), loaded lazily on
 *   first use (~0.25 s; o200k_base costs ~0.55 s for the same counts on code, so cl100k is the default).
 *   Resume, compaction and `max_tokens` use it, corrected by what the endpoint reports (`correctWith`):
 *   the model's own tokenizer differs, so the ratio reported/estimated (clamped 0.5..2) scales every
 *   estimate.
 */

/** A tokenizer table js-tiktoken ships. */
export type EncodingName = "cl100k_base" | "o200k_base";

/** Tokens the endpoint reported for one request next to our raw estimate of that same request. */
export interface UsageSample {
  inputTokens: number;
  /** The raw (uncorrected) estimate of the request, from `countRequest`. */
  estimatedTokens: number;
}

/** What a request costs beyond its messages. */
export interface RequestShape {
  system?: string;
  tools?: readonly ToolSpec[];
  messages: readonly Message[];
}

/**
 * Token counts: `count*` are raw tokenizer counts; `estimate*` are the same times the correction ratio.
 * Message counts are cached per message object, so estimating a growing conversation each turn only
 * tokenizes the new messages.
 */
export interface TokenEstimator {
  readonly encoding: EncodingName;
  /** Reported/estimated ratio applied by `estimate*` (1 until corrected). */
  readonly ratio: number;
  /** Raw count; with `limit`, stops early and returns some value above `limit` once it is exceeded. */
  countText(text: string, limit?: number): number;
  countMessage(message: Message, limit?: number): number;
  countMessages(messages: readonly Message[]): number;
  countRequest(request: RequestShape): number;
  estimateText(text: string): number;
  estimateMessage(message: Message): number;
  estimateMessages(messages: readonly Message[]): number;
  estimateRequest(request: RequestShape): number;
  /** Sets the ratio from one sample (clamped to 0.5..2); returns the new ratio. Ignores unusable samples. */
  correctWith(sample: UsageSample): number;
}

/** Framing tokens of a message (role markers, separators), as chat templates add them. */
export const MESSAGE_OVERHEAD = 4;
/** Framing tokens of one tool call (id, name, JSON wrapper). */
export const TOOL_CALL_OVERHEAD = 8;
/** Framing tokens of a tool result (call id, role). */
export const TOOL_RESULT_OVERHEAD = 8;
/** Framing tokens of each tool specification and of the system prompt. */
export const SPEC_OVERHEAD = 8;

/**
 * Tokens of one image, from its dimensions: endpoints scale a picture to about 1568 px on its long
 * side and charge about one token per 750 pixels (Anthropic's rule; OpenAI's tiles land near it).
 * Never below a small image's cost; the bytes of the base64 are not what the model is charged.
 */
export function imageTokens(images: readonly ImagePart[] | undefined): number {
  let n = 0;
  for (const image of images ?? []) {
    const scale = Math.min(1, 1568 / Math.max(image.width, image.height, 1));
    const pixels = image.width * scale * (image.height * scale);
    n += Math.max(85, Math.min(1_600, Math.ceil(pixels / 750)));
  }
  return n;
}

const MIN_RATIO = 0.5;
const MAX_RATIO = 2;

interface Encoder {
  encode(text: string): number[];
}

const encoders = new Map<EncodingName, Encoder>();

// Loaded synchronously through require so every estimate stays a plain function call; memoised for the
// process because the table takes a quarter of a second to build and never changes.
function loadEncoder(name: EncodingName): Encoder {
  const cached = encoders.get(name);
  if (cached) return cached;
  const require = createRequire(import.meta.url);
  const ranks = require(ranksModule(name)) as {
    default?: ConstructorParameters<typeof Tiktoken>[0];
  } & ConstructorParameters<typeof Tiktoken>[0];
  const encoder = new Tiktoken(ranks.default ?? ranks);
  encoders.set(name, encoder);
  return encoder;
}

// The installed package is one bundle with no node_modules: its build copies the tables nex uses beside
// the bundle's modules (`dist/ranks/`, one folder up from any of them); a checkout reads js-tiktoken's.
function ranksModule(name: EncodingName): string {
  const bundled = fileURLToPath(new URL(`../ranks/${name}.cjs`, import.meta.url));
  return existsSync(bundled) ? bundled : `js-tiktoken/ranks/${name}`;
}

const SEGMENT_CHARS = 4096;
// BPE on one long run of a single character class is superlinear (10k identical letters take seconds),
// so runs are cut into 64-character pieces; on ordinary text this changes counts by well under 1%.
const LONG_RUN = /(\S{64}|\s{64})/u;

function* segments(text: string): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + SEGMENT_CHARS, text.length);
    if (end < text.length) {
      const cut = lastWhitespace(text, start + SEGMENT_CHARS / 2, end);
      if (cut > start) end = cut;
      const code = text.charCodeAt(end - 1);
      if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    }
    yield text.slice(start, end);
    start = end;
  }
}

function lastWhitespace(text: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) return i;
  }
  return -1;
}

/** Cheap token estimate of a string: UTF-8 bytes / 3.5. */
export function cheapTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / 3.5);
}

/** Cheap token estimate of a message, for the journal's running total; no tokenizer involved. */
export function cheapTokens(message: Message): number {
  if (message.type === "user")
    return cheapTextTokens(message.text) + MESSAGE_OVERHEAD + imageTokens(message.images);
  if (message.type === "tool_result") {
    return (
      cheapTextTokens(message.content) +
      TOOL_RESULT_OVERHEAD +
      MESSAGE_OVERHEAD +
      imageTokens(message.images)
    );
  }
  let n = cheapTextTokens(message.text) + MESSAGE_OVERHEAD;
  for (const call of message.toolCalls) {
    n += cheapTextTokens(call.name) + cheapTextTokens(call.argumentsText) + TOOL_CALL_OVERHEAD;
  }
  return n;
}

/** Creates an estimator; the tokenizer loads on its first count, not here. */
export function createTokenEstimator(
  options: { encoding?: EncodingName; ratio?: number } = {},
): TokenEstimator {
  const encoding = options.encoding ?? "cl100k_base";
  let ratio = clampRatio(options.ratio ?? 1);
  const messageCache = new WeakMap<Message, number>();
  const specCache = new Map<string, number>();

  const countText = (text: string, limit = Number.POSITIVE_INFINITY): number => {
    if (text.length === 0) return 0;
    const encoder = loadEncoder(encoding);
    let total = 0;
    for (const segment of segments(text)) {
      for (const piece of segment.split(LONG_RUN)) {
        if (piece.length > 0) total += encoder.encode(piece).length;
      }
      if (total > limit) return total;
    }
    return total;
  };

  const countMessage = (message: Message, limit = Number.POSITIVE_INFINITY): number => {
    const cached = messageCache.get(message);
    if (cached !== undefined) return cached;
    let n = MESSAGE_OVERHEAD;
    if (message.type === "user") n += countText(message.text, limit) + imageTokens(message.images);
    else if (message.type === "tool_result") {
      n += TOOL_RESULT_OVERHEAD + countText(message.content, limit) + imageTokens(message.images);
    } else {
      n += countText(message.text, limit);
      for (const call of message.toolCalls) {
        if (n > limit) return n;
        n += TOOL_CALL_OVERHEAD + countText(call.name) + countText(call.argumentsText, limit - n);
      }
    }
    if (n <= limit) messageCache.set(message, n);
    return n;
  };

  const countMessages = (messages: readonly Message[]): number => {
    let n = 0;
    for (const m of messages) n += countMessage(m);
    return n;
  };

  const countCached = (key: string): number => {
    const hit = specCache.get(key);
    if (hit !== undefined) return hit;
    const n = countText(key) + SPEC_OVERHEAD;
    if (specCache.size > 64) specCache.clear();
    specCache.set(key, n);
    return n;
  };

  const countRequest = (request: RequestShape): number => {
    let n = countMessages(request.messages);
    if (request.system) n += countCached(request.system);
    // What the wire sends of a tool: a spec's `brief` is nex's own listing text, never sent as such.
    for (const { name, description, parameters } of request.tools ?? [])
      n += countCached(JSON.stringify({ name, description, parameters }));
    return n;
  };

  const corrected = (raw: number): number => Math.ceil(raw * ratio);

  return {
    encoding,
    get ratio() {
      return ratio;
    },
    countText,
    countMessage,
    countMessages,
    countRequest,
    estimateText: (text) => corrected(countText(text)),
    estimateMessage: (message) => corrected(countMessage(message)),
    estimateMessages: (messages) => corrected(countMessages(messages)),
    estimateRequest: (request) => corrected(countRequest(request)),
    correctWith(sample) {
      const usable =
        Number.isFinite(sample.inputTokens) &&
        Number.isFinite(sample.estimatedTokens) &&
        sample.inputTokens > 0 &&
        sample.estimatedTokens > 0;
      if (usable) ratio = clampRatio(sample.inputTokens / sample.estimatedTokens);
      return ratio;
    },
  };
}

function clampRatio(r: number): number {
  if (!Number.isFinite(r) || r <= 0) return 1;
  return Math.min(MAX_RATIO, Math.max(MIN_RATIO, r));
}
