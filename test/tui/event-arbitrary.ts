import fc from "fast-check";
import type { AgentEvent, TerminalEvent } from "../../src/protocol/index.ts";

// Small id ranges so that random sequences often match (and often mismatch) starts with ends.
const requestId = fc.integer({ min: 1, max: 3 });
const callId = fc.constantFrom("c1", "c2", "c3");
const host = fc.constantFrom("127.0.0.1:8080", "api.example.com");

/** Any terminal event. */
export const terminalEvent: fc.Arbitrary<TerminalEvent> = fc.oneof(
  fc.record({ type: fc.constant("done" as const), finalText: fc.string(), turns: fc.nat(5) }),
  fc.record({
    type: fc.constant("error" as const),
    code: fc.constantFrom(
      "bad_request" as const,
      "rate_limited" as const,
      "repeated_failure" as const,
    ),
    message: fc.string(),
  }),
  fc.record({ type: fc.constant("aborted" as const), reason: fc.string() }),
);

/** Any event a session can emit, including terminal ones, in no particular order. */
export const anyEvent: fc.Arbitrary<AgentEvent> = fc.oneof(
  fc.record({
    type: fc.constant("request_started" as const),
    requestId,
    attempt: fc.integer({ min: 1, max: 4 }),
    host,
    model: fc.constant("m"),
    maxTokens: fc.constant(4096),
  }),
  fc.record({
    type: fc.constant("request_failed" as const),
    requestId,
    attempt: fc.integer({ min: 1, max: 4 }),
    status: fc.constantFrom(400, 429, 500, null),
    code: fc.constantFrom("bad_request" as const, "rate_limited" as const, "network" as const),
    message: fc.string(),
    retryInMs: fc.option(fc.integer({ min: 0, max: 60_000 })),
    maxRetries: fc.constantFrom(3, 5),
    host,
  }),
  fc.record({
    type: fc.constant("request_finished" as const),
    requestId,
    stopReason: fc.constantFrom("stop" as const, "tool_calls" as const, "length" as const),
    usage: fc.constant(null),
  }),
  fc.record({ type: fc.constant("text_delta" as const), text: fc.string() }),
  fc.record({ type: fc.constant("reasoning_delta" as const), text: fc.string() }),
  fc.record({
    type: fc.constant("tool_call_started" as const),
    callId,
    name: fc.constantFrom("write_file", "bash"),
    args: fc.constant({ path: "a.txt" }),
  }),
  fc.record({
    type: fc.constant("tool_result" as const),
    callId,
    name: fc.constant("write_file"),
    isError: fc.boolean(),
    code: fc.constant(null),
    content: fc.string(),
    details: fc.constant(null),
  }),
  fc.record({
    type: fc.constant("tool_call_refused" as const),
    callId,
    name: fc.constant("write_file"),
    cause: fc.constantFrom("output_limit" as const, "denied" as const),
    reason: fc.string(),
    bytesReceived: fc.nat(10_000),
  }),
  fc.record({
    type: fc.constant("permission_requested" as const),
    callId,
    name: fc.constant("bash"),
    summary: fc.string(),
  }),
  fc.record({
    type: fc.constant("tool_progress" as const),
    callId,
    name: fc.constant("research"),
    message: fc.string(),
  }),
  fc.record({
    type: fc.constant("usage" as const),
    inputTokens: fc.nat(50_000),
    outputTokens: fc.nat(5_000),
    contextTokens: fc.nat(50_000),
    contextWindow: fc.constantFrom(32_768, 131_072),
  }),
  fc.record({ type: fc.constant("notice" as const), message: fc.string() }),
  terminalEvent,
);
