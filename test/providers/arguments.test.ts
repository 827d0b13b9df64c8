import assert from "node:assert/strict";
import { test } from "node:test";
import { parseToolArguments } from "../../src/providers/index.ts";

test("strict JSON parses with recovery strict", () => {
  assert.deepEqual(parseToolArguments('{"path":"a.txt","content":"x"}'), {
    type: "parsed",
    value: { path: "a.txt", content: "x" },
    recovery: "strict",
  });
});

test("a markdown fence around a complete object is a lossless recovery marked fence", () => {
  const text = '```json\n{"path":"a.txt","content":"x"}\n```';
  assert.deepEqual(parseToolArguments(text), {
    type: "parsed",
    value: { path: "a.txt", content: "x" },
    recovery: "fence",
  });
});

test("exactly one complete object inside prose is a lossless recovery marked extracted", () => {
  const text =
    'Sure, here are the arguments: {"path":"a.txt","content":"}{ braces in a string"} hope that helps';
  assert.deepEqual(parseToolArguments(text), {
    type: "parsed",
    value: { path: "a.txt", content: "}{ braces in a string" },
    recovery: "extracted",
  });
});

test("an unclosed string is refused, naming the key being written, never closed for the model", () => {
  const result = parseToolArguments('{"path":"a.txt","content":"line one\\nline tw');
  assert.equal(result.type, "refused");
  assert.match(
    result.type === "refused" ? result.why : "",
    /unfinished string while writing `content`/,
  );
});

test("an unclosed brace is refused even when every value inside is complete", () => {
  const result = parseToolArguments('{"path":"a.txt","content":"done"');
  assert.equal(result.type, "refused");
  assert.match(result.type === "refused" ? result.why : "", /1 bracket still open/);
});

test("a complete inner object inside an unclosed outer object is not extracted", () => {
  const result = parseToolArguments('{"path":"a.txt","options":{"mode":"w"}');
  assert.equal(result.type, "refused");
});

test("a fence whose object is cut off is refused", () => {
  const result = parseToolArguments('```json\n{"path":"a.txt","content":"abc');
  assert.equal(result.type, "refused");
  assert.match(result.type === "refused" ? result.why : "", /while writing `content`/);
});

test("two objects in the text are refused as ambiguous", () => {
  const result = parseToolArguments('{"path":"a"}{"path":"b"}');
  assert.equal(result.type, "refused");
  assert.match(result.type === "refused" ? result.why : "", /more than one JSON object/);
});

test("an object followed by a stray brace is refused rather than trimmed", () => {
  assert.equal(parseToolArguments('{"path":"a"}}').type, "refused");
});

test("empty argument text is refused by the parser (the verdict decides about zero-argument tools)", () => {
  assert.deepEqual(parseToolArguments(""), {
    type: "refused",
    why: "no argument text was received",
  });
});

test("garbage that is not JSON is refused with the parser's reason", () => {
  const result = parseToolArguments("path=a.txt");
  assert.equal(result.type, "refused");
  assert.match(result.type === "refused" ? result.why : "", /not valid JSON/);
});

test("arguments nested deeper than any tool's parameters are refused before anything walks them", () => {
  const deep = `{"path":"a","content":"x","z":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
  const parsed = parseToolArguments(deep);
  assert.equal(parsed.type, "refused");
  assert.match(parsed.type === "refused" ? parsed.why : "", /nest deeper than 64 levels/);
  const brackets = `{"path":"a","content":"${"[{".repeat(500)}"}`;
  assert.equal(parseToolArguments(brackets).type, "parsed", "brackets inside a string are text");
  const nested = `{"path":"a","content":"x","meta":${"[".repeat(60)}1${"]".repeat(60)}}`;
  assert.equal(parseToolArguments(nested).type, "parsed", "60 levels is still a value");
});

test("the depth limit counts nesting, not brackets: many side by side pass, one level past it is refused", () => {
  const siblings = `{"rows":[${Array.from({ length: 200 }, (_, i) => `{"n":[${i}]}`).join(",")}]}`;
  assert.equal(parseToolArguments(siblings).type, "parsed", "400 brackets two levels deep");
  // The object's brace is the first level: 63 arrays inside it make 64, one more makes 65.
  const at = `{"v":${"[".repeat(63)}1${"]".repeat(63)}}`;
  const past = `{"v":${"[".repeat(64)}1${"]".repeat(64)}}`;
  assert.equal(parseToolArguments(at).type, "parsed", "64 levels");
  assert.match(why(parseToolArguments(past)), /nest deeper than 64 levels/, "65 levels");
  const mixed = `{"v":${'[{"k":'.repeat(32)}1${"}]".repeat(32)}}`;
  assert.equal(
    parseToolArguments(`{"v":${'[{"k":'.repeat(31)}1${"}]".repeat(31)}}`).type,
    "parsed",
  );
  assert.match(why(parseToolArguments(mixed)), /nest deeper/, "65 levels of objects and arrays");
});

function why(parsed: ReturnType<typeof parseToolArguments>): string {
  return parsed.type === "refused" ? parsed.why : "parsed";
}
