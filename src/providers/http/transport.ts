// One logical request: attempts, timeouts, the retry policy, cancellation. Shared by both clients;
// a wire format only builds the request and reads a 2xx body.
//
// A failure before any text or tool-call data was yielded is retried per the policy (nothing was shown).
// A failure after output started is NOT retried: text streamed to the user cannot be un-shown, and a
// second answer could differ from the first. The stream then ends with `done` on a turn that is not
// terminated, so its tool calls are poisoned as `stream_dropped` and the loop decides what to do.

import type { HttpFetch, HttpResponse } from "../../net/index.ts";
import type { AssembledTurn, ProviderError, ProviderEvent } from "../../protocol/index.ts";
import { createOutputMeter, type OutputMeter } from "../turns/index.ts";
import { deadlineAfterPendingIo } from "./deadline.ts";
import {
  abortedError,
  classifyHttpError,
  type FailureContext,
  networkError,
  redact,
  timeoutError,
} from "./errors.ts";
import { planRetry, type RetryOptions, realSleep, retryAfterMs } from "./retry.ts";

/** How long to wait for the first byte of a response, and between chunks after it. */
export interface Timeouts {
  firstByteMs: number;
  idleMs: number;
}

export const defaultTimeouts: Timeouts = { firstByteMs: 120_000, idleMs: 90_000 };

/** The result of reading a 2xx response. `failed` is only for failures before any output was yielded. */
export type ReadOutcome =
  | { type: "turn"; turn: AssembledTurn }
  | { type: "failed"; error: ProviderError };

/** A request in one wire format. */
export interface WireExchange {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** `meter` counts the content read, which is what the idle timeout takes as progress. */
  read(
    response: HttpResponse,
    chunks: AsyncIterable<Uint8Array>,
    meter: OutputMeter,
  ): AsyncGenerator<ProviderEvent, ReadOutcome>;
}

/** Everything the transport needs besides the exchange. */
export interface TransportOptions {
  fetch: HttpFetch;
  retry: RetryOptions;
  timeouts: Timeouts;
  /** Strings that must never appear in an event (the key, auth header values). */
  secrets: string[];
  context: FailureContext;
  /** Most bytes read from one response body before nex stops reading it; default 64 MiB. */
  maxResponseBytes?: number;
}

/**
 * No answer nex asks for comes near this: max_tokens bounds the output to well under a megabyte of
 * JSON. A body past it is a broken or hostile endpoint, and reading on would only exhaust memory.
 */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** A failure while reading a body: the reader decides whether it can still be retried. */
export class StreamFailure extends Error {
  readonly kind: "timeout" | "network" | "aborted" | "oversized";
  constructor(kind: "timeout" | "network" | "aborted" | "oversized", message: string) {
    super(message);
    this.kind = kind;
  }
}

/** The ProviderError for a StreamFailure that happened before any output. */
export function streamFailureError(failure: StreamFailure, host: string): ProviderError {
  if (failure.kind === "aborted") return abortedError();
  if (failure.kind === "timeout") return timeoutError(host, failure.message);
  if (failure.kind === "oversized") {
    // The same request would bring the same flood: never retried.
    return {
      code: "invalid_response",
      retryable: false,
      message: `${host} ${failure.message}. Check the server: it is not answering like a model API.`,
    };
  }
  return networkError(host, failure.message);
}

/** Runs attempts until a turn, a final error or cancellation; always ends with one `done` or `error`. */
export async function* runRequest(
  exchange: WireExchange,
  signal: AbortSignal,
  options: TransportOptions,
): AsyncGenerator<ProviderEvent> {
  const scrub = (error: ProviderError): ProviderError => ({
    ...error,
    message: redact(error.message, options.secrets),
  });
  const sleep = options.retry.sleep ?? realSleep;
  const now = options.retry.now ?? Date.now;
  try {
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) {
        yield { type: "error", error: abortedError() };
        return;
      }
      yield { type: "attempt_started", attempt, host: options.context.host };
      const outcome = yield* attemptOnce(exchange, signal, options);
      if (outcome.type === "turn") {
        yield { type: "done", turn: scrubTurn(outcome.turn, options.secrets) };
        return;
      }
      if (signal.aborted || outcome.error.code === "aborted") {
        yield { type: "error", error: abortedError() };
        return;
      }
      const plan = planRetry(outcome.error, attempt, outcome.retryAfterMs, {
        ...options.retry,
        now,
      });
      const error = scrub(plan.error);
      yield {
        type: "attempt_failed",
        attempt,
        error,
        retryInMs: plan.retryInMs,
        maxRetries: plan.maxRetries,
      };
      if (plan.retryInMs === null) {
        yield { type: "error", error };
        return;
      }
      await abortable(sleep(plan.retryInMs, signal), signal);
    }
  } catch (error) {
    // A fault of ours; the stream contract still holds: one terminal event, no throw.
    const detail = error instanceof Error ? error.message : String(error);
    yield {
      type: "error",
      error: scrub({
        code: signal.aborted ? "aborted" : "invalid_response",
        retryable: false,
        message: signal.aborted
          ? "The request was cancelled."
          : `nex failed while handling the response from ${options.context.host}: ${detail}`,
      }),
    };
  }
}

/** Verdict reasons can quote the server (a mid-stream error): they get the same scrubbing as errors. */
function scrubTurn(turn: AssembledTurn, secrets: string[]): AssembledTurn {
  return {
    ...turn,
    toolCalls: turn.toolCalls.map((call) =>
      call.verdict.type === "poisoned"
        ? { ...call, verdict: { ...call.verdict, reason: redact(call.verdict.reason, secrets) } }
        : call,
    ),
  };
}

type AttemptOutcome =
  | { type: "turn"; turn: AssembledTurn }
  | { type: "failed"; error: ProviderError; retryAfterMs: number | null };

async function* attemptOnce(
  exchange: WireExchange,
  signal: AbortSignal,
  options: TransportOptions,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  // The attempt ends with the run: a listener on the run's signal, removed when the attempt ends.
  // Not AbortSignal.any: Node follows a composite signal's sources again for each listener added
  // to it, about twice the cost of this per request.
  const attempt = new AbortController();
  const endWithRun = () => attempt.abort(signal.reason);
  if (signal.aborted) endWithRun();
  else signal.addEventListener("abort", endWithRun, { once: true });
  try {
    return yield* attemptWithin(exchange, signal, attempt, options);
  } finally {
    signal.removeEventListener("abort", endWithRun);
  }
}

async function* attemptWithin(
  exchange: WireExchange,
  signal: AbortSignal,
  attempt: AbortController,
  options: TransportOptions,
): AsyncGenerator<ProviderEvent, AttemptOutcome> {
  let timedOut = false;
  const cancelTimer = deadlineAfterPendingIo(() => {
    timedOut = true;
    attempt.abort();
  }, options.timeouts.firstByteMs);
  let response: HttpResponse;
  try {
    response = await options.fetch(exchange.url, {
      method: "POST",
      headers: exchange.headers,
      body: exchange.body,
      signal: attempt.signal,
    });
  } catch (error) {
    cancelTimer();
    if (signal.aborted) return { type: "failed", error: abortedError(), retryAfterMs: null };
    const host = options.context.host;
    const failure = timedOut
      ? timeoutError(host, `no response within ${seconds(options.timeouts.firstByteMs)}`)
      : (refusedByFetch(host, error) ?? networkError(host, describeFetchError(error)));
    return { type: "failed", error: failure, retryAfterMs: null };
  }
  cancelTimer();
  const meter = createOutputMeter();
  const chunks = timedChunks(
    response.body,
    signal,
    attempt,
    options.timeouts,
    options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
    meter,
  );
  try {
    if (!response.ok) {
      // The status decides: a body cut or stalled on its way must not turn a 413 into a retried network error.
      const body = await readCapped(chunks, 64 * 1024, signal);
      const error = classifyHttpError(response.status, body, options.context);
      const wait = retryAfterMs(response.headers, (options.retry.now ?? Date.now)());
      return { type: "failed", error, retryAfterMs: wait };
    }
    if (/text\/html/i.test(response.headers.get("content-type") ?? "")) {
      // A web page (a proxy's login, a dashboard) instead of an API answer: asking again shows the same page.
      const page = (await readCapped(chunks, 4 * 1024)).replace(/\s+/g, " ").trim().slice(0, 160);
      return {
        type: "failed",
        error: notAnApi(options.context.host, response.status, page),
        retryAfterMs: null,
      };
    }
    const outcome = yield* exchange.read(response, chunks, meter);
    if (outcome.type === "turn") return outcome;
    return { type: "failed", error: outcome.error, retryAfterMs: null };
  } catch (error) {
    if (signal.aborted) return { type: "failed", error: abortedError(), retryAfterMs: null };
    if (error instanceof StreamFailure) {
      return {
        type: "failed",
        error: streamFailureError(error, options.context.host),
        retryAfterMs: null,
      };
    }
    throw error;
  } finally {
    // Ends whatever of the attempt is still running. A shared reason: abort() without one builds a
    // DOMException with a stack trace on every request, and nothing reads this one.
    attempt.abort(ATTEMPT_ENDED);
  }
}

const ATTEMPT_ENDED = new Error("the attempt ended");

/**
 * The body as chunks, with the first-byte timeout until the first chunk and the idle timeout after.
 * After the first chunk, progress is content (`meter`), not bytes: a stream of empty deltas or
 * keep-alives is no answer. Throws StreamFailure on timeout, network failure or cancellation.
 */
async function* timedChunks(
  body: AsyncIterable<Uint8Array> | null,
  signal: AbortSignal,
  attempt: AbortController,
  timeouts: Timeouts,
  maxBytes: number,
  meter: OutputMeter,
): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body[Symbol.asyncIterator]();
  let first = true;
  let received = 0;
  let lastProgress = Date.now();
  let counted = 0;
  try {
    for (;;) {
      // The reader has taken in the last chunk by now: did it bring content?
      if (meter.chars + meter.serverChars !== counted) {
        counted = meter.chars + meter.serverChars;
        lastProgress = Date.now();
      }
      const ms = first ? timeouts.firstByteMs : timeouts.idleMs;
      const left = Math.max(0, ms - (Date.now() - lastProgress));
      let cancelStall = () => {};
      const stall = new Promise<"stalled">((resolve) => {
        cancelStall = deadlineAfterPendingIo(() => resolve("stalled"), left);
      });
      let result: IteratorResult<Uint8Array> | "stalled";
      try {
        result = await Promise.race([reader.next(), stall]);
      } catch (error) {
        if (signal.aborted) throw new StreamFailure("aborted", "the request was cancelled");
        throw new StreamFailure("network", describeFetchError(error));
      } finally {
        cancelStall();
      }
      if (result === "stalled") {
        attempt.abort();
        const what = first
          ? `no data within ${seconds(ms)}`
          : `the stream stalled: no output (text, tool calls or reasoning) for ${seconds(ms)}; a slow server may need a longer NEX_IDLE_TIMEOUT`;
        throw new StreamFailure("timeout", what);
      }
      if (result.done) return;
      // Keep-alive comments (": ping") are not even a first byte: a server that sends only them
      // forever would otherwise hold nex past every timeout.
      if ((first || meter.everyByte) && !isKeepAliveOnly(result.value)) {
        first = false;
        lastProgress = Date.now();
      }
      received += result.value.byteLength;
      if (received > maxBytes) {
        attempt.abort();
        throw new StreamFailure(
          "oversized",
          `sent more than ${Math.round(maxBytes / 2 ** 20)} MiB in one response, far beyond any answer nex asked for, so nex stopped reading it`,
        );
      }
      yield result.value;
    }
  } finally {
    // Stops the body (and frees its connection) when the reader stopped before its end.
    reader.return?.()?.catch(() => {});
  }
}

/** True for a small chunk holding nothing but SSE comment lines and blank lines. */
function isKeepAliveOnly(chunk: Uint8Array): boolean {
  if (chunk.byteLength === 0 || chunk.byteLength > 1024) return chunk.byteLength === 0;
  // Every data chunk starts with a field name: answered without decoding it.
  const head = chunk[0];
  if (head !== 0x3a && head !== 0x20 && head !== 0x09 && head !== 0x0d && head !== 0x0a)
    return false;
  const text = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString("latin1");
  return /^(?:[ \t]*(?::[^\r\n]*)?\r?\n)+$/.test(text);
}

/**
 * Reads up to `cap` characters of a body. With a `signal`, a body that is cut or stalls yields what
 * arrived (an interrupt still ends the attempt); without one, such a failure is thrown.
 */
async function readCapped(
  chunks: AsyncIterable<Uint8Array>,
  cap: number,
  signal?: AbortSignal,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  try {
    for await (const chunk of chunks) {
      text += decoder.decode(chunk, { stream: true });
      if (text.length >= cap) break;
    }
  } catch (error) {
    if (!signal || signal.aborted || !(error instanceof StreamFailure)) throw error;
  }
  return text + decoder.decode();
}

/** Resolves when `promise` settles or `signal` aborts, whichever is first. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    promise.then(done, done);
  });
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** A web page (a proxy's login, a dashboard) where an API answer was expected. */
function notAnApi(host: string, status: number, page: string): ProviderError {
  return {
    code: "invalid_response",
    status,
    retryable: false,
    message: `${host} answered HTTP ${status} with a web page instead of an API response ("${page}"). Check the base URL (OpenAI-compatible servers usually end in /v1) and any proxy in between.`,
  };
}

/** A request refused before any network traffic (a blocked port, a bad URL): retrying cannot help. */
function refusedByFetch(host: string, error: unknown): ProviderError | null {
  const cause =
    error instanceof Error ? (error.cause as { message?: string } | undefined) : undefined;
  const message = cause?.message ?? "";
  if (/^too many redirects/i.test(message)) {
    // A redirect loop does not mend itself; asking again would only run it again.
    return {
      code: "config",
      retryable: false,
      message: `${host} redirects in a loop (more than 5 redirects for one request). Check the base URL: it may point at a login page or a misconfigured proxy.`,
    };
  }
  if (!/^(bad port|invalid url|unsupported protocol)/i.test(message)) return null;
  return {
    code: "config",
    retryable: false,
    message: `nex cannot send requests to ${host}: ${message} (refused before connecting, as fetch does). Use another port or fix the base URL.`,
  };
}

/** Plain words for a network failure, from its cause's code when there is one. */
export function describeFetchError(error: unknown): string {
  const cause =
    error instanceof Error
      ? (error.cause as { code?: string; message?: string; proxy?: string } | undefined)
      : undefined;
  const described = describeCause(error, cause);
  return cause?.proxy
    ? `${described}, at the proxy ${cause.proxy} (HTTP_PROXY / HTTPS_PROXY); check the proxy, or name the server in NO_PROXY`
    : described;
}

function describeCause(
  error: unknown,
  cause: { code?: string; message?: string } | undefined,
): string {
  const code = cause?.code ?? "";
  const known: Record<string, string> = {
    ECONNREFUSED: "the connection was refused",
    ECONNRESET: "the connection was reset",
    ENOTFOUND: "the host name could not be resolved",
    EAI_AGAIN: "the host name could not be resolved (DNS lookup failed)",
    ETIMEDOUT: "the connection timed out",
    EHOSTUNREACH: "the host is unreachable",
    UND_ERR_SOCKET: "the connection was closed mid-response",
    UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  };
  if (known[code]) return `${known[code]} (${code})`;
  const message = cause?.message ?? (error instanceof Error ? error.message : String(error));
  if (/other side closed|terminated/i.test(message))
    return "the connection was closed mid-response";
  return message || "the request failed";
}
