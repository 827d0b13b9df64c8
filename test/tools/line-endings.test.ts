import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { host, run, sandbox } from "./helpers.ts";

const bareLf = (bytes: string): boolean => /(^|[^\r])\n/.test(bytes);

test("edit_file in a CRLF file writes the line breaks of new_string as CRLF, never a bare LF", async () => {
  const box = sandbox();
  writeFileSync(box.path("win.txt"), "alpha\r\nbeta\r\ngamma\r\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "win.txt" });
  const out = await run(tools, "edit_file", {
    path: "win.txt",
    old_string: "beta",
    new_string: "beta\nbeta two",
  });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("win.txt"), "utf8"), "alpha\r\nbeta\r\nbeta two\r\ngamma\r\n");
});

test("edit_file matches an old_string written with CRLF in an LF file, and writes LF", async () => {
  const box = sandbox();
  writeFileSync(box.path("unix.txt"), "one\ntwo\nthree\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "unix.txt" });
  const out = await run(tools, "edit_file", {
    path: "unix.txt",
    old_string: "one\r\ntwo",
    new_string: "one\r\n2",
  });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("unix.txt"), "utf8"), "one\n2\nthree\n");
});

test("write_file replacing a CRLF file with LF content keeps CRLF and says so", async () => {
  const box = sandbox();
  writeFileSync(box.path("win.txt"), "old one\r\nold two\r\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "win.txt" });
  const out = await run(tools, "write_file", { path: "win.txt", content: "new one\nnew two\n" });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /keeping its CRLF line endings/);
  const bytes = readFileSync(box.path("win.txt"), "utf8");
  assert.equal(bytes, "new one\r\nnew two\r\n");
  assert.ok(!bareLf(bytes));
});

test("write_file in parts over a CRLF file keeps CRLF", async () => {
  const box = sandbox();
  writeFileSync(box.path("win.txt"), "a\r\nb\r\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "win.txt" });
  await run(tools, "write_file", { path: "win.txt", content: "1\n", part: 1, parts: 2 });
  const out = await run(tools, "write_file", {
    path: "win.txt",
    content: "2\n",
    part: 2,
    parts: 2,
  });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("win.txt"), "utf8"), "1\r\n2\r\n");
});

test("write_file keeps a replaced file's UTF-8 byte order mark", async () => {
  const box = sandbox();
  writeFileSync(box.path("bom.csv"), "\uFEFFa,b\r\n1,2\r\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "bom.csv" });
  const out = await run(tools, "write_file", { path: "bom.csv", content: "a,b\n3,4\n" });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /keeping its CRLF line endings and byte order mark/);
  assert.deepEqual([...readFileSync(box.path("bom.csv")).subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(readFileSync(box.path("bom.csv"), "utf8"), "\uFEFFa,b\r\n3,4\r\n");
});

test("a new file and an LF file are written exactly as sent", async () => {
  const box = sandbox();
  writeFileSync(box.path("unix.txt"), "x\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "unix.txt" });
  await run(tools, "write_file", { path: "unix.txt", content: "y\nz\n" });
  await run(tools, "write_file", { path: "new.txt", content: "p\r\nq\n" });
  assert.equal(readFileSync(box.path("unix.txt"), "utf8"), "y\nz\n");
  assert.equal(readFileSync(box.path("new.txt"), "utf8"), "p\r\nq\n");
});
