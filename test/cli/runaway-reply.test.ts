// A small local model caught in a loop streams the same call as text until something stops it
// (Qwen2.5-Coder 0.5B on llama-server in bench/eval: minutes at 1.5 tokens/s, until the task's time
// ran out), or one short unit back to back (r12: `c2f6a42f9` as its answer, `"edit_file", ` inside a
// call). nex stops the stream while it loops, closing the connection so the server stops too, runs
// nothing of the cut reply, tells the model once, and ends the run on a second loop. Repetitive
// output a user asked for streams to its end.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import {
  openaiReasoningThenText,
  openaiText,
  openaiToolCall,
  type Script,
} from "../support/stub-scripts.ts";

const writeLoop = `${JSON.stringify({ name: "write_file", arguments: { path: "loop.txt", content: "x\n" } })}\n`;

/**
 * A reply that loops for a long while (thousands of small chunks, a short pause before each), ending
 * normally: a client that reads it all gets every round and a clean finish.
 */
function looping(line: string, rounds = 3000): Script {
  return openaiText(line.repeat(rounds), { chunkSize: 16, delayMs: 2 });
}

function runArgs(url: string, dataDir: string, json = false): string[] {
  return [
    "run",
    ...(json ? ["--json"] : []),
    "--yes",
    "--model",
    "m",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    dataDir,
    "go",
  ];
}

type WireMessage = { role: string; content?: unknown };
const modelRequests = (stub: StubEndpoint) => stub.requestsTo("/v1/chat/completions");
const messagesOf = (stub: StubEndpoint, n: number) =>
  (modelRequests(stub)[n]?.body as { messages: WireMessage[] } | undefined)?.messages ?? [];

/**
 * A run whose two replies both loop: it ends as an error after exactly two requests, both read only
 * until nex closed them. The stub, the run's last JSON event and its workspace.
 */
async function runTwoLoops(scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts, handler: () => openaiText("unused") });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir, true), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(modelRequests(stub).length, 2);
  assert.ok(modelRequests(stub).every((request) => request.stream?.clientLeftEarly));
  const last = JSON.parse(result.stdout.trim().split("\n").at(-1) ?? "{}") as {
    type?: string;
    message?: string;
  };
  assert.equal(last.type, "error");
  return { stub, workspace: box.workspace, message: last.message ?? "" };
}

test("a reply that loops on one call written as text is stopped while it streams (the connection closed), nothing of it runs, and the model is told once and goes on", async () => {
  const stub = await startStubEndpoint({
    scripts: [looping(writeLoop), openaiText("I will stop repeating myself.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(box.workspace, "loop.txt")), false, "nothing of the cut reply ran");
  assert.match(result.stderr, /looped \(the same write_file call 3 times in a row\)/);
  assert.match(result.stderr, /stopped the stream/);
  const [first, second] = modelRequests(stub);
  assert.equal(first?.stream?.clientLeftEarly, true, "nex closed the connection mid-stream");
  assert.ok((first?.stream?.partsWritten ?? 0) < 3000, "the server was not read to its end");
  assert.ok(second, "a second request");
  const messages = (second.body as { messages: WireMessage[] }).messages;
  const assistant = messages.find((m) => m.role === "assistant");
  assert.equal(assistant?.content, writeLoop.trim(), "history keeps the loop's first round only");
  const reminder = messages.at(-1);
  assert.equal(reminder?.role, "user");
  assert.match(
    String(reminder?.content),
    /^nex: your last reply wrote the same write_file call 3 times in a row, a loop, so nex stopped it and ran none of it/,
  );
  assert.equal(modelRequests(stub).length, 2);
});

test("after a loop nex cut, the next request waits until llama-server's /slots shows no slot busy, so it reuses the cut slot's prompt cache", async () => {
  const busy: Script = { type: "reply", status: 200, body: [{ id: 0, is_processing: true }] };
  const idle: Script = { type: "reply", status: 200, body: [{ id: 0, is_processing: false }] };
  const stub = await startStubEndpoint({
    scripts: [looping(writeLoop), openaiText("I will stop repeating myself.")],
    routes: { "GET /slots": busy },
  });
  // The server notices the closed connection a little later: idle from its second look on.
  const looks = () => stub.requestsTo("/slots").length;
  const watcher = setInterval(() => {
    if (looks() >= 1) stub.setRoute("GET /slots", idle);
  }, 5);
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  clearInterval(watcher);
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const [, second] = modelRequests(stub);
  const lastLook = stub.requestsTo("/slots").at(-1);
  assert.ok(looks() >= 2, `looked ${looks()} times`);
  assert.ok(
    second && lastLook && lastLook.index < second.index,
    "the request waited for an idle server",
  );
});

test("a second loop in the same run ends it, saying what happened and what to change: never a third request", async () => {
  const round = ["read_file", "list_dir", "grep"]
    .map((name) => JSON.stringify({ name, arguments: "path" }))
    .join("\n");
  const { workspace, message } = await runTwoLoops([
    looping(writeLoop),
    looping(`${round}\n`, 1000),
  ]);
  assert.equal(existsSync(join(workspace, "loop.txt")), false);
  assert.match(
    message,
    /looped again \(the same 3 calls \(read_file, list_dir, grep\) 2 times in a row\)/,
  );
  assert.match(message, /ran nothing of that reply, so the task is not done/);
  assert.match(message, /--repeat-penalty/);
});

test("a whole native call before the loop in the same reply does not run either: the reply did not end, and its result says so", async () => {
  const call = openaiToolCall({ name: "write_file", args: { path: "native.txt", content: "n\n" } });
  const loop = looping(writeLoop);
  assert.ok(call.type === "stream" && loop.type === "stream");
  // The call's chunks without its finish, usage and [DONE]; then the loop's text chunks.
  const parts = [...call.parts.slice(0, -3), ...loop.parts.slice(1)];
  const stub = await startStubEndpoint({
    scripts: [{ ...loop, parts }, openaiText("I will stop repeating myself.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(box.workspace, "native.txt")), false);
  assert.equal(existsSync(join(box.workspace, "loop.txt")), false);
  assert.equal(modelRequests(stub)[0]?.stream?.clientLeftEarly, true);
  const second = modelRequests(stub)[1]?.body as { messages: WireMessage[] };
  const toolResult = second.messages.find((m) => m.role === "tool");
  assert.match(String(toolResult?.content), /a loop\), so nex stopped the stream/);
  assert.match(
    String(second.messages.at(-1)?.content),
    /^nex: your last reply wrote the same write_file call/,
  );
});

test("repetitive output a user asked for streams to its end: identical CSV rows and JSON records in an answer, and a file of repeated rows written by a call", async () => {
  const rows = "2026-11-27,widget,10\n".repeat(400);
  const records = `${JSON.stringify({ name: "Alice", age: 30, tags: ["admin"] })}\n`;
  const answer = `Here is the data:\n\`\`\`csv\n${rows}\`\`\`\n${records.repeat(100)}Done.`;
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "rows.csv", content: writeLoop.repeat(200) },
      }),
      openaiText(answer, { chunkSize: 64 }),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "rows.csv"), "utf8"), writeLoop.repeat(200));
  assert.equal(result.stdout.trim(), answer);
  assert.doesNotMatch(result.stderr, /looped/);
  assert.ok(modelRequests(stub).every((request) => request.stream?.clientLeftEarly === false));
});

test("a reply of JSON calls whose stream ended before its terminator runs none of them (the same rule as a native call's)", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(writeLoop, { includeDone: false, finishReason: null, end: "destroy" })],
    handler: () => openaiText("unused"),
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(existsSync(join(box.workspace, "loop.txt")), false);
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /before its terminator/);
});

// r12 shell-hash: no call, the answer's text repeating 9 characters (3,620 characters in 8 minutes).
const hashLoop = `d6a093c989b2c89c2b64f10b4${"f6a42f9c2".repeat(3000)}`;

test("an answer repeating one short unit back to back is stopped while it streams (the connection closed); the model is told once and answers", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(hashLoop, { chunkSize: 9, delayMs: 2 }), openaiText("bacea73f5531")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), "bacea73f5531");
  assert.match(
    result.stderr,
    /looped \(the same 9 characters \("f6a42f9c2"\) \d+ times back to back\)/,
  );
  const [first] = modelRequests(stub);
  assert.equal(first?.stream?.clientLeftEarly, true, "nex closed the connection mid-stream");
  assert.ok((first?.stream?.partsWritten ?? 0) < 1000, "the server was not read to its end");
  const messages = messagesOf(stub, 1);
  const assistant = messages.find((m) => m.role === "assistant");
  assert.equal(assistant?.content, "d6a093c989b2c89c2b64f10b4f6a42f9c2", "history keeps one unit");
  assert.match(
    String(messages.at(-1)?.content),
    /^nex: your last reply wrote the same 9 characters \("f6a42f9c2"\) \d+ times back to back, a loop, so nex stopped it and ran none of it/,
  );
  assert.equal(modelRequests(stub).length, 2);
});

test("a native call whose arguments repeat one short unit is stopped too: nothing is written, its result says why, and a second loop ends the run", async () => {
  const todoLoop = `["edit_file", ${'"edit_file", '.repeat(3000)}"edit_file"]`;
  const { stub, workspace, message } = await runTwoLoops([
    openaiToolCall({
      name: "write_file",
      args: { path: "todo.json", content: todoLoop },
      chunkSize: 16,
      delayMs: 2,
    }),
    openaiText(hashLoop, { chunkSize: 9, delayMs: 2 }),
  ]);
  assert.equal(existsSync(join(workspace, "todo.json")), false, "nothing of the cut call ran");
  const messages = messagesOf(stub, 1);
  const toolResult = messages.find((m) => m.role === "tool");
  assert.match(
    String(toolResult?.content),
    /the same 15 characters \(.+\) \d+ times back to back in its write_file call's arguments \(a loop\), so nex stopped the stream/,
  );
  assert.match(
    String(messages.at(-1)?.content),
    /^nex: your last reply wrote the same 15 characters/,
  );
  assert.match(message, /looped again \(the same 9 characters/);
});

test("a file of repeated rows, rules and a padded table written by a native call, and an answer with them, stream whole", async () => {
  const table = `| id | note${" ".repeat(200)} |\n| -- | ${"-".repeat(204)} |\n${"| 0  | 0 |\n".repeat(300)}`;
  const content = `${"=".repeat(3000)}\n${table}${"0,0,0,0,0,0,0,0\n".repeat(400)}[${"0,".repeat(2000)}0]\n`;
  const answer = `Done.\n${"-".repeat(2000)}\n${table}`;
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "data.md", content }, chunkSize: 64 }),
      openaiText(answer, { chunkSize: 64 }),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "data.md"), "utf8"), content);
  assert.equal(result.stdout.trim(), answer.trim());
  assert.doesNotMatch(result.stderr, /looped/);
  assert.ok(modelRequests(stub).every((request) => request.stream?.clientLeftEarly === false));
});

test("a reasoning model thinking the same lines over and over is stopped while it streams: the connection closed, the model told once, and the run goes on", async () => {
  // QwenLM/Qwen3 #1887: Qwen3-4B on llama.cpp reconsidered one decision for 4,400 tokens.
  const line = "Wait, maybe I should check the config file again before answering.\n";
  const stub = await startStubEndpoint({
    scripts: [
      openaiReasoningThenText(Array(3000).fill(line), "The port is 8080.", { pauseMs: 2 }),
      openaiText("The port is 8080."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    result.stderr,
    /looped \(the same line \("Wait, maybe I should check the config file again [^"]*…"\) \d+ times in a row in its reasoning\)/,
  );
  const [first, second] = modelRequests(stub);
  assert.equal(first?.stream?.clientLeftEarly, true, "nex closed the connection mid-stream");
  assert.ok((first?.stream?.partsWritten ?? 0) < 3000, "the server was not read to its end");
  assert.match(
    String(messagesOf(stub, 1).at(-1)?.content),
    /^nex: your last reply wrote the same line .* in its reasoning, a loop, so nex stopped it/,
  );
  assert.ok(second, "a second request");
  assert.equal(result.stdout.trim(), "The port is 8080.");
});
