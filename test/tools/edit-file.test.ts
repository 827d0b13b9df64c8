import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { host, run, sandbox } from "./helpers.ts";

async function readThen(box: ReturnType<typeof sandbox>, file: string, content: string) {
  writeFileSync(box.path(file), content);
  const tools = host(box);
  await run(tools, "read_file", { path: file });
  return tools;
}

test("edit_file replaces the one occurrence, reports bytes on disk and a unified diff", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.ts", "const a = 1;\nconst b = 2;\n");
  const out = await run(tools, "edit_file", {
    path: "a.ts",
    old_string: "const b = 2;",
    new_string: "const b = 3;",
  });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("a.ts"), "utf8"), "const a = 1;\nconst b = 3;\n");
  assert.match(
    out.content,
    /^Edited a\.ts: 1 replacement; now 26 bytes, 2 lines, sha256 [0-9a-f]{12} \(read back from disk\)/,
  );
  assert.match(out.content, /-const b = 2;\n\+const b = 3;/);
});

test("edit_file with old_string indented differently matches, re-indents new_string and says so", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.ts", "if (x) {\n\treturn 1;\n}\n");
  const out = await run(tools, "edit_file", {
    path: "a.ts",
    old_string: "    return 1;",
    new_string: "    if (y) return 0;\n    return 2;",
  });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /matched only when ignoring indentation; new_string was re-indented/);
  assert.equal(
    readFileSync(box.path("a.ts"), "utf8"),
    "if (x) {\n\tif (y) return 0;\n\treturn 2;\n}\n",
  );
});

test("edit_file ignores trailing whitespace only when exact text is not there, and says so", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.py", "def f():  \n    return 1\t\n\nx = 2\n");
  const out = await run(tools, "edit_file", {
    path: "a.py",
    old_string: "def f():\n    return 1\n",
    new_string: "def f():\n    return 3\n",
  });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /matched only when ignoring trailing whitespace/);
  assert.equal(readFileSync(box.path("a.py"), "utf8"), "def f():\n    return 3\n\nx = 2\n");
});

test("edit_file with no match refuses, shows the nearest region of the file, and changes nothing", async () => {
  const box = sandbox();
  const file =
    "const a = 1;\nfunction total(items) {\n  let sum = 0;\n  for (const i of items) sum += i.price;\n  return sum;\n}\n";
  const tools = await readThen(box, "a.js", file);
  const out = await run(tools, "edit_file", {
    path: "a.js",
    old_string:
      "function total(items) {\n  let sum = 0;\n  for (const item of items) sum += item.price;",
    new_string: "x",
  });
  assert.equal(out.code, "no_match");
  assert.match(out.content, /not even ignoring line endings, trailing whitespace or indentation/);
  assert.match(
    out.content,
    /The nearest text in the file \(lines 2-4\):\n {5}2\tfunction total\(items\) \{\n {5}3\t {2}let sum = 0;\n {5}4\t {2}for \(const i of items\)/,
  );
  assert.equal(readFileSync(box.path("a.js"), "utf8"), file);
});

test("a tolerant match found twice is ambiguous, naming both places", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.txt", "  x = 1\ny\n\tx = 1\n");
  const out = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "x = 1 \n",
    new_string: "x = 2\n",
  });
  assert.equal(out.code, "ambiguous_match");
  assert.match(out.content, /occurs 2 times in a\.txt \(ignoring indentation\) \(lines 1, 3\)/);
});

test("edit_file with several matches refuses with the count and lines unless replace_all", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.txt", "x = 1\ny = 2\nx = 1\n");
  const out = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "x = 1",
    new_string: "x = 9",
  });
  assert.equal(out.code, "ambiguous_match");
  assert.match(out.content, /occurs 2 times in a\.txt \(lines 1, 3\)/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "x = 1\ny = 2\nx = 1\n");
  const all = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "x = 1",
    new_string: "x = 9",
    replace_all: true,
  });
  assert.equal(all.isError, false, all.content);
  assert.match(all.content, /2 replacements/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "x = 9\ny = 2\nx = 9\n");
});

test("edit_file refuses a file the session has not read", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "hello\n");
  const out = await run(host(box), "edit_file", {
    path: "a.txt",
    old_string: "hello",
    new_string: "bye",
  });
  assert.equal(out.code, "not_read");
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "hello\n");
});

test("edit_file refuses a file changed since it was read", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.txt", "hello\n");
  writeFileSync(box.path("a.txt"), "hello world\n");
  const out = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "hello",
    new_string: "bye",
  });
  assert.equal(out.code, "stale_read");
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "hello world\n");
});

test("edit_file after a partial read is allowed, and consecutive edits need no re-read", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "1\n2\n3\n4\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt", offset: 2, limit: 1 });
  const first = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "2\n",
    new_string: "two\n",
  });
  assert.equal(first.isError, false, first.content);
  const second = await run(tools, "edit_file", {
    path: "a.txt",
    old_string: "3\n",
    new_string: "three\n",
  });
  assert.equal(second.isError, false, second.content);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "1\ntwo\nthree\n4\n");
});

test("edit_file matches multi-line text in a CRLF file and keeps CRLF line ends", async () => {
  const box = sandbox();
  const tools = await readThen(box, "w.txt", "one\r\ntwo\r\nthree\r\n");
  const out = await run(tools, "edit_file", {
    path: "w.txt",
    old_string: "one\ntwo",
    new_string: "one\nTWO",
  });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("w.txt"), "utf8"), "one\r\nTWO\r\nthree\r\n");
});

test("edit_file refuses a new_string with an omission placeholder", async () => {
  const box = sandbox();
  const tools = await readThen(box, "a.ts", "function a() {\n  step1();\n  step2();\n}\n");
  const out = await run(tools, "edit_file", {
    path: "a.ts",
    old_string: "function a() {\n  step1();\n  step2();\n}",
    new_string: "function a() {\n  // ... existing code ...\n  step3();\n}",
  });
  assert.equal(out.code, "placeholder");
  assert.equal(
    readFileSync(box.path("a.ts"), "utf8"),
    "function a() {\n  step1();\n  step2();\n}\n",
  );
});

test("edit_file on a missing file says to use write_file", async () => {
  const out = await run(host(sandbox()), "edit_file", {
    path: "new.ts",
    old_string: "a",
    new_string: "b",
  });
  assert.equal(out.code, "not_found");
  assert.match(out.content, /use write_file/);
});

test("a binary (not UTF-8) file is never changed as text by edit_file or write_file", async () => {
  const box = sandbox();
  const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
  writeFileSync(box.path("old.txt"), latin1);
  const tools = host(box);
  const edit = await run(tools, "edit_file", {
    path: "old.txt",
    old_string: "caf",
    new_string: "bar",
  });
  assert.equal(edit.code, "binary");
  const write = await run(tools, "write_file", { path: "old.txt", content: "café\n" });
  assert.equal(write.code, "binary");
  assert.match(write.content, /remove it first with bash/);
  assert.ok(readFileSync(box.path("old.txt")).equals(latin1));
});
