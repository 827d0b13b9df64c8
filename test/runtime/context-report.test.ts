// `/context`: each part of the prompt sized as the request budget sizes it, the parts adding up to
// the budget's own estimate when no endpoint count is known, and the largest results named.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { contextParts, contextReport } from "../../src/runtime/context/context-report.ts";
import { createSessionBudget } from "../../src/runtime/context/request-budget.ts";

const tools = [
  { name: "read_file", description: "reads a file", parameters: { type: "object" } },
  { name: "bash", description: "runs a command", parameters: { type: "object" } },
];
const messages: Message[] = [
  { type: "user", text: "look at big.txt" },
  {
    type: "assistant",
    text: "",
    toolCalls: [{ id: "c1", name: "read_file", argumentsText: '{"path":"big.txt"}', args: {} }],
  } as unknown as Message,
  {
    type: "tool_result",
    toolCallId: "c1",
    toolName: "read_file",
    content: "y".repeat(35_000),
    isError: false,
  },
  { type: "assistant", text: "It is large.", toolCalls: [] },
];

test("the parts add up to the budget's estimate of the next prompt", () => {
  const budget = createSessionBudget({ window: 32_768, maxOutput: 4_096, tools: () => tools });
  const total = budget.estimatePrompt("You are nex.", messages);
  const parts = contextParts({ system: "You are nex.", tools, messages, window: 32_768, total });
  assert.equal(
    parts.reduce((sum, part) => sum + part.tokens, 0),
    total,
    JSON.stringify(parts),
  );
  const results = parts.find((part) => part.name.startsWith("tool results"));
  assert.equal(results?.name, "tool results (1 result)");
  assert.ok((results?.tokens ?? 0) >= 10_000, "35,000 bytes at 3.5 bytes a token");
  assert.match(parts[1]?.name ?? "", /tool definitions \(2 tools\)/);
  assert.match(parts[3]?.name ?? "", /model answers and calls \(2 turns\)/);
});

test("the report gives each part's share of the window, what is free, and the largest result with its call", () => {
  const text = contextReport({
    system: "You are nex.",
    tools,
    messages,
    window: 32_768,
    total: 10_100,
  });
  assert.match(text, /^Context: about 10,100 of 32,768 tokens \(31% of the window\)\./);
  assert.match(text, /tool results \(1 result\)\s+10,\d{3}\s+31%/);
  assert.match(text, /free \(the answer and what follows\)\s+22,668\s+69%/);
  assert.match(text, /Largest tool results:\n\s+10,\d{3}\s+read_file \{"path":"big\.txt"\}/);
  for (const line of text.split("\n").slice(0, 9))
    assert.ok(line.length <= 80, `fits 80 columns: ${line}`);
});

test("an empty conversation reports the fixed part alone, never a negative free share", () => {
  const text = contextReport({ system: "s", tools: [], messages: [], window: 100, total: 150 });
  assert.match(text, /free \(the answer and what follows\)\s+0\s+0%/);
  assert.doesNotMatch(text, /Largest tool results/);
});
