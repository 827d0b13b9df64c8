import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { AgentEvent } from "../../src/protocol/index.ts";
import {
  initialTranscript,
  maxLiveMarkdownLines,
  reduceTranscript,
  type TranscriptState,
} from "../../src/tui/state/transcript.ts";
import { anyEvent, terminalEvent } from "./event-arbitrary.ts";

function fold(events: AgentEvent[]): TranscriptState {
  return events.reduce(reduceTranscript, initialTranscript);
}

test("committed entries only ever grow at the end, so Ink's <Static> can print each once", () => {
  fc.assert(
    fc.property(fc.array(anyEvent, { maxLength: 60 }), (events) => {
      let state = initialTranscript;
      for (const event of events) {
        const next = reduceTranscript(state, event);
        assert.ok(next.entries.length >= state.entries.length);
        for (const [i, entry] of state.entries.entries()) assert.equal(next.entries[i], entry);
        state = next;
      }
      const ids = state.entries.map((e) => e.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
      );
      assert.equal(new Set(ids).size, ids.length);
    }),
  );
});

test("after a terminal event nothing is left streaming or running", () => {
  fc.assert(
    fc.property(fc.array(anyEvent, { maxLength: 60 }), terminalEvent, (events, last) => {
      const state = fold([...events, last]);
      assert.equal(state.streaming, "");
      assert.deepEqual(state.running, []);
      assert.deepEqual(state.receiving, []);
    }),
  );
});

test("the live region keeps at most a few lines of streaming text, however long the answer", () => {
  const deltas: AgentEvent[] = [];
  for (let i = 0; i < 500; i++) deltas.push({ type: "text_delta", text: `line ${i}\n` });
  let state = initialTranscript;
  for (const delta of deltas) {
    state = reduceTranscript(state, delta);
    assert.ok(state.streaming.split("\n").length - 1 <= maxLiveMarkdownLines);
  }
  state = reduceTranscript(state, { type: "done", finalText: "", turns: 1 });
  const text = state.entries.map((e) => (e.type === "assistant" ? e.text : "")).join("\n");
  assert.equal(text, Array.from({ length: 500 }, (_, i) => `line ${i}`).join("\n"));
  assert.equal(state.entries.filter((e) => e.type === "assistant" && !e.continued).length, 1);
});

test("a failed request is shown in full once, even when the terminal error repeats it", () => {
  const message = `HTTP 400: ${"x".repeat(3000)} — the request was not retried.`;
  const state = fold([
    { type: "request_started", requestId: 1, attempt: 1, host: "h", model: "m", maxTokens: 1 },
    {
      type: "request_failed",
      requestId: 1,
      attempt: 1,
      status: 400,
      code: "bad_request",
      message,
      retryInMs: null,
      maxRetries: 0,
      host: "h",
    },
    { type: "error", code: "bad_request", message },
  ]);
  const errors = state.entries.filter((e) => e.type === "error");
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.type === "error" && errors[0].message, message);
});

test("a terminal error that says something new is shown too", () => {
  const state = fold([
    { type: "error", code: "repeated_failure", message: "Stopped after 3 refused calls." },
  ]);
  assert.equal(state.entries.at(-1)?.type, "error");
});

test("a call refused after a permission request keeps the request's summary as its headline", () => {
  const state = fold([
    { type: "permission_requested", callId: "c1", name: "bash", summary: "rm -rf build" },
    {
      type: "tool_call_refused",
      callId: "c1",
      name: "bash",
      cause: "denied",
      reason: "the user denied it",
      bytesReceived: 0,
    },
  ]);
  const entry = state.entries.at(-1);
  assert.equal(entry?.type, "tool");
  if (entry?.type !== "tool") return;
  assert.equal(entry.summary, "rm -rf build");
  assert.equal(entry.started, false);
  assert.deepEqual(entry.outcome, {
    type: "refused",
    cause: "denied",
    reason: "the user denied it",
    bytesReceived: 0,
  });
});

test("an interrupt settles running tools as having no result and says so", () => {
  const state = fold([
    { type: "tool_call_started", callId: "c1", name: "bash", args: { command: "sleep 100" } },
    { type: "aborted", reason: "interrupted by the user" },
  ]);
  assert.deepEqual(
    state.entries.map((e) => e.type),
    ["tool", "info"],
  );
  const tool = state.entries[0];
  assert.equal(tool?.type === "tool" && tool.outcome?.type, "interrupted");
});

test("reasoning is shown collapsed: one line with its size, never the model's text", () => {
  const state = fold([
    { type: "reasoning_delta", text: "Let me think " },
    { type: "reasoning_delta", text: "about it." },
    { type: "text_delta", text: "The answer.\n" },
    { type: "done", finalText: "The answer.", turns: 1 },
  ]);
  const shown = state.entries.map((entry) => ("text" in entry ? entry.text : ""));
  assert.ok(
    shown.includes("⋯ reasoning (22 characters, not shown; /reasoning shows it)"),
    String(shown),
  );
  assert.equal(state.lastReasoning, "Let me think about it.");
  assert.ok(!shown.some((text) => text.includes("Let me think")));
  assert.ok(shown.some((text) => text.includes("The answer.")));
});
