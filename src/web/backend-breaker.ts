// A search backend that keeps failing is left alone for a while, for the whole process: three
// failures in a row rest it five minutes, and a service that asks for a pause (a rate limit's wait,
// Stack Exchange's `backoff`) is not asked before the pause ends. A resting backend is not asked at
// all; the search names it with when it will be asked again. One success ends a streak.

const FAILURES_TO_REST = 3;
const REST_MS = 5 * 60_000;
/** A service's own pause is honoured up to an hour; a longer one is an hour. */
const LONGEST_PAUSE_MS = 60 * 60_000;

interface State {
  failures: number;
  restUntil: number;
  why: string;
}

const states = new Map<string, State>();

/** One key per backend: its type and its address. */
export function backendKey(type: string, url: string): string {
  return `${type} ${url.replace(/\/+$/, "")}`;
}

/** Why the backend is not asked now, with when it will be; null when it may be asked. */
export function restingReason(key: string, now = Date.now()): string | null {
  const state = states.get(key);
  if (!state || state.restUntil <= now) return null;
  return `not asked: ${state.why}; it is asked again in ${wait(state.restUntil - now)}`;
}

export function recordSuccess(key: string): void {
  const state = states.get(key);
  if (state) state.failures = 0;
}

/** A failure; the third in a row rests the backend, and a pause the service asked for is kept. */
export function recordFailure(
  key: string,
  why: string,
  restMs: number | null,
  now = Date.now(),
): void {
  const state = states.get(key) ?? { failures: 0, restUntil: 0, why: "" };
  state.failures += 1;
  if (state.failures >= FAILURES_TO_REST) {
    state.restUntil = Math.max(state.restUntil, now + REST_MS);
    state.why = `${state.failures} failures in a row (the last: ${why})`;
  }
  if (restMs !== null && restMs > 0) pause(state, restMs, `it asked for a pause (${why})`, now);
  states.set(key, state);
}

/** The service asked for a pause even while answering. */
export function restFor(key: string, restMs: number, why: string, now = Date.now()): void {
  const state = states.get(key) ?? { failures: 0, restUntil: 0, why: "" };
  pause(state, restMs, why, now);
  states.set(key, state);
}

function pause(state: State, restMs: number, why: string, now: number): void {
  const until = now + Math.min(restMs, LONGEST_PAUSE_MS);
  if (until > state.restUntil) {
    state.restUntil = until;
    state.why = why;
  }
}

function wait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}
