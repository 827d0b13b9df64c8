import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  linkSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { host, run, sandbox } from "./helpers.ts";

const NOBODY = 65534;
const asRoot = process.geteuid?.() === 0;
const rootOnly = asRoot ? {} : { skip: "needs root (CI runs as root)" };

const ownerOf = (path: string) => {
  const info = statSync(path);
  return { uid: info.uid, gid: info.gid, mode: info.mode & 0o7777 };
};

test(
  "write_file, edit_file and a write in parts keep the owner, group and mode of a file another user owns (nex as root)",
  rootOnly,
  async () => {
    const box = sandbox();
    const tools = host(box);
    for (const [name, mode] of [
      ["w.txt", 0o640],
      ["e.txt", 0o600],
      ["p.txt", 0o2775],
    ] as const) {
      writeFileSync(box.path(name), "line one\nline two\n");
      chownSync(box.path(name), NOBODY, NOBODY);
      chmodSync(box.path(name), mode);
      await run(tools, "read_file", { path: name });
    }
    const wrote = await run(tools, "write_file", { path: "w.txt", content: "new\n" });
    const edited = await run(tools, "edit_file", {
      path: "e.txt",
      old_string: "one",
      new_string: "1",
    });
    await run(tools, "write_file", { path: "p.txt", content: "a\n", part: 1, parts: 2 });
    const parts = await run(tools, "write_file", {
      path: "p.txt",
      content: "b\n",
      part: 2,
      parts: 2,
    });
    for (const out of [wrote, edited, parts]) assert.equal(out.isError, false, out.content);
    assert.deepEqual(ownerOf(box.path("w.txt")), { uid: NOBODY, gid: NOBODY, mode: 0o640 });
    assert.deepEqual(ownerOf(box.path("e.txt")), { uid: NOBODY, gid: NOBODY, mode: 0o600 });
    assert.deepEqual(ownerOf(box.path("p.txt")), { uid: NOBODY, gid: NOBODY, mode: 0o2775 });
    assert.equal(readFileSync(box.path("p.txt"), "utf8"), "a\nb\n");
  },
);

test("undo restores a file with the owner and group it has, not root's", rootOnly, async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "before\n");
  chownSync(box.path("a.txt"), NOBODY, NOBODY);
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  await run(tools, "write_file", { path: "a.txt", content: "after\n" });
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "before\n", JSON.stringify(report));
  assert.equal(ownerOf(box.path("a.txt")).uid, NOBODY);
  assert.equal(ownerOf(box.path("a.txt")).gid, NOBODY);
});

test("a read-only file (0444) is never replaced by write_file, edit_file or a write in parts; the model is told to ask the user", async () => {
  const box = sandbox();
  writeFileSync(box.path("locked.txt"), "do not touch\n");
  chmodSync(box.path("locked.txt"), 0o444);
  const tools = host(box, { mode: "approve_all" });
  await run(tools, "read_file", { path: "locked.txt" });
  const outcomes = [
    await run(tools, "write_file", { path: "locked.txt", content: "changed\n" }),
    await run(tools, "edit_file", { path: "locked.txt", old_string: "do not", new_string: "do" }),
    await run(tools, "write_file", { path: "locked.txt", content: "x", part: 1, parts: 2 }),
  ];
  for (const out of outcomes) {
    assert.equal(out.code, "denied", out.content);
    assert.match(out.content, /locked\.txt is read-only \(mode 0444/);
    assert.match(out.content, /Nothing was (written|changed|staged)/);
    assert.match(out.content, /Ask the user/);
  }
  assert.equal(readFileSync(box.path("locked.txt"), "utf8"), "do not touch\n");
  assert.equal(ownerOf(box.path("locked.txt")).mode, 0o444);
});

// nex as an ordinary user in a directory it may write, replacing a file it cannot chown back. The
// child starts as root and becomes nobody itself once its code is loaded: the checkout may sit in a
// folder nobody cannot enter.
function replaceAsNobody(
  workspace: string,
  checkpointDir: string,
  path: string,
): { isError: boolean; code?: string; content: string } {
  const fixture = join(import.meta.dirname, "fixtures", "replace-file.ts");
  const child = spawnSync(
    process.execPath,
    [fixture, String(NOBODY), String(NOBODY), workspace, checkpointDir, path, "replaced\n"],
    { encoding: "utf8" },
  );
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout);
}

test(
  "nex as an ordinary user refuses to replace a file owned by someone else (the rename would make it its own) and changes nothing",
  rootOnly,
  () => {
    const box = sandbox();
    for (const dir of [box.root, box.workspace]) chmodSync(dir, 0o777);
    writeFileSync(box.path("shared.txt"), "root's file, writable by all\n");
    chmodSync(box.path("shared.txt"), 0o666);
    const out = replaceAsNobody(box.workspace, box.checkpointDir, "shared.txt");
    assert.equal(out.code, "denied", out.content);
    assert.match(out.content, /cannot be replaced without changing its owner: it belongs to uid 0/);
    assert.match(out.content, /Nothing was written/);
    assert.equal(readFileSync(box.path("shared.txt"), "utf8"), "root's file, writable by all\n");
    assert.deepEqual(ownerOf(box.path("shared.txt")), { uid: 0, gid: 0, mode: 0o666 });
  },
);

test("nex as an ordinary user replaces its own file and keeps its mode", rootOnly, () => {
  const box = sandbox();
  for (const dir of [box.root, box.workspace]) chmodSync(dir, 0o777);
  writeFileSync(box.path("mine.txt"), "nobody's file\n");
  chownSync(box.path("mine.txt"), NOBODY, NOBODY);
  chmodSync(box.path("mine.txt"), 0o640);
  const out = replaceAsNobody(box.workspace, box.checkpointDir, "mine.txt");
  assert.equal(out.isError, false, out.content);
  assert.equal(readFileSync(box.path("mine.txt"), "utf8"), "replaced\n");
  assert.deepEqual(ownerOf(box.path("mine.txt")), { uid: NOBODY, gid: NOBODY, mode: 0o640 });
});

test(
  "nex as an ordinary user refuses to replace its file when it cannot give the new copy the file's group",
  rootOnly,
  () => {
    const box = sandbox();
    for (const dir of [box.root, box.workspace]) chmodSync(dir, 0o777);
    writeFileSync(box.path("team.txt"), "the team's file\n");
    chownSync(box.path("team.txt"), NOBODY, 0);
    chmodSync(box.path("team.txt"), 0o664);
    const out = replaceAsNobody(box.workspace, box.checkpointDir, "team.txt");
    assert.equal(out.code, "denied", out.content);
    assert.match(
      out.content,
      /cannot be replaced without changing its owner: could not give the new file uid 65534 and gid 0/,
    );
    assert.equal(readFileSync(box.path("team.txt"), "utf8"), "the team's file\n");
    assert.deepEqual(ownerOf(box.path("team.txt")), { uid: NOBODY, gid: 0, mode: 0o664 });
    assert.deepEqual(
      readdirSync(box.workspace).filter((name) => name.includes(".nex-")),
      [],
      "no temporary file is left",
    );
  },
);

test(
  "in a setgid directory, an ordinary user's replacement keeps the directory's group without needing to be in it",
  rootOnly,
  () => {
    const box = sandbox();
    chmodSync(box.root, 0o777);
    chmodSync(box.workspace, 0o2777);
    writeFileSync(box.path("shared.txt"), "in a setgid directory\n");
    chownSync(box.path("shared.txt"), NOBODY, 0);
    const out = replaceAsNobody(box.workspace, box.checkpointDir, "shared.txt");
    assert.equal(out.isError, false, out.content);
    assert.equal(readFileSync(box.path("shared.txt"), "utf8"), "replaced\n");
    assert.equal(ownerOf(box.path("shared.txt")).gid, 0);
  },
);

test(
  "nex as root creating files in another user's directory gives them, and the directories it makes, to that user",
  rootOnly,
  async () => {
    const box = sandbox();
    chownSync(box.workspace, NOBODY, NOBODY);
    const tools = host(box);
    const made = await run(tools, "write_file", { path: "src/deep/new.txt", content: "hello\n" });
    await run(tools, "write_file", { path: "big.txt", content: "a", part: 1, parts: 2 });
    const parts = await run(tools, "write_file", {
      path: "big.txt",
      content: "b",
      part: 2,
      parts: 2,
    });
    for (const out of [made, parts]) assert.equal(out.isError, false, out.content);
    for (const path of ["src", "src/deep", "src/deep/new.txt", "big.txt"]) {
      const { uid, gid } = ownerOf(box.path(path));
      assert.deepEqual({ uid, gid }, { uid: NOBODY, gid: NOBODY }, path);
    }
  },
);

test("nex as root creating files in its own directory leaves them root's", rootOnly, async () => {
  const box = sandbox();
  const out = await run(host(box), "write_file", { path: "d/new.txt", content: "x\n" });
  assert.equal(out.isError, false, out.content);
  assert.equal(ownerOf(box.path("d/new.txt")).uid, 0);
  assert.equal(ownerOf(box.path("d")).uid, 0);
});

test(
  "undo recreating a file a command deleted in another user's directory gives it back to that user",
  rootOnly,
  async () => {
    const box = sandbox();
    chownSync(box.workspace, NOBODY, NOBODY);
    writeFileSync(box.path("notes.txt"), "keep me\n");
    chownSync(box.path("notes.txt"), NOBODY, NOBODY);
    const tools = host(box, { mode: "approve_all" });
    const removed = await run(tools, "bash", { command: "rm notes.txt" });
    assert.equal(removed.isError, false, removed.content);
    const report = await tools.undo(1);
    assert.equal(readFileSync(box.path("notes.txt"), "utf8"), "keep me\n", JSON.stringify(report));
    const { uid, gid } = ownerOf(box.path("notes.txt"));
    assert.deepEqual({ uid, gid }, { uid: NOBODY, gid: NOBODY });
  },
);

test("replacing a file with another hard link says that the other name keeps the old content", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "old\n");
  linkSync(box.path("a.txt"), box.path("b.txt"));
  const tools = host(box);
  await run(tools, "read_file", { path: "a.txt" });
  const out = await run(tools, "write_file", { path: "a.txt", content: "new\n" });
  assert.equal(out.isError, false, out.content);
  assert.match(
    out.content,
    /a\.txt had 2 hard links; only this name has the new content, the other name keeps the old/,
  );
  assert.equal(readFileSync(box.path("b.txt"), "utf8"), "old\n");
});
