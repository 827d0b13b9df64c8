// The retry policy, in one place, for every client (ARCHITECTURE.md, "Never hammer an endpoint"):
//   400, 404, 413, 422, 401, 403 and any other 4xx: no retry (a byte-identical request would fail again).
//   408, 429: at most 3 retries; Retry-After (seconds or HTTP date) when given and at most the cap,
//             else exponential from ~1 s with jitter. Past the cap nex does not sleep: it surfaces the wait.
//   5xx, connection failures, timeouts: at most 5 retries, exponential from ~1 s with jitter, capped
//             (a Retry-After on a 5xx is honoured like on a 429). Even `Retry-After: 0` waits 0.5 s.
// Failures of different kinds share one count: one request is never attempted more than 6 times.
import type { ProviderError } from "../../protocol/index.ts";

/** Tuning and test seams for the retry policy. */
export interface RetryOptions {
  /** Waits `ms`; must reject or resolve promptly when `signal` aborts. Default: a real timer. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** In [0, 1); default `Math.random`. */
  random?: () => number;
  /** Milliseconds since the epoch, for HTTP-date Retry-After; default `Date.now`. */
  now?: () => number;
  /** First exponential wait; default 1000. */
  baseDelayMs?: number;
  /** Largest exponential wait; default 30000. */
  maxDelayMs?: number;
  /** Largest Retry-After nex will sleep; default 60000. Past it the error surfaces at once. */
  maxRetryAfterMs?: number;
  /** Least wait between attempts even when the server says `Retry-After: 0`; default 500. */
  minRetryAfterMs?: number;
}

/** What to do after a failed attempt. */
export interface RetryPlan {
  /** Milliseconds to wait before the next attempt, or null to give up now. */
  retryInMs: number | null;
  /** The most retries this kind of failure gets. */
  maxRetries: number;
  /** The error to report, with what happens next added to its message. */
  error: ProviderError;
}

export const rateLimitRetries = 3;
export const transientRetries = 5;

/** The retry budget of a failure kind. */
export function maxRetriesFor(error: ProviderError): number {
  if (!error.retryable) return 0;
  const usual = error.status === 408 || error.status === 429 ? rateLimitRetries : transientRetries;
  return Math.min(usual, error.maxRetries ?? usual);
}

/**
 * Plans the next step after the `failures`-th failed attempt of one request.
 * `retryAfterMs` is the server's requested wait, when it sent one.
 */
export function planRetry(
  error: ProviderError,
  failures: number,
  retryAfterMs: number | null,
  options: RetryOptions = {},
): RetryPlan {
  const maxRetries = maxRetriesFor(error);
  if (maxRetries === 0) return { retryInMs: null, maxRetries, error };
  if (failures > maxRetries) {
    const tries = `${maxRetries} ${maxRetries === 1 ? "retry" : "retries"}`;
    // A failure worth only a few retries is not a passing one: its own message says what to change.
    const next =
      error.maxRetries === undefined ? "; try again later." : ", which failed the same way.";
    return {
      retryInMs: null,
      maxRetries,
      error: { ...error, message: `${error.message} nex gave up after ${tries}${next}` },
    };
  }
  const cap = options.maxRetryAfterMs ?? 60_000;
  if (retryAfterMs !== null) {
    if (retryAfterMs > cap) {
      const seconds = Math.ceil(retryAfterMs / 1000);
      return {
        retryInMs: null,
        maxRetries,
        error: {
          ...error,
          message: `${error.message} The endpoint asked to wait ${seconds} s, longer than nex waits (${Math.round(cap / 1000)} s); try again later.`,
        },
      };
    }
    // "Retry now" from a struggling server still gets a breath: a burst of retries helps nobody.
    return { retryInMs: Math.max(options.minRetryAfterMs ?? 500, retryAfterMs), maxRetries, error };
  }
  return { retryInMs: backoffMs(failures, options), maxRetries, error };
}

/** Exponential wait for the n-th failure (1-based): base·2^(n-1), capped, times a jitter in [0.8, 1.2). */
export function backoffMs(failures: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? 1000;
  const cap = options.maxDelayMs ?? 30_000;
  const random = options.random ?? Math.random;
  const raw = Math.min(cap, base * 2 ** Math.max(0, failures - 1));
  return Math.round(Math.min(cap, raw * (0.8 + 0.4 * random())));
}

/** Reads `retry-after-ms` or `retry-after` (delta-seconds or HTTP date) as milliseconds from now. */
export function retryAfterMs(
  headers: { get(name: string): string | null },
  now: number,
): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.round(Number.parseFloat(ms));
  const value = headers.get("retry-after");
  if (value === null || value.trim() === "") return null;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.round(Number.parseFloat(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

/** A real, abortable timer. */
export function realSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
