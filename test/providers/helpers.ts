import type { ModelRequest, ProviderEvent, StreamFn } from "../../src/protocol/index.ts";
import type { RetryOptions } from "../../src/providers/index.ts";

/** Drains a provider stream into its events. */
export async function collect(
  stream: StreamFn,
  request: ModelRequest = sampleRequest(),
  signal: AbortSignal = new AbortController().signal,
): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of stream(request, signal)) events.push(event);
  return events;
}

/** The one terminal event; fails the test if there is not exactly one, last. */
export function terminal(
  events: ProviderEvent[],
): Extract<ProviderEvent, { type: "done" | "error" }> {
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  const last = events[events.length - 1];
  if (terminals.length !== 1 || terminals[0] !== last) {
    throw new Error(
      `expected exactly one terminal event, last; got ${events.map((e) => e.type).join(", ")}`,
    );
  }
  return last as Extract<ProviderEvent, { type: "done" | "error" }>;
}

export function doneTurn(events: ProviderEvent[]) {
  const end = terminal(events);
  if (end.type !== "done") throw new Error(`expected done, got error: ${end.error.message}`);
  return end.turn;
}

export function finalError(events: ProviderEvent[]) {
  const end = terminal(events);
  if (end.type !== "error") throw new Error("expected error, got done");
  return end.error;
}

export function sampleRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "stub-model",
    system: "You are nex.",
    messages: [{ type: "user", text: "hello" }],
    tools: [
      {
        name: "write_file",
        description: "Write a file",
        parameters: {
          type: "object",
          properties: { path: { type: "string" }, content: { type: "string" } },
          required: ["path", "content"],
        },
      },
    ],
    maxTokens: 4096,
    requestId: 1,
    ...overrides,
  };
}

/** Retry options that record each wait and return at once. */
export function recordedSleeps(extra: RetryOptions = {}): { waits: number[]; retry: RetryOptions } {
  const waits: number[] = [];
  return {
    waits,
    retry: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      random: () => 0.5,
      ...extra,
    },
  };
}
