import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { test } from "node:test";
import { looksLikeContentLoss } from "../../src/tools/files/write-guard.ts";
import { host, run, sandbox } from "./helpers.ts";

const long = (n: number, c = "a"): string => c.repeat(n);

test("write_file refuses to replace an existing file the session has not read, and leaves it intact", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "original\n");
  const out = await run(host(box), "write_file", { path: "a.txt", content: "replaced\n" });
  assert.equal(out.code, "not_read");
  assert.match(out.content, /has not read it/);
  assert.match(out.content, /Nothing was written/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "original\n");
});

test("write_file refuses a file modified since it was read (stale_read) and keeps the outside change", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "version 1\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  writeFileSync(box.path("a.txt"), "version 2 from the user\n");
  const out = await run(tools, "write_file", { path: "a.txt", content: "version 3\n" });
  assert.equal(out.code, "stale_read");
  assert.match(out.content, /modified since you read it/);
  assert.match(out.content, /read it again/i);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "version 2 from the user\n");
});

test("write_file after reading only part of a file is refused and says the read was partial", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "1\n2\n3\n4\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt", offset: 1, limit: 2 });
  const out = await run(tools, "write_file", { path: "a.txt", content: "1\n2\n3\n4\n5\n" });
  assert.equal(out.code, "not_read");
  assert.match(out.content, /read only part/);
});

test("reading a file in slices that cover it all counts as a complete read", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "1\n2\n3\n4\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt", offset: 1, limit: 2 });
  await run(tools, "read_file", { path: "a.txt", offset: 3, limit: 2 });
  const out = await run(tools, "write_file", { path: "a.txt", content: "1\n2\n3\n4\n5\n" });
  assert.equal(out.isError, false, out.content);
});

test("after a complete read, write_file replaces the file and reports what it overwrote", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "old content\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  const out = await run(tools, "write_file", { path: "a.txt", content: "new\n" });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /Overwrote a\.txt \(was 12 bytes\): now 4 bytes, 1 line/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "new\n");
  assert.equal(out.ledger?.[0]?.complete, true);
  const again = await run(tools, "write_file", { path: "a.txt", content: "newer\n" });
  assert.equal(again.isError, false, "its own write counts as known content");
});

test("write_file keeps the permission bits of the file it replaces", async () => {
  const box = sandbox();
  writeFileSync(box.path("run.sh"), "#!/bin/sh\necho 1\n");
  chmodSync(box.path("run.sh"), 0o751);
  const tools = host(box);
  await run(tools, "read_file", { path: "run.sh" });
  await run(tools, "write_file", { path: "run.sh", content: "#!/bin/sh\necho 2\n" });
  assert.equal(statSync(box.path("run.sh")).mode & 0o777, 0o751);
});

test("write_file through a symlink inside the workspace replaces the target and keeps the link", async () => {
  const box = sandbox();
  writeFileSync(box.path("real.txt"), "real\n");
  symlinkSync("real.txt", box.path("link.txt"));
  const tools = host(box);
  await run(tools, "read_file", { path: "link.txt" });
  const out = await run(tools, "write_file", { path: "link.txt", content: "through the link\n" });
  assert.equal(out.isError, false, out.content);
  assert.match(out.content, /Overwrote real\.txt/);
  assert.equal(readFileSync(box.path("real.txt"), "utf8"), "through the link\n");
  assert.ok(readdirSync(box.workspace).includes("link.txt"));
});

// Seed 004: the Qwen Code guard, kept as a second layer under read-before-write.
test("content-loss guard: an existing empty file can be filled without a read", async () => {
  const box = sandbox();
  writeFileSync(box.path("empty.txt"), "");
  const out = await run(host(box), "write_file", { path: "empty.txt", content: "now something\n" });
  assert.equal(out.isError, false, out.content);
});

test("content-loss guard: a small unread file (<100 characters) is refused by read-before-write, not as content loss", async () => {
  const box = sandbox();
  writeFileSync(box.path("small.txt"), long(60));
  const out = await run(host(box), "write_file", { path: "small.txt", content: "x" });
  assert.equal(out.code, "not_read");
});

test("content-loss guard: an unread file kept above half its size is refused only as not read", async () => {
  const box = sandbox();
  writeFileSync(box.path("big.txt"), long(200));
  const out = await run(host(box), "write_file", { path: "big.txt", content: long(150, "b") });
  assert.equal(out.code, "not_read");
  assert.equal(readFileSync(box.path("big.txt"), "utf8"), long(200));
});

test("content-loss guard: an unread file of 100+ characters cut below half is refused as content_loss", async () => {
  const box = sandbox();
  writeFileSync(box.path("big.txt"), long(200));
  const out = await run(host(box), "write_file", { path: "big.txt", content: long(20, "b") });
  assert.equal(out.code, "content_loss");
  assert.match(out.content, /200 characters\) with 20 characters/);
  assert.equal(readFileSync(box.path("big.txt"), "utf8"), long(200));
});

test("content-loss guard: emptying an unread non-empty file is refused as content_loss", async () => {
  const box = sandbox();
  writeFileSync(box.path("tiny.txt"), "keep me");
  const out = await run(host(box), "write_file", { path: "tiny.txt", content: "" });
  assert.equal(out.code, "content_loss");
  assert.equal(readFileSync(box.path("tiny.txt"), "utf8"), "keep me");
});

test("content-loss guard: a shorter write (even emptying) after a complete read is allowed", async () => {
  const box = sandbox();
  writeFileSync(box.path("big.txt"), long(500));
  const tools = host(box);
  await run(tools, "read_file", { path: "big.txt" });
  const out = await run(tools, "write_file", { path: "big.txt", content: "short" });
  assert.equal(out.isError, false, out.content);
  const emptied = await run(tools, "write_file", { path: "big.txt", content: "" });
  assert.equal(emptied.isError, false, emptied.content);
  assert.equal(statSync(box.path("big.txt")).size, 0);
});

test("content-loss guard thresholds count characters: 100 → 49 is loss, 100 → 50 is not, 99 → 1 is not", () => {
  assert.equal(looksLikeContentLoss(long(100), long(49)), true);
  assert.equal(looksLikeContentLoss(long(100), long(50)), false);
  assert.equal(looksLikeContentLoss(long(99), "x"), false);
  assert.equal(looksLikeContentLoss("x", ""), true);
  assert.equal(looksLikeContentLoss("", ""), false);
  assert.equal(looksLikeContentLoss(long(100, "é"), long(50, "é")), false, "characters, not bytes");
});

test("write_file refuses content with an omission placeholder and writes nothing", async () => {
  const box = sandbox();
  writeFileSync(box.path("app.ts"), "export function a() {\n  return 1;\n}\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "app.ts" });
  const out = await run(tools, "write_file", {
    path: "app.ts",
    content: "export function a() {\n  return 2;\n}\n// ... rest of the code unchanged\n",
  });
  assert.equal(out.code, "placeholder");
  assert.match(out.content, /rest of the code unchanged/);
  assert.equal(readFileSync(box.path("app.ts"), "utf8"), "export function a() {\n  return 1;\n}\n");
});

test("a placeholder-like comment already in the file does not block rewriting the file", async () => {
  const box = sandbox();
  writeFileSync(box.path("doc.md"), "Example:\n<!-- ... rest of the file ... -->\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "doc.md" });
  const out = await run(tools, "write_file", {
    path: "doc.md",
    content: "Example (updated):\n<!-- ... rest of the file ... -->\n",
  });
  assert.equal(out.isError, false, out.content);
});

test("legitimate code with `...args` and a bare `// ...` comment is written", async () => {
  const box = sandbox();
  const code = "function f(...args) {\n  // ...\n  return g(...args);\n}\n";
  const out = await run(host(box), "write_file", { path: "f.js", content: code });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("f.js"), "utf8"), code);
});

test("a write leaves no temporary file behind", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "a.txt", content: "x" });
  assert.deepEqual(readdirSync(box.workspace), ["a.txt"]);
  assert.equal(existsSync(box.path(".a.txt.nex-parts")), false);
});

test("a write removes what interrupted writes of dead processes left beside it, once clearly abandoned, and nothing else", async () => {
  const box = sandbox();
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);
  const files: Array<[string, number]> = [
    [".a.txt.nex-0123456789ab.tmp", 1], // a whole write abandoned an hour ago: removed
    [".a.txt.nex-abcdefabcdef.tmp", 0], // fresh: another nex may be writing it right now
    [".b.txt.nex-00112233aabb.parts", 2], // parts staged two hours ago: a session may still finish them
    [".c.txt.nex-445566778899.parts", 48], // two days old: removed
    [".a.txt.nex-notours.tmp", 5], // not nex's exact pattern
    [".env", 100],
  ];
  for (const [name, age] of files) {
    writeFileSync(box.path(name), "leftover");
    utimesSync(box.path(name), hoursAgo(age), hoursAgo(age));
  }
  const out = await run(host(box), "write_file", { path: "a.txt", content: "new\n" });
  assert.equal(out.isError, false, out.content);
  assert.deepEqual(readdirSync(box.workspace).sort(), [
    ".a.txt.nex-abcdefabcdef.tmp",
    ".a.txt.nex-notours.tmp",
    ".b.txt.nex-00112233aabb.parts",
    ".env",
    "a.txt",
  ]);
});
