// `nex undo` after a real `nex run --yes`: it reverts what the prompt did and nothing else, never
// loses a byte, brings back modes and exact names, and `--yes` does not run what it could not undo.
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, type Sandbox, startNex } from "../support/cli.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

const bash = (command: string): Script => openaiToolCall({ name: "bash", args: { command } });

/** `nex run --yes` (or `nex resume --last`) with the stub answering `scripts` in order. */
async function runTask(
  box: Sandbox,
  scripts: Script[],
  options: { resume?: boolean; during?: () => Promise<void>; code?: number } = {},
) {
  const stub = await startStubEndpoint({ scripts });
  const base = ["--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`];
  const args = options.resume ? ["resume", "--last", ...base, "go on"] : ["run", ...base, "do it"];
  const started = startNex(args, { cwd: box.workspace, env: box.env });
  await options.during?.();
  const result = await started.done;
  await stub.close();
  assert.equal(result.code, options.code ?? 0, result.stderr);
  return { result, stub };
}

const undo = (box: Sandbox, ...args: string[]) =>
  runNex(["undo", ...args], { cwd: box.workspace, env: box.env });

const ws = (box: Sandbox, path: string) => join(box.workspace, path);

async function waitFor(path: string): Promise<void> {
  while (!existsSync(path)) await new Promise((resolve) => setTimeout(resolve, 20));
}

test("nex undo keeps a file the user saved while nex's command was running, and names it", async () => {
  const box = makeSandbox();
  writeFileSync(ws(box, "a"), "a before\n");
  writeFileSync(ws(box, "b"), "b before\n");
  await runTask(
    box,
    [
      bash("touch started; while [ ! -e release ]; do sleep 0.05; done; echo x > a"),
      openaiText("ok"),
    ],
    {
      during: async () => {
        await waitFor(ws(box, "started"));
        writeFileSync(ws(box, "b"), "the user's paragraph\n");
        writeFileSync(ws(box, "release"), "");
      },
    },
  );
  assert.equal(readFileSync(ws(box, "a"), "utf8"), "x\n");
  const undone = await undo(box);
  assert.equal(readFileSync(ws(box, "a"), "utf8"), "a before\n", undone.stdout);
  assert.equal(readFileSync(ws(box, "b"), "utf8"), "the user's paragraph\n");
  assert.match(
    undone.stdout,
    /Left alone: b \(changed while .* ran, but that command does not name it/,
  );
  assert.doesNotMatch(undone.stdout, /No file needed restoring/);
});

test("nex undo brings back a folder the command moved aside and replaced by a link, and leaves the link's target untouched", async () => {
  const box = makeSandbox();
  mkdirSync(ws(box, "src"));
  writeFileSync(ws(box, "src/main.ts"), "main\n");
  const outside = join(dirname(box.workspace), "outside");
  mkdirSync(outside);
  writeFileSync(join(outside, "theirs.txt"), "not yours\n");
  await runTask(box, [bash(`mv src src.old && ln -s ${outside} src`), openaiText("ok")]);
  assert.ok(lstatSync(ws(box, "src")).isSymbolicLink());
  const undone = await undo(box);
  assert.equal(undone.code, 0, undone.stdout + undone.stderr);
  assert.ok(lstatSync(ws(box, "src")).isDirectory(), undone.stdout);
  assert.equal(readFileSync(ws(box, "src/main.ts"), "utf8"), "main\n");
  assert.equal(existsSync(ws(box, "src.old")), false);
  assert.deepEqual(readdirSync(outside), ["theirs.txt"]);
  assert.equal(readFileSync(join(outside, "theirs.txt"), "utf8"), "not yours\n");
});

test("nex undo restores a 0600 key's mode and every mode a chmod -R 777 changed, and a name with byte 0xff", async () => {
  const box = makeSandbox();
  writeFileSync(ws(box, "id.key"), "secret\n");
  chmodSync(ws(box, "id.key"), 0o600);
  writeFileSync(ws(box, "run.sh"), "#!/bin/sh\n");
  chmodSync(ws(box, "run.sh"), 0o755);
  const raw = Buffer.concat([
    Buffer.from(`${box.workspace}/`),
    Buffer.from([0xff]),
    Buffer.from(".bin"),
  ]);
  writeFileSync(raw, "raw bytes\n");
  await runTask(box, [
    bash("rm id.key && echo new > id.key"),
    bash("chmod -R 777 ."),
    bash("rm -- *.bin"),
    openaiText("ok"),
  ]);
  assert.equal(statSync(ws(box, "run.sh")).mode & 0o777, 0o777);
  const undone = await undo(box);
  assert.equal(undone.code, 0, undone.stdout + undone.stderr);
  assert.equal(readFileSync(ws(box, "id.key"), "utf8"), "secret\n");
  assert.equal(statSync(ws(box, "id.key")).mode & 0o777, 0o600, undone.stdout);
  assert.equal(statSync(ws(box, "run.sh")).mode & 0o777, 0o755);
  assert.equal(readFileSync(raw, "utf8"), "raw bytes\n");
  assert.match(undone.stdout, /\\xff\.bin \(re-created\)/);
});

test("nex undo takes back the whole last prompt (edit, run tests, write a test, run tests), lists it first, and keeps the prompt before", async () => {
  const box = makeSandbox();
  writeFileSync(ws(box, "app.js"), "v1\n");
  await runTask(box, [
    openaiToolCall({ name: "read_file", args: { path: "app.js" } }),
    openaiToolCall({ name: "write_file", args: { path: "app.js", content: "v2\n" } }),
    openaiText("first prompt done"),
  ]);
  await runTask(
    box,
    [
      openaiToolCall({ name: "read_file", args: { path: "app.js" } }),
      openaiToolCall({ name: "write_file", args: { path: "app.js", content: "v3\n" } }),
      bash("echo pass > test.log"),
      openaiToolCall({ name: "write_file", args: { path: "app.test.js", content: "t\n" } }),
      bash("echo pass >> test.log"),
      openaiText("second prompt done"),
    ],
    { resume: true },
  );
  const listed = await undo(box, "--list");
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(
    listed.stdout,
    /1\. prompt 2: app\.js, app\.test\.js, test\.log\n2\. prompt 1: app\.js/,
  );
  // The same list for a program: a JSON array of the steps, newest first; nothing is changed.
  const json = await undo(box, "--list", "--json");
  assert.equal(json.code, 0, json.stderr);
  const steps = JSON.parse(json.stdout) as { prompt: number; paths: string[] }[];
  assert.deepEqual(
    steps.map((step) => [step.prompt, step.paths]),
    [
      [2, ["app.js", "app.test.js", "test.log"]],
      [1, ["app.js"]],
    ],
  );
  assert.equal(readFileSync(ws(box, "app.js"), "utf8"), "v3\n");
  const alone = await undo(box, "--json");
  assert.equal(alone.code, 2);
  assert.match(alone.stderr, /--json goes with --list/);
  const undone = await undo(box);
  assert.equal(undone.code, 0, undone.stdout + undone.stderr);
  assert.equal(readFileSync(ws(box, "app.js"), "utf8"), "v2\n");
  assert.equal(existsSync(ws(box, "test.log")), false);
  assert.equal(existsSync(ws(box, "app.test.js")), false);
  assert.match(undone.stdout, /Restored 3 files to before prompt 2/);
});

test("nex undo picks the last session that changed files in this workspace, not the last one opened", async () => {
  const box = makeSandbox();
  writeFileSync(ws(box, "a.txt"), "original\n");
  await runTask(box, [bash("echo changed > a.txt"), openaiText("changed it")]);
  // A later session that only looks.
  await runTask(box, [bash("cat a.txt"), openaiText("looked")]);
  const undone = await undo(box);
  assert.equal(undone.code, 0, undone.stdout + undone.stderr);
  assert.equal(readFileSync(ws(box, "a.txt"), "utf8"), "original\n", undone.stdout);
  assert.match(undone.stdout, /the last that changed files here/);
});

test("--yes does not delete an ignored .env nor clear git's stash, and the model is told why", async () => {
  const box = makeSandbox();
  writeFileSync(ws(box, ".gitignore"), ".env\n");
  writeFileSync(ws(box, ".env"), "API_KEY=the-only-copy\n");
  // Every change the model attempted was refused: the run says so with exit status 4.
  const { stub } = await runTask(
    box,
    [bash("rm .env"), bash("git stash clear"), openaiText("could not")],
    { code: 4 },
  );
  assert.equal(readFileSync(ws(box, ".env"), "utf8"), "API_KEY=the-only-copy\n");
  const requests = stub.requestsTo("/v1/chat/completions");
  const second = JSON.stringify(requests[1]?.body);
  const third = JSON.stringify(requests[2]?.body);
  assert.match(second, /\.env \(ignored by \.gitignore\).*undo could not restore it/);
  assert.match(third, /deletes stashed changes/);
  const undone = await undo(box);
  assert.doesNotMatch(undone.stdout, /No file needed restoring/);
});
