import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { createSessionBudget } from "../../src/runtime/context/request-budget.ts";

const tools = () => [{ name: "read_file", description: "reads", parameters: { type: "object" } }];
const text = (n: number): Message => ({ type: "user", text: "x".repeat(n) });

test("max_tokens is the proportional reserve while the prompt fits, and null (compact) once it does not", () => {
  const budget = createSessionBudget({ window: 32_768, maxOutput: 8_192, tools });
  assert.equal(budget.maxTokensFor(1_000), 8_192);
  assert.equal(budget.maxTokensFor(30_000), null);
  const small = createSessionBudget({ window: 8_192, maxOutput: 4_096, tools });
  assert.equal(
    small.maxTokensFor(1_000),
    2_048,
    "a quarter of a small window, not the model's whole output limit",
  );
  assert.ok(small.largestMaxTokensFor(1_000) > 2_048, "the re-request after a cut may go higher");
});

test("the prompt estimate continues from the endpoint's reported usage instead of re-estimating everything", () => {
  const budget = createSessionBudget({ window: 32_768, maxOutput: 8_192, tools });
  const messages = [text(35_000), text(35)];
  const cheap = budget.estimatePrompt("system", messages);
  // The tokenizer counted the first message at 8,000 where bytes/3.5 says about 10,000.
  assert.equal(budget.observeUsage(8_000, 0, 1), null, "a report within tokenizer differences");
  const corrected = budget.estimatePrompt("system", messages);
  assert.ok(cheap > 10_000);
  assert.ok(corrected < 8_100 && corrected > 8_000, `corrected estimate ${corrected}`);
  budget.forgetUsage();
  assert.equal(budget.estimatePrompt("system", messages), cheap);
});

test("a window stated by the endpoint replaces the assumed one", () => {
  const budget = createSessionBudget({ window: 32_768, maxOutput: 8_192, tools });
  budget.correctWindow(16_384);
  assert.equal(budget.window(), 16_384);
  assert.equal(budget.maxTokensFor(15_000), null);
});

test("on an 8k window a report far below the estimate is caught too (a fixed 8k floor never would be)", () => {
  const budget = createSessionBudget({ window: 8_192, maxOutput: 1_024, tools });
  const messages = [text(14_000)];
  const own = budget.estimatePrompt("system", messages);
  assert.ok(own > 2_000 && own < 8_192, `estimate ${own}`);
  assert.match(budget.observeUsage(12, 0, 1) ?? "", /counted 12 prompt tokens/);
  assert.equal(budget.estimatePrompt("system", messages), own, "nex keeps its own estimate");
});

test("switching to a model with a smaller output limit lowers max_tokens at once", () => {
  const budget = createSessionBudget({ window: 200_000, maxOutput: 32_000, tools });
  assert.equal(budget.maxTokensFor(1_000), 32_000);
  budget.setLimits({ window: 200_000, maxOutput: 4_096 });
  assert.equal(budget.maxTokensFor(1_000), 4_096);
  assert.equal(budget.largestMaxTokensFor(1_000), 4_096);
});

test("a usage report far below nex's own estimate (a server cutting the prompt) is not trusted, and the user is told once", () => {
  const budget = createSessionBudget({ window: 131_072, maxOutput: 8_192, tools });
  const messages = [text(70_000)];
  const own = budget.estimatePrompt("system", messages);
  const notice = budget.observeUsage(3_900, 0, 1);
  assert.match(notice ?? "", /counted 3,900 prompt tokens where nex estimated about/);
  assert.match(notice ?? "", /OLLAMA_CONTEXT_LENGTH/);
  assert.equal(
    budget.estimatePrompt("system", messages),
    own,
    "the low report does not shrink the estimate",
  );
  messages.push(text(10));
  budget.estimatePrompt("system", messages);
  assert.equal(budget.observeUsage(3_950, 0, 2), null, "said once");

  const zeros = createSessionBudget({ window: 131_072, maxOutput: 8_192, tools });
  const zeroEstimate = zeros.estimatePrompt("system", [text(70_000)]);
  assert.equal(zeros.observeUsage(0, 0, 1), null, "a usage of zeros is no report, not a cut");
  assert.equal(zeros.estimatePrompt("system", [text(70_000)]), zeroEstimate);

  const honest = createSessionBudget({ window: 131_072, maxOutput: 8_192, tools });
  const estimate = honest.estimatePrompt("system", [text(70_000)]);
  assert.equal(
    honest.observeUsage(Math.round(estimate * 0.8), 0, 1),
    null,
    "a report within tokenizer differences is trusted",
  );
});

test("a usage report no request could produce (above the window, negative, fractional) does not drive the budget, and the user is told once", () => {
  const budget = createSessionBudget({ window: 32_768, maxOutput: 8_192, tools });
  const messages = [text(3_500)];
  const before = budget.estimatePrompt("system", messages);
  const notice = budget.observeUsage(1_000_000_000, 12, 1);
  assert.match(
    notice ?? "",
    /1,000,000,000 prompt tokens, more than the whole 32,768-token window/,
  );
  assert.equal(budget.estimatePrompt("system", messages), before, "nex keeps its own estimate");
  assert.notEqual(budget.maxTokensFor(before), null, "no compaction before the next turn");
  assert.equal(budget.observeUsage(-5, 3, 1), null, "told once");
  assert.equal(budget.observeUsage(1_200.5, 3, 1), null);
  assert.equal(budget.estimatePrompt("system", messages), before);
});
