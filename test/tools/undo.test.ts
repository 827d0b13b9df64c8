import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { undoWorkspace } from "../../src/tools/undo/index.ts";
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
    import { undoWorkspace } from ${JSON.stringify(join(import.meta.dirname, "../../src/tools/undo/index.ts"))};
    const report = await undoWorkspace({ workspace: ${JSON.stringify(box.workspace)}, checkpointDir: ${JSON.stringify(box.checkpointDir)}, turns: 1, env: process.env });
    process.stdout.write(report.text);`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
  });
  assert.equal(child.status, 0, child.stderr);
  assert.match(
    child.stdout,
    /^Restored 1 file to before turn 5: a\.txt \(modified\)\. Copies of what undo replaced or removed are kept in this session's checkpoint folder, under undone\/[^ ]+\. Note: Snapshots leave out files ignored by \.gitignore/,
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

/** Resolves once `path` exists (polled: a file another process creates). */
async function waitFor(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("a file someone else saved while a command ran is not the turn's: undo leaves it and names it, and reverts what the command named", async () => {
  const box = sandbox();
  writeFileSync(box.path("a"), "a before\n");
  writeFileSync(box.path("b"), "b before\n");
  const started = join(box.root, "started");
  const release = join(box.root, "release");
  const tools = host(box);
  // The command waits (outside the workspace) until the user's edit is done.
  const command = `touch ${started}; while [ ! -e ${release} ]; do sleep 0.05; done; echo x > a`;
  const running = run(tools, "bash", { command }, { turn: 1 });
  await waitFor(started);
  writeFileSync(box.path("b"), "the user's paragraph\n");
  writeFileSync(release, "");
  assert.equal((await running).isError, false);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("a"), "utf8"), "a before\n");
  assert.equal(readFileSync(box.path("b"), "utf8"), "the user's paragraph\n");
  assert.deepEqual(report.restored, [{ path: "a", action: "modified" }]);
  assert.match(
    report.text,
    /Left alone: b \(changed while `touch .*` ran, but that command does not name it/,
  );
});

test("a file the user changed between two commands of a turn is not the turn's", async () => {
  const box = sandbox();
  writeFileSync(box.path("notes.md"), "mine\n");
  const tools = host(box);
  await run(tools, "bash", { command: "echo one > one.txt" }, { turn: 1 });
  writeFileSync(box.path("notes.md"), "mine, edited meanwhile\n");
  await run(tools, "bash", { command: "echo two > two.txt" }, { turn: 1 });
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("notes.md"), "utf8"), "mine, edited meanwhile\n");
  assert.equal(existsSync(box.path("one.txt")), false);
  assert.equal(existsSync(box.path("two.txt")), false);
  assert.doesNotMatch(report.text, /notes\.md/);
});

test("a folder moved aside and replaced by a link to outside comes back; the link is removed, never written through", async () => {
  const box = sandbox();
  mkdirSync(box.path("src"));
  writeFileSync(box.path("src/main.ts"), "main\n");
  const outside = join(box.root, "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "theirs.txt"), "not yours\n");
  const tools = host(box);
  const out = await run(
    tools,
    "bash",
    { command: `mv src src.old && ln -s ${outside} src` },
    { turn: 1 },
  );
  assert.equal(out.isError, false, out.content);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("src/main.ts"), "utf8"), "main\n", report.text);
  assert.equal(lstatSync(box.path("src")).isDirectory(), true);
  assert.equal(existsSync(box.path("src.old")), false, report.text);
  assert.deepEqual(readdirSync(outside), ["theirs.txt"]);
  assert.equal(readFileSync(join(outside, "theirs.txt"), "utf8"), "not yours\n");
  assert.deepEqual(report.failed, []);
});

test("undo restores exact modes: a 0600 key rewritten or deleted, and files and folders after chmod -R 777", async () => {
  const box = sandbox();
  writeFileSync(box.path("id.key"), "secret\n", { mode: 0o600 });
  chmodSync(box.path("id.key"), 0o600);
  writeFileSync(box.path("gone.key"), "secret 2\n");
  chmodSync(box.path("gone.key"), 0o600);
  mkdirSync(box.path("bin"));
  writeFileSync(box.path("bin/run.sh"), "#!/bin/sh\n");
  chmodSync(box.path("bin/run.sh"), 0o755);
  writeFileSync(box.path("plain.txt"), "p\n");
  chmodSync(box.path("plain.txt"), 0o644);
  const tools = host(box);
  await run(tools, "bash", { command: "echo leaked > id.key && rm gone.key" }, { turn: 1 });
  await run(tools, "bash", { command: "chmod -R 777 ." }, { turn: 2 });
  const report = await tools.undo(2);
  const mode = (p: string) => statSync(box.path(p)).mode & 0o777;
  assert.equal(readFileSync(box.path("id.key"), "utf8"), "secret\n", report.text);
  assert.equal(mode("id.key"), 0o600);
  assert.equal(mode("gone.key"), 0o600);
  assert.equal(mode("bin/run.sh"), 0o755);
  assert.equal(mode("plain.txt"), 0o644);
  assert.equal(mode("bin"), 0o755);
  assert.doesNotMatch(report.text, /No file needed restoring/);
});

test("a name that is not UTF-8 (byte 0xff) comes back byte for byte", async () => {
  const box = sandbox();
  const name = Buffer.concat([
    Buffer.from(`${box.workspace}/`),
    Buffer.from([0xff]),
    Buffer.from(".bin"),
  ]);
  writeFileSync(name, "raw\n");
  writeFileSync(box.path("other.bin"), "other\n");
  const tools = host(box);
  await run(tools, "bash", { command: "rm -- *.bin" }, { turn: 1 });
  assert.equal(existsSync(name), false);
  const report = await tools.undo(1);
  assert.equal(readFileSync(name, "utf8"), "raw\n", report.text);
  const names = readdirSync(box.workspace, { encoding: "buffer" }).map((n) => n.toString("hex"));
  assert.deepEqual(
    names.sort(),
    [
      Buffer.from([0xff, ...Buffer.from(".bin")]).toString("hex"),
      Buffer.from("other.bin").toString("hex"),
    ].sort(),
  );
  assert.match(report.text, /\\xff\.bin \(re-created\)/);
});

test("undo takes whole prompts: one step reverts every turn of the last prompt, edits and commands alike", async () => {
  const box = sandbox();
  writeFileSync(box.path("app.ts"), "v1\n");
  const tools = host(box);
  tools.beginPrompt();
  await readAndWrite(tools, "app.ts", "v2\n", 1);
  tools.beginPrompt();
  await readAndWrite(tools, "app.ts", "v3\n", 2);
  await run(tools, "bash", { command: "echo ok > test.log" }, { turn: 3 });
  await run(tools, "write_file", { path: "app.test.ts", content: "t\n" }, { turn: 4 });
  await run(tools, "bash", { command: "echo ok >> test.log" }, { turn: 5 });
  const preview = await tools.undoPreview();
  assert.match(preview, /^1\. prompt 2: app\.test\.ts, app\.ts, test\.log\n2\. prompt 1: app\.ts$/);
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("app.ts"), "utf8"), "v2\n");
  assert.equal(existsSync(box.path("test.log")), false);
  assert.equal(existsSync(box.path("app.test.ts")), false);
  assert.deepEqual(report.prompts, [2]);
  assert.match(report.text, /^Restored 3 files to before prompt 2:/);
  await tools.undo(1);
  assert.equal(readFileSync(box.path("app.ts"), "utf8"), "v1\n");
});

test("what undo replaces or removes is copied aside first", async () => {
  const box = sandbox();
  writeFileSync(box.path("a.txt"), "old\n");
  const tools = host(box);
  await run(tools, "bash", { command: "echo new > a.txt && echo made > made.txt" }, { turn: 1 });
  const report = await tools.undo(1);
  const undone = join(box.checkpointDir, "undone");
  const [stamp] = readdirSync(undone);
  assert.equal(readFileSync(join(undone, stamp ?? "", "a.txt"), "utf8"), "new\n");
  assert.equal(readFileSync(join(undone, stamp ?? "", "made.txt"), "utf8"), "made\n");
  assert.match(report.text, /under undone\//);
});

test("undo never says nothing needed restoring when a command deleted an ignored file it cannot bring back", async () => {
  const box = sandbox();
  writeFileSync(box.path(".gitignore"), ".env\n");
  writeFileSync(box.path(".env"), "API_KEY=only-copy\n");
  const tools = host(box);
  // Approved by a person in ask mode, so it ran.
  await run(tools, "bash", { command: "rm .env" }, { turn: 1 });
  const report = await tools.undo(1);
  assert.doesNotMatch(report.text, /No file needed restoring/);
  assert.match(
    report.text,
    /Could not restore: \.env \(`rm \.env` deleted it in turn 1; it was ignored by \.gitignore, so no snapshot holds it\)/,
  );
});

test("a file the turn replaced with a folder comes back as the file", async () => {
  const box = sandbox();
  writeFileSync(box.path("config"), "key=value\n");
  const tools = host(box);
  await run(
    tools,
    "bash",
    { command: "rm config && mkdir -p config/sub && echo x > config/sub/a" },
    { turn: 1 },
  );
  const report = await tools.undo(1);
  assert.equal(readFileSync(box.path("config"), "utf8"), "key=value\n", report.text);
  assert.deepEqual(report.failed, []);
});

test("undo names an ignored file a command changed, whose earlier content no snapshot holds", async () => {
  const box = sandbox();
  writeFileSync(box.path(".gitignore"), "*.db\n");
  writeFileSync(box.path("local.db"), "rows\n");
  const tools = host(box);
  await run(tools, "bash", { command: "echo more >> local.db" }, { turn: 1 });
  const report = await tools.undo(1);
  assert.doesNotMatch(report.text, /No file needed restoring/);
  assert.match(
    report.text,
    /Could not restore: local\.db \(`echo more >> local\.db` changed it in turn 1; it is ignored/,
  );
});

test("asked to, undo also reverts what changed while a command ran that the command does not name", async () => {
  const box = sandbox();
  writeFileSync(box.path("gen.sh"), "echo generated > out.txt\n");
  const tools = host(box);
  await run(tools, "bash", { command: "sh gen.sh" }, { turn: 1 });
  assert.match(await tools.undoPreview(), /out\.txt \(not surely the turn's: left alone\)/);
  const plain = await tools.undo(1);
  assert.equal(existsSync(box.path("out.txt")), true);
  assert.match(plain.text, /Left alone: out\.txt .*nex undo --include-unsure/);
  // The step stays for what was left alone, and only for that.
  const report = await undoWorkspace({
    workspace: box.workspace,
    checkpointDir: box.checkpointDir,
    turns: 1,
    includeUnsure: true,
  });
  assert.equal(existsSync(box.path("out.txt")), false, report.text);
  assert.deepEqual(report.restored, [{ path: "out.txt", action: "deleted again" }]);
});
