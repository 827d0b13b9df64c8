// The walk under every redaction (events, journal records, stored results): every string of a value
// is changed wherever it sits, the value given is never modified, and what has nothing to change is
// shared rather than copied.
import assert from "node:assert/strict";
import { test } from "node:test";
import { mapStrings } from "../../src/session/index.ts";

const upper = (text: string) => (text.includes("key") ? text.toUpperCase() : text);

test("every string at every depth is changed, in arrays and objects, keys and order kept", () => {
  const value = {
    type: "message_added",
    n: 3,
    flag: true,
    none: null,
    message: {
      toolCalls: [
        { id: "c1", argumentsText: '{"key":"a key"}' },
        { id: "c2", argumentsText: "{}" },
      ],
      content: ["plain", ["nested key"], { deep: { deeper: "key again" } }],
    },
  };
  const out = mapStrings(value, upper);
  assert.deepEqual(out, {
    type: "message_added",
    n: 3,
    flag: true,
    none: null,
    message: {
      toolCalls: [
        { id: "c1", argumentsText: '{"KEY":"A KEY"}' },
        { id: "c2", argumentsText: "{}" },
      ],
      content: ["plain", ["NESTED KEY"], { deep: { deeper: "KEY AGAIN" } }],
    },
  });
  assert.deepEqual(Object.keys(out), Object.keys(value));
  assert.equal(mapStrings("a key", upper), "A KEY");
});

test("the value given is not modified, and unchanged parts are the same objects", () => {
  const untouched = { id: "c2", argumentsText: "{}" };
  const value = { calls: [{ argumentsText: "key" }, untouched], other: ["x", "y"] };
  const before = structuredClone(value);
  const out = mapStrings(value, upper);
  assert.deepEqual(value, before);
  assert.notEqual(out, value);
  assert.notEqual(out.calls, value.calls);
  assert.equal(out.calls[1], untouched);
  assert.equal(out.other, value.other);
});

test("a value with nothing to change comes back as itself", () => {
  const value = { a: ["x", { b: "y" }], c: 1 };
  assert.equal(
    mapStrings(value, (text) => text),
    value,
  );
  const list = ["p", "q"];
  assert.equal(
    mapStrings(list, (text) => text),
    list,
  );
});
