// Old large results leave the conversation as stubs naming their stored copy: nothing is lost (the
// copy holds every byte), the last turns stay whole, and a stub is never stubbed again.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { createSessionBudget } from "../../src/runtime/context/request-budget.ts";
import {
  resultShrinker,
  STUB_MARK,
  stubOldResults,
} from "../../src/runtime/context/result-stubs.ts";
import { createResultStore } from "../../src/tools/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";

function conversation(turns: number, bytes: number): Message[] {
  const messages: Message[] = [{ type: "user", text: "read everything" }];
  for (let t = 1; t <= turns; t++) {
    messages.push({
      type: "assistant",
      text: "",
      toolCalls: [{ id: `c${t}`, name: "read_file", argumentsText: `{"path":"f${t}.txt"}` }],
    });
    const body = Array.from({ length: bytes / 20 }, (_, i) =>
      `f${t} line ${i + 1}`.padEnd(19),
    ).join("\n");
    messages.push({
      type: "tool_result",
      toolCallId: `c${t}`,
      toolName: "read_file",
      content: body,
      isError: false,
    });
  }
  return messages;
}

test("results before the last three turns become stubs whose stored copy holds every byte", () => {
  const dir = scratchDir("nex-stubs-");
  const store = createResultStore(dir);
  const messages = conversation(6, 8000);
  const originals = messages.map((m) => (m.type === "tool_result" ? m.content : null));
  const { stubbed } = stubOldResults(messages, store, 2048);
  assert.equal(stubbed, 3, "turns 1-3 stubbed, 4-6 kept");
  messages.forEach((message, i) => {
    if (message.type !== "tool_result") return;
    const turn = Number(message.toolCallId.slice(1));
    if (turn > 3) {
      assert.equal(message.content, originals[i], `turn ${turn} stays whole`);
      return;
    }
    assert.ok(message.content.startsWith(STUB_MARK), message.content);
    const name = /"(@results\/[^"]+)"/.exec(message.content)?.[1] ?? "";
    const path = store.locate(name);
    assert.ok(path, `the stub names a stored result: ${message.content}`);
    assert.equal(readFileSync(path ?? "", "utf8"), originals[i], "nothing is lost");
    assert.match(message.content, /Read any part with read_file/);
  });
  // A second pass changes nothing: a stub is never stubbed again.
  const before = JSON.stringify(messages);
  assert.equal(stubOldResults(messages, store, 2048).stubbed, 0);
  assert.equal(JSON.stringify(messages), before);
});

test("small results and conversations of fewer than four turns are left alone", () => {
  const store = createResultStore(scratchDir("nex-stubs-"));
  assert.equal(stubOldResults(conversation(3, 8000), store, 2048).stubbed, 0);
  assert.equal(stubOldResults(conversation(6, 1000), store, 2048).stubbed, 0);
});

test("the size that makes a result worth a stub is counted in bytes: multi-byte text counts whole", () => {
  const store = createResultStore(scratchDir("nex-stubs-"));
  const messages = conversation(5, 1000);
  // 1,500 characters of two-byte text: 3,000 bytes, over the 2,048-byte threshold.
  const first = messages[2];
  if (first?.type !== "tool_result") throw new Error("expected a tool result");
  messages[2] = { ...first, content: "·".repeat(1500) };
  assert.equal(stubOldResults(messages, store, 2048).stubbed, 1);
  assert.ok((messages[2] as { content: string }).content.startsWith(STUB_MARK));
});

test("the chat is told once why results move, then only how many more did", () => {
  const store = createResultStore(scratchDir("nex-stubs-"));
  const budget = createSessionBudget({ window: 16_384, maxOutput: 2048, tools: () => [] });
  const shrink = resultShrinker(budget, store);
  const messages = conversation(6, 8000);
  const first = shrink("system", messages);
  assert.equal(first.length, 1);
  assert.match(
    JSON.stringify(first[0]),
    /Moved 3 older tool results \(\d+ KiB\) out of the conversation to keep it small; each is stored whole/,
  );
  assert.deepEqual(shrink("system", messages), [], "nothing new to move, nothing said");
  messages.push(...conversation(1, 8000).slice(1));
  const later = shrink("system", messages);
  assert.equal(later.length, 1);
  assert.match(
    JSON.stringify(later[0]),
    /^\{"type":"notice","message":"Moved 1 older tool result \(\d+ KiB\) out of the conversation, stored whole as before\."\}$/,
  );
});
