import assert from "node:assert/strict";
import { test } from "node:test";
import * as edit from "../../src/tui/input/editor.ts";

test("a trailing backslash before Enter becomes a newline instead of a submit", () => {
  const r = edit.enter(edit.editorWith("first\\"));
  assert.equal(r.type, "newline");
  assert.equal(r.type === "newline" && r.state.text, "first\n");
  assert.deepEqual(edit.enter(edit.editorWith("done")), { type: "submit", text: "done" });
});

test("the cursor moves between lines keeping its column, and reports the edges", () => {
  const two = { text: "abcdef\nxy", cursor: 9 };
  const up = edit.lineUp(two);
  assert.equal(up?.cursor, 2);
  assert.equal(edit.lineUp({ text: "abc", cursor: 1 }), null);
  assert.equal(edit.lineDown({ text: "abcdef\nxy", cursor: 5 })?.cursor, 9);
  assert.equal(
    edit.backspace({ text: "a😀", cursor: 3 }).text,
    "a",
    "a surrogate pair is one character",
  );
});
