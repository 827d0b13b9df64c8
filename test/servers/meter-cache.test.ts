// The chat's meter says how much of the last prompt the server read from its cache.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cacheLabel, initialMeter, reduceMeter } from "../../src/tui/state/meter.ts";

const start = initialMeter({ contextWindow: 200_000, windowSource: "registry", model: "m" });
const usage = (extra: object) => ({
  type: "usage" as const,
  inputTokens: 12_000,
  outputTokens: 50,
  contextTokens: 12_050,
  contextWindow: 200_000,
  ...extra,
});

test("the meter shows the last request's cache reads, and totals reads and writes", () => {
  assert.equal(cacheLabel(start), "", "nothing before a server says anything");
  const first = reduceMeter(start, usage({ cacheWriteTokens: 11_000 }));
  assert.equal(cacheLabel(first), "cached 0");
  const second = reduceMeter(first, usage({ cacheReadTokens: 11_000, cacheWriteTokens: 900 }));
  assert.equal(cacheLabel(second), "cached 11.0k");
  assert.equal(second.cacheReadTotal, 11_000);
  assert.equal(second.cacheWriteTotal, 11_900);
  const silent = reduceMeter(second, usage({}));
  assert.equal(cacheLabel(silent), "", "a server that reports no cache is not shown as a miss");
});
