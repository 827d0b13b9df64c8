import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { host, run, sandbox } from "./helpers.ts";

const chunk = (n: number): string => `// part ${n}\n${"x".repeat(100)}\n`;

test("parts are staged and nothing is written until the last part, which commits all of them at once", async () => {
  const box = sandbox();
  const tools = host(box);
  const one = await run(tools, "write_file", {
    path: "src/big.ts",
    content: chunk(1),
    part: 1,
    parts: 3,
  });
  assert.equal(one.isError, false, one.content);
  assert.match(
    one.content,
    /^Part 1 of 3 staged \(\d+ bytes; \d+ bytes staged so far\); nothing written to src\/big\.ts yet/,
  );
  assert.doesNotMatch(one.content, /wrote|written to src\/big\.ts\./i);
  assert.equal(one.details?.type, "part_staged");
  assert.equal(existsSync(box.path("src/big.ts")), false);
  const two = await run(tools, "write_file", {
    path: "src/big.ts",
    content: chunk(2),
    part: 2,
    parts: 3,
  });
  assert.match(two.content, /^Part 2 of 3 staged/);
  assert.equal(existsSync(box.path("src/big.ts")), false);
  const three = await run(tools, "write_file", {
    path: "src/big.ts",
    content: chunk(3),
    part: 3,
    parts: 3,
  });
  assert.equal(three.isError, false, three.content);
  const expected = chunk(1) + chunk(2) + chunk(3);
  assert.match(
    three.content,
    new RegExp(`Created src/big\\.ts from 3 parts: ${Buffer.byteLength(expected)} bytes, 6 lines`),
  );
  assert.equal(readFileSync(box.path("src/big.ts"), "utf8"), expected);
  assert.deepEqual(readdirSync(box.path("src")), ["big.ts"], "no staging file remains");
  assert.deepEqual(readdirSync(box.workspace), ["src"]);
});

test("a part out of order is refused, nothing is staged from it and nothing is written", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "a.txt", content: "one\n", part: 1, parts: 3 });
  const skip = await run(tools, "write_file", {
    path: "a.txt",
    content: "three\n",
    part: 3,
    parts: 3,
  });
  assert.equal(skip.code, "invalid_arguments");
  assert.match(skip.content, /Expected part 2 of 3 for a\.txt, got part 3/);
  assert.equal(existsSync(box.path("a.txt")), false);
  await run(tools, "write_file", { path: "a.txt", content: "two\n", part: 2, parts: 3 });
  await run(tools, "write_file", { path: "a.txt", content: "three\n", part: 3, parts: 3 });
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "one\ntwo\nthree\n");
});

test("a part with no part 1 before it is refused", async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", {
    path: "a.txt",
    content: "two\n",
    part: 2,
    parts: 3,
  });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /No parts are staged .*start with part 1/);
  assert.equal(existsSync(box.path("a.txt")), false);
});

test("a duplicate part is refused and not staged twice", async () => {
  const box = sandbox();
  const tools = host(box);
  const first = await run(tools, "write_file", {
    path: "b.txt",
    content: "one\n",
    part: 1,
    parts: 2,
  });
  assert.equal(first.isError, false);
  const again = await run(tools, "write_file", {
    path: "b.txt",
    content: "one\n",
    part: 1,
    parts: 2,
  });
  assert.match(
    again.content,
    /^Part 1 of 2 staged.*restarted/,
    "a repeated part 1 restarts the staging",
  );
  await run(tools, "write_file", { path: "c.txt", content: "one\n", part: 1, parts: 3 });
  await run(tools, "write_file", { path: "c.txt", content: "two\n", part: 2, parts: 3 });
  const twice = await run(tools, "write_file", {
    path: "c.txt",
    content: "two\n",
    part: 2,
    parts: 3,
  });
  assert.equal(twice.code, "invalid_arguments");
  assert.match(twice.content, /Part 2 of 3 for c\.txt was already staged/);
  await run(tools, "write_file", { path: "c.txt", content: "three\n", part: 3, parts: 3 });
  assert.equal(readFileSync(box.path("c.txt"), "utf8"), "one\ntwo\nthree\n");
});

test("a changed parts count is refused and the staged parts are kept", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "a.txt", content: "one\n", part: 1, parts: 2 });
  const changed = await run(tools, "write_file", {
    path: "a.txt",
    content: "two\n",
    part: 2,
    parts: 3,
  });
  assert.equal(changed.code, "invalid_arguments");
  assert.match(changed.content, /parts changed from 2 to 3/);
  assert.equal(existsSync(box.path("a.txt")), false);
  const done = await run(tools, "write_file", {
    path: "a.txt",
    content: "two\n",
    part: 2,
    parts: 2,
  });
  assert.equal(done.isError, false, done.content);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "one\ntwo\n");
});

test("part without parts (or parts without part) is refused", async () => {
  const box = sandbox();
  const tools = host(box);
  const out = await run(tools, "write_file", { path: "a.txt", content: "x", part: 1 });
  assert.equal(out.code, "invalid_arguments");
  assert.match(out.content, /`part` and `parts` go together/);
  const over = await run(tools, "write_file", { path: "a.txt", content: "x", part: 3, parts: 2 });
  assert.match(over.content, /part 3 is more than parts 2/);
  assert.equal(existsSync(box.path("a.txt")), false);
});

test("replacing an unread file in parts is refused at part 1", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "original\n");
  const out = await run(host(box), "write_file", {
    path: "a.txt",
    content: "new 1\n",
    part: 1,
    parts: 2,
  });
  assert.equal(out.code, "not_read");
  assert.match(out.content, /Nothing was staged/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "original\n");
});

test("a file changed between part 1 and the last part is refused at commit and the staged parts are discarded", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "original\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  await run(tools, "write_file", { path: "a.txt", content: "new 1\n", part: 1, parts: 2 });
  writeFileSync(box.path("a.txt"), "the user edited this meanwhile\n");
  const out = await run(tools, "write_file", {
    path: "a.txt",
    content: "new 2\n",
    part: 2,
    parts: 2,
  });
  assert.equal(out.code, "stale_read");
  assert.match(out.content, /staged parts were discarded/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "the user edited this meanwhile\n");
  assert.deepEqual(readdirSync(box.workspace), ["a.txt"]);
});

test("a placeholder in a part is refused and that part is not staged", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "a.ts", content: "const a = 1;\n", part: 1, parts: 2 });
  const out = await run(tools, "write_file", {
    path: "a.ts",
    content: "// ... existing code ...\n",
    part: 2,
    parts: 2,
  });
  assert.equal(out.code, "placeholder");
  assert.equal(existsSync(box.path("a.ts")), false);
  const fixed = await run(tools, "write_file", {
    path: "a.ts",
    content: "const b = 2;\n",
    part: 2,
    parts: 2,
  });
  assert.equal(fixed.isError, false, fixed.content);
  assert.equal(readFileSync(box.path("a.ts"), "utf8"), "const a = 1;\nconst b = 2;\n");
});

test("a symlink planted where parts used to be staged is never written through", async () => {
  const box = sandbox();
  const victim = join(box.root, "victim");
  writeFileSync(victim, "IMPORTANT USER DATA\n");
  symlinkSync(victim, box.path(".foo.txt.nex-parts"));
  const tools = host(box);
  for (const [part, content] of [
    [1, "part one\n"],
    [2, "part two\n"],
  ] as const) {
    const out = await run(tools, "write_file", { path: "foo.txt", content, part, parts: 2 });
    assert.equal(out.isError, false, out.content);
  }
  assert.equal(readFileSync(victim, "utf8"), "IMPORTANT USER DATA\n");
  assert.equal(lstatSync(box.path("foo.txt")).isFile(), true);
  assert.equal(readFileSync(box.path("foo.txt"), "utf8"), "part one\npart two\n");
});

test("a staging file replaced by a symlink between parts is refused and the outside file is untouched", async () => {
  const box = sandbox();
  const outside = join(box.root, "outside");
  mkdirSync(outside);
  const victim = join(outside, "victim");
  writeFileSync(victim, "IMPORTANT USER DATA\n");
  const tools = host(box);
  await run(tools, "write_file", { path: "foo.txt", content: "part one\n", part: 1, parts: 2 });
  const staging = readdirSync(box.workspace).filter((name) => name !== "foo.txt");
  assert.equal(staging.length, 1, "one staging file");
  const stagingPath = box.path(staging[0] ?? "");
  rmSync(stagingPath);
  symlinkSync(victim, stagingPath);
  const out = await run(tools, "write_file", {
    path: "foo.txt",
    content: "part two\n",
    part: 2,
    parts: 2,
  });
  assert.equal(out.code, "failed", out.content);
  assert.match(out.content, /replaced or removed.*Restart from part 1/);
  assert.equal(readFileSync(victim, "utf8"), "IMPORTANT USER DATA\n");
  assert.equal(existsSync(box.path("foo.txt")), false);
});
