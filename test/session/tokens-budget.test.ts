import assert from "node:assert/strict";
import { test } from "node:test";
import { chooseMaxTokens, contextBudget } from "../../src/session/budget.ts";
import { cheapTokens, createTokenEstimator } from "../../src/session/tokens.ts";

test("the output reserve is a quarter of a small window, so a 32k model keeps most of it for the prompt", () => {
  assert.deepEqual(contextBudget({ window: 32768 }), {
    window: 32768,
    outputReserve: 8192,
    safetyMargin: 1639,
    promptBudget: 22937,
  });
  assert.deepEqual(contextBudget({ window: 8192 }), {
    window: 8192,
    outputReserve: 2048,
    safetyMargin: 512,
    promptBudget: 5632,
  });
  assert.equal(contextBudget({ window: 16384 }).outputReserve, 4096);
  assert.equal(contextBudget({ window: 200_000 }).outputReserve, 32768, "capped for huge windows");
  assert.equal(contextBudget({ window: 32768, outputLimit: 4096 }).outputReserve, 4096);
  const tiny = contextBudget({ window: 2048 });
  assert.ok(tiny.promptBudget > 0 && tiny.outputReserve <= 1024);
});

test("max_tokens fills what the prompt leaves, within the output limit, and is null when too little is left", () => {
  assert.equal(chooseMaxTokens({ window: 32768, promptTokens: 10_000, outputLimit: 8192 }), 8192);
  assert.equal(chooseMaxTokens({ window: 32768, promptTokens: 28_000 }), 32768 - 28_000 - 1639);
  assert.equal(chooseMaxTokens({ window: 32768, promptTokens: 30_900 }), null);
  assert.equal(chooseMaxTokens({ window: 8192, promptTokens: 1000 }), 8192 - 1000 - 512);
  const chosen = chooseMaxTokens({ window: 32768, promptTokens: 20_000 }) ?? 0;
  assert.ok(20_000 + chosen <= 32768);
});

test("the estimator counts with a real tokenizer", () => {
  const estimator = createTokenEstimator();
  assert.equal(estimator.countText("hello world"), 2);
  assert.equal(estimator.countText(""), 0);
  const code = "export function add(a: number, b: number): number {\n  return a + b;\n}\n".repeat(
    50,
  );
  const tokens = estimator.countText(code);
  assert.ok(tokens > code.length / 6 && tokens < code.length / 2, String(tokens));
  const message = { type: "user" as const, text: "hello world" };
  assert.equal(estimator.countMessage(message), 2 + 4);
  assert.equal(estimator.countMessages([message, message]), 12);
});

test("long runs of one character are counted without superlinear blowup", () => {
  const estimator = createTokenEstimator();
  // Whole-string BPE takes seconds on this; cut into runs it is a few milliseconds.
  const n = estimator.countText(`${"A".repeat(20_000)} ${" ".repeat(20_000)}x`);
  assert.ok(n > 2000 && n < 4000, String(n));
});

test("a limit stops counting early with a value above the limit", () => {
  const estimator = createTokenEstimator();
  const text = "word ".repeat(100_000);
  const n = estimator.countText(text, 1000);
  assert.ok(n > 1000 && n < 5000, String(n));
});

test("reported usage corrects estimates, clamped to 0.5..2", () => {
  const estimator = createTokenEstimator();
  const text = "the quick brown fox jumps over the lazy dog ".repeat(20);
  const raw = estimator.countText(text);
  assert.equal(estimator.correctWith({ inputTokens: 1500, estimatedTokens: 1000 }), 1.5);
  assert.equal(estimator.estimateText(text), Math.ceil(raw * 1.5));
  assert.equal(estimator.correctWith({ inputTokens: 10_000, estimatedTokens: 1000 }), 2);
  assert.equal(estimator.correctWith({ inputTokens: 100, estimatedTokens: 1000 }), 0.5);
  assert.equal(
    estimator.correctWith({ inputTokens: 0, estimatedTokens: 1000 }),
    0.5,
    "unusable sample ignored",
  );
  assert.equal(estimator.countText(text), raw, "raw counts are never corrected");
});

test("request estimates include the system prompt and tool specs", () => {
  const estimator = createTokenEstimator();
  const messages = [{ type: "user" as const, text: "hi" }];
  const bare = estimator.countRequest({ messages });
  const full = estimator.countRequest({
    system: "You are nex, a coding agent.",
    tools: [{ name: "read_file", description: "Reads a file.", parameters: { type: "object" } }],
    messages,
  });
  assert.ok(full > bare + 20, `${full} vs ${bare}`);
});

test("the cheap append-time estimate stays within a factor of two of the tokenizer on code and prose", () => {
  const estimator = createTokenEstimator();
  for (const text of [
    "export function add(a: number, b: number): number { return a + b; }\n".repeat(40),
    "The user asked to refactor the parser so that errors carry line numbers. ".repeat(40),
  ]) {
    const m = { type: "user" as const, text };
    const ratio = cheapTokens(m) / estimator.countMessage(m);
    assert.ok(ratio > 0.5 && ratio < 2, String(ratio));
  }
});

test("a tool's brief (nex's own load_tools text) is not counted: only what the wire sends is", () => {
  const estimator = createTokenEstimator();
  const spec = {
    name: "web_search",
    description: "Search the web: top results with title, URL and snippet.",
    parameters: { type: "object", properties: { query: { type: "string" } } },
  };
  const plain = estimator.countRequest({ messages: [], tools: [spec] });
  const briefed = estimator.countRequest({
    messages: [],
    tools: [
      { ...spec, brief: "a long brief of many words that would cost tokens if it were counted" },
    ],
  });
  assert.equal(briefed, plain);
});
