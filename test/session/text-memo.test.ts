// The memo under every redaction: it remembers what a text gave, forgets the oldest past its bounds,
// and never remembers a text longer than it may hold.
import assert from "node:assert/strict";
import { test } from "node:test";
import { textMemo } from "../../src/session/index.ts";

function counted(limits: { entries: number; textChars: number; totalChars: number }) {
  const calls: string[] = [];
  const memo = textMemo((text) => {
    calls.push(text);
    return text.toUpperCase();
  }, limits);
  return { memo, calls };
}

test("a text seen before is answered from memory, with the answer it gave", () => {
  const { memo, calls } = counted({ entries: 8, textChars: 100, totalChars: 1000 });
  assert.equal(memo("abc"), "ABC");
  assert.equal(memo("abc"), "ABC");
  assert.equal(memo("def"), "DEF");
  assert.deepEqual(calls, ["abc", "def"]);
});

test("past its number of entries or of characters the oldest texts are forgotten", () => {
  const { memo, calls } = counted({ entries: 2, textChars: 100, totalChars: 10 });
  memo("a");
  memo("b");
  memo("c"); // forgets "a"
  memo("a");
  assert.deepEqual(calls, ["a", "b", "c", "a"]);
  calls.length = 0;
  const big = counted({ entries: 100, textChars: 100, totalChars: 10 });
  big.memo("12345");
  big.memo("67890");
  big.memo("abcde"); // 15 characters would be over 10: "12345" goes
  big.memo("67890");
  big.memo("12345");
  assert.deepEqual(big.calls, ["12345", "67890", "abcde", "12345"]);
});

test("a text longer than one entry may be is computed every time, never kept", () => {
  const { memo, calls } = counted({ entries: 8, textChars: 4, totalChars: 100 });
  assert.equal(memo("long text"), "LONG TEXT");
  assert.equal(memo("long text"), "LONG TEXT");
  assert.deepEqual(calls, ["long text", "long text"]);
});

test("a text that keeps coming back is kept while others come and go", () => {
  const { memo, calls } = counted({ entries: 4, textChars: 100, totalChars: 1000 });
  for (const text of ["a", "b", "c", "a", "d", "a", "e", "a", "f", "g", "a"]) memo(text);
  assert.deepEqual(
    calls.filter((text) => text === "a"),
    ["a"],
  );
});
