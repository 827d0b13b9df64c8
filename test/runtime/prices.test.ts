// The cost arithmetic: input counts include the cached part, which is charged at the cache prices.
import assert from "node:assert/strict";
import { test } from "node:test";
import { costOf, formatUsd, priceFor } from "../../src/runtime/config/prices.ts";

test("cached input is charged at the cache prices, the rest at the input price", () => {
  const price = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
  const usd = costOf(price, {
    inputTokens: 1_000_000,
    outputTokens: 100_000,
    cacheReadTotal: 600_000,
    cacheWriteTotal: 200_000,
  });
  // 200k plain × 3 + 600k × 0.3 + 200k × 3.75 + 100k × 15, per million.
  assert.equal(usd.toFixed(4), (0.6 + 0.18 + 0.75 + 1.5).toFixed(4));
  assert.equal(formatUsd(usd), "$3.03");
  assert.equal(formatUsd(0.00312), "$0.0031");
});

test("the config's price wins; a local model has none", () => {
  assert.deepEqual(priceFor("gpt-4o", { input: 1, output: 2 }), { input: 1, output: 2 });
  assert.equal(priceFor("gpt-4o-mini")?.input, 0.15);
  assert.equal(priceFor("claude-sonnet-4-5-20250929")?.output, 15);
  assert.equal(priceFor("qwen3-coder-30b"), null);
});
