import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveAlias } from "../../src/agent/tool-aliases.ts";

const known = [
  "read_file",
  "write_file",
  "edit_file",
  "bash",
  "grep",
  "glob",
  "list_dir",
  "todo_write",
];

test("Claude Code's argument names become nex's: Grep's -i, TodoWrite's items, WebFetch's prompt, Bash's milliseconds", () => {
  assert.deepEqual(
    resolveAlias("Grep", { pattern: "x", "-i": true, "-n": true, output_mode: "content" }, known),
    {
      type: "call",
      from: "Grep",
      name: "grep",
      args: { pattern: "x", ignore_case: true },
      note: "[nex: Grep ran as nex's grep (`-i` is its `ignore_case`); call nex's tools by their own names.]",
    },
  );
  const todo = resolveAlias(
    "TodoWrite",
    { todos: [{ content: "a", status: "pending", activeForm: "Doing a", id: "1" }] },
    known,
  );
  assert.deepEqual(todo?.type === "call" && todo.args, {
    todos: [{ content: "a", status: "pending" }],
  });
  const fetch = resolveAlias(
    "WebFetch",
    { url: "https://example.com", prompt: "the title" },
    known,
  );
  assert.deepEqual(fetch?.type === "call" && fetch.args, {
    url: "https://example.com",
    what: "the title",
  });
  const bash = resolveAlias(
    "Bash",
    { command: "make", timeout: 1500, run_in_background: true },
    known,
  );
  assert.deepEqual(bash?.type === "call" && bash.args, {
    command: "make",
    timeout_seconds: 2,
    background: true,
  });
});

test("arguments nex's tool does not know pass through, for its own validation to refuse", () => {
  const read = resolveAlias("Read", { file_path: "a", bogus: 1 }, known);
  assert.deepEqual(read?.type === "call" && read.args, { path: "a", bogus: 1 });
});

test("what the real tool cannot do is refused, not dropped: MultiEdit, Grep's context lines, WebSearch's domain filter", () => {
  for (const [name, args] of [
    ["MultiEdit", { file_path: "a", edits: [{ old_string: "x", new_string: "y" }] }],
    ["Grep", { pattern: "x", "-C": 2 }],
    ["WebSearch", { query: "q", allowed_domains: ["example.com"] }],
  ] as const) {
    assert.equal(resolveAlias(name, { ...args }, known)?.type, "refused", name);
  }
  // A value that asks for nothing is no request.
  assert.equal(resolveAlias("WebSearch", { query: "q", allowed_domains: [] }, known)?.type, "call");
});

test("a tool of the session that bears the name itself (an MCP server's Read) wins over the alias", () => {
  assert.equal(resolveAlias("Read", { file_path: "a" }, [...known, "Read"]), null);
  assert.equal(resolveAlias("read_file", { path: "a" }, known), null);
  assert.equal(resolveAlias("toString", {}, known), null);
});
