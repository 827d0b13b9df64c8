import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "../../src/protocol/index.ts";
import { initialTranscript, reduceTranscript } from "../../src/tui/state/transcript.ts";

function stream(text: string, size = 5) {
  let state = initialTranscript;
  for (let i = 0; i < text.length; i += size) {
    state = reduceTranscript(state, {
      type: "text_delta",
      text: text.slice(i, i + size),
    } as AgentEvent);
  }
  return state;
}

test("a streamed table is committed whole, never split between rows", () => {
  const table = ["| a | b |", "|---|---|", ...Array.from({ length: 20 }, (_, i) => `| ${i} | x |`)];
  const state = stream(`Intro.\n\n${table.join("\n")}\n\nAfter.\n`);
  const committed = state.entries.flatMap((e) => (e.type === "assistant" ? [e.text] : []));
  for (const text of committed) {
    if (text.includes("| 0 |")) assert.ok(text.includes("| 19 |") && text.startsWith("| a |"));
  }
});

test("a long code block is committed in fenced parts of the same language", () => {
  const code = Array.from({ length: 30 }, (_, i) => `let v${i} = ${i};`);
  const state = stream(`\`\`\`ts\n${code.join("\n")}\n\`\`\`\n`);
  const done = reduceTranscript(state, { type: "done", finalText: "", turns: 1 });
  const parts = done.entries.flatMap((e) => (e.type === "assistant" ? [e] : []));
  assert.ok(parts.length > 1);
  for (const part of parts) {
    assert.match(part.text, /^```ts\n/);
    assert.match(part.text, /\n```$/);
  }
  assert.ok(parts.slice(1).every((part) => part.continued));
  const lines = parts.flatMap((p) => p.text.split("\n").filter((l) => !l.startsWith("```")));
  assert.deepEqual(lines, code);
});
