// `nex run --output-format stream-json` (and `--input-format stream-json`) through the real CLI, read
// the way an orchestrator that parses Claude Code's stream-json reads it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");
type Line = Record<string, unknown> & { type: string };

async function setUp(scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts });
  const box = makeSandbox();
  const base = ["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir];
  const env = { ...box.env, OPENAI_API_KEY: "sk-stream-json" };
  return { stub, box, base, env };
}

/** Runs nex with a stdin pipe; `feed` writes lines as stdout lines arrive, and may end stdin. */
function converse(
  args: string[],
  options: { cwd: string; env: Record<string, string> },
  feed: (line: Line, send: (value: unknown) => void, end: () => void) => void,
  opening: unknown[] = [],
  closeAfterOpening = false,
): Promise<{ code: number | null; lines: Line[]; stderr: string }> {
  const child = spawn(process.execPath, [nexBin, ...args], {
    ...options,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: Line[] = [];
  let stderr = "";
  let buffer = "";
  const send = (value: unknown) =>
    child.stdin.write(`${typeof value === "string" ? value : JSON.stringify(value)}\n`);
  const end = () => child.stdin.end();
  for (const value of opening) send(value);
  if (closeAfterOpening) end();
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    for (let at = buffer.indexOf("\n"); at >= 0; at = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, at)) as Line;
      buffer = buffer.slice(at + 1);
      lines.push(line);
      feed(line, send, end);
    }
  });
  return new Promise((done) => child.on("close", (code) => done({ code, lines, stderr })));
}

const user = (text: string) => ({ type: "user", message: { role: "user", content: text } });

test("stream-json output: system/init first, Anthropic-shaped assistant and tool_result lines, one result last", async () => {
  const { stub, box, base, env } = await setUp([
    openaiToolCall({
      name: "write_file",
      args: { path: "a.txt", content: "A\n" },
      text: "Writing.",
    }),
    openaiText("Wrote a.txt."),
  ]);
  const result = await runNex(
    [
      "run",
      ...base,
      "--yes",
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-partial-messages",
      "write a.txt",
    ],
    { cwd: box.workspace, env },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Line);
  assert.equal(lines[0]?.type, "system");
  assert.equal(lines[0]?.subtype, "init");
  assert.equal(lines[0]?.permissionMode, "bypassPermissions");
  const last = lines.at(-1) as Line;
  assert.equal(last.type, "result");
  assert.equal(last.subtype, "success");
  assert.equal(last.result, "Wrote a.txt.");
  assert.equal(last.num_turns, 2);
  assert.equal(lines.filter((l) => l.type === "result").length, 1);
  const assistant = lines.find((l) => l.type === "assistant") as unknown as {
    message: { content: Line[] };
  };
  assert.deepEqual(assistant.message.content[1], {
    type: "tool_use",
    id: "call_1",
    name: "write_file",
    input: { path: "a.txt", content: "A\n" },
  });
  const toolResult = lines.find((l) => l.type === "user") as unknown as {
    message: { content: Line[] };
  };
  assert.equal(toolResult.message.content[0]?.type, "tool_result");
  assert.equal(toolResult.message.content[0]?.tool_use_id, "call_1");
  const deltas = lines
    .filter((l) => l.type === "stream_event")
    .map((l) => l.event as { type: string; delta?: { type: string; text?: string } });
  assert.equal(deltas[0]?.type, "message_start");
  assert.equal(
    deltas
      .filter((e) => e.delta?.type === "text_delta")
      .map((e) => e.delta?.text)
      .join(""),
    "Writing.Wrote a.txt.",
  );
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "A\n");
});

test("--output-format json prints only the result object", async () => {
  const { stub, box, base, env } = await setUp([openaiText("Just this.")]);
  const result = await runNex(["run", ...base, "--output-format", "json", "say it"], {
    cwd: box.workspace,
    env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n");
  assert.equal(lines.length, 1);
  assert.equal((JSON.parse(lines[0] as string) as Line).result, "Just this.");
});

test("stream-json input: messages are turns of one session in order; bad lines and unknown control requests get clear answers", async () => {
  const { stub, box, base, env } = await setUp([
    openaiText("first answer"),
    openaiText("second answer"),
  ]);
  const run = await converse(
    ["run", ...base, "--output-format", "stream-json", "--input-format", "stream-json"],
    { cwd: box.workspace, env },
    (line, send, end) => {
      if (line.type === "result" && line.result === "first answer") {
        send(user("and the second?"));
        end();
      }
    },
    [
      { type: "control_request", request_id: "r1", request: { subtype: "initialize" } },
      "{not json",
      { type: "control_request", request_id: "r2", request: { subtype: "rewind_files" } },
      {
        type: "control_request",
        request_id: "r3",
        request: { subtype: "set_permission_mode", mode: "dontAsk" },
      },
      {
        type: "control_request",
        request_id: "r4",
        request: { subtype: "set_model", model: "other-model" },
      },
      user("first?"),
    ],
  );
  await stub.close();
  assert.equal(run.code, 0, run.stderr);
  const responses = run.lines
    .filter((l) => l.type === "control_response")
    .map((l) => l.response as Line);
  assert.deepEqual(
    responses.map((r) => [r.request_id, r.subtype]),
    [
      ["r1", "success"],
      ["r2", "error"],
      ["r3", "error"],
      ["r4", "success"],
    ],
  );
  assert.match(String(responses[1]?.error), /does not support the control request "rewind_files"/);
  assert.match(String(responses[2]?.error), /no permission mode "dontAsk"/);
  assert.match(run.stderr, /stdin line 2 is not JSON/);
  assert.ok(run.lines.some((l) => l.type === "system" && l.subtype === "input_error"));
  const results = run.lines.filter((l) => l.type === "result");
  assert.deepEqual(
    results.map((r) => r.result),
    ["first answer", "second answer"],
  );
  assert.equal(results[0]?.session_id, results[1]?.session_id);
  assert.equal(
    (stub.requestsTo("/v1/chat/completions")[0]?.body as { model: string } | undefined)?.model,
    "other-model",
  );
  // One session: the second request carries the first exchange.
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as { messages: unknown[] };
  assert.match(JSON.stringify(second.messages), /first answer/);
});

test("with --permission-prompt-tool stdio nex asks can_use_tool over the stream and runs only what was allowed", async () => {
  const { stub, box, base, env } = await setUp([
    openaiToolCall({ name: "write_file", args: { path: "ok.txt", content: "yes\n" } }),
    openaiToolCall({ name: "write_file", args: { path: "no.txt", content: "no\n" } }),
    openaiText("One written, one refused."),
  ]);
  const run = await converse(
    [
      "run",
      ...base,
      "--output-format",
      "stream-json",
      "--input-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
    ],
    { cwd: box.workspace, env },
    (line, send, end) => {
      if (line.type === "control_request") {
        const request = line.request as { input: { path: string } };
        const allow = request.input.path === "ok.txt";
        send({
          type: "control_response",
          response: {
            subtype: "success",
            request_id: line.request_id,
            response: allow
              ? { behavior: "allow", updatedInput: request.input }
              : { behavior: "deny", message: "not that one" },
          },
        });
      }
      if (line.type === "result") end();
    },
    [user("write two files")],
  );
  await stub.close();
  assert.equal(run.code, 0, run.stderr);
  assert.equal(readFileSync(join(box.workspace, "ok.txt"), "utf8"), "yes\n");
  assert.equal(existsSync(join(box.workspace, "no.txt")), false);
  const asks = run.lines.filter((l) => l.type === "control_request").map((l) => l.request as Line);
  assert.deepEqual(
    asks.map((a) => [a.subtype, a.tool_name]),
    [
      ["can_use_tool", "write_file"],
      ["can_use_tool", "write_file"],
    ],
  );
  const result = run.lines.at(-1) as Line;
  assert.deepEqual(
    (result.permission_denials as Line[]).map((d) => d.tool_input),
    [{ path: "no.txt", content: "no\n" }],
  );
});

test("stdin closing while nex waits for an approval refuses the action instead of hanging", async () => {
  const { stub, box, base, env } = await setUp([
    openaiToolCall({ name: "write_file", args: { path: "x.txt", content: "x\n" } }),
    openaiText("Could not write."),
  ]);
  const run = await converse(
    [
      "run",
      ...base,
      "--output-format",
      "stream-json",
      "--input-format",
      "stream-json",
      "--permission-prompt-tool",
      "stdio",
    ],
    { cwd: box.workspace, env },
    (line, _send, end) => {
      if (line.type === "control_request") end();
    },
    [user("write x")],
  );
  await stub.close();
  assert.equal(existsSync(join(box.workspace, "x.txt")), false);
  const result = run.lines.at(-1) as Line;
  assert.equal(result.type, "result");
  assert.match(JSON.stringify(run.lines), /closed stdin before answering/);
});

test("a flag nex cannot honour is refused before anything is sent; an empty stdin says what to send", async () => {
  const { stub, box, base, env } = await setUp([openaiText("unused")]);
  const refused = await runNex(["run", ...base, "--max-budget-usd", "2", "go"], {
    cwd: box.workspace,
    env,
  });
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /--max-budget-usd is not supported: nex knows no prices/);
  const empty = await converse(
    ["run", ...base, "--output-format", "stream-json", "--input-format", "stream-json"],
    { cwd: box.workspace, env },
    () => {},
    [],
    true,
  );
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /stdin closed before any user message/);
});

test("an endpoint that cannot be reached still ends the stream with a result line and exit 3, with stdin left open", async () => {
  const box = makeSandbox();
  const run = await converse(
    [
      "run",
      "--model",
      "m",
      "--base-url",
      "http://127.0.0.1:9/v1",
      "--data-dir",
      box.dataDir,
      "--output-format",
      "stream-json",
      "--input-format",
      "stream-json",
    ],
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
    () => {},
    [user("hello")],
  );
  assert.equal(run.code, 3, run.stderr);
  const result = run.lines.at(-1) as Line;
  assert.equal(result.type, "result");
  assert.equal(result.subtype, "error_during_execution");
  assert.match(JSON.stringify(result.errors), /127\.0\.0\.1:9/);
});

test('stream-json input: messages with priority "now" and "next" join the running prompt at its next turn boundary, steering first; the wire never has two user messages in a row', async () => {
  const { stub, box, base, env } = await setUp([
    openaiToolCall({
      name: "bash",
      // The command waits until the test has seen both messages queued: no timing guess.
      args: { command: "while [ ! -f go ]; do sleep 0.05; done; echo waited" },
    }),
    openaiText("done with both"),
  ]);
  const queued: Line[] = [];
  const run = await converse(
    ["run", ...base, "--yes", "--output-format", "stream-json", "--input-format", "stream-json"],
    { cwd: box.workspace, env },
    (line, send, end) => {
      if (line.type === "assistant" && JSON.stringify(line).includes('"tool_use"')) {
        send({ ...user("also check the README"), priority: "next" });
        send({ ...user("use tabs, not spaces"), priority: "now" });
      }
      if (line.type === "system" && line.subtype === "note_queued") {
        queued.push(line);
        if (queued.length === 2) writeFileSync(join(box.workspace, "go"), "");
      }
      if (line.type === "result") end();
    },
    [user("start")],
  );
  await stub.close();
  assert.equal(run.code, 0, run.stderr);
  const results = run.lines.filter((l) => l.type === "result");
  assert.deepEqual(
    results.map((r) => r.result),
    ["done with both"],
    "both messages joined the running prompt: no second prompt",
  );
  const delivered = run.lines.filter((l) => l.type === "system" && l.subtype === "note_delivered");
  assert.deepEqual(
    delivered.map((l) => [l.kind, l.text]),
    [
      ["steer", "use tabs, not spaces"],
      ["queued", "also check the README"],
    ],
  );
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as {
    messages: { role: string; content: unknown }[];
  };
  const roles = second.messages.map((m) => m.role);
  for (let i = 1; i < roles.length; i++)
    assert.ok(
      !(roles[i] === "user" && roles[i - 1] === "user"),
      `two user messages in a row: ${roles}`,
    );
  const toolResult = JSON.stringify(second.messages.find((m) => m.role === "tool")?.content);
  assert.match(
    toolResult,
    /waited[\s\S]*steering note[\s\S]*use tabs, not spaces[\s\S]*also check the README/,
  );
});

test('stream-json input: an urgent message ("urgent": true) cancels the running prompt, its command stopped and recorded as interrupted, and runs at once', async () => {
  const { stub, box, base, env } = await setUp([
    openaiToolCall({
      name: "bash",
      args: { command: "while [ ! -f never ]; do sleep 0.05; done; echo $((40+2))done" },
    }),
    openaiText("looking at the build"),
  ]);
  let sent = false;
  const run = await converse(
    ["run", ...base, "--yes", "--output-format", "stream-json", "--input-format", "stream-json"],
    { cwd: box.workspace, env },
    (line, send, end) => {
      if (!sent && line.type === "assistant" && JSON.stringify(line).includes('"tool_use"')) {
        sent = true;
        send({ ...user("stop: the build is red"), urgent: true });
      }
      if (line.type === "result" && line.result === "looking at the build") end();
    },
    [user("start a long job")],
  );
  await stub.close();
  const results = run.lines.filter((l) => l.type === "result");
  assert.equal(results.length, 2, run.stderr);
  assert.equal(results[0]?.is_error, true);
  assert.equal(results[1]?.result, "looking at the build");
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /interrupted[\s\S]*urgent message arrived[\s\S]*stop: the build is red/i);
  // The command never ran to its end: its output is not in the conversation.
  assert.doesNotMatch(second, /42done/);
});
