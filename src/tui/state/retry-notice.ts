// A request that keeps failing the same way while nex retries is said once: the status line counts
// down to the next attempt. Six identical lines over half a minute told the user nothing new.
import type { AgentEvent } from "../../protocol/index.ts";

type Failed = Extract<AgentEvent, { type: "request_failed" }>;

/** What makes two failed attempts "the same" to a reader: the request, the kind, the host. */
export function retryKey(event: Failed): string {
  return `${event.requestId} ${event.code} ${event.status ?? ""} ${event.host}`;
}

/** The one line said when a request starts failing in a new way and nex will retry it. */
export function retryNoticeText(event: Failed & { retryInMs: number }): string {
  const tries = `up to ${event.maxRetries} ${event.maxRetries === 1 ? "retry" : "retries"}`;
  if (event.code === "network")
    return `↻ ${event.host} is unreachable — ${event.message} nex retries quietly (${tries}); the status line counts down, Esc stops it.`;
  return `↻ ${event.message} nex retries (${tries}); the status line counts down, Esc stops it.`;
}

/** Whether `event` ends a stretch of retries (the next failure is news again). */
export function endsRetries(event: AgentEvent): boolean {
  return (
    event.type === "request_finished" ||
    event.type === "done" ||
    event.type === "error" ||
    event.type === "aborted"
  );
}
