// nex's secrets (its API key, a proxy's password) leave by no door: not through what commands print,
// not through their environment, not on `--json`, not into the journal or the checkpoint log; and
// nex's own data in the workspace never ends up in the user's commits.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";

const KEY = "sk-proj-Zq8vN3xW7kR2mP5tY9bL4cF6hJ1gD0sA3eU8iO2";
const PROXY_PASSWORD = "pr0xy-Pa55word-7731";

/** Every file under a directory, as text (git objects are compressed: a clear secret is still found). */
function filesUnder(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push({ path, text: readFileSync(path, "latin1") });
  }
  return out;
}

/** The forms in which a command could print the key: as is, base64 (alone, `user:key`), hex. */
function leakedForms(secret: string): string[] {
  const b64 = (text: string) => Buffer.from(text).toString("base64");
  return [
    secret,
    b64(secret).slice(0, 40),
    b64(`user:${secret}`).slice(8, 48),
    Buffer.from(secret).toString("hex").slice(0, 40),
  ];
}

function assertNowhere(where: string, text: string, secret: string): void {
  for (const form of leakedForms(secret)) {
    const at = text.indexOf(form);
    assert.ok(
      at < 0,
      `${where} holds the secret (as ${form.slice(0, 12)}…): ${text.slice(Math.max(0, at - 150), at + 60)}`,
    );
  }
}

/** Plays the model from a list of answers, one per model request (discovery probes get a 404). */
function model(answers: Script[], final = "done"): (request: LoggedRequest) => Script {
  let turn = 0;
  return (request) => {
    if (!request.path.endsWith("/chat/completions")) return status(404);
    return answers[turn++] ?? openaiText(final);
  };
}

/** Plays the model: one command per request, then a final answer. */
function commands(list: string[]): (request: LoggedRequest) => Script {
  return model(list.map((command) => openaiToolCall({ name: "bash", args: { command } })));
}

function runArgs(url: string, dataDir: string, ...rest: string[]): string[] {
  return [
    "run",
    "--yes",
    "--model",
    "stub-model",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    dataDir,
    ...rest,
  ];
}

test("a key the model digs out of .env, /proc or the environment reaches no request, no output, no --json line, no journal and no checkpoint", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, ".env"), `OPENAI_API_KEY=${KEY}\nDEBUG=1\n`);
  const modelCommands = [
    "cat .env",
    "grep -o 'sk-[A-Za-z0-9-]*' .env | base64",
    "printf 'user:%s' \"$(grep -o 'sk-[A-Za-z0-9-]*' .env)\" | base64 -w0",
    "grep -o 'sk-[A-Za-z0-9-]*' .env | xxd -p",
    'echo "from env: [$OPENAI_API_KEY] [$NEX_API_KEY]"; env | grep -c API_KEY || true',
    // nex's own environment block, as the kernel shows it (unsandboxed, the command's parent is nex).
    "cp /proc/$PPID/environ parent-environ; tr '\\0' '\\n' < parent-environ | grep API_KEY || echo none",
    // A command that names the key itself: its text goes to the checkpoint log and the events.
    `echo ${KEY} > /dev/null; echo named`,
  ];
  const stub = await startStubEndpoint({ handler: commands(modelCommands) });
  const result = await runNex(runArgs(stub.url, box.dataDir, "--json", "look at .env"), {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
  });
  await stub.close();
  const requests = stub.requestsTo("/v1/chat/completions");
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests.length, modelCommands.length + 1);

  // The model saw that a secret was there, by name, and never its value in any form.
  const last = requests.at(-1)?.rawBody ?? "";
  assert.match(last, /OPENAI_API_KEY=\[redacted: OPENAI_API_KEY\]/);
  assert.match(last, /from env: \[\] \[\]/);
  requests.forEach((request, turn) => {
    // The last command names the key itself: from then on the model's own call carries it, as it wrote it.
    if (turn < modelCommands.length) assertNowhere(`request ${turn}`, request.rawBody, KEY);
    for (const result of toolResults(request))
      assertNowhere(`a tool result in request ${turn}`, result, KEY);
    // Only the Authorization header carries it.
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
  });
  assertNowhere("stdout (--json)", result.stdout, KEY);
  assertNowhere("stderr", result.stderr, KEY);
  assert.match(result.stdout, /\[redacted: OPENAI_API_KEY\]/);
  for (const file of filesUnder(box.dataDir)) assertNowhere(file.path, file.text, KEY);
  // Not merely hidden from the output: nex's environment block no longer holds the key.
  const environ = readFileSync(join(box.workspace, "parent-environ"), "latin1");
  assert.ok(environ.includes("PATH="), "the command could not read its parent's environment");
  assertNowhere("/proc/<nex>/environ", environ, KEY);
  if (environ.includes("OPENAI_API_KEY="))
    assert.ok(environ.includes(`OPENAI_API_KEY=${"*".repeat(KEY.length)}\0`));
  // The user's file is untouched.
  assert.equal(
    readFileSync(join(box.workspace, ".env"), "utf8"),
    `OPENAI_API_KEY=${KEY}\nDEBUG=1\n`,
  );
});

test("a command gets the proxy without its password, and the password it could find is redacted", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), `proxy login: ${PROXY_PASSWORD}\n`);
  const stub = await startStubEndpoint({
    handler: commands([
      "env | grep -i _proxy= | sort > proxy-env.txt; cp /proc/$PPID/environ parent-environ; cat notes.txt",
    ]),
  });
  const result = await runNex(runArgs(stub.url, box.dataDir, "--json", "check the proxy"), {
    cwd: box.workspace,
    env: {
      ...box.env,
      OPENAI_API_KEY: KEY,
      // The stub is on loopback, which nex always reaches directly.
      HTTPS_PROXY: `http://alice:${PROXY_PASSWORD}@proxy.invalid:3128`,
      http_proxy: `http://alice:${encodeURIComponent(PROXY_PASSWORD)}@proxy.invalid:3128/`,
    },
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  // What the command really had in its environment: the proxy, without user or password.
  const seen = readFileSync(join(box.workspace, "proxy-env.txt"), "utf8");
  assert.match(seen, /^HTTPS_PROXY=http:\/\/proxy\.invalid:3128$/m);
  assert.match(seen, /^http_proxy=http:\/\/proxy\.invalid:3128\/$/m);
  assert.ok(!seen.includes(PROXY_PASSWORD) && !seen.includes("alice"), seen);
  // nex's own environment block keeps the proxy's host, not its password.
  const environ = readFileSync(join(box.workspace, "parent-environ"), "latin1");
  assertNowhere("/proc/<nex>/environ", environ, PROXY_PASSWORD);
  const requests = stub.requestsTo("/v1/chat/completions");
  assert.match(
    requests.at(-1)?.rawBody ?? "",
    /proxy login: \[redacted: (HTTPS|http)_proxy password\]/i,
  );
  for (const request of requests)
    assertNowhere(`request ${request.index}`, request.rawBody, PROXY_PASSWORD);
  assertNowhere("stdout (--json)", result.stdout, PROXY_PASSWORD);
  for (const file of filesUnder(box.dataDir)) assertNowhere(file.path, file.text, PROXY_PASSWORD);
});

test("with --data-dir workspace, git add -A stages the user's files and nothing of nex's journal or checkpoints", async () => {
  const box = makeSandbox();
  const git = (...args: string[]) =>
    spawnSync("git", args, {
      cwd: box.workspace,
      encoding: "utf8",
      env: { ...box.env, GIT_CONFIG_NOSYSTEM: "1" },
    });
  git("init", "-q");
  writeFileSync(join(box.workspace, "main.py"), "print('hi')\n");
  const stub = await startStubEndpoint({
    handler: model([
      openaiToolCall({ name: "write_file", args: { path: "util.py", content: "x = 1\n" } }),
      openaiToolCall({ name: "bash", args: { command: "echo y >> util.py" } }),
    ]),
  });
  const result = await runNex(runArgs(stub.url, "workspace", "add a util"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  // nex did keep its records there: a journal and checkpoints.
  const ownFiles = filesUnder(join(box.workspace, ".nex")).map((file) => file.path);
  assert.ok(
    ownFiles.some((path) => path.endsWith(".jsonl") && path.includes("sessions")),
    ownFiles.join("\n"),
  );
  assert.ok(
    ownFiles.some((path) => path.includes("checkpoints")),
    ownFiles.join("\n"),
  );
  assert.equal(git("add", "-A").status, 0);
  const staged = git("diff", "--cached", "--name-only").stdout.trim().split("\n").sort();
  assert.deepEqual(staged, ["main.py", "util.py"]);
  assert.equal(git("status", "--porcelain", "--ignored=no").stdout.includes(".nex"), false);
});
