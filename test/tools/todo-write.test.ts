import assert from "node:assert/strict";
import { test } from "node:test";
import {
  latestTodos,
  parseTodos,
  renderTodos,
  todoNote,
} from "../../src/tools/builtin/todo-write.ts";
import { host, run, sandbox } from "./helpers.ts";

test("todo_write keeps the whole list, shows progress, and reads back what it rendered", async () => {
  const tools = host(sandbox());
  const todos = [
    { content: "read  the\nparser", status: "completed" },
    { content: "add the flag", status: "in_progress" },
    { content: "test it", status: "pending" },
  ];
  const out = await run(tools, "todo_write", { todos });
  assert.equal(out.isError, false);
  assert.equal(
    out.content,
    "Todo list updated (1 of 3 done):\n[x] read the parser\n[>] add the flag\n[ ] test it",
  );
  assert.deepEqual(out.details, {
    type: "todo",
    items: [
      { content: "read the parser", status: "completed" },
      { content: "add the flag", status: "in_progress" },
      { content: "test it", status: "pending" },
    ],
  });
  assert.deepEqual(
    parseTodos(out.content),
    out.details?.type === "todo" ? out.details.items : null,
  );
});

test("todo_write refuses two steps in progress, and a bad status, saying what to send", async () => {
  const tools = host(sandbox());
  const two = await run(tools, "todo_write", {
    todos: [
      { content: "a", status: "in_progress" },
      { content: "b", status: "in_progress" },
    ],
  });
  assert.equal(two.code, "invalid_arguments");
  assert.match(two.content, /2 steps are in_progress; keep exactly one in_progress/);
  const bad = await run(tools, "todo_write", { todos: [{ content: "a", status: "doing" }] });
  assert.equal(bad.code, "invalid_arguments");
});

test("the latest list is found in a conversation, whether from the tool or a compaction's note", () => {
  const items = [{ content: "x", status: "pending" as const }];
  assert.equal(latestTodos([{ type: "user", text: "hi" }]), null);
  const note = todoNote(items);
  assert.ok(note);
  assert.deepEqual(latestTodos([note]), items);
  assert.deepEqual(
    latestTodos([
      note,
      {
        type: "tool_result",
        toolCallId: "1",
        toolName: "todo_write",
        content: `Todo list updated (1 of 1 done):\n${renderTodos([{ content: "x", status: "completed" }])}`,
        isError: false,
      },
    ]),
    [{ content: "x", status: "completed" }],
  );
  assert.equal(todoNote([]), null);
});
