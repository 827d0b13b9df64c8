// The command line an orchestrator (workgraph's task wrapper, a CI job) uses, through the real CLI.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

type Body = {
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ function: { name: string } }>;
};

test("--prompt-file, --system-prompt-file, --append-system-prompt, --tools read-only and --output-last-message shape one run", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("All read; nothing to change.")] });
  const box = makeSandbox();
  const task = join(box.workspace, "..", "task.md");
  const system = join(box.workspace, "..", "system.md");
  const last = join(box.workspace, "..", "last.txt");
  writeFileSync(task, "Review src/ and report.\n");
  writeFileSync(system, "You are the reviewer of task 42.");
  const result = await runNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "--prompt-file",
      task,
      "--system-prompt-file",
      system,
      "--append-system-prompt",
      "Answer in one line.",
      "--tools",
      "read-only",
      "--output-last-message",
      last,
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const body = stub.requestsTo("/v1/chat/completions")[0]?.body as Body;
  assert.deepEqual(body.messages[0], {
    role: "system",
    content: "You are the reviewer of task 42.\n\nAnswer in one line.",
  });
  assert.match(JSON.stringify(body.messages[1]), /Review src\/ and report/);
  assert.deepEqual(body.tools?.map((tool) => tool.function.name).sort(), [
    "glob",
    "grep",
    "list_dir",
    "read_file",
    "todo_write",
  ]);
  assert.equal(readFileSync(last, "utf8"), "All read; nothing to change.");
});

test("a task on stdin ('-') runs; --session-id resumes the caller's named session on the next run", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("first"), openaiText("second")] });
  const box = makeSandbox();
  const args = [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "--data-dir",
    box.dataDir,
    "--session-id",
    "task-42",
  ];
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  const child = spawn(process.execPath, [nexBin, ...args, "-"], {
    cwd: box.workspace,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin.end("remember the word heron\n");
  let stdout = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  const code = await new Promise((done) => child.on("close", done));
  assert.equal(code, 0);
  assert.equal(stdout.trim(), "first");
  const again = await runNex([...args, "what word?"], { cwd: box.workspace, env });
  await stub.close();
  assert.equal(again.code, 0, again.stderr);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as Body;
  assert.match(JSON.stringify(second.messages), /remember the word heron/);
});

test("a tool outside --disallowed-tools' remainder is refused before it runs; an unknown tool name is a clear error", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "touch made" } }),
      openaiText("Could not."),
    ],
  });
  const box = makeSandbox();
  const base = [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "--data-dir",
    box.dataDir,
    "--yes",
  ];
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  const result = await runNex([...base, "--disallowed-tools", "Bash", "make it"], {
    cwd: box.workspace,
    env,
  });
  assert.equal(result.code, 4, result.stderr);
  assert.match(result.stderr, /not available in this run/);
  const body = stub.requestsTo("/v1/chat/completions")[0]?.body as Body;
  assert.ok(!body.tools?.some((tool) => tool.function.name === "bash"));
  const unknown = await runNex([...base, "--tools", "read_file,telepathy", "x"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(unknown.code, 3);
  assert.match(unknown.stderr, /names "telepathy", which is neither a tool nor a bundle/);
});

test("an empty prompt file and a missing one are clear errors; nothing is sent", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("unused")] });
  const box = makeSandbox();
  const empty = join(box.workspace, "..", "empty.md");
  writeFileSync(empty, "  \n");
  const base = [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "--data-dir",
    box.dataDir,
  ];
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  const a = await runNex([...base, "--prompt-file", empty], { cwd: box.workspace, env });
  unlinkSync(empty);
  const b = await runNex([...base, "--prompt-file", empty], { cwd: box.workspace, env });
  const c = await runNex([...base, "--prompt-file", empty, "and words"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(a.code, 3);
  assert.match(a.stderr, /prompt file .* is empty/);
  assert.equal(b.code, 3);
  assert.match(b.stderr, /cannot be read \(ENOENT\)/);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /give the task one way/);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
});

test("the last stderr line of a text run is one machine-readable outcome: result, exit code, files changed, refusals, turns, tokens", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "a\n" } }),
      openaiText("Wrote it."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(
    [
      "run",
      "--model",
      "stub-model",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "write a",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  await stub.close();
  assert.equal(result.code, 4);
  const last = result.stderr.trimEnd().split("\n").at(-1) ?? "";
  assert.match(last, /^nex: outcome \{/);
  const outcome = JSON.parse(last.slice("nex: outcome ".length));
  assert.equal(outcome.result, "nothing_changed");
  assert.equal(outcome.exit_code, 4);
  assert.equal(outcome.files_changed, 0);
  assert.equal(outcome.refused, 1);
  assert.equal(outcome.turns, 2);
  assert.ok(outcome.input_tokens > 0 && outcome.output_tokens > 0);
  assert.match(outcome.session_id, /^\d{8}-\d{6}-[0-9a-z]{4}$/);
});
