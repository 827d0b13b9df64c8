// The one redaction every event passes before it leaves nex: every string of every event type, and
// streamed fragments cut at any point, come out with no secret in them.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../../src/protocol/index.ts";
import { createEventRedactor, textRedaction } from "../../src/runtime/secrets/index.ts";
import { createSecretScrubber } from "../../src/session/index.ts";

const KEY = "nexkey-0123456789abcdef";
// What must never come out, and the text that carries it.
const LEAKS = ["0123456789abcdef", "tok_9f8e7d6c5b4a3928", "hunter2-Secret9", "ghp_"];
const CARRIER = [
  `key ${KEY}`,
  "fetch https://api.example.com/v1/items?page=2&access_token=tok_9f8e7d6c5b4a3928",
  "clone https://bob:hunter2-Secret9@example.org/repo.git",
  "Authorization: Bearer ghp_aaaaBBBBccccDDDDeeeeFFFFgggg0123456789",
].join(" and ");

const scrubber = createSecretScrubber([{ name: "OPENAI_API_KEY", value: KEY }]);

// One of every event type, with the secret in every free-text field. Keyed by type, so a new event
// type does not compile until it is listed here.
const s = CARRIER;
const EVERY: { [K in AgentEvent["type"]]: Extract<AgentEvent, { type: K }> } = {
  session_started: {
    type: "session_started",
    sessionId: s,
    model: s,
    provider: s,
    workspace: s,
    contextWindow: 1,
    windowSource: "config",
    resumed: false,
    sandbox: { mode: "off", network: false, state: "off", line: s },
  },
  context_fitted: {
    type: "context_fitted",
    method: "compacted",
    messagesBefore: 1,
    messagesKept: 1,
    tokensBefore: 1,
    tokensKept: 1,
    line: s,
  },
  request_started: {
    type: "request_started",
    requestId: 1,
    attempt: 1,
    host: s,
    model: s,
    maxTokens: 1,
  },
  request_failed: {
    type: "request_failed",
    requestId: 1,
    attempt: 1,
    status: 500,
    code: "rate_limited",
    message: s,
    retryInMs: null,
    maxRetries: 1,
    host: s,
  },
  request_finished: { type: "request_finished", requestId: 1, stopReason: "stop", usage: null },
  text_delta: { type: "text_delta", text: s },
  reasoning_delta: { type: "reasoning_delta", text: s },
  tool_call_delta: { type: "tool_call_delta", index: 0, name: s, argumentsDelta: s },
  tool_call_started: {
    type: "tool_call_started",
    callId: s,
    name: s,
    args: { url: s, nested: { list: [s] } },
  },
  tool_call_refused: {
    type: "tool_call_refused",
    callId: s,
    name: s,
    cause: "denied",
    reason: s,
    bytesReceived: 1,
  },
  permission_requested: {
    type: "permission_requested",
    callId: s,
    name: s,
    summary: s,
    preview: s,
    scope: s,
  },
  tool_progress: { type: "tool_progress", callId: s, name: s, message: s },
  tool_output: { type: "tool_output", callId: s, name: s, tail: s, lines: 1, bytes: 1 },
  tool_result: {
    type: "tool_result",
    callId: s,
    name: s,
    isError: false,
    code: null,
    content: s,
    details: { type: "todo", items: [{ content: s, status: "pending" }] },
  },
  todo_updated: { type: "todo_updated", items: [{ content: s, status: "pending" }] },
  notice: { type: "notice", message: s },
  note_delivered: { type: "note_delivered", id: 1, kind: "steer", text: s },
  note_queued: { type: "note_queued", id: 1, kind: "queued", text: s },
  message_added: {
    type: "message_added",
    message: { type: "assistant", text: s, toolCalls: [{ id: s, name: s, argumentsText: s }] },
  },
  usage: {
    type: "usage",
    inputTokens: 1,
    outputTokens: 1,
    contextTokens: 1,
    contextWindow: 1,
  },
  done: { type: "done", finalText: s, turns: 1 },
  error: { type: "error", code: "internal", message: s },
  aborted: { type: "aborted", reason: s },
};

function leaks(events: unknown): string[] {
  const text = JSON.stringify(events);
  return LEAKS.filter((leak) => text.includes(leak));
}

test("every event type, with a secret in every string, comes out with none of it", () => {
  const redactor = createEventRedactor(scrubber);
  const out: AgentEvent[] = [];
  for (const event of Object.values(EVERY)) {
    out.push(...redactor.redact(event));
    out.push(...redactor.redact({ ...event, agent: { id: s, parentCallId: s, kind: s } }));
  }
  out.push(...redactor.redact({ type: "done", finalText: "", turns: 1 }));
  assert.deepEqual(leaks(out), [], JSON.stringify(out).slice(0, 2000));
  // Each type came out (streams once ended), so nothing was dropped to pass.
  const types = new Set(out.map((event) => event.type));
  for (const type of Object.keys(EVERY)) assert.ok(types.has(type as AgentEvent["type"]), type);
});

test("a secret cut across streamed fragments at any point is redacted whole, and the stream loses nothing", () => {
  const whole = `${CARRIER} then more words`;
  const streams: ((piece: string) => AgentEvent)[] = [
    (piece) => ({ type: "text_delta", text: piece }),
    (piece) => ({ type: "reasoning_delta", text: piece }),
    (piece) => ({ type: "tool_call_delta", index: 0, name: null, argumentsDelta: piece }),
  ];
  for (const make of streams) {
    const expected = createEventRedactor(scrubber).text(whole);
    for (let cut = 1; cut < whole.length; cut++) {
      for (const size of [1, 3, 7]) {
        const redactor = createEventRedactor(scrubber);
        const out: AgentEvent[] = [];
        const pieces = [whole.slice(0, cut)];
        for (let i = cut; i < whole.length; i += size) pieces.push(whole.slice(i, i + size));
        for (const piece of pieces) out.push(...redactor.redact(make(piece)));
        out.push(
          ...redactor.redact({
            type: "request_finished",
            requestId: 1,
            stopReason: "stop",
            usage: null,
          }),
        );
        assert.deepEqual(leaks(out), [], `cut at ${cut}, pieces of ${size}`);
        const text = out
          .map((event) =>
            event.type === "text_delta" || event.type === "reasoning_delta"
              ? event.text
              : event.type === "tool_call_delta"
                ? event.argumentsDelta
                : "",
          )
          .join("");
        assert.equal(text, expected, `cut at ${cut}, pieces of ${size}`);
      }
    }
  }
});

test("a tool call's first fragment, which names the tool, goes out at once", () => {
  const redactor = createEventRedactor(undefined);
  const out = redactor.redact({
    type: "tool_call_delta",
    index: 0,
    name: "web_fetch",
    argumentsDelta: '{"url":"https://x.example/?tok',
  });
  assert.equal(out.length, 1);
  assert.equal(out[0]?.type === "tool_call_delta" && out[0].name, "web_fetch");
});

test("what a stream holds back goes out before another stream of the agent starts, never after it", () => {
  const redactor = createEventRedactor(undefined);
  const out = [
    ...redactor.redact({ type: "reasoning_delta", text: "count the letters r" }),
    ...redactor.redact({ type: "text_delta", text: "There are three. " }),
    ...redactor.redact({ type: "usage", usage: { inputTokens: 1, outputTokens: 1 } } as never),
  ];
  const kinds = out.map((event) => event.type);
  const reasoning = out
    .filter((event) => event.type === "reasoning_delta")
    .map((event) => (event as { text: string }).text)
    .join("");
  assert.equal(reasoning, "count the letters r");
  assert.ok(
    kinds.lastIndexOf("reasoning_delta") < kinds.indexOf("text_delta"),
    `reasoning after the answer began: ${kinds.join(", ")}`,
  );
});

test("a text that comes again is redacted again, each session by its own secrets, and short texts pass as they are", () => {
  const redactor = createEventRedactor(scrubber);
  // The same string, many times and among others: every time it comes out redacted.
  for (let round = 0; round < 3; round++)
    for (let i = 0; i < 3000; i++) {
      const text = i % 100 === 0 ? CARRIER : `filler ${i}`;
      assert.deepEqual(leaks(redactor.text(text)), [], `round ${round}, text ${i}`);
    }
  // Another session's redactor holds another key: what the first remembered is no answer for it.
  const otherKey = "otherkey-fedcba9876543210";
  const other = createEventRedactor(
    createSecretScrubber([{ name: "ANTHROPIC_API_KEY", value: otherKey }]),
  );
  assert.equal(redactor.text(`key ${otherKey}`), `key ${otherKey}`);
  assert.equal(other.text(`key ${otherKey}`), "key [redacted: ANTHROPIC_API_KEY]");
  assert.ok(other.text(`key ${KEY}`).includes(KEY), "the other session does not hold KEY");
  // Under seven characters no form of a secret fits (`://u:p@` is the shortest).
  assert.equal(redactor.text("ok"), "ok");
});

test("a session's events, journal and stored results share one remembered redaction, which never answers for another session's secrets", () => {
  assert.equal(textRedaction(scrubber), textRedaction(scrubber));
  const otherKey = "otherkey-fedcba9876543210";
  const other = createSecretScrubber([{ name: "ANTHROPIC_API_KEY", value: otherKey }]);
  assert.notEqual(textRedaction(other), textRedaction(scrubber));
  // Each remembers the same texts, and each answers by its own secrets.
  const both = `key ${KEY} and ${otherKey}`;
  for (let i = 0; i < 2; i++) {
    assert.equal(textRedaction(scrubber)(both), `key [redacted: OPENAI_API_KEY] and ${otherKey}`);
    assert.equal(textRedaction(other)(both), `key ${KEY} and [redacted: ANTHROPIC_API_KEY]`);
  }
  // The same key held by a new session's scrubber is still redacted: nothing is keyed by value.
  const again = createSecretScrubber([{ name: "OPENAI_API_KEY", value: KEY }]);
  assert.equal(textRedaction(again)(`key ${KEY}`), "key [redacted: OPENAI_API_KEY]");
  // An event's strings and the same strings redacted alone agree.
  const redactor = createEventRedactor(scrubber);
  assert.equal(redactor.text(both), textRedaction(scrubber)(both));
});
