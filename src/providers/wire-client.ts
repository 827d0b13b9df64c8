import type { ModelRequest, ProviderError, ProviderEvent, StreamFn } from "../protocol/index.ts";
import { type ClientOptions, transportFor } from "./client-config.ts";
import {
  type FailureContext,
  invalidResponse,
  networkError,
  type ReadOutcome,
  runRequest,
  type WireExchange,
} from "./http/index.ts";
import type { WireFormat } from "./turns/index.ts";
import { createTurnAssembler, isObject, type TurnAssembler } from "./turns/index.ts";

/** How long a non-streamed request may take before its first byte, by default. */
export const WHOLE_RESPONSE_FIRST_BYTE_MS = 600_000;

/** Reads one response body into the assembler, yielding deltas as they come. */
export type BodyReader = (
  chunks: AsyncIterable<Uint8Array>,
  assembler: TurnAssembler,
  context: FailureContext,
) => AsyncGenerator<ProviderEvent, ReadOutcome>;

/** What differs between wire formats; everything else about a client is shared. */
export interface WireSpec {
  wire: WireFormat;
  url: string;
  streaming: boolean;
  /** The headers that carry the key (redacted from every message). */
  auth: Record<string, string>;
  /** Format-specific headers, e.g. `anthropic-version`. */
  headers: Record<string, string>;
  /** Names the key in 401/403 hints. */
  keyName: string;
  body: (request: ModelRequest) => string;
  readStream: BodyReader;
  readWhole: BodyReader;
  /** Every content block must be closed explicitly (Anthropic's `content_block_stop`). */
  explicitClose: boolean;
}

/**
 * A client for one wire format: builds the request, picks the stream or whole-body reader from the
 * response's content type (a server may answer JSON to a streaming request), and leaves attempts,
 * retries and timeouts to the transport.
 */
export function createWireClient(options: ClientOptions, spec: WireSpec): StreamFn {
  // A whole (non-streamed) answer sends nothing until the model has finished: the first byte can take
  // as long as the generation, so the default wait for it is longer (an explicit setting wins).
  const waits = spec.streaming
    ? options
    : {
        ...options,
        timeouts: { firstByteMs: WHOLE_RESPONSE_FIRST_BYTE_MS, ...(options.timeouts ?? {}) },
      };
  const transport = transportFor(waits, spec.url, spec.auth, spec.keyName);
  const headers = {
    "content-type": "application/json",
    accept: spec.streaming ? "text/event-stream" : "application/json",
    ...spec.headers,
    ...(options.headers ?? {}),
    ...spec.auth,
  };
  // Set when nex stopped reading a response itself: the server may still be busy with it.
  let cut = false;
  const settle = { accept: "application/json", ...(options.headers ?? {}), ...spec.auth };
  return (request, signal) => {
    const exchange: WireExchange = {
      url: spec.url,
      headers,
      body: spec.body(request),
      async *read(response, chunks, meter) {
        const { first, rest } = await peek(chunks);
        const asStream = bodyIsStream(first, response.headers.get("content-type"), spec.streaming);
        meter.everyByte = !asStream;
        const assembler = createTurnAssembler({
          wire: spec.wire,
          streaming: asStream,
          maxTokens: request.maxTokens,
          explicitClose: spec.explicitClose && asStream,
          meter,
        });
        const read = asStream ? spec.readStream : spec.readWhole;
        const outcome = yield* read(rest, assembler, transport.context);
        cut ||= assembler.isCut();
        return outcome;
      },
    };
    if (!cut) return runRequest(exchange, signal, transport);
    cut = false;
    return afterSettling(
      signal,
      () => runRequest(exchange, signal, transport),
      async () => {
        const { settleAfterCut } = await import("./settle-after-cut.ts");
        await settleAfterCut(transport.fetch, spec.url, settle, signal);
      },
    );
  };
}

/** The request, sent once the server has settled after a response nex cut (loaded only then). */
async function* afterSettling<T, R>(
  signal: AbortSignal,
  request: () => AsyncGenerator<T, R>,
  settled: () => Promise<void>,
): AsyncGenerator<T, R> {
  if (!signal.aborted) await settled();
  return yield* request();
}

/**
 * Whether a body is server-sent events. The first bytes decide when they are clear (servers and
 * proxies mislabel both ways, and some stream when asked not to); otherwise what was asked for and
 * the content type decide. Either reader keeps every integrity check.
 */
function bodyIsStream(
  first: Uint8Array | null,
  contentType: string | null,
  requested: boolean,
): boolean {
  const head = first ? new TextDecoder().decode(first.subarray(0, 64)).trimStart() : "";
  if (head.startsWith("{")) return false;
  if (/^(data|event|id|retry):|^:/.test(head)) return true;
  return requested && !/application\/json/i.test(contentType ?? "");
}

/** The first non-empty chunk of a body, and the whole body again (that chunk included). */
async function peek(
  chunks: AsyncIterable<Uint8Array>,
): Promise<{ first: Uint8Array | null; rest: AsyncIterable<Uint8Array> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: Uint8Array[] = [];
  let first: Uint8Array | null = null;
  while (first === null) {
    const next = await iterator.next();
    if (next.done) break;
    seen.push(next.value);
    if (next.value.byteLength > 0) first = next.value;
  }
  // A plain iterator, not a generator: every chunk of every answer passes through it.
  let replayed = 0;
  const rest: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const chunk = seen[replayed];
        if (chunk === undefined) return iterator.next();
        replayed += 1;
        return Promise.resolve({ done: false, value: chunk });
      },
      // A reader that stops at its terminator ends the body here, so the connection is freed.
      return: async () => {
        await iterator.return?.();
        return { done: true, value: undefined };
      },
    }),
  };
  return { first, rest };
}

/**
 * Reads a whole (non-streamed) body as a JSON object. A body cut inside its JSON is a network
 * failure (retried like a dropped connection); anything else that is not an object is invalid.
 */
export async function readJsonObject(
  chunks: AsyncIterable<Uint8Array>,
  context: FailureContext,
): Promise<
  { type: "object"; value: Record<string, unknown> } | { type: "failed"; error: ProviderError }
> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of chunks) text += decoder.decode(chunk, { stream: true });
  text += decoder.decode();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (text.trimStart().startsWith("{")) {
      const error = invalidResponse(
        context.host,
        "the JSON body ended before it was complete",
        true,
      );
      return { type: "failed", error: { ...error, code: "network" } };
    }
    return {
      type: "failed",
      error: invalidResponse(context.host, `the body is not JSON: ${text.slice(0, 120)}`, false),
    };
  }
  if (!isObject(parsed)) {
    return {
      type: "failed",
      error: invalidResponse(context.host, "the body is not a JSON object", false),
    };
  }
  return { type: "object", value: parsed };
}

/**
 * How a stream read ends: no terminator and nothing shown is a failure safe to retry (nothing reached
 * the user); anything else is a turn, whose verdicts say what arrived whole.
 */
export function finishStream(assembler: TurnAssembler, context: FailureContext): ReadOutcome {
  // A cut overrun is a turn even with only reasoning in it: asking again would bring the same flood.
  if (!assembler.isTerminated() && !assembler.hasOutput() && !assembler.isOverrun()) {
    return {
      type: "failed",
      error: networkError(
        context.host,
        "the stream ended before any output and before its terminator",
      ),
    };
  }
  return { type: "turn", turn: assembler.finish() };
}
