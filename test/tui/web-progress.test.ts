// The chat shows a long web call's latest step under its block, and the page's size once done.
import assert from "node:assert/strict";
import { test } from "node:test";
import { outcomeLines } from "../../src/tui/components/tool-view.ts";
import { initialTranscript, reduceTranscript } from "../../src/tui/state/transcript.ts";

test("research's progress shows under the running call; its result shows the size", () => {
  let state = reduceTranscript(initialTranscript, {
    type: "tool_call_started",
    callId: "c1",
    name: "research",
    args: { question: "What replaces frob()?" },
  });
  state = reduceTranscript(state, {
    type: "tool_progress",
    callId: "c1",
    name: "research",
    message: "reading 2 of 3: https://example.com/changelog",
  });
  const running = state.running[0];
  assert.ok(running);
  assert.deepEqual(outcomeLines(running.outcome, running.started, running.progress), [
    { text: "running… reading 2 of 3: https://example.com/changelog", tone: "dim" },
  ]);
  state = reduceTranscript(state, {
    type: "tool_result",
    callId: "c1",
    name: "research",
    isError: false,
    code: null,
    content: "Research brief: …",
    details: { type: "web", url: null, query: "What replaces frob()?", title: null, bytes: 1234 },
  });
  const done = state.entries.at(-1);
  assert.ok(done?.type === "tool");
  assert.deepEqual(outcomeLines(done.outcome, done.started, done.progress)[0], {
    text: "1,234 bytes of text",
    tone: "dim",
  });
});
