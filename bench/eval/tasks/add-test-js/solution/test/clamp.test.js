import assert from "node:assert/strict";
import { test } from "node:test";
import { clamp } from "../clamp.js";

test("a value below the range becomes the lower bound", () => {
  assert.equal(clamp(-5, 0, 10), 0);
});

test("a value above the range becomes the upper bound", () => {
  assert.equal(clamp(15, 0, 10), 10);
});
