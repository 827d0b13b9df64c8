import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { undoWorkspace } from "../../src/tools/index.ts";
import { host, run, type Sandbox, sandbox } from "./helpers.ts";

// Bytes a text-normalising tool would change: CRLF, a lone CR, no final newline, invalid UTF-8.
const tricky = Buffer.concat([
  Buffer.from("line one\r\nline two\rno newline at end ✓ "),
  Buffer.from([0xff, 0xfe, 0x00, 0x80]),
]);

async function readAndWrite(
  tools: ReturnType<typeof host>,
  path: string,
  content: string,
  turn: number,
) {
  await run(tools, "read_file", { path }, { turn });
  const out = await run(tools, "write_file", { path, content }, { turn });
  assert.equal(out.isError, false, out.content);
}

test("undo restores byte-identical content of a file nex overwrote (no end-of-line or encoding change)", async () => {
  const box = sandbox();
  writeFileSync(box.path(".gitattributes"), "* text=auto eol=lf\n");
  writeFileSync(box.path("data.txt"), tricky);
  const tools = host(box);
  await run(tools, "bash", { command: "printf 'replaced\\n' > data.txt" }, { turn: 1 });
  const report = await tools.undo(1);
  assert.ok(readFileSync(box.path("data.txt")).equals(tricky));
  assert.equal(report.restored[0]?.path, "data.txt");
  assert.match(report.text, /^Restored 1 file to before turn 1: data\.txt \(modified\)\./);
});

test("undo deletes files the turn created, with the directories it created", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "new/dir/a.ts", content: "x" }, { turn: 3 });
  const report = await tools.undo(1);
  assert.equal(existsSync(box.path("new")), false);
  assert.deepEqual(report.restored, [{ path: "new/dir/a.ts", action: "deleted again" }]);
  assert.match(report.text, /new\/dir\/a\.ts \(deleted again\)/);
});

test("undo re-creates a file bash deleted and reverts a file bash changed", async () => {
  const box = sandbox();
  writeFileSync(box.path("keep.txt"), "precious\n");
  writeFileSync(box.path("conf.ini"), "a=1\n");
  const tools = host(box);
  await run(
    tools,
    "bash",
    { command: "rm keep.txt && echo a=2 > conf.ini && echo made > made.txt" },
    { turn: 1 },
  );
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("keep.txt"), "utf8"), "precious\n");
  assert.equal(readFileSync(box.path("conf.ini"), "utf8"), "a=1\n");
  assert.equal(existsSync(box.path("made.txt")), false);
  assert.deepEqual(report.restored, [
    { path: "conf.ini", action: "modified" },
    { path: "keep.txt", action: "re-created" },
    { path: "made.txt", action: "deleted again" },
  ]);
});

test("undo of several turns restores the state before the earliest, and one turn only the last", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "v1\n");
  const tools = host(box);
  await readAndWrite(tools, "a.txt", "v2\n", 1);
  await readAndWrite(tools, "a.txt", "v3\n", 2);
  await readAndWrite(tools, "a.txt", "v4\n", 3);
  await tools.undo(1);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "v3\n");
  const report = await tools.undo(2);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "v1\n");
  assert.match(report.text, /to before turn 1/);
  const nothing = await tools.undo(1);
  assert.match(nothing.text, /^Nothing to undo/);
});

test("undo never overwrites a change made outside nex after the turn, and says so", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "v1\n");
  const tools = host(box);
  await readAndWrite(tools, "a.txt", "nex wrote this\n", 1);
  writeFileSync(box.path("a.txt"), "the user's own edit afterwards\n");
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "the user's own edit afterwards\n");
  assert.deepEqual(report.restored, []);
  assert.match(
    report.text,
    /Left alone: a\.txt \(changed since turn 1 by something else; left as it is/,
  );
});

test("undo from a new process uses the newest content nex left, also when a turn wrote a file twice", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "a.txt", content: "one\n" }, { turn: 1 });
  await run(tools, "write_file", { path: "b.txt", content: "b\n" }, { turn: 1 });
  await run(tools, "read_file", { path: "a.txt" }, { turn: 1 });
  const second = await run(tools, "write_file", { path: "a.txt", content: "two\n" }, { turn: 1 });
  assert.equal(second.isError, false, second.content);
  const report = await undoWorkspace({
    workspace: box.workspace,
    checkpointDir: box.checkpointDir,
    turns: 1,
  });
  assert.deepEqual(report.restored, [
    { path: "a.txt", action: "deleted again" },
    { path: "b.txt", action: "deleted again" },
  ]);
  assert.equal(existsSync(box.path("a.txt")), false);
});

test("when a crash lost what a turn left in a file, undo leaves that file alone and says so", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "v1\n");
  const tools = host(box);
  await readAndWrite(tools, "a.txt", "nex wrote this\n", 1);
  // The after-state is logged without an fsync of its own: a power loss may tear it.
  const log = join(box.checkpointDir, "checkpoints.jsonl");
  assert.match(readFileSync(log, "utf8"), /"type":"after".*\n$/);
  truncateSync(log, readFileSync(log).length - 10);
  const report = await undoWorkspace({
    workspace: box.workspace,
    checkpointDir: box.checkpointDir,
    turns: 1,
  });
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "nex wrote this\n");
  assert.deepEqual(report.restored, []);
  assert.match(report.text, /Left alone: a\.txt \(changed since turn 1/);
});

test("after a crash tore the checkpoint log, what was saved before stays and a resumed session's changes are undone too", async () => {
  const box = sandbox();
  await run(host(box), "write_file", { path: "first.txt", content: "1\n" }, { turn: 1 });
  // The process died in the middle of an append.
  appendFileSync(join(box.checkpointDir, "checkpoints.jsonl"), '{"type":"checkpoint","checkp');
  const resumed = host(box);
  await run(resumed, "write_file", { path: "second.txt", content: "2\n" }, { turn: 1 });
  const last = await resumed.undo(1);
  assert.deepEqual(last.restored, [{ path: "second.txt", action: "deleted again" }]);
  const earlier = await resumed.undo(1);
  assert.deepEqual(earlier.restored, [{ path: "first.txt", action: "deleted again" }]);
});

test("undo keeps a file the user created between two turns", async () => {
  const box = sandbox();
  const tools = host(box);
  await run(tools, "write_file", { path: "nex.txt", content: "from turn 1\n" }, { turn: 1 });
  writeFileSync(box.path("user.txt"), "the user's file\n");
  await run(tools, "write_file", { path: "nex2.txt", content: "from turn 2\n" }, { turn: 2 });
  await tools.undo(2);
  assert.equal(readFileSync(box.path("user.txt"), "utf8"), "the user's file\n");
  assert.equal(existsSync(box.path("nex.txt")), false);
  assert.equal(existsSync(box.path("nex2.txt")), false);
});

test("`nex undo` works from a new process with the same checkpoint directory", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "before\n");
  const tools = host(box);
  await run(tools, "bash", { command: "echo after > a.txt" }, { turn: 5 });
  const script = `
    import { undoWorkspace } from ${JSON.stringify(join(import.meta.dirname, "../../src/tools/index.ts"))};
    const report = await undoWorkspace({ workspace: ${JSON.stringify(box.workspace)}, checkpointDir: ${JSON.stringify(box.checkpointDir)}, turns: 1, env: process.env });
    process.stdout.write(report.text);`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  assert.match(
    child.stdout,
    /^Restored 1 file to before turn 5: a\.txt \(modified\)\. What undo replaced or removed is kept in .*\. Note: Snapshots leave out files ignored by \.gitignore/,
  );
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "before\n");
});

function binWithoutGit(box: Sandbox): string {
  const bin = join(box.root, "bin-without-git");
  mkdirSync(bin);
  for (const name of ["bash", "rm", "cat"]) {
    const real = execFileSync("bash", ["-c", `command -v ${name}`], { encoding: "utf8" }).trim();
    symlinkSync(real, join(bin, name));
  }
  return bin;
}

test("without git, files nex wrote are still restored and bash changes are reported as not undone", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "nex will change this\n");
  writeFileSync(box.path("b.txt"), "bash will delete this\n");
  const tools = host(box, { env: { PATH: binWithoutGit(box) } });
  await readAndWrite(tools, "a.txt", "changed by nex\n", 1);
  const gone = await run(tools, "bash", { command: "rm b.txt" }, { turn: 1 });
  assert.equal(gone.isError, false, gone.content);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "nex will change this\n");
  assert.equal(existsSync(box.path("b.txt")), false);
  assert.match(report.text, /Restored 1 file to before turn 1: a\.txt \(modified\)\./);
  assert.match(
    report.text,
    /Could not restore: changes bash made in turn 1 \(`rm b\.txt`\) to files nex did not write itself: no workspace snapshot \(git is not installed\)/,
  );
});

test("a workspace over the snapshot file limit gets no snapshot, and the report says what that means", async () => {
  const box = sandbox();
  for (let i = 0; i < 10; i += 1) writeFileSync(box.path(`f${i}.txt`), `${i}\n`);
  const tools = host(box, { snapshotLimits: { maxFiles: 5 } });
  await run(tools, "write_file", { path: "new.txt", content: "x" }, { turn: 1 });
  await run(tools, "bash", { command: "echo changed > f1.txt" }, { turn: 1 });
  const report = await tools.undo(1);
  assert.equal(existsSync(box.path("new.txt")), false);
  assert.equal(readFileSync(box.path("f1.txt"), "utf8"), "changed\n");
  assert.match(report.text, /no workspace snapshot \(the workspace has more than 5 files\)/);
});

test("files over the snapshot size limit are left out, and a file nex wrote there is still restored", async () => {
  const box = sandbox();
  writeFileSync(box.path("big.bin"), "B".repeat(2000));
  const tools = host(box, { snapshotLimits: { maxFileBytes: 1000 } });
  await readAndWrite(tools, "big.bin", "C".repeat(1500), 1);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("big.bin"), "utf8"), "B".repeat(2000));
  assert.deepEqual(report.restored, [{ path: "big.bin", action: "modified" }]);
});

test("ignored files written by nex are restored from their before-image", async () => {
  const box = sandbox();
  writeFileSync(box.path(".gitignore"), "*.env\n");
  writeFileSync(box.path("local.env"), "SECRET=1\n");
  const tools = host(box);
  await readAndWrite(tools, "local.env", "SECRET=2\n", 1);
  await tools.undo(1);
  assert.equal(readFileSync(box.path("local.env"), "utf8"), "SECRET=1\n");
});

test("the shadow repository never touches the user's own .git, and snapshots once per turn that runs a command", async () => {
  const box = sandbox();
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: box.workspace,
      encoding: "utf8",
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  git("init", "-q");
  writeFileSync(box.path("tracked.txt"), "one\n");
  git("add", "tracked.txt");
  git("-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "first");
  const headBefore = git("rev-parse", "HEAD");
  const tools = host(box);
  await run(tools, "write_file", { path: "a.txt", content: "1" }, { turn: 1 });
  await run(tools, "write_file", { path: "b.txt", content: "2" }, { turn: 1 });
  await run(tools, "bash", { command: "echo 3 > c.txt" }, { turn: 2 });
  await run(tools, "bash", { command: "echo 4 > d.txt" }, { turn: 2 });
  assert.equal(git("rev-parse", "HEAD"), headBefore);
  assert.equal(git("status", "--porcelain"), "?? a.txt\n?? b.txt\n?? c.txt\n?? d.txt\n");
  assert.equal(git("stash", "list"), "");
  const shadow = execFileSync(
    "git",
    [`--git-dir=${join(box.checkpointDir, "shadow.git")}`, "rev-list", "--count", "snapshots"],
    { encoding: "utf8" },
  );
  assert.equal(
    shadow.trim(),
    "1",
    "file tools keep before-images; only the turn with commands is snapshotted",
  );
  assert.ok(!existsSync(join(box.workspace, "shadow.git")));
});

test("undo with nothing recorded says so", async () => {
  const report = await undoWorkspace({
    workspace: sandbox().workspace,
    checkpointDir: "/nonexistent/nex-checkpoints",
    turns: 1,
  });
  assert.equal(report.text, "Nothing to undo: no file changes were recorded in this session.");
});

test("a checkpoint directory inside the workspace is left out of its own snapshots", async () => {
  const box = sandbox();
  const checkpointDir = box.path(".nex/checkpoints/s1");
  const tools = host(box, { checkpointDir });
  await run(tools, "write_file", { path: "a.txt", content: "x" }, { turn: 1 });
  await run(tools, "bash", { command: "echo y > b.txt" }, { turn: 2 });
  const listed = execFileSync(
    "git",
    [`--git-dir=${join(checkpointDir, "shadow.git")}`, "ls-tree", "-r", "--name-only", "snapshots"],
    { encoding: "utf8" },
  );
  assert.equal(listed, "a.txt\n");
  const report = await tools.undo(2);
  assert.deepEqual(
    report.restored.map((r) => r.path),
    ["a.txt", "b.txt"],
  );
  assert.ok(existsSync(checkpointDir));
});

test("a change whose undo checkpoint cannot be saved does not happen", async () => {
  const box = sandbox();
  writeFileSync(join(box.root, "not-a-dir"), "");
  const tools = host(box, { checkpointDir: join(box.root, "not-a-dir", "cp") });
  const write = await run(tools, "write_file", { path: "a.txt", content: "x" }, { turn: 1 });
  assert.equal(write.code, "failed");
  assert.match(write.content, /Could not save the undo checkpoint .*nothing was written/);
  assert.equal(existsSync(box.path("a.txt")), false);
  const command = await run(tools, "bash", { command: "echo ran > ran.txt" }, { turn: 1 });
  assert.equal(command.code, "failed");
  assert.match(command.content, /the command was not run/);
  assert.equal(existsSync(box.path("ran.txt")), false);
});

test("undo of a turn that edited a file and then ran a command restores the file as it was before the edit", async () => {
  const box = sandbox();
  writeFileSync(box.path("mixed.txt"), "before\n");
  const tools = host(box);
  await run(tools, "read_file", { path: "mixed.txt" }, { turn: 1 });
  await run(tools, "write_file", { path: "mixed.txt", content: "edited\n" }, { turn: 1 });
  await run(
    tools,
    "bash",
    { command: "echo bash >> mixed.txt && echo new > made.txt" },
    { turn: 1 },
  );
  assert.equal(readFileSync(box.path("mixed.txt"), "utf8"), "edited\nbash\n");
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("mixed.txt"), "utf8"), "before\n", report.text);
  assert.equal(existsSync(box.path("made.txt")), false, report.text);
});

test("undo of a turn that ran a command and then edited the same file restores the file as it was before the command", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "orig\n");
  writeFileSync(box.path("b.txt"), "b orig\n");
  const tools = host(box);
  await run(tools, "bash", { command: "echo bashed > a.txt; echo bashed > b.txt" }, { turn: 1 });
  await readAndWrite(tools, "a.txt", "written\n", 1);
  // Written back to what the command left: the snapshots see no change of b.txt by the edit.
  await readAndWrite(tools, "b.txt", "bashed\n", 1);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("a.txt"), "utf8"), "orig\n", report.text);
  assert.equal(readFileSync(box.path("b.txt"), "utf8"), "b orig\n", report.text);
});

test("a file the snapshot left out (ignored or too large) that existed before the turn is never deleted by undo", async () => {
  const box = sandbox();
  writeFileSync(box.path(".gitignore"), "secret.env\nbuild/\n");
  writeFileSync(box.path("secret.env"), "API_KEY=precious\n");
  mkdirSync(box.path("build"));
  writeFileSync(box.path("build/out.o"), "object\n");
  writeFileSync(box.path("big.log"), "L".repeat(2000));
  const tools = host(box, { snapshotLimits: { maxFileBytes: 1000 } });
  await run(
    tools,
    "bash",
    {
      command:
        "printf 'other/\\n' > .gitignore && printf 'short\\n' > big.log && echo new > made.txt",
    },
    { turn: 1 },
  );
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("secret.env"), "utf8"), "API_KEY=precious\n", report.text);
  assert.equal(readFileSync(box.path("build/out.o"), "utf8"), "object\n", report.text);
  assert.equal(readFileSync(box.path("big.log"), "utf8"), "short\n", report.text);
  assert.equal(readFileSync(box.path(".gitignore"), "utf8"), "secret.env\nbuild/\n");
  assert.equal(existsSync(box.path("made.txt")), false, report.text);
  assert.match(
    report.text,
    /Could not restore: .*big\.log \(it existed before turn 1 but the snapshot left it out/,
  );
  assert.match(report.text, /secret\.env \(it existed before turn 1/);
});
