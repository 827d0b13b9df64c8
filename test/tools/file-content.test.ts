import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { formatBytes, formatCount } from "../../src/protocol/index.ts";

test("counts are grouped by thousands exactly as en-US writes them", () => {
  fc.assert(
    fc.property(fc.oneof(fc.integer(), fc.maxSafeInteger()), (n) => {
      assert.equal(formatCount(n), n.toLocaleString("en-US"));
    }),
  );
  assert.equal(formatBytes(1234567), "1,234,567 bytes");
  assert.equal(formatBytes(1), "1 byte");
});
