import assert from "node:assert/strict";
import { test } from "node:test";
import { formatDate, parseDate } from "./utils.js";

test("round trip", () => {
  assert.equal(formatDate(parseDate("2026-11-26")), "2026-11-26");
});
