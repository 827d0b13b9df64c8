import assert from "node:assert/strict";
import { test } from "node:test";
import { nextMode, parseCommand } from "../../src/tui/commands/commands.ts";

test("slash commands parse with their arguments; a path is a prompt, not a command", () => {
  assert.deepEqual(parseCommand("/undo"), { type: "undo", turns: 1 });
  assert.deepEqual(parseCommand("/undo 3"), { type: "undo", turns: 3 });
  assert.equal(parseCommand("/undo x")?.type, "invalid");
  assert.deepEqual(parseCommand("/model qwen3-coder"), { type: "model", name: "qwen3-coder" });
  assert.deepEqual(parseCommand("/model"), { type: "model_list" });
  assert.deepEqual(parseCommand("/resume"), { type: "resume_pick" });
  assert.deepEqual(parseCommand("/resume abc"), { type: "resume", id: "abc" });
  assert.deepEqual(parseCommand("/mode"), { type: "mode", mode: null });
  assert.deepEqual(parseCommand("/mode auto_edit"), { type: "mode", mode: "auto_edit" });
  assert.equal(parseCommand("/etc/hosts is wrong"), null);
  assert.equal(parseCommand("fix the bug"), null);
  assert.deepEqual(parseCommand("/reasoning"), { type: "reasoning" });
  assert.equal(parseCommand("/nope")?.type, "invalid");
});

test("the permission mode cycles through all four and back, plan after approve_all", () => {
  assert.equal(nextMode(nextMode(nextMode(nextMode("ask")))), "ask");
  assert.equal(nextMode("ask"), "auto_edit");
  assert.equal(nextMode("approve_all"), "plan");
  assert.deepEqual(parseCommand("/mode plan"), { type: "mode", mode: "plan" });
});
