// The loop watch on a streamed answer: the runaways Qwen2.5-Coder 0.5B wrote on llama-server
// (bench/eval, r8) are found while they stream, and repetitive output a user asked for is not.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createRepetitionWatch } from "../../src/providers/turns/repetition.ts";

/** Streams `text` in small pieces; where the watch fired (characters read), and what it said. */
function watch(text: string, piece = 7) {
  const w = createRepetitionWatch();
  for (let at = 0; at < text.length; at += piece) {
    const found = w.push(text.slice(at, at + piece));
    if (found) return { ...found, readTo: Math.min(at + piece, text.length) };
  }
  return null;
}

const call = (name: string, args: unknown) => JSON.stringify({ name, arguments: args });
const todo = call("todo_write", {
  todos: [{ content: "Add a checklist for tasks of 3 or more steps", status: "in_progress" }],
});

test("the same call written as text, line after line, is found at its third round, and only its first round is kept", () => {
  const text = `\`\`\`${todo}\n`.repeat(1).concat(`${todo}\n`.repeat(200));
  const found = watch(text);
  assert.ok(found, "found");
  assert.match(found.detail, /the same todo_write call 3 times in a row/);
  assert.ok(found.readTo < text.length / 50, `found early (${found.readTo} of ${text.length})`);
  assert.equal(text.slice(0, found.keepChars), `\`\`\`${todo}`);
});

test("a round of several calls written over again (dead-code's loop through every tool) is found at its second round", () => {
  const round = ["read_file", "write_file", "edit_file", "bash", "grep", "glob", "list_dir"]
    .map((name) => call(name, "path"))
    .join("\n");
  const text = `${round}\n`.repeat(50);
  const found = watch(text);
  assert.ok(found);
  assert.match(
    found.detail,
    /the same 7 calls \(read_file, write_file, edit_file, bash, grep, and 2 more\) 2 times/,
  );
  assert.equal(found.keepChars, round.length);
});

test("a call repeated with only its numbers changing (read_file offset 1, 2, 3 ...) is found at its sixth; pretty-printed, fenced or tagged calls count as the same", () => {
  const lines = Array.from({ length: 40 }, (_, i) =>
    call("read_file", { path: "test/slugify.js", offset: i + 1, limit: 2000 }),
  );
  const found = watch(`${lines.join("\n")}\n`);
  assert.ok(found);
  assert.match(found.detail, /the same read_file call \(only its numbers changing\) 6 times/);

  const bash = { name: "bash", arguments: { command: "node --test" } };
  const mixed = [
    JSON.stringify(bash, null, 2),
    JSON.stringify(bash),
    `\`\`\`json\n${JSON.stringify(bash)}\n\`\`\``,
  ];
  assert.match(watch(mixed.join("\n"))?.detail ?? "", /the same bash call 3 times/);
  const tagged = `<tool_call>\n${JSON.stringify(bash)}\n</tool_call>\n`;
  assert.equal(watch(tagged.repeat(2)), null, "twice is no loop yet");
  assert.match(watch(tagged.repeat(5))?.detail ?? "", /the same bash call 3 times/);
});

test("a call repeated with only a counter in its strings changing (r13 checklist: item1.txt ... item61.txt) is found at its 32nd, keeping the calls before the run and its first", () => {
  const read = (n: number) => call("read_file", { path: `/tmp/nex-eval-16914/repo/item${n}.txt` });
  const lines = [
    call("list_dir", { path: "/tmp/nex-eval-16914/repo" }),
    ...[1, 2, 3, 4, 5].map(read),
    call("todo_write", { todos: [] }),
    ...Array.from({ length: 56 }, (_, i) => read(i + 6)),
  ];
  const text = `\`\`\`json\n${lines.join("\n")}\n`;
  const found = watch(text);
  assert.ok(found, "found");
  assert.match(found.detail, /the same read_file call \(only its numbers changing\) 32 times/);
  assert.ok(found.readTo < text.indexOf("item38.txt"), "found at the 32nd of the run");
  assert.ok(text.slice(0, found.keepChars).endsWith(read(6)), "kept up to the run's first");
  const thirtyOne = Array.from({ length: 31 }, (_, i) => read(i + 1)).join("\n");
  assert.equal(watch(thirtyOne), null, "31 numbered reads in one reply are still a batch");
});

test("repetitive output a user asks for is never a loop: CSV rows, a table, a list, JSON test data, calls that differ, a call written twice", () => {
  const legit = [
    `Here is the file:\n\`\`\`csv\nid,name,qty\n${"1,widget,10\n".repeat(500)}\`\`\``,
    `| a | b |\n|---|---|\n${"| 0 | 0 |\n".repeat(300)}`,
    `${"- [ ] check the logs\n".repeat(200)}`,
    `${"I will read the file.\n".repeat(100)}`,
    `Test users:\n${`${JSON.stringify({ name: "Alice", age: 30, tags: ["a"] })}\n`.repeat(200)}`,
    `${Array.from({ length: 30 }, (_, i) => call("read_file", { path: `part${i + 1}.txt` })).join("\n")}`,
    ["src/a.ts", "src/b.ts", "src/c.ts"]
      .flatMap((path) => [
        call("edit_file", { path, old_string: "x", new_string: "y" }),
        call("bash", { command: "npm test" }),
      ])
      .join("\n"),
    `${call("bash", { command: "ls" })}\n${call("bash", { command: "ls" })}\nDone.`,
    `\`\`\`ts\n${"function f() { return { a: 1 }; }\n".repeat(100)}\`\`\``,
  ];
  for (const text of legit) {
    assert.equal(watch(text), null, text.slice(0, 80));
    assert.equal(watch(text, 1), null, text.slice(0, 80));
  }
});

test("after the loop is found the watch stays quiet, and a unit too long to compare never forms one", () => {
  const w = createRepetitionWatch();
  const line = `${call("grep", { pattern: "x" })}\n`;
  assert.equal(w.push(line + line), null);
  assert.ok(w.push(line));
  assert.equal(w.push(line.repeat(10)), null);
  const huge = `${call("write_file", { path: "a", content: "x".repeat(70_000) })}\n`;
  assert.equal(watch(huge.repeat(4), 4096), null);
});
