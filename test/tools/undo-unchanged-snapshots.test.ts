// Undo's snapshots of a workspace that a command left as it was: the tree is read from the shadow
// index's cache-tree (no `write-tree`) and a snapshot of the newest snapshot's tree is that commit
// again (no `commit-tree`, no `update-ref`). The guarantee stays: every change a command makes is
// in its "after", even one that keeps size and modification time, one within the same second as
// the last snapshot, or one through a hard link. Real git, and real bubblewrap where it runs.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import type { ToolHostOptions } from "../../src/tools/index.ts";
import { DEFAULT_SNAPSHOT_LIMITS } from "../../src/tools/undo/checkpoints/checkpoints.ts";
import { undoWorkspace } from "../../src/tools/undo/index.ts";
import { createShadowGit } from "../../src/tools/undo/shadow-git.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { host, run, type Sandbox, sandbox } from "./helpers.ts";

/** A file as it was well before the session: its times cannot look racy to git. */
function oldFile(box: Sandbox, path: string, content: string): void {
  writeFileSync(box.path(path), content);
  const past = new Date(Date.now() - 60_000);
  utimesSync(box.path(path), past, past);
}

/** git on PATH through a wrapper that logs each call's arguments (one line per call). */
function loggedGit(box: Sandbox): {
  env: Record<string, string | undefined>;
  calls: () => string[];
} {
  const bin = join(box.root, "logged-bin");
  const log = join(box.root, "git-calls.log");
  mkdirSync(bin);
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, "git"), 0o755);
  return {
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    calls: () => (existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : []),
  };
}

const bwrapSkip = sandboxMissing() ?? false;
const modes: { name: string; skip: string | false; options: Partial<ToolHostOptions> }[] = [
  { name: "unconfined", skip: false, options: { mode: "approve_all" } },
  {
    name: "under bubblewrap",
    skip: bwrapSkip,
    options: { mode: "approve_all", sandbox: { mode: "workspace-write", network: false } },
  },
];

for (const { name, skip, options } of modes) {
  describe(`undo after commands that changed nothing, ${name}`, () => {
    /** Two turns whose commands change nothing: their snapshots take the unchanged paths. */
    async function settled(box: Sandbox, extra: Partial<ToolHostOptions> = {}) {
      const tools = host(box, { ...options, ...extra });
      for (const turn of [1, 2]) {
        const out = await run(tools, "bash", { command: "true" }, { turn });
        assert.equal(out.isError, false, out.content);
      }
      return tools;
    }

    test("a change that keeps size and modification time (`touch -r`) is undone", {
      skip,
    }, async () => {
      const box = sandbox();
      oldFile(box, "a.txt", "aaaa\n");
      const tools = await settled(box);
      const out = await run(
        tools,
        "bash",
        { command: "touch -r a.txt .ref; printf 'bbbb\\n' > a.txt; touch -r .ref a.txt; rm .ref" },
        { turn: 3 },
      );
      assert.equal(out.isError, false, out.content);
      assert.equal(readFileSync(box.path("a.txt"), "utf8"), "bbbb\n");
      const report = await tools.undo(1);
      assert.equal(readFileSync(box.path("a.txt"), "utf8"), "aaaa\n");
      assert.deepEqual(report.restored, [{ path: "a.txt", action: "modified" }]);
    });

    test("a change in the same second as the last snapshot, size and time kept, is undone", {
      skip,
    }, async () => {
      const box = sandbox();
      const tools = await settled(box);
      // Turn 3 makes the file; turn 4, at once, rewrites it with the same size and puts back its time.
      await run(tools, "bash", { command: "printf 'one\\n' > b.txt" }, { turn: 3 });
      await run(
        tools,
        "bash",
        { command: "touch -r b.txt .ref; printf 'two\\n' > b.txt; touch -r .ref b.txt; rm .ref" },
        { turn: 4 },
      );
      await tools.undo(1);
      assert.equal(readFileSync(box.path("b.txt"), "utf8"), "one\n");
      await tools.undo(1);
      assert.equal(existsSync(box.path("b.txt")), false);
    });

    test("a change through a hard link is seen under both names and undone", { skip }, async () => {
      const box = sandbox();
      oldFile(box, "a.txt", "original\n");
      linkSync(box.path("a.txt"), box.path("link.txt"));
      const tools = await settled(box);
      await run(tools, "bash", { command: "printf 'CHANGED\\n' > link.txt" }, { turn: 3 });
      assert.equal(readFileSync(box.path("a.txt"), "utf8"), "CHANGED\n");
      // The command named only link.txt: a.txt's change is caught, and undone when asked for.
      const report = await tools.undo(1);
      assert.equal(readFileSync(box.path("link.txt"), "utf8"), "original\n");
      assert.match(report.text, /Left alone: a\.txt \(changed while/);
      await undoWorkspace({
        workspace: box.workspace,
        checkpointDir: box.checkpointDir,
        turns: 1,
        includeUnsure: true,
      });
      assert.equal(readFileSync(box.path("a.txt"), "utf8"), "original\n");
    });

    test("files created, deleted and renamed are all undone, back to before the first turn too", {
      skip,
    }, async () => {
      const box = sandbox();
      oldFile(box, "c.txt", "c\n");
      oldFile(box, "d.txt", "d\n");
      const tools = await settled(box);
      await run(
        tools,
        "bash",
        { command: "mv c.txt c2.txt; rm d.txt; echo new > e.txt" },
        {
          turn: 3,
        },
      );
      const report = await tools.undo(3);
      assert.deepEqual(
        report.restored.map((r) => r.path).sort(),
        ["c.txt", "c2.txt", "d.txt", "e.txt"],
        report.text,
      );
      assert.equal(readFileSync(box.path("c.txt"), "utf8"), "c\n");
      assert.equal(readFileSync(box.path("d.txt"), "utf8"), "d\n");
      assert.equal(existsSync(box.path("c2.txt")), false);
      assert.equal(existsSync(box.path("e.txt")), false);
    });

    test("a tracked file that an ignore rule now covers, rewritten at once, is in the snapshot and undone", {
      skip,
    }, async () => {
      const box = sandbox();
      const tools = await settled(box);
      // A file a command writes changed after the last staging began: it is always hashed again.
      await run(tools, "bash", { command: "printf 'first\\n' > out.log" }, { turn: 3 });
      await run(tools, "bash", { command: "printf '*.log\\n' > .gitignore" }, { turn: 4 });
      await run(tools, "bash", { command: "printf 'second\\n' > out.log" }, { turn: 5 });
      const report = await tools.undo(1);
      assert.deepEqual(report.restored, [{ path: "out.log", action: "modified" }], report.text);
      assert.equal(readFileSync(box.path("out.log"), "utf8"), "first\n");
    });

    test("commands that change nothing run no write-tree, commit-tree or update-ref; one that changes a file does", {
      skip,
    }, async () => {
      const box = sandbox();
      oldFile(box, "a.txt", "a\n");
      // A file changed in the last second or two is hashed again at each snapshot (git cannot
      // tell a change in the same second): wait until a.txt's change time is past that window.
      const since = Date.now() - statSync(box.path("a.txt")).ctimeMs;
      await new Promise((done) => setTimeout(done, Math.max(0, 3_000 - since)));
      const git = loggedGit(box);
      const tools = await settled(box, { env: git.env });
      const count = (verb: string) => git.calls().filter((c) => c.includes(` ${verb}`)).length;
      const before = { writeTree: count("write-tree"), commitTree: count("commit-tree") };
      for (const turn of [3, 4, 5]) await run(tools, "bash", { command: "cat a.txt" }, { turn });
      assert.equal(count("write-tree"), before.writeTree, git.calls().join("\n"));
      assert.equal(count("commit-tree"), before.commitTree);
      assert.equal(count("update-ref"), before.commitTree);
      await run(tools, "bash", { command: "echo b > a.txt" }, { turn: 6 });
      await run(tools, "bash", { command: "cat a.txt" }, { turn: 7 });
      assert.ok(count("write-tree") > before.writeTree, "a changed workspace is written as a tree");
      assert.equal(count("commit-tree"), before.commitTree + 1, "turn 7's snapshot is new");
      await tools.undo(2);
      assert.equal(readFileSync(box.path("a.txt"), "utf8"), "a\n");
    });
  });
}

/** The shadow repository of `box`, as a session's checkpoints use it. */
function shadowOf(box: Sandbox, maxFileBytes = DEFAULT_SNAPSHOT_LIMITS.maxFileBytes) {
  return createShadowGit({
    gitDir: join(box.root, "shadow.git"),
    workTree: box.workspace,
    env: process.env,
    limits: { ...DEFAULT_SNAPSHOT_LIMITS, maxFileBytes },
  });
}

test("a rewrite in the same second as git last read the file, size and modification time kept, is in the next tree", async () => {
  const box = sandbox();
  const shadow = shadowOf(box);
  const file = box.path("a.txt");
  oldFile(box, "a.txt", "v000\n");
  let hits = 0;
  // git compares change times to the second: only an attempt whose rewrite lands in the second in
  // which the file was staged tests anything, so a few are made.
  for (let attempt = 1; attempt <= 10 && hits < 3; attempt++) {
    const content = `v${String(attempt).padStart(3, "0")}\n`;
    const staged = await shadow.currentTree();
    assert.equal(staged.type, "taken");
    const stagedSecond = Math.floor(statSync(file).ctimeMs / 1000);
    // The same size, and the modification time put back, as `touch -r` does.
    const { atime, mtime } = statSync(file);
    writeFileSync(file, content);
    utimesSync(file, atime, mtime);
    if (Math.floor(statSync(file).ctimeMs / 1000) !== stagedSecond) continue;
    hits++;
    const after = await shadow.currentTree();
    assert.ok(after.type === "taken" && staged.type === "taken");
    assert.notEqual(after.tree, staged.tree, `attempt ${attempt}: the rewrite is missing`);
    const [blob] = [...(await shadow.listTree(after.tree)).values()];
    assert.equal((await shadow.readBlob(blob?.sha ?? "")).toString(), content);
  }
});

test("a file that grows over the size limit leaves the snapshot, and the snapshot is still taken", async () => {
  const box = sandbox();
  const shadow = shadowOf(box, 16);
  writeFileSync(box.path("log.txt"), "small\n");
  writeFileSync(box.path("keep.txt"), "kept\n");
  const first = await shadow.snapshot("one");
  assert.equal(first.type, "taken");
  writeFileSync(box.path("log.txt"), "now well over sixteen bytes\n");
  const second = await shadow.snapshot("two");
  assert.equal(second.type, "taken", second.type === "unavailable" ? second.reason : "");
  assert.deepEqual(second.type === "taken" ? second.skipped : [], ["log.txt"]);
  const tree = second.type === "taken" ? await shadow.listTree(second.commit) : new Map();
  assert.deepEqual([...tree.keys()], ["keep.txt"]);
});

test("a tracked file that an ignore rule now covers keeps its new content in a snapshot taken at once", async () => {
  const box = sandbox();
  const shadow = shadowOf(box);
  writeFileSync(box.path("out.log"), "first\n");
  assert.equal((await shadow.snapshot("made")).type, "taken");
  writeFileSync(box.path(".gitignore"), "*.log\n");
  assert.equal((await shadow.snapshot("ignored")).type, "taken");
  writeFileSync(box.path("out.log"), "second\n");
  const after = await shadow.snapshot("rewritten");
  assert.ok(after.type === "taken");
  const tree = await shadow.listTree(after.commit);
  assert.deepEqual([...tree.keys()].sort(), [".gitignore", "out.log"]);
  const blob = tree.get("out.log");
  assert.equal((await shadow.readBlob(blob?.sha ?? "")).toString(), "second\n");
});
