// --output-schema, --max-time and --inbox through the real CLI against the stub endpoint.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";
import { until } from "../support/until.ts";

const SCHEMA = {
  type: "object",
  required: ["status", "files"],
  properties: {
    status: { enum: ["done", "blocked"] },
    files: { type: "array", items: { type: "string" } },
  },
  additionalProperties: false,
};

function setUpBox(url: string) {
  const box = makeSandbox();
  const schema = join(box.workspace, "..", "schema.json");
  writeFileSync(schema, JSON.stringify(SCHEMA));
  const base = [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    box.dataDir,
  ];
  return { box, schema, base, env: { ...box.env, OPENAI_API_KEY: "k" } };
}

type Body = { messages: Array<{ role: string; content: unknown }> };

test("--output-schema: the model is told the schema, a wrong answer gets one corrective retry, stdout is only the valid JSON", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiText("I am done, I changed a.ts."),
      openaiText('{"status":"done","files":["a.ts"]}'),
    ],
  });
  const { box, schema, base, env } = setUpBox(stub.url);
  const result = await runNex([...base, "--output-schema", schema, "fix it"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { status: "done", files: ["a.ts"] });
  const [first, second] = stub.requestsTo("/v1/chat/completions").map((r) => r.body as Body);
  assert.match(JSON.stringify(first?.messages.at(-1)), /valid against this JSON Schema/);
  assert.match(
    JSON.stringify(second?.messages.at(-1)),
    /does not meet the required JSON Schema: it is not JSON/,
  );
});

test("--output-schema: two answers that miss the schema end with exit 6 and say why; nothing invalid on stdout", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText('{"status":"finished"}'), openaiText('{"status":"finished","files":[]}')],
  });
  const { box, schema, base, env } = setUpBox(stub.url);
  const result = await runNex([...base, "--output-schema", schema, "fix it"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(result.code, 6);
  assert.equal(result.stdout, "");
  assert.match(
    result.stderr,
    /does not meet --output-schema after one corrective retry: \/status must be equal to one of the allowed values/,
  );
});

test("--output-schema in stream-json: the result carries structured_output; a schema that does not compile is refused before any request", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText('{"status":"blocked","files":[]}')],
  });
  const { box, schema, base, env } = setUpBox(stub.url);
  const ok = await runNex(
    [...base, "--output-format", "stream-json", "--output-schema", schema, "go"],
    {
      cwd: box.workspace,
      env,
    },
  );
  assert.equal(ok.code, 0, ok.stderr);
  const result = JSON.parse(ok.stdout.trim().split("\n").at(-1) as string);
  assert.deepEqual(result.structured_output, { status: "blocked", files: [] });
  writeFileSync(schema, '{"type":"objekt"}');
  const bad = await runNex([...base, "--output-schema", schema, "go"], { cwd: box.workspace, env });
  await stub.close();
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /does not compile as a JSON Schema/);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
});

test("--max-time: a run past its budget is stopped and exits 5, with the session saved", async () => {
  const stub = await startStubEndpoint({ scripts: [hang()] });
  const { box, base, env } = setUpBox(stub.url);
  const result = await runNex([...base, "--max-time", "2s", "take forever"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(result.code, 5, result.stderr);
  assert.match(result.stderr, /time budget of 2s \(--max-time\) is spent/);
  // Nobody interrupted it: the budget did, and the run's end says so.
  assert.doesNotMatch(result.stderr, /interrupted by the user/);
  assert.match(result.stderr, /interrupted \(the --max-time budget was spent\)/);
});

test("--max-time in --json: the last event and the saved conversation say the budget stopped the run, not the user, with exit 5 as the process", async () => {
  const stub = await startStubEndpoint({ scripts: [hang()] });
  const { box, base, env } = setUpBox(stub.url);
  const result = await runNex([...base, "--json", "--max-time", "2s", "take forever"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(result.code, 5, result.stderr);
  const events = result.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const last = events.at(-1);
  assert.equal(last?.type, "aborted");
  assert.match(String(last?.reason), /--max-time/);
  assert.equal(last?.exitCode, 5);
  const kept = events.filter((e) => e.type === "message_added").at(-1)?.message as { text: string };
  assert.match(kept.text, /the --max-time budget was spent/);
  assert.doesNotMatch(result.stdout, /interrupted by the user/);
});

test("--max-time spent while the session is still opening (a slow SessionStart hook): nothing is sent, the run ends aborted by the budget with exit 5, in text and --json", async () => {
  for (const json of [false, true]) {
    const stub = await startStubEndpoint({ scripts: [openaiText("too late")] });
    const { box, base, env } = setUpBox(stub.url);
    // The hook outlasts the budget by a second at least, whatever the machine's load.
    const config = join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json");
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(
      config,
      JSON.stringify({
        hooks: { SessionStart: [{ hooks: [{ type: "command", command: "sleep 2" }] }] },
      }),
    );
    const result = await runNex(
      [...base, ...(json ? ["--json"] : []), "--max-time", "1s", "take your time"],
      { cwd: box.workspace, env },
    );
    await stub.close();
    assert.equal(result.code, 5, result.stderr);
    assert.equal(stub.requestsTo("/v1/chat/completions").length, 0, "no request after the budget");
    assert.doesNotMatch(result.stdout + result.stderr, /too late|interrupted by the user/);
    if (json) {
      const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}");
      assert.equal(last.type, "aborted");
      assert.match(String(last.reason), /--max-time/);
    } else {
      assert.match(result.stderr, /interrupted \(the --max-time budget was spent\)/);
    }
  }
});

test("--inbox: a line added while nex runs reaches the model at the next turn boundary, workgraph's message lines (body, sender) too; bad lines and a removed inbox are reported", async () => {
  let delivered: () => void = () => {};
  const firstRequest = new Promise<void>((resolve) => {
    delivered = resolve;
  });
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let chats = 0;
  const stub = await startStubEndpoint({
    handler: async (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      chats += 1;
      if (chats === 1) {
        delivered();
        // The turn's tool runs only after the orchestrator wrote and nex saw it (see below).
        await released;
        return openaiToolCall({ name: "list_dir", args: { path: "." } });
      }
      return openaiText("Saw the message.");
    },
  });
  const { box, base, env } = setUpBox(stub.url);
  const inbox = join(box.workspace, "..", "inbox.jsonl");
  writeFileSync(inbox, '{"message":"old news, not for this run"}\n');
  const run = startNex([...base, "--inbox", inbox, "look around"], { cwd: box.workspace, env });
  await firstRequest;
  // The last line as workgraph's message files hold a `wg msg`.
  const wgMessage = {
    id: 1,
    sender: "coordinator",
    body: "rebase on main first",
    priority: "normal",
  };
  appendFileSync(
    inbox,
    `not json\n{"message":"also update the changelog"}\n${JSON.stringify(wgMessage)}\n`,
  );
  await until(() => run.stderrSoFar().includes("inbox line 2"), "the report of inbox line 2");
  unlinkSync(inbox);
  await until(() => run.stderrSoFar().includes("was removed"), "the report of the removed inbox");
  release();
  const result = await run.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(
    (stub.requestsTo("/v1/chat/completions")[1]?.body as Body | undefined)?.messages,
  );
  assert.match(second, /also update the changelog/);
  assert.match(second, /orchestrator's inbox \([^)]*inbox\.jsonl, line 3\): also update/);
  assert.match(second, /inbox\.jsonl, line 4\): \(from coordinator\) rebase on main first/);
  assert.doesNotMatch(second, /old news/);
  assert.match(result.stderr, /inbox line 2 is not a message and was skipped/);
});

test('--inbox: an urgent line ("urgent": true) cancels the running step at once and runs as the next prompt of the same session', async () => {
  let first: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    first = resolve;
  });
  const stub = await startStubEndpoint({
    handler: async (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      const body = JSON.stringify(request.body);
      if (!body.includes("urgent message")) {
        first();
        return hang();
      }
      return openaiText("Dropped the old task; fixing the build.");
    },
  });
  const { box, base, env } = setUpBox(stub.url);
  const inbox = join(box.workspace, "..", "inbox.jsonl");
  writeFileSync(inbox, "");
  const run = startNex([...base, "--inbox", inbox, "a long task"], { cwd: box.workspace, env });
  await started;
  appendFileSync(inbox, '{"message":"the build is red, fix it first","urgent":true}\n');
  const result = await run.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), "Dropped the old task; fixing the build.");
  assert.match(result.stderr, /interrupted \(an urgent message arrived in the --inbox\)/);
  const requests = stub.requestsTo("/v1/chat/completions");
  assert.equal(requests.length, 2);
  const second = JSON.stringify(requests[1]?.body);
  assert.match(
    second,
    /a long task[\s\S]*urgent message arrived[\s\S]*line 1[\s\S]*the build is red/,
  );
});
