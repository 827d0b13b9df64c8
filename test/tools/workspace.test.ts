import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { climbsOut } from "../../src/tools/workspace/workspace.ts";
import { host, run, sandbox } from "./helpers.ts";

test("a `..` path out of the workspace is refused for reads and writes, and nothing is created outside", async () => {
  const box = sandbox();
  writeFileSync(join(box.root, "secret.txt"), "outside\n");
  const tools = host(box);
  const read = await run(tools, "read_file", { path: "../secret.txt" });
  assert.equal(read.code, "outside_workspace");
  assert.match(read.content, /outside the workspace/);
  const write = await run(tools, "write_file", { path: "sub/../../evil.txt", content: "x" });
  assert.equal(write.code, "outside_workspace");
  assert.equal(existsSync(join(box.root, "evil.txt")), false);
});

test("an absolute path elsewhere is refused, an absolute path inside is accepted", async () => {
  const box = sandbox();
  const tools = host(box);
  const out = await run(tools, "write_file", {
    path: join(box.root, "elsewhere.txt"),
    content: "x",
  });
  assert.equal(out.code, "outside_workspace");
  assert.equal(existsSync(join(box.root, "elsewhere.txt")), false);
  const inside = await run(tools, "write_file", { path: box.path("in.txt"), content: "x" });
  assert.equal(inside.isError, false, inside.content);
});

test("a symlink to a file outside the workspace is refused", async () => {
  const box = sandbox();
  writeFileSync(join(box.root, "secret.txt"), "outside\n");
  symlinkSync(join(box.root, "secret.txt"), box.path("innocent.txt"));
  const tools = host(box);
  assert.equal((await run(tools, "read_file", { path: "innocent.txt" })).code, "outside_workspace");
  const write = await run(tools, "write_file", { path: "innocent.txt", content: "pwned" });
  assert.equal(write.code, "outside_workspace");
  assert.equal(readFileSync(join(box.root, "secret.txt"), "utf8"), "outside\n");
});

test("a symlinked directory leading outside is refused for new files under it", async () => {
  const box = sandbox();
  mkdirSync(join(box.root, "elsewhere"));
  symlinkSync(join(box.root, "elsewhere"), box.path("docs"));
  const out = await run(host(box), "write_file", { path: "docs/new.md", content: "x" });
  assert.equal(out.code, "outside_workspace");
  assert.equal(existsSync(join(box.root, "elsewhere", "new.md")), false);
});

test("`..` after a symlinked directory is resolved physically, as the kernel would", async () => {
  const box = sandbox();
  mkdirSync(join(box.root, "far", "deep"), { recursive: true });
  symlinkSync(join(box.root, "far", "deep"), box.path("link"));
  const out = await run(host(box), "write_file", { path: "link/../x.txt", content: "x" });
  assert.equal(out.code, "outside_workspace");
  assert.match(out.content, /far\/x\.txt/);
  assert.equal(existsSync(box.path("x.txt")), false);
});

test("a dangling symlink pointing outside is refused and nothing is created at its target", async () => {
  const box = sandbox();
  symlinkSync(join(box.root, "not-yet.txt"), box.path("dangling.txt"));
  const out = await run(host(box), "write_file", { path: "dangling.txt", content: "x" });
  assert.equal(out.code, "outside_workspace");
  assert.equal(existsSync(join(box.root, "not-yet.txt")), false);
});

test("a dangling symlink pointing inside the workspace is written at its target", async () => {
  const box = sandbox();
  symlinkSync("target/real.txt", box.path("dangling.txt"));
  const out = await run(host(box), "write_file", { path: "dangling.txt", content: "x" });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("target/real.txt"), "utf8"), "x");
});

test("a path inside a user-allowed outside directory is accepted", async () => {
  const box = sandbox();
  const shared = join(box.root, "shared");
  mkdirSync(shared);
  const tools = host(box, { allowedPaths: [shared] });
  const out = await run(tools, "write_file", { path: join(shared, "notes.txt"), content: "ok" });
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(join(shared, "notes.txt"), "utf8"), "ok");
  const other = await run(tools, "write_file", {
    path: join(box.root, "other.txt"),
    content: "no",
  });
  assert.equal(other.code, "outside_workspace");
});

test("a workspace given through a symlink works and its files are shown relative to it", async () => {
  const box = sandbox();
  symlinkSync(box.workspace, join(box.root, "ws-link"));
  const tools = host(box, { workspace: join(box.root, "ws-link") });
  const out = await run(tools, "write_file", { path: "a.txt", content: "x" });
  assert.match(out.content, /^Created a\.txt/);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "x");
});

test("a workspace that does not exist is reported, not guessed at", async () => {
  const box = sandbox();
  const out = await run(host(box, { workspace: join(box.root, "missing") }), "list_dir", {});
  assert.equal(out.code, "failed");
  assert.match(out.content, /does not exist/);
});

test("a `..` after a missing directory cannot reach outside through a symlink", async () => {
  const box = sandbox();
  const outside = join(box.root, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "secret"), "outside\n");
  symlinkSync(outside, box.path("evil"));
  const tools = host(box, { mode: "approve_all" });
  const write = await run(tools, "write_file", { path: "nope/../evil/new.txt", content: "x" });
  assert.equal(write.code, "outside_workspace", write.content);
  assert.equal(existsSync(join(outside, "new.txt")), false);
  const read = await run(tools, "read_file", { path: "nope/deeper/../../evil/secret" });
  assert.equal(read.code, "outside_workspace", read.content);
  const inside = await run(tools, "write_file", { path: "nope/../fine.txt", content: "ok\n" });
  assert.equal(inside.isError, false, inside.content);
  assert.equal(readFileSync(box.path("fine.txt"), "utf8"), "ok\n");
});

test("a name that begins with two dots is inside its root; .. and what is above are not", () => {
  assert.equal(climbsOut("..notes"), false);
  assert.equal(climbsOut("..notes/a.txt"), false);
  assert.equal(climbsOut(".."), true);
  assert.equal(climbsOut("../x"), true);
  assert.equal(climbsOut("/etc/passwd"), true);
});
