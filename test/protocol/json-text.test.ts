// parseJson against the value a text was written from: V8's JSON.parse in Node 24 and 26 decodes an
// escaped one-character key as "\\" once a "\\" key was parsed before (nodejs/node#63785), which
// put a tool call's argument under another name (found by the stream-assembly fuzz test).
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { parseJson } from "../../src/protocol/json-text.ts";

/** Parses a text with a "\\" key, as any earlier message in the process may have had. */
function poison(): void {
  JSON.parse(String.raw`{"h":[],"\\":0}`);
  JSON.parse(String.raw`{"\\":1}`);
}

/** The JSON of `value` with every non-ASCII character written as a \u escape, as some servers send. */
function escaped(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

test("keys written with escapes read back exact after a text with a backslash key", () => {
  poison();
  for (const key of ["\n", '"', "\t", "é", "\u2a82", "\u00a0", "\\", "\u0000", "a\nb"]) {
    const value = { path: "x", [key]: "kept", nested: [{ [key]: 1 }] };
    const text = escaped(value);
    assert.deepEqual(parseJson(text), value, JSON.stringify(text));
    assert.equal(JSON.stringify(parseJson(text)), JSON.stringify(value), "keys in their order");
  }
});

test("any value written with escaped keys and strings reads back exact, keys in order", () => {
  poison();
  const key = fc.oneof(
    fc.constantFrom("\\", '"', "\n", "\r", "\f", "é", "\u2028", "__proto__", "1", "~key0~0"),
    fc.string({ maxLength: 4 }),
    fc.string({ unit: "grapheme", maxLength: 3 }),
  );
  const json = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 3 }),
      fc.dictionary(key, tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  fc.assert(
    fc.property(json, fc.boolean(), (built, withEscapes) => {
      poison();
      // Through JSON once: the value as a parser without the bug gives it (__proto__ an own key).
      const value: unknown = JSON.parse(JSON.stringify(built));
      const text = withEscapes ? escaped(value) : JSON.stringify(value, null, 1);
      assert.equal(JSON.stringify(parseJson(text)), JSON.stringify(value));
    }),
    { numRuns: 500 },
  );
});

test("duplicate keys, an own __proto__ key and invalid texts behave as JSON.parse does", () => {
  poison();
  const duplicated = parseJson(String.raw`{"\u0061":1,"b":2,"a":3,"\u0031":4}`);
  assert.equal(JSON.stringify(duplicated), '{"1":4,"a":3,"b":2}');
  const proto = parseJson(String.raw`{"\u005f_proto__":{"polluted":true},"\n":1}`) as object;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype, "the prototype is not replaced");
  assert.deepEqual(Object.keys(proto), ["__proto__", "\n"]);
  for (const bad of [
    String.raw`{"\n":1,}`,
    String.raw`{"\q":1}`,
    String.raw`{"\n":"x`,
    '{"\\n":1',
  ]) {
    assert.throws(
      () => parseJson(bad),
      (error: Error) => {
        assert.throws(() => JSON.parse(bad), { message: error.message });
        return true;
      },
    );
  }
});
