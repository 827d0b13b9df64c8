import assert from "node:assert/strict";
import { test } from "node:test";
import { nextMode, parseCommand } from "../../src/tui/commands.ts";
import * as edit from "../../src/tui/editor.ts";

test("slash commands parse with their arguments; a path is a prompt, not a command", () => {
  assert.deepEqual(parseCommand("/undo"), { type: "undo", turns: 1 });
  assert.deepEqual(parseCommand("/undo 3"), { type: "undo", turns: 3 });
  assert.equal(parseCommand("/undo x")?.type, "invalid");
  assert.deepEqual(parseCommand("/model qwen3-coder"), { type: "model", name: "qwen3-coder" });
  assert.equal(parseCommand("/model")?.type, "invalid");
  assert.deepEqual(parseCommand("/resume abc"), { type: "resume", id: "abc" });
  assert.deepEqual(parseCommand("/mode"), { type: "mode", mode: null });
  assert.deepEqual(parseCommand("/mode auto_edit"), { type: "mode", mode: "auto_edit" });
  assert.equal(parseCommand("/etc/hosts is wrong"), null);
  assert.equal(parseCommand("fix the bug"), null);
  assert.equal(parseCommand("/nope")?.type, "invalid");
});

test("the permission mode cycles through all three and back", () => {
  assert.equal(nextMode(nextMode(nextMode("ask"))), "ask");
  assert.equal(nextMode("ask"), "auto_edit");
});

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
